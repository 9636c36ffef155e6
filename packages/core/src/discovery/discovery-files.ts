import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
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

/** Which discovery files to write, and where. Every writer is on by default. */
export interface DiscoveryOptions {
  /** `os.tmpdir()/gemini/ide/gemini-ide-server-<PID>-<PORT>.json`, read by Gemini CLI. */
  gemini?: boolean;
  /** `$QWEN_HOME/ide/<PORT>.lock`, read by Qwen Code ≥ 0.5. */
  qwenLock?: boolean;
  /** `os.tmpdir()/gemini/ide/qwen-code-ide-server-<PID>-<PORT>.json`, read by Qwen Code 0.1. */
  qwenLegacy?: boolean;
  /** Defaults to the CLIs' `os.tmpdir()`, from this process's environment. */
  tmpDir?: string;
  /** Defaults to `$QWEN_HOME` (`~` expanded), else `~/.qwen`, as Qwen Code computes it. */
  qwenHome?: string;
  /**
   * The PID in the Gemini file's name. Defaults to what the CLI computes from a terminal whose
   * shell is a direct child of the editor (SPEC-NOTES §4).
   */
  geminiIdePid?: number;
}

export interface DiscoveryState {
  port: number;
  token: string;
  workspaceFolders: string[];
  editor: EditorInfo;
}

const WRITER_OPTION = {
  gemini: 'gemini',
  'qwen-lock': 'qwenLock',
  'qwen-legacy': 'qwenLegacy',
} as const;

/** Marks a file as Tandem's, so that a later start may sweep it once its writer is gone. */
interface TandemMark {
  tandem?: { pid?: unknown };
  ppid?: unknown;
}

/** The discovery files of one engine: written on start, rewritten on change, removed on stop. */
export class DiscoveryFiles {
  private readonly locations: DiscoveryLocations;
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
  }

  /** The PID the Gemini file is named after (and `GEMINI_CLI_IDE_PID` for terminals). */
  geminiIdePid(editorPid: number): number {
    return this.options.geminiIdePid ?? geminiIdePidFor(editorPid);
  }

  get files(): readonly string[] {
    return this.written;
  }

  /** Writes (or rewrites) every enabled file. */
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
      // Tandem's mark lets a later start sweep the file once its writer is gone.
      content: { ...discoveryContent(kind, data), tandem: { pid: process.pid } },
    }));
    for (const { path, content } of files) {
      await writeFileAtomic(path, `${JSON.stringify(content, null, 2)}\n`);
    }
    this.written = files.map(({ path }) => path);
    return [...this.written];
  }

  async remove(): Promise<void> {
    const files = this.written;
    this.written = [];
    await Promise.all(files.map((path) => rm(path, { force: true })));
  }

  /**
   * Removes the files that an earlier Tandem left behind when it died: only files carrying
   * Tandem's mark whose writer or editor is gone. Another companion's files are never touched.
   */
  async sweep(): Promise<string[]> {
    const swept: string[] = [];
    for (const dir of [this.locations.geminiIdeDir, this.locations.qwenIdeDir]) {
      const names = await readdir(dir).catch(() => [] as string[]);
      for (const name of names) {
        if (!/\.(json|lock)$/.test(name)) continue;
        const path = join(dir, name);
        const data = await readJson(path);
        if (!data?.tandem) continue;
        const writerAlive = isProcessAlive(Number(data.tandem.pid));
        const editorAlive = data.ppid === undefined || isProcessAlive(Number(data.ppid));
        if (writerAlive && editorAlive) continue;
        await rm(path, { force: true });
        swept.push(path);
      }
    }
    if (swept.length > 0) this.log.info(`removed stale discovery files: ${swept.join(', ')}`);
    return swept;
  }
}

async function readJson(path: string): Promise<TandemMark | undefined> {
  try {
    const data: unknown = JSON.parse(await readFile(path, 'utf8'));
    return typeof data === 'object' && data !== null ? (data as TandemMark) : undefined;
  } catch {
    return undefined;
  }
}
