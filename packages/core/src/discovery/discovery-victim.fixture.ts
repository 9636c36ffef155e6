// Starts an engine that a test then kills with SIGKILL; prints its discovery files.
import { Engine } from '../engine.js';

const engine = await Engine.start({
  editor: { name: 'victim', displayName: 'Victim', pid: process.pid },
  frontend: { showDiff: async () => undefined, closeDiff: async () => '' },
  workspaceFolders: [process.env.SANDBOX_WS!],
  discovery: {
    tmpDir: process.env.SANDBOX_TMP!,
    qwenHome: process.env.SANDBOX_QWEN!,
    claudeConfigDir: process.env.SANDBOX_CLAUDE!,
  },
});
process.stdout.write(`${JSON.stringify(engine.discoveryFiles)}\n`);
setInterval(() => undefined, 1000);
