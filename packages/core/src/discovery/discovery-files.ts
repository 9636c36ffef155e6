import { readdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
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
import { writeFileAtomic } from './atomic-file.js';
import { geminiIdePidFor, isProcessAlive } from './processes.js';
import { folderProblem, prepareFolder, readSmallRegularFile } from './safe-folder.js';

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

/** The discovery files of one engine: written on start, rewritten on change, removed on stop. */
export class DiscoveryFiles {
  private readonly locations: DiscoveryLocations;
  private readonly claudeConfigDir: string;
  private written: string[] = [];

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
   * Writes (or rewrites) every enabled file. Each is independent: one whose folder another user
   * could change (or that cannot be written) is skipped with a warning, the others are written.
   */
  async write(state: DiscoveryState): Promise<string[]> {
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
    const written: string[] = [];
    const folders = new Map<string, Promise<string | undefined>>();
    for (const file of files) {
      const { path } = file;
      // Tandem's mark lets a later start sweep the file once its writer is gone.
      const content = { ...file.content, tandem: { pid: process.pid } };
      const dir = dirname(path);
      if (!folders.has(dir)) folders.set(dir, prepareFolder(dir));
      const problem = await folders.get(dir);
      if (problem) {
        this.log.warn(`not writing ${path}: ${problem}; see \`tandem doctor\``);
        continue;
      }
      try {
        await writeFileAtomic(path, `${JSON.stringify(content, null, 2)}\n`);
        written.push(path);
      } catch (error) {
        this.log.warn(`could not write ${path}: ${(error as Error).message}`);
      }
    }
    // A file of an earlier write that is not written now must not linger with old data.
    const dropped = this.written.filter((path) => !written.includes(path));
    await Promise.all(dropped.map((path) => rm(path, { force: true })));
    this.written = written;
    return [...written];
  }

  async remove(): Promise<void> {
    const files = this.written;
    this.written = [];
    await Promise.all(files.map((path) => rm(path, { force: true })));
  }

  /**
   * Removes the files that an earlier Tandem left behind when it died: only files carrying
   * Tandem's mark whose writer or editor is gone. Another companion's files are never touched,
   * and only small regular files of this user are read (the folders may be shared: a FIFO or a
   * link to a device there must not stall or flood the start). Folders other users can change
   * are left alone.
   */
  async sweep(): Promise<string[]> {
    const swept: string[] = [];
    const claudeDir = claudeIdeDir(this.claudeConfigDir);
    const dirs = [this.locations.geminiIdeDir, this.locations.qwenIdeDir, claudeDir];
    for (const dir of dirs) {
      if (await folderProblem(dir)) continue;
      const names = await readdir(dir).catch(() => [] as string[]);
      for (const name of names) {
        if (!/\.(json|lock)$/.test(name)) continue;
        const path = join(dir, name);
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

function parseMark(text: string | undefined): TandemMark | undefined {
  if (text === undefined) return undefined;
  try {
    const data: unknown = JSON.parse(text);
    return typeof data === 'object' && data !== null ? (data as TandemMark) : undefined;
  } catch {
    return undefined;
  }
}
