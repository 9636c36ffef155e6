import type { EditorPort } from './editor-port.js';
import { Engine, type EngineOptions } from './engine.js';

/** The folders of a test's private world (a testkit `Sandbox` has them). */
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
