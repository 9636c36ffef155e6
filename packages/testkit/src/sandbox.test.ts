import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { Sandbox } from './sandbox.js';

describe('Sandbox.remove', () => {
  it('removes the sandbox while another process still writes files into it', async () => {
    // Files keep appearing in a folder being removed, as a CLI writes its last ones as it exits.
    const writing = `
      const { mkdirSync, writeFileSync } = require('node:fs');
      const end = Date.now() + 400;
      for (let n = 0; Date.now() < end; n++) {
        try {
          mkdirSync(process.argv[1] + '/a/b', { recursive: true });
          writeFileSync(process.argv[1] + '/a/b/' + n, 'x');
        } catch {}
      }`;
    for (let round = 0; round < 5; round++) {
      const sandbox = new Sandbox();
      const writer = spawn(process.execPath, ['-e', writing, sandbox.workspace]);
      const exited = new Promise((resolve) => writer.on('exit', resolve));
      await new Promise((resolve) => setTimeout(resolve, 100));
      // Throws (ENOTEMPTY) if a file that appeared meanwhile is left in a folder being removed.
      assert.doesNotThrow(() => sandbox.remove(), `round ${round}`);
      await exited;
      // The writer may have made its folders again after the removal: not the test's concern.
      sandbox.remove();
    }
  });
});
