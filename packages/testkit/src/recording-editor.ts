import { after, before } from 'node:test';
import {
  Engine,
  type DiffRequest,
  type EditorPort,
  type EngineOptions,
  type Logger,
} from '@tandem/core';
import { Sandbox } from './sandbox.js';

/**
 * An editor for tests of the engine: it shows every diff by remembering it, and answers
 * `closeDiff` with the proposal's text as the user left it (`edits` stands for the user's typing).
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

/** The folders of a test's private world (a `Sandbox` has them). */
export interface EngineFolders {
  workspace: string;
  tmpDir: string;
  qwenHome: string;
  claudeConfigDir: string;
}

/**
 * An engine for `editor` on `folders.workspace`, its discovery files in the test's folders
 * (`options.discovery` changes some of them).
 */
export function startEngine(
  folders: EngineFolders,
  editor: EditorPort,
  { discovery, ...options }: Partial<EngineOptions> = {},
): Promise<Engine> {
  return Engine.start({
    editor: { name: 'test-editor', displayName: 'Test Editor', pid: process.pid },
    frontend: editor,
    workspaceFolders: [folders.workspace],
    discovery: {
      tmpDir: folders.tmpDir,
      qwenHome: folders.qwenHome,
      claudeConfigDir: folders.claudeConfigDir,
      ...discovery,
    },
    ...options,
  });
}

/** What `engineForBlock` gives its block, once the block's first hook has run. */
export interface BlockEngine<E extends EditorPort> {
  sandbox: Sandbox;
  editor: E;
  engine: Engine;
}

/**
 * Registers hooks that give the enclosing `describe` a sandbox of its own, the editor `editor()`
 * makes and an engine for it there (`startEngine` with `options`); the engine is stopped and the
 * sandbox removed after the block.
 */
export function engineForBlock<E extends EditorPort>(
  editor: () => E,
  options?: Partial<EngineOptions>,
): BlockEngine<E> {
  const block = {} as BlockEngine<E>;
  before(async () => {
    block.sandbox = new Sandbox();
    block.editor = editor();
    block.engine = await startEngine(block.sandbox, block.editor, options);
  });
  after(async () => {
    await block.engine?.stop();
    block.sandbox?.remove();
  });
  return block;
}
