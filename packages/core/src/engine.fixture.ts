import type { Sandbox } from '@tandem/testkit';
import type { EditorPort } from './editor-port.js';
import { Engine, type EngineOptions } from './engine.js';

/** An engine for `editor` whose discovery files go into the sandbox. */
export function startEngine(
  sandbox: Sandbox,
  editor: EditorPort,
  options: Partial<EngineOptions> = {},
): Promise<Engine> {
  return Engine.start({
    editor: { name: 'test-editor', displayName: 'Test Editor', pid: process.pid },
    frontend: editor,
    workspaceFolders: [sandbox.workspace],
    discovery: { tmpDir: sandbox.tmpDir, qwenHome: sandbox.qwenHome },
    ...options,
  });
}
