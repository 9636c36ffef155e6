import { lstat, readdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { makePrivateFolder, privateFolderProblem } from '@tandem/command';
import {
  claudeConfigDir,
  claudeIdeDir,
  claudeLockContent,
  claudeLockPath,
} from '../clients/claude-rules.js';
import {
  discoveryContent,
  discoveryFilePath,
  discoveryLocations,
  type DiscoveryLocations,
} from '../clients/discovery-rules.js';
import type { EditorInfo } from '../editor-port.js';
import type { Logger } from '../log.js';
import { temporaryWriter, writeFileAtomic } from './atomic-file.js';
import { geminiIdePidFor, isProcessAlive } from './processes.js';
import { readSmallRegularFile } from './safe-folder.js';

/** How long after a file could not be written (a full disk, a folder to fix) it is tried again. */
const RETRY_MS = 10_000;

/** Which discovery files to write, and where. Every writer is on by default. */
export interface DiscoveryOptions {
  /** `os.tmpdir()/gemini/ide/gemini-ide-server-<PID>-<PORT>.json`, read by Gemini CLI. */
  gemini?: boolean;
  /** `$QWEN_HOME/ide/<PORT>.lock`, read by Qwen Code ≥ 0.5. */
  qwenLock?: boolean;
  /** `os.tmpdir()/gemini/ide/qwen-code-ide-server-<PID>-<PORT>.json`, read by Qwen Code 0.1. */
  qwenLegacy?: boolean;
  /** `<claudeConfigDir>/ide/<PORT>.lock` (the Claude listener's port), read by Claude Code. */
  claude?: boolean;
  /** Defaults to `$CLAUDE_CONFIG_DIR`, else `~/.claude`, as Claude Code computes it. */
  claudeConfigDir?: string;
  /** Defaults to the CLIs' `os.tmpdir()`, from this process's environment. */
  tmpDir?: string;
  /** Defaults to `$QWEN_HOME` (`~` expanded), else `~/.qwen`, as Qwen Code computes it. */
  qwenHome?: string;
  /**
   * The PID in the Gemini file's name. Defaults to what the CLI computes from a terminal whose
   * shell is a direct child of the editor (docs/clients.md, "Discovery").
   */
  geminiIdePid?: number;
  /** How long after a file could not be written it is tried again (10 s). */
  retryMs?: number;
}

export interface DiscoveryState {
  port: number;
  token: string;
  workspaceFolders: string[];
  editor: EditorInfo;
  /** The Claude Code listener's port, when there is one. */
  claudePort?: number;
}

const WRITER_OPTION = {
  gemini: 'gemini',
  'qwen-lock': 'qwenLock',
  'qwen-legacy': 'qwenLegacy',
} as const;

/** Marks a file as Tandem's, so that a later start may sweep it once its writer is gone. */
interface TandemMark {
  tandem?: { pid?: unknown };
  /** The editor's PID: `ppid` in Qwen Code's files, `pid` in Claude Code's. */
  ppid?: unknown;
  pid?: unknown;
}

/**
 * The discovery files of one engine: written on start, rewritten on change, removed on stop. A
 * file that cannot be written (a full disk, a folder another user can change) keeps its earlier
 * version, if any, and is tried again until it is written or the engine stops.
 */
export class DiscoveryFiles {
  private readonly locations: DiscoveryLocations;
  private readonly claudeConfigDir: string;
  /** Every file of this engine on disk, current or not. */
  private written: string[] = [];
  /** Why each file that is not current could not be written, as last told. */
  private readonly failures = new Map<string, string>();
  private latest: DiscoveryState | undefined;
  /** Writes one at a time: a retry, a rewrite and the removal never cross. */
  private queue: Promise<unknown> = Promise.resolve();
  private retry: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly options: DiscoveryOptions,
    private readonly log: Logger,
  ) {
    const env = {
      ...process.env,
      ...(options.tmpDir ? { TMPDIR: options.tmpDir } : {}),
      ...(options.qwenHome ? { QWEN_HOME: options.qwenHome } : {}),
    };
    this.locations = discoveryLocations(env, process.cwd());
    this.claudeConfigDir = options.claudeConfigDir ?? claudeConfigDir();
  }

  /** The PID the Gemini file is named after (and `GEMINI_CLI_IDE_PID` for terminals). */
  geminiIdePid(editorPid: number): number {
    return this.options.geminiIdePid ?? geminiIdePidFor(editorPid);
  }

  get files(): readonly string[] {
    return this.written;
  }

  /**
   * Writes (or rewrites) every enabled file, and returns those now current. Each is
   * independent: one whose folder another user could change (or that cannot be written) is
   * skipped with a warning, the others are written.
   */
  write(state: DiscoveryState): Promise<string[]> {
    this.latest = state;
    return this.enqueue(() => this.writeLatest());
  }

  async remove(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    await this.enqueue(async () => {
      const files = this.written;
      this.written = [];
      await Promise.all(files.map((path) => rm(path, { force: true })));
    });
  }

  private enqueue<T>(task: () => Promise<T>): Promise<T> {
    const done = this.queue.then(task);
    this.queue = done.catch(() => undefined);
    return done;
  }

  private async writeLatest(): Promise<string[]> {
    clearTimeout(this.retry);
    const state = this.latest;
    if (this.stopped || state === undefined) return [];
    const numbers = { pid: this.geminiIdePid(state.editor.pid), port: state.port };
    const data = {
      port: state.port,
      authToken: state.token,
      workspaceFolders: state.workspaceFolders,
      ideInfo: { name: state.editor.name, displayName: state.editor.displayName },
      editorPid: state.editor.pid,
    };
    const kinds = (['gemini', 'qwen-lock', 'qwen-legacy'] as const).filter(
      (kind) => this.options[WRITER_OPTION[kind]] !== false,
    );
    const files = kinds.map((kind) => ({
      path: discoveryFilePath(this.locations, kind, numbers),
      content: discoveryContent(kind, data),
    }));
    if (state.claudePort !== undefined && this.options.claude !== false) {
      files.push({
        path: claudeLockPath(this.claudeConfigDir, state.claudePort),
        content: claudeLockContent({
          editorPid: state.editor.pid,
          workspaceFolders: state.workspaceFolders,
          ideName: state.editor.displayName,
          authToken: state.token,
        }),
      });
    }
    const current: string[] = [];
    const folders = new Map<string, string | undefined>();
    for (const file of files) {
      const { path } = file;
      // Tandem's mark lets a later start sweep the file once its writer is gone.
      const content = { ...file.content, tandem: { pid: process.pid } };
      const dir = dirname(path);
      // Checked at each write: the folders may have changed since the last one.
      if (!folders.has(dir)) folders.set(dir, makePrivateFolder(dir));
      const problem = folders.get(dir);
      if (problem) {
        this.failed(path, `not writing ${path}: ${problem}; see \`tandem doctor\``);
        continue;
      }
      try {
        await writeFileAtomic(path, `${JSON.stringify(content, null, 2)}\n`);
      } catch (error) {
        // The file written before, if any, stays: its port and token still connect. The code
        // alone: the message names a temporary file, new at each try.
        const { code, message } = error as NodeJS.ErrnoException;
        this.failed(path, `could not write ${path}: ${code ?? message}`);
        continue;
      }
      current.push(path);
      if (!this.written.includes(path)) this.written.push(path);
      if (this.failures.delete(path)) this.log.info(`wrote ${path}`);
    }
    if (current.length < files.length) {
      this.retry = setTimeout(() => {
        void this.enqueue(() => this.writeLatest());
      }, this.options.retryMs ?? RETRY_MS).unref();
    }
    return current;
  }

  /** Warns of a file that was not written, once for each reason in a row. */
  private failed(path: string, why: string): void {
    if (this.failures.get(path) === why) return;
    this.failures.set(path, why);
    this.log.warn(why);
  }

  /**
   * Removes the files that an earlier Tandem left behind when it died: only files carrying
   * Tandem's mark whose writer or editor is gone. Another companion's files are never touched,
   * and only small regular files of this user are read (the folders may be shared: a FIFO or a
   * link to a device there must not stall or flood the start). Folders other users can change
   * are left alone. The temporary files of a Tandem that died as it wrote go too.
   */
  async sweep(): Promise<string[]> {
    const swept: string[] = [];
    const claudeDir = claudeIdeDir(this.claudeConfigDir);
    const dirs = [this.locations.geminiIdeDir, this.locations.qwenIdeDir, claudeDir];
    for (const dir of dirs) {
      if (privateFolderProblem(dir)) continue;
      const names = await readdir(dir).catch(() => [] as string[]);
      for (const name of names) {
        const path = join(dir, name);
        if (await isLeftTemporary(path, name)) {
          await rm(path, { force: true });
          swept.push(path);
          continue;
        }
        if (!/\.(json|lock)$/.test(name)) continue;
        const data = parseMark(await readSmallRegularFile(path));
        if (!data?.tandem) continue;
        const writerAlive = isProcessAlive(Number(data.tandem.pid));
        const editorPid = data.ppid ?? data.pid;
        const editorAlive = editorPid === undefined || isProcessAlive(Number(editorPid));
        if (writerAlive && editorAlive) continue;
        await rm(path, { force: true });
        swept.push(path);
      }
    }
    if (swept.length > 0) this.log.info(`removed stale discovery files: ${swept.join(', ')}`);
    return swept;
  }
}

/** A temporary file of a writer that is gone (and so will never rename it): this user's, not a link. */
async function isLeftTemporary(path: string, name: string): Promise<boolean> {
  const writer = temporaryWriter(name);
  if (writer === undefined || isProcessAlive(writer)) return false;
  const stats = await lstat(path).catch(() => undefined);
  return stats !== undefined && stats.isFile() && stats.uid === process.getuid?.();
}

function parseMark(text: string | undefined): TandemMark | undefined {
  if (text === undefined) return undefined;
  try {
    const data: unknown = JSON.parse(text);
    return typeof data === 'object' && data !== null ? (data as TandemMark) : undefined;
  } catch {
    return undefined;
  }
}
