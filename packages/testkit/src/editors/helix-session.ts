/**
 * A real Helix for tests: in a tmux pane (a real screen, real keys), with the language servers of
 * a `languages.toml` in its private configuration, every folder it could write to private. Helix
 * has no scripting a test could ask, so what it shows is read from its screen, and what it says
 * to its language servers from its own log (`-v` logs every LSP message, both ways).
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { shellQuote } from '@tandem/command';
import type { Sandbox } from '../sandbox.js';
import { waitFor } from '../wait.js';
import { editorSkipReason } from './editor-needs.js';
import { defaultEditor } from './editor-version.js';
import { startEditorPane, terminalEnv, type EditorScreen } from './tmux-editor.js';

/** Why the Helix tests cannot run here, or `false` (see `editorSkipReason`). */
export function helixSkipReason(needs: { sidecar?: boolean } = {}): string | false {
  return editorSkipReason('helix', { ...needs, tmux: true });
}

/** The Helix under test: the one `$TANDEM_HELIX` names, else Debian 13's (25.01). */
export function helixVersion(): string {
  return defaultEditor('helix').editor?.version ?? 'missing';
}

/**
 * Writes `hx` into the folder `bin`, running the Helix under test, for programs that ask it
 * (`tandem lsp --config helix` reads `hx --health`). By its full path: a root sees this PATH too.
 */
export function helixOnPath(bin: string): void {
  const found = defaultEditor('helix');
  if (!found.editor) throw new Error(found.reason);
  const command = found.editor.command('/usr/bin/hx').map((word) => shellQuote(word));
  const hx = path.join(bin, 'hx');
  writeFileSync(hx, `#!/bin/sh\nexec ${command.join(' ')} "$@"\n`);
  chmodSync(hx, 0o755);
}

/** One LSP message as Helix logged it: `sent` by Helix to a server, or `received` from one. */
export interface LspLogEntry {
  server: string;
  direction: 'sent' | 'received';
  message: {
    id?: number | string;
    method?: string;
    params?: unknown;
    result?: unknown;
    error?: { code: number; message: string };
  };
}

// `2026-11-24T11:18:21.738 helix_lsp::transport [INFO] tandem -> {"jsonrpc":"2.0",…}`
const TRANSPORT_LINE = /helix_lsp::transport \[INFO\] (\S+) (->|<-) (\{"jsonrpc".*\})$/;

export interface HelixOptions {
  /** The text of `languages.toml` (the language servers and which languages use them). */
  languages: string;
  /** Files to open at start, relative to the workspace or absolute. */
  files?: string[];
  width?: number;
  height?: number;
}

/** One Helix in a tmux pane of its own, in `sandbox.workspace`. */
export class HelixSession {
  private constructor(
    readonly sandbox: Sandbox,
    readonly pane: EditorScreen,
    /** Helix's log: its LSP traffic, and what went wrong. */
    readonly logFile: string,
  ) {}

  static async start(sandbox: Sandbox, options: HelixOptions): Promise<HelixSession> {
    const env = terminalEnv(sandbox);
    const configDir = path.join(env.XDG_CONFIG_HOME as string, 'helix');
    mkdirSync(configDir, { recursive: true });
    writeFileSync(path.join(configDir, 'languages.toml'), options.languages);
    const logFile = path.join(sandbox.root, 'helix.log');
    const found = defaultEditor('helix');
    if (!found.editor) throw new Error(found.reason);
    const tmuxDir = path.join(sandbox.root, 'tmux-helix');
    mkdirSync(tmuxDir, { recursive: true });
    const pane = await startEditorPane(sandbox, {
      dir: tmuxDir,
      // `env -u`: tmux puts TERM_PROGRAM into every pane, and the CLIs must find Helix through
      // Tandem alone.
      argv: [
        'env',
        '-u',
        'TERM_PROGRAM',
        '-u',
        'TERM_PROGRAM_VERSION',
        // By its full path: a program named hx on the PATH may be a test's (see helixOnPath).
        ...found.editor.command('/usr/bin/hx'),
        '-v',
        '--log',
        logFile,
        ...(options.files ?? []),
      ],
      env,
      width: options.width,
      height: options.height,
    });
    const helix = new HelixSession(sandbox, pane, logFile);
    await helix.waitForScreen('Helix to start', (screen) => /^ NOR /m.test(screen));
    return helix;
  }

  /** Types keys as a user would: tmux key names ('Enter', 'Escape', 'C-w') or text. */
  keys(...keys: string[]): Promise<void> {
    return this.pane.sendKeys(...keys);
  }

  /** Types text literally. */
  type(text: string): Promise<void> {
    return this.pane.type(text);
  }

  screen(): Promise<string> {
    return this.pane.capture();
  }

  /** The mode the status line shows: `NOR`, `INS` or `SEL`. */
  async mode(): Promise<string | undefined> {
    return /^ (NOR|INS|SEL) /m.exec(await this.screen())?.[1];
  }

  /** Leaves Insert or Select mode for Normal mode. */
  async normal(): Promise<void> {
    // Only when it shows: an Escape read together with the next key is Alt+key, and in
    // Normal mode nothing would show that Helix has read it.
    if ((await this.mode()) === 'NOR') return;
    await this.keys('Escape');
    await waitFor('Helix to be in Normal mode', async () =>
      (await this.mode()) === 'NOR' ? true : undefined,
    );
  }

  /** Types `:command` and Enter from Normal mode, as a user runs a typable command. */
  async command(command: string): Promise<void> {
    await this.normal();
    await this.type(`:${command}`);
    await this.waitForScreen(`the prompt to show :${command}`, (screen) =>
      screen.includes(`:${command}`),
    );
    await this.keys('Enter');
  }

  /** Polls the screen until `matches`; fails with the last screen, or at once if Helix ended. */
  async waitForScreen(
    what: string,
    matches: (screen: string) => boolean,
    timeoutMs = 30_000,
  ): Promise<string> {
    const seen = await waitFor(
      what,
      async () => {
        const screen = await this.screen();
        if (matches(screen)) return { screen };
        const ending = await this.pane.ending();
        return ending === undefined ? undefined : { ending, screen };
      },
      timeoutMs,
      100,
    ).catch(async (error: unknown) => {
      throw new Error(`${String(error)}; Helix's screen:\n${await this.screen()}`);
    });
    if ('ending' in seen) {
      throw new Error(`Helix ended (${seen.ending}) before ${what}; its screen:\n${seen.screen}`);
    }
    return seen.screen;
  }

  /** Every LSP message Helix has logged so far, oldest first. */
  lspLog(): LspLogEntry[] {
    if (!existsSync(this.logFile)) return [];
    const entries: LspLogEntry[] = [];
    for (const line of readFileSync(this.logFile, 'utf8').split('\n')) {
      const match = TRANSPORT_LINE.exec(line);
      if (!match) continue;
      entries.push({
        server: match[1] as string,
        direction: match[2] === '->' ? 'sent' : 'received',
        message: JSON.parse(match[3] as string) as LspLogEntry['message'],
      });
    }
    return entries;
  }

  /** What the language servers wrote to their stderr, as Helix logged it (JSON-quoted lines). */
  serverStderr(): string {
    if (!existsSync(this.logFile)) return '';
    const lines = readFileSync(this.logFile, 'utf8').split('\n');
    return lines.filter((line) => / err <- /.test(line)).join('\n');
  }

  /** Waits until Helix has logged a message that `matches` (given its place); returns it. */
  waitForLsp(
    what: string,
    matches: (entry: LspLogEntry, index: number) => boolean,
    timeoutMs = 30_000,
  ): Promise<LspLogEntry> {
    return waitFor(what, () => this.lspLog().find(matches), timeoutMs, 50).catch(
      (error: unknown) => {
        const tail = readFileSync(this.logFile, 'utf8').split('\n').slice(-30).join('\n');
        throw new Error(`${String(error)}; the end of Helix's log:\n${tail}`);
      },
    );
  }

  /** Whether Helix has exited (the pane's command ended). */
  async exited(): Promise<boolean> {
    return (await this.pane.ending()) !== undefined;
  }

  /** Waits until Helix has exited by itself (after `:q`). */
  waitForExit(timeoutMs = 30_000): Promise<true> {
    return waitFor(
      'Helix to exit',
      async () => ((await this.exited()) ? true : undefined),
      timeoutMs,
    );
  }

  /** Ends Helix and its pane. */
  close(): Promise<void> {
    return this.pane.stop();
  }
}
