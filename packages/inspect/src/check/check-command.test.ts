/** `tandem check`'s command line: usage errors, `--port`, and the JSON report's shape. */
import assert from 'node:assert/strict';
import { chownSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { needsRoot, Sandbox } from '@tandem/testkit';
import { BrokenCompanion } from './broken-companion.fixture.js';
import { assertUsage } from '../command-usage.fixture.js';
import { runCheck } from './check-run.fixture.js';

const NOBODY = 65534;

describe('tandem check, the command', () => {
  let sandbox: Sandbox;
  let companion: BrokenCompanion;

  before(async () => {
    sandbox = new Sandbox();
    // Its files are written where nobody looks: only --port finds it.
    companion = await BrokenCompanion.start([], {
      env: sandbox.env({ TMPDIR: sandbox.root, QWEN_HOME: sandbox.root }),
      workspace: sandbox.workspace,
    });
  });

  after(async () => {
    await companion.stop();
    sandbox.remove();
  });

  const run = (argv: string[]) => runCheck(argv, { env: sandbox.env(), cwd: sandbox.workspace });

  it('answers a usage error with status 2 and the usage', async () => {
    const help = await assertUsage('check', run, [
      ['--cli', 'vim'],
      ['--port', 'x'],
      ['--token', 't'],
      ['--port', '1', '--cwd', '.'],
      ['--time-limit', '0'],
      ['--bogus'],
    ]);
    assert.match(help, /--json prints one object \(version 1/);
  });

  it('--port checks one companion without discovery, and --json is the versioned report', async () => {
    const result = await run([
      '--port',
      String(companion.port),
      '--token',
      companion.token,
      '--json',
    ]);
    assert.equal(result.status, 0, result.stdout);
    const report = result.report!;
    assert.equal(report.version, 1);
    assert.equal(report.interactive, false);
    assert.deepEqual(report.targets, [
      { port: companion.port, chosenBy: 'port option', files: [] },
    ]);
    assert.deepEqual(
      report.sections.map((section) => section.name),
      ['Security', 'Transport', 'Sessions'],
    );
    assert.equal(report.counts.fail, 0);
    assert.ok(!JSON.stringify(report).includes(companion.token), 'the token is never printed');
  });

  it('a port where nothing answers fails with status 1', async () => {
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = server.address() as { port: number };
        server.close(() => resolve(free));
      });
    });
    const result = await run(['--port', String(port), '--cli', 'qwen']);
    assert.equal(result.status, 1);
    assert.match(
      result.stdout,
      /✗ initialize with the client's own protocol version \[Qwen Code\]/,
    );
  });

  it("another user's companion is never chosen: its Qwen lock is reported, not judged", async (t) => {
    if (!needsRoot(t)) return;
    const ide = join(sandbox.qwenHome, 'ide');
    mkdirSync(ide, { recursive: true });
    const lock = join(ide, `${companion.port}.lock`);
    writeFileSync(
      lock,
      JSON.stringify({
        port: companion.port,
        workspacePath: sandbox.workspace,
        authToken: companion.token,
        ppid: process.pid,
        ideInfo: { name: 'vscode', displayName: 'VS Code' },
      }),
    );
    chownSync(lock, NOBODY, NOBODY);
    try {
      const result = await run(['--cli', 'qwen', '--json']);
      assert.deepEqual(result.report!.targets, []);
      const lockOwner = result.report!.sections[0]!.checks.find(
        (c) => c.id === 'discovery.lock-owner',
      );
      assert.equal(lockOwner?.status, 'fail');
    } finally {
      rmSync(lock);
    }
  });

  it('with no companion for the folder, says so for each CLI', async () => {
    const result = await run(['--json']);
    assert.equal(result.status, 1);
    const found = result.report!.sections[0]!.checks.filter((c) => c.id === 'discovery.found');
    assert.deepEqual(
      found.map((c) => [c.clients, c.status]),
      [
        [['gemini'], 'fail'],
        [['qwen'], 'fail'],
      ],
    );
  });
});
