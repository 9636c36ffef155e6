import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { discoveryLocations } from '@tandem/core';
import { Sandbox } from '@tandem/testkit';
import { scanDiscoveryFiles } from './discovery-files.js';

test('a FIFO, a link to /dev/zero and a huge file in a shared folder are reported, never read', async () => {
  const sandbox = new Sandbox();
  try {
    const locations = discoveryLocations(sandbox.env(), sandbox.workspace);
    mkdirSync(locations.geminiIdeDir, { recursive: true });
    const named = (pid: number) => join(locations.geminiIdeDir, `gemini-ide-server-${pid}-1.json`);
    execFileSync('mkfifo', [named(1)]);
    symlinkSync('/dev/zero', named(2));
    writeFileSync(named(3), 'x'.repeat(1024 * 1024));
    writeFileSync(named(4), '{"port": 1}');
    const files = await scanDiscoveryFiles(locations);
    const byPid = new Map(files.map((file) => [file.namePid, file]));
    assert.match(byPid.get(1)?.error ?? '', /not a regular file/);
    assert.match(byPid.get(2)?.error ?? '', /not a regular file/);
    assert.match(byPid.get(3)?.error ?? '', /larger than/);
    assert.deepEqual(byPid.get(4)?.content, { port: 1 });
  } finally {
    sandbox.remove();
  }
});
