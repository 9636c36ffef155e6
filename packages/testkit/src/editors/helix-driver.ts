/**
 * Helix as a user drives it with `tandem lsp` as a language server: keys typed in its terminal,
 * what it shows read from its screen, what it said to Tandem read from its log.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { TANDEM } from '../bridge-editor.js';
import type { Position } from '../conformance/adapter-driver.js';
import type { Sandbox } from '../sandbox.js';
import { HelixSession, helixOnPath, type LspLogEntry } from './helix-session.js';

/** The title of Tandem's code action that sends the selection to the CLIs. */
const SEND_SELECTION = /send.*selection/i;

/** Keys that put the cursor on `position` (line and character 1-based): line, its start, right. */
function gotoKeys({ line, character }: Position): string {
  return `${line}gg` + 'gh' + (character > 1 ? `${character - 1}l` : '');
}

/** The cursor's line as the status line shows it (`LINE:COLUMN`, its last such pair). */
function cursorLine(screen: string): number | undefined {
  const status = /^ (?:NOR|INS|SEL) .*$/m.exec(screen)?.[0];
  const pairs = [...(status ?? '').matchAll(/(\d+):\d+/g)];
  const line = pairs.at(-1)?.[1];
  return line === undefined ? undefined : Number(line);
}

type LspMessage = LspLogEntry['message'];

/** A proposal Helix shows: the file Helix opened for it, as its language server asked. */
export interface ShownProposal {
  uri: string;
}

export class HelixUnderTest {
  constructor(readonly helix: HelixSession) {}

  /**
   * Starts Helix in `sandbox.workspace` with `files` open, set up as the user is told to: the
   * `languages.toml` entries that `tandem lsp --config helix text` prints (it asks Helix) for
   * the tests' `.txt` files, in Tandem's own `text` language.
   */
  static async start(sandbox: Sandbox, files: string[] = []): Promise<HelixUnderTest> {
    const bin = path.join(sandbox.root, 'bin-hx');
    mkdirSync(bin, { recursive: true });
    helixOnPath(bin);
    const languages = execFileSync(process.execPath, [TANDEM, 'lsp', '--config', 'helix', 'text'], {
      env: sandbox.env({ PATH: `${bin}:${process.env.PATH}` }),
      encoding: 'utf8',
    });
    const helix = await HelixSession.start(sandbox, { languages, files });
    return new HelixUnderTest(helix);
  }

  /** Opens the file (`:open`), which becomes the current one. */
  async openFile(filePath: string): Promise<void> {
    await this.helix.command(`open ${filePath}`);
    await this.sent('the didOpen of the file', (message) => {
      const params = message.params as { textDocument?: { uri?: string } } | undefined;
      return (
        message.method === 'textDocument/didOpen' &&
        params?.textDocument?.uri === pathToFileURL(filePath).href
      );
    });
  }

  /** Selects from `first` to `last` (both characters included) in the current file. */
  async select(first: Position, last: Position): Promise<void> {
    await this.helix.normal();
    await this.moveTo(first);
    await this.helix.type('v');
    await this.helix.waitForScreen('Select mode', (screen) => /^ SEL /m.test(screen));
    await this.moveTo(last);
  }

  /**
   * Puts the cursor on `position`, typed again until the status line shows its line: keys
   * typed right after a command may be read before Helix is ready for them (seen once in CI,
   * where the selection began on line 1). The keys move to absolute places: typing them twice
   * is harmless.
   */
  private async moveTo(position: Position): Promise<void> {
    for (let tries = 1; ; tries += 1) {
      await this.helix.type(gotoKeys(position));
      const there = await this.helix
        .waitForScreen(
          `the cursor on line ${position.line}`,
          (screen) => cursorLine(screen) === position.line,
          5_000,
        )
        .then(
          () => true,
          (error: unknown) => {
            if (tries === 5) throw error;
            return false;
          },
        );
      if (there) return;
    }
  }

  /**
   * Sends the selection (or the cursor) to the CLIs: `space a`, then Tandem's action in the menu
   * of code actions. Resolves once Helix has asked Tandem to run it.
   */
  async sendSelection(): Promise<void> {
    const before = this.helix.lspLog().length;
    await this.helix.type(' a');
    const screen = await this.helix.waitForScreen('the code actions', (s) =>
      SEND_SELECTION.test(s),
    );
    // The menu lists the actions one a line: go down to Tandem's, then take it.
    const items = screen.split('\n').filter((line) => /\S/.test(line));
    const menu = items.filter((line) => /│|┃/.test(line) || SEND_SELECTION.test(line));
    const index = menu.findIndex((line) => SEND_SELECTION.test(line));
    for (let down = 0; down < Math.max(0, index); down += 1) await this.helix.keys('C-n');
    await this.helix.keys('Enter');
    await this.sent(
      'the command of the action',
      (message) => message.method === 'workspace/executeCommand',
      before,
    );
  }

  /**
   * Waits until Helix has shown a proposal (opened the document Tandem asked it to show after
   * the first `after` messages of its log).
   */
  async proposalShown(after = 0, timeoutMs = 30_000): Promise<ShownProposal> {
    const asked = await this.received(
      'window/showDocument from Tandem',
      (message) => message.method === 'window/showDocument',
      after,
      timeoutMs,
    );
    const uri = (asked.message.params as { uri: string }).uri;
    await this.sent('the proposal opened', (message) => {
      const params = message.params as { textDocument?: { uri?: string } } | undefined;
      return message.method === 'textDocument/didOpen' && params?.textDocument?.uri === uri;
    });
    const name = decodeURIComponent(uri.slice(uri.lastIndexOf('/') + 1));
    await this.helix.waitForScreen(
      'the proposal on screen',
      (screen) => /^ NOR .*/m.exec(screen)?.[0].includes(name) ?? false,
    );
    return { uri };
  }

  /** Types `line` as a new last line of the current document, back in Normal mode. */
  async appendLine(line: string): Promise<void> {
    await this.helix.normal();
    await this.helix.type('geo');
    await this.helix.waitForScreen('Insert mode', (screen) => /^ INS /m.test(screen));
    await this.helix.type(line);
    await this.helix.normal();
  }

  /** Runs a typable command (`w`, `bc`, `q`) as a user types it. */
  command(command: string): Promise<void> {
    return this.helix.command(command);
  }

  /** Quits Helix with `:command` (`q`, `qa!`); resolves once it has exited. */
  async quit(command = 'qa'): Promise<void> {
    await this.helix.command(command);
    await this.helix.waitForExit();
  }

  close(): Promise<void> {
    return this.helix.close();
  }

  /** Waits for a message Helix sent to Tandem, after the first `after` of its log. */
  sent(what: string, matches: (message: LspMessage) => boolean, after = 0) {
    return this.logged(what, 'sent', matches, after);
  }

  /** Waits for a message Helix received from Tandem, after the first `after` of its log. */
  received(what: string, matches: (message: LspMessage) => boolean, after = 0, timeoutMs?: number) {
    return this.logged(what, 'received', matches, after, timeoutMs);
  }

  private logged(
    what: string,
    direction: LspLogEntry['direction'],
    matches: (message: LspMessage) => boolean,
    after: number,
    timeoutMs?: number,
  ) {
    return this.helix.waitForLsp(
      what,
      (entry, index) => index >= after && entry.direction === direction && matches(entry.message),
      timeoutMs,
    );
  }
}
