import assert from 'node:assert/strict';
import { chmod, chown, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { Sandbox } from '@tandem/testkit';
import { diagnose } from './diagnosis.js';

test('doctor explains a discovery folder another user can change, with its fix', async () => {
  const sandbox = new Sandbox();
  try {
    const gemini = join(sandbox.tmpDir, 'gemini', 'ide');
    const qwen = join(sandbox.qwenHome, 'ide');
    await mkdir(gemini, { recursive: true });
    await mkdir(qwen, { recursive: true });
    await chmod(qwen, 0o777);
    const asRoot = process.getuid?.() === 0;
    if (asRoot) await chown(gemini, 65534, 65534);
    else console.log('only the world-writable folder: giving one to another user needs root');
    const report = await diagnose({ dir: sandbox.workspace, env: sandbox.env(), clients: [] });
    const unsafe = report.problems.filter((p) => p.code === 'unsafe-discovery-folder');
    assert.equal(unsafe.length, asRoot ? 2 : 1, JSON.stringify(report.problems, null, 2));
    const [forQwen] = unsafe.filter((p) => p.message.startsWith(qwen));
    assert.match(forQwen!.message, /can be changed by other users \(mode 0777\)/);
    assert.match(forQwen!.fix!, new RegExp(`chmod 700 ${qwen}`));
    if (asRoot) {
      const [forGemini] = unsafe.filter((p) => p.message.startsWith(gemini));
      assert.match(forGemini!.message, /belongs to another user/);
    }
    assert.ok(unsafe.every((p) => p.severity === 'error'));
  } finally {
    await sandbox.remove();
  }
});
