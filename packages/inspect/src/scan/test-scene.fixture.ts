/**
 * Test-only: a private world of discovery data — its own TMPDIR, QWEN_HOME and HOME — with real
 * engines and hand-written discovery files, for tests of `tandem env` and `tandem doctor`.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { afterEach, beforeEach } from 'node:test';
import {
  discoveryFilePath,
  discoveryLocations,
  Engine,
  type DiscoveryKind,
  type EditorInfo,
  listenOnLoopback,
} from '@tandem/core';
import type { Command } from '@tandem/command';

export const NEOVIM: EditorInfo = { name: 'neovim', displayName: 'Neovim', pid: process.pid };

export class TestScene {
  readonly root: string;
  readonly tmpDir: string;
  readonly qwenHome: string;
  readonly home: string;
  readonly engines: Engine[] = [];

  constructor() {
    this.root = mkdtempSync(join(tmpdir(), 'tandem-scene-'));
    this.tmpDir = this.folder('tmp');
    this.qwenHome = join(this.root, 'qwen-home');
    this.home = this.folder('home');
  }

  /** The environment of a CLI (or a `tandem` command) in this scene; `extra` applied last. */
  env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
    return {
      PATH: process.env.PATH,
      TMPDIR: this.tmpDir,
      QWEN_HOME: this.qwenHome,
      HOME: this.home,
      ...extra,
    };
  }

  /** A folder under the scene's root (created with its parents). */
  folder(relative: string): string {
    const path = join(this.root, relative);
    mkdirSync(path, { recursive: true });
    return path;
  }

  /**
   * IDE mode on in both CLIs' user settings, and Qwen Code in the approval mode that shows diffs
   * (`qwenApprovalMode`; `null` leaves it to Qwen Code's default, which shows none).
   */
  enableIdeMode(qwenApprovalMode: string | null = 'default'): void {
    mkdirSync(join(this.home, '.gemini'), { recursive: true });
    writeFileSync(join(this.home, '.gemini', 'settings.json'), '{"ide": {"enabled": true}}');
    mkdirSync(this.qwenHome, { recursive: true });
    const qwen = {
      ide: { enabled: true },
      ...(qwenApprovalMode && { tools: { approvalMode: qwenApprovalMode } }),
    };
    writeFileSync(join(this.qwenHome, 'settings.json'), JSON.stringify(qwen));
  }

  /**
   * A real engine for these folders. `hidden` writes its discovery files where no CLI of the
   * scene looks (to borrow its port and token for hand-written files).
   */
  async startEngine(
    folders: string[],
    options: { hidden?: boolean; geminiIdePid?: number; editor?: EditorInfo } = {},
  ): Promise<Engine> {
    const hidden = options.hidden ? this.folder(`hidden-${this.engines.length}`) : undefined;
    const engine = await Engine.start({
      editor: options.editor ?? NEOVIM,
      frontend: { showDiff: async () => undefined, closeDiff: async () => '' },
      workspaceFolders: folders,
      discovery: {
        tmpDir: hidden ?? this.tmpDir,
        qwenHome: hidden ?? this.qwenHome,
        // Where Claude Code looks with the scene's HOME.
        claudeConfigDir: join(hidden ?? this.home, '.claude'),
        ...(options.geminiIdePid !== undefined && { geminiIdePid: options.geminiIdePid }),
      },
    });
    this.engines.push(engine);
    return engine;
  }

  tokenOf(engine: Engine): string {
    const file = engine.discoveryFiles[0];
    if (!file) throw new Error('the engine wrote no discovery file');
    return (JSON.parse(readFileSync(file, 'utf8')) as { authToken: string }).authToken;
  }

  /** The fields of a hand-written discovery file that lead to `engine` (its port and token). */
  fieldsFor(
    engine: Engine,
    workspacePath: string,
  ): { port: number; workspacePath: string; authToken: string } {
    return { port: engine.port, workspacePath, authToken: this.tokenOf(engine) };
  }

  /**
   * Gemini CLI's discovery file of `engine` whose workspace path (`workspace` and more) and editor
   * name carry what a terminal obeys: a title, a clipboard write, an erased line, then
   * `forgedLine` on a line of its own and a right-to-left override.
   */
  writeHostileFile(engine: Engine, workspace: string, forgedLine: string): string {
    const hostile = `Ed\u001b]0;owned\u0007\u001b]52;c;cm0gLXJm\u0007\r\u001b[2K\n${forgedLine}\u202e`;
    return this.writeFileFor('gemini', {
      ...this.fieldsFor(engine, `${workspace}${hostile}`),
      ideInfo: { name: 'vscode', displayName: hostile },
    });
  }

  /**
   * The discovery file that the CLI of `kind` reads, holding `content` (whose `port` names it):
   * Gemini CLI's named after `pid`, or Qwen Code's lock with `pid` as its `ppid`.
   */
  writeFileFor(
    kind: 'gemini' | 'qwen',
    content: { port: number } & Record<string, unknown>,
    pid = process.pid,
  ): string {
    return kind === 'gemini'
      ? this.writeDiscoveryFile('gemini', { pid, port: content.port }, content)
      : this.writeDiscoveryFile('qwen-lock', { port: content.port }, { ...content, ppid: pid });
  }

  /** Runs `command` in this process from `cwd`, in the scene's environment (`extra` last). */
  run(
    command: Command,
    cwd: string,
    argv: string[],
    extra: NodeJS.ProcessEnv = {},
  ): Promise<{ status: number; stdout: string; stderr: string }> {
    return runCommand(command, argv, { cwd, env: this.env(extra) });
  }

  /** A discovery file of `kind` where the scene's CLIs look, optionally dated `ageMs` ago. */
  writeDiscoveryFile(
    kind: DiscoveryKind,
    numbers: { pid?: number; port?: number },
    content: unknown,
    ageMs = 0,
  ): string {
    const locations = discoveryLocations(
      { HOME: this.home, TMPDIR: this.tmpDir, QWEN_HOME: this.qwenHome },
      this.root,
    );
    const path = discoveryFilePath(locations, kind, { pid: 0, port: 0, ...numbers });
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, JSON.stringify(content));
    if (ageMs > 0) {
      const then = new Date(Date.now() - ageMs);
      utimesSync(path, then, then);
    }
    return path;
  }

  /** Engines still serving, by whether a CLI (not a probe) is connected to them. */
  connectedPorts(): number[] {
    return this.engines
      .filter((engine) => engine.clients().some((client) => client.name !== 'tandem-probe'))
      .map((engine) => engine.port);
  }

  async dispose(): Promise<void> {
    await Promise.all(this.engines.map((engine) => engine.stop()));
    rmSync(this.root, { recursive: true, force: true });
  }
}

/** A fresh scene for every test of the file, disposed after it: call the result for it. */
export function sceneForEachTest(): () => TestScene {
  let scene: TestScene | undefined;
  beforeEach(() => {
    scene = new TestScene();
  });
  afterEach(async () => {
    await scene?.dispose();
  });
  return () => {
    if (!scene) throw new Error('the scene exists only while a test runs');
    return scene;
  };
}

/** The PID of a process that has exited. */
export async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((resolve) => child.on('exit', resolve));
  if (child.pid === undefined) throw new Error('could not start a process');
  return child.pid;
}

/** A port that nothing listens on (it was free a moment ago). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await listenOnLoopback(server);
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Runs a command in this process with a private environment; returns what it printed. */
export async function runCommand(
  command: Command,
  argv: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<{ status: number; stdout: string; stderr: string }> {
  const stdout = new TextSink();
  const stderr = new TextSink();
  const status = await command(argv, {
    stdin: Readable.from([]),
    stdout,
    stderr,
    env: options.env,
    cwd: options.cwd,
  });
  return { status, stdout: stdout.text, stderr: stderr.text };
}

class TextSink extends Writable {
  text = '';

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.text += chunk.toString('utf8');
    done();
  }
}
