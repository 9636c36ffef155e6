import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before } from 'node:test';

/** Variables a test process may have inherited that would change what an editor or a CLI finds. */
const INHERITED_REMOVED = [
  /^GEMINI_CLI_IDE_/,
  /^QWEN_CODE_IDE_/,
  /^CLAUDE_CODE_SSE_PORT$/,
  /^CLAUDE_CONFIG_DIR$/,
  /^XDG_/,
  /^TERM_PROGRAM/,
  /^NVIM/,
];

/** The port of `useClaudeCode`'s other companion: reserved (tcpmux), so nothing answers there. */
const OTHER_COMPANION_PORT = 1;

/** How often, and how far apart, `Sandbox.remove` tries while files still appear: 5 s in all. */
const REMOVE_TRIES = 50;
const REMOVE_RETRY_MS = 100;

export interface SandboxOptions {
  /**
   * TMPDIR is a link to the folder it names, as macOS's temporary folder is reached
   * (`/var` → `/private/var`): programs that name files by their real path name another.
   */
  tmpDirThroughLink?: boolean;
}

/**
 * The private folders of one test: a workspace, a TMPDIR (where Gemini CLI looks for discovery
 * files), a QWEN_HOME, a CLAUDE_CONFIG_DIR and a HOME. Every editor, sidecar and CLI of the test writes only here.
 */
export class Sandbox {
  readonly root: string;
  readonly workspace: string;
  readonly tmpDir: string;
  readonly qwenHome: string;
  /** Claude Code's `CLAUDE_CONFIG_DIR`: its lock files go in `ide/` there. */
  readonly claudeConfigDir: string;
  readonly home: string;

  constructor(prefix = 'tandem-test-', options: SandboxOptions = {}) {
    this.root = realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
    this.workspace = path.join(this.root, 'workspace');
    this.tmpDir = path.join(this.root, 'tmp');
    this.qwenHome = path.join(this.root, 'qwen');
    this.claudeConfigDir = path.join(this.root, 'claude');
    this.home = path.join(this.root, 'home');
    const realTmpDir = options.tmpDirThroughLink ? path.join(this.root, 'real-tmp') : this.tmpDir;
    for (const dir of [this.workspace, realTmpDir, this.qwenHome, this.home]) {
      mkdirSync(dir, { recursive: true });
    }
    if (options.tmpDirThroughLink) symlinkSync(realTmpDir, this.tmpDir);
  }

  /**
   * A Claude Code user whose settings start it in permission mode `mode` (its user settings in
   * CLAUDE_CONFIG_DIR): Tandem then counts Claude Code as installed, and `acceptEdits` is a
   * mode that shows no diffs, so the frontends show Claude Code's warning. `diffTool: 'terminal'`
   * (in its state file) shows every diff in its terminal: a warning too. `otherCompanion` plants
   * a live lock of another companion on the workspace, named as that editor names itself (e.g.
   * `Visual Studio Code`, `Neovim`, `Emacs`), in `~/.claude/ide` (which Claude Code lists as well
   * when CLAUDE_CONFIG_DIR is set; `discoveryFiles` does not). Its `pid` is this test process's,
   * and nothing listens on its port.
   */
  useClaudeCode(
    mode: string,
    options: { diffTool?: 'terminal'; otherCompanion?: string } = {},
  ): void {
    mkdirSync(this.claudeConfigDir, { recursive: true });
    writeFileSync(
      path.join(this.claudeConfigDir, 'settings.json'),
      JSON.stringify({ permissions: { defaultMode: mode } }),
    );
    if (options.diffTool) {
      writeFileSync(
        path.join(this.claudeConfigDir, '.claude.json'),
        JSON.stringify({ diffTool: options.diffTool }),
      );
    }
    if (options.otherCompanion) {
      const ideDir = path.join(this.home, '.claude', 'ide');
      mkdirSync(ideDir, { recursive: true, mode: 0o700 });
      const lock = {
        pid: process.pid,
        workspaceFolders: [this.workspace],
        ideName: options.otherCompanion,
        transport: 'ws',
        authToken: 'planted-by-the-test',
      };
      writeFileSync(path.join(ideDir, `${OTHER_COMPANION_PORT}.lock`), JSON.stringify(lock), {
        mode: 0o600,
      });
    }
  }

  /** Every discovery file written here: Gemini CLI's folder, Qwen Code's, Claude Code's. */
  discoveryFiles(): string[] {
    const dirs = [
      path.join(this.tmpDir, 'gemini', 'ide'),
      path.join(this.qwenHome, 'ide'),
      path.join(this.claudeConfigDir, 'ide'),
    ];
    return dirs.flatMap((dir) =>
      existsSync(dir) ? readdirSync(dir).map((name) => path.join(dir, name)) : [],
    );
  }

  /**
   * The environment of a process (an editor, its sidecar, its terminals) that writes only here:
   * this process's own, less what would steer discovery, with private HOME, TMPDIR, QWEN_HOME
   * and XDG folders. `extra` is applied last.
   */
  env(extra: Record<string, string> = {}): Record<string, string> {
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(process.env)) {
      if (value !== undefined && !INHERITED_REMOVED.some((pattern) => pattern.test(name))) {
        env[name] = value;
      }
    }
    const xdg = path.join(this.root, 'xdg');
    return {
      ...env,
      HOME: this.home,
      TMPDIR: this.tmpDir,
      QWEN_HOME: this.qwenHome,
      CLAUDE_CONFIG_DIR: this.claudeConfigDir,
      XDG_CONFIG_HOME: path.join(xdg, 'config'),
      XDG_DATA_HOME: path.join(xdg, 'data'),
      XDG_STATE_HOME: path.join(xdg, 'state'),
      XDG_CACHE_HOME: path.join(xdg, 'cache'),
      XDG_RUNTIME_DIR: path.join(xdg, 'runtime'),
      ...extra,
    };
  }

  /**
   * Removes everything; tries again for a while when a file appears meanwhile (ENOTEMPTY): a CLI
   * in an editor's terminal that was just closed may still write its last files as it exits.
   */
  remove(): void {
    // rmSync's own retries remove the folder again, never a file written into it meanwhile.
    for (let attempt = 1; ; attempt++) {
      try {
        rmSync(this.root, { recursive: true, force: true });
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOTEMPTY' || attempt === REMOVE_TRIES) {
          throw error;
        }
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, REMOVE_RETRY_MS);
      }
    }
  }
}

/**
 * Runs `body` with what `start` starts (an editor session, say) in a sandbox of its own; closes
 * it and removes the sandbox afterwards, whatever happens.
 */
export async function inOwnSandbox<T extends { close(): Promise<void> }>(
  start: (sandbox: Sandbox) => Promise<T>,
  body: (started: T) => Promise<void>,
): Promise<void> {
  const sandbox = new Sandbox();
  try {
    const started = await start(sandbox);
    try {
      await body(started);
    } finally {
      await started.close();
    }
  } finally {
    sandbox.remove();
  }
}

/** What {@link suiteInSandbox} sets up for the tests of a suite. */
export interface SuiteScene<T> {
  sandbox: Sandbox;
  started: T;
}

/**
 * For the suite being declared: before its tests, a sandbox whose workspace holds `files` (name
 * to text) and what `start` starts there (an editor session, say); after them, that closed and
 * the sandbox removed. The tests read the returned scene.
 */
export function suiteInSandbox<T extends { close(): Promise<void> }>(
  files: Record<string, string>,
  start: (sandbox: Sandbox) => Promise<T>,
): SuiteScene<T> {
  const scene = {} as Partial<SuiteScene<T>>;
  before(async () => {
    const sandbox = new Sandbox();
    scene.sandbox = sandbox;
    for (const [name, text] of Object.entries(files)) {
      writeFileSync(path.join(sandbox.workspace, name), text);
    }
    scene.started = await start(sandbox);
  });
  after(async () => {
    await scene.started?.close();
    scene.sandbox?.remove();
  });
  return scene as SuiteScene<T>;
}
