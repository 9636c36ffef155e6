import { Engine, type EditorPort } from '@tandem/core';
import type { Sandbox } from '@tandem/testkit';

/** The engine in the benchmark's process, as an in-process frontend hosts it, in `sandbox`. */
export function startBenchEngine(sandbox: Sandbox, frontend: EditorPort): Promise<Engine> {
  return Engine.start({
    editor: { name: 'bench', displayName: 'Bench', pid: process.pid },
    workspaceFolders: [sandbox.workspace],
    discovery: {
      tmpDir: sandbox.tmpDir,
      qwenHome: sandbox.qwenHome,
      claudeConfigDir: sandbox.claudeConfigDir,
    },
    frontend,
  });
}
