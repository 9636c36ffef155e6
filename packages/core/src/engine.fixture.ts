import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  startRealClient,
  type ClientKind,
  type RealClient,
} from '../../real-clients/src/real-client.js';
import type { DiffRequest, EditorPort } from './editor-port.js';
import { Engine, type EngineOptions } from './engine.js';
import type { Logger } from './log.js';

/**
 * An editor for tests: it shows every diff by remembering it, and answers `closeDiff` with the
 * proposal's text as the user left it (`edits` stands for the user's typing).
 */
export class RecordingEditor implements EditorPort {
  readonly shown = new Map<string, DiffRequest>();
  readonly closed: string[] = [];
  readonly edits = new Map<string, string>();
  clients: { name: string }[] = [];
  refuse: string | undefined;

  async showDiff(diff: DiffRequest): Promise<void> {
    if (this.refuse) throw new Error(this.refuse);
    this.shown.set(diff.id, diff);
  }

  async closeDiff(id: string): Promise<string> {
    this.closed.push(id);
    return this.edits.get(id) ?? this.shown.get(id)?.newContent ?? '';
  }

  clientsChanged(clients: { name: string }[]): void {
    this.clients = clients;
  }

  /** The one diff shown for `filePath`. */
  diffFor(filePath: string): DiffRequest | undefined {
    return [...this.shown.values()].find((diff) => diff.filePath === filePath);
  }
}

/** Private folders for one test: a workspace, a TMPDIR and a QWEN_HOME. */
export async function makeSandbox() {
  const root = await mkdtemp(join(tmpdir(), 'tandem-test-'));
  const { mkdir } = await import('node:fs/promises');
  const dirs = {
    root,
    workspace: join(root, 'workspace'),
    tmpDir: join(root, 'tmp'),
    qwenHome: join(root, 'qwen'),
    home: join(root, 'home'),
  };
  await Promise.all([dirs.workspace, dirs.tmpDir, dirs.qwenHome, dirs.home].map((d) => mkdir(d)));
  return { ...dirs, remove: () => rm(root, { recursive: true, force: true }) };
}

export type Sandbox = Awaited<ReturnType<typeof makeSandbox>>;

/** A real client of `kind` in the sandbox: its workspace as the cwd, its private folders. */
export function realClientIn(sandbox: Sandbox, kind: ClientKind): Promise<RealClient> {
  const { workspace: cwd, tmpDir, qwenHome, home } = sandbox;
  return startRealClient({ kind, cwd, tmpDir, qwenHome, home });
}

/** A logger that keeps what it is told, for assertions on warnings. */
export function memoryLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    info: (message) => lines.push(`info: ${message}`),
    warn: (message) => lines.push(`warn: ${message}`),
    error: (message) => lines.push(`error: ${message}`),
  };
}

export function startEngine(
  sandbox: Sandbox,
  editor: EditorPort,
  options: Partial<EngineOptions> = {},
): Promise<Engine> {
  return Engine.start({
    editor: { name: 'test-editor', displayName: 'Test Editor', pid: process.pid },
    port: editor,
    workspaceFolders: [sandbox.workspace],
    discovery: { tmpDir: sandbox.tmpDir, qwenHome: sandbox.qwenHome },
    ...options,
  });
}
