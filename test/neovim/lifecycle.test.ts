/**
 * Tandem's life in real Neovim: the sidecar's environment reaching terminals, :Tandem,
 * :TandemStatus, :checkhealth, the status line, :TandemStop / :TandemStart, and failures.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, afterEach, before, describe, test } from 'node:test';
import {
  neovimEnv,
  neovimForBlock,
  NeovimSession,
  neovimSkipReason,
  needShell,
  processEnvironment,
  realClientIn,
  REPO_ROOT,
  Sandbox,
  startRealClient,
  waitFor,
  type RealClient,
} from '@tandem/testkit';

const skip = neovimSkipReason({ sidecar: true });

/** Waits for a file a terminal job writes, and returns its text. */
function fileText(file: string): Promise<string> {
  return waitFor(`${path.basename(file)} to be written`, () => {
    const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
    return text.endsWith('\n') ? text : undefined;
  });
}

interface Warning {
  code: string;
  cli?: string;
  message: string;
  fix?: string;
}

/**
 * The lines of the report `:checkhealth tandem` writes in its own buffer (run after `before`,
 * Lua in the same call), that buffer then wiped out.
 */
async function healthReport(session: NeovimSession, before = ''): Promise<string[]> {
  const health = await session.lua<{ filetype: string; lines: string[] }>(`
    ${before}
    vim.cmd('checkhealth tandem')
    return { filetype = vim.bo.filetype, lines = vim.api.nvim_buf_get_lines(0, 0, -1, false) }
  `);
  assert.equal(health.filetype, 'checkhealth', health.lines.join('\n'));
  await session.command('bwipeout');
  return health.lines;
}

describe('Tandem running in Neovim', { skip }, () => {
  let sandbox: Sandbox;
  let session: NeovimSession;
  let gemini: RealClient | undefined;

  before(async () => {
    sandbox = new Sandbox();
    // Claude Code writes without asking, shows its diffs in its terminal, and claudecode.nvim
    // (whose lock names its editor "Neovim") serves the folder too: all three of its warnings.
    sandbox.useClaudeCode('acceptEdits', { diffTool: 'terminal', otherCompanion: 'Neovim' });
    session = await NeovimSession.start(sandbox, {
      tandem: `{ terminal = { clis = {
        probe = { 'sh', '-c', 'printenv QWEN_CODE_IDE_SERVER_PORT > cli.out' },
        certificates = { 'sh', '-c', 'printenv NODE_EXTRA_CA_CERTS > cli-certificates.out' },
      } } }`,
    });
  });

  after(async () => {
    await gemini?.kill();
    await session?.close();
    sandbox?.remove();
  });

  test('starts with the editor: the sidecar runs, its discovery files exist', async () => {
    const status = await session.status();
    assert.equal(status.state, 'running');
    assert.ok(status.port && status.port > 0);
    assert.ok(status.discovery_files.length >= 2);
    for (const file of status.discovery_files) assert.ok(existsSync(file), file);
    const gemini = status.discovery_files.find((file) => file.includes('gemini-ide-server-'));
    const data = JSON.parse(readFileSync(gemini ?? '', 'utf8')) as {
      port: number;
      workspacePath: string;
      ideInfo: { name: string; displayName: string };
    };
    assert.equal(data.port, status.port);
    assert.equal(data.workspacePath, sandbox.workspace);
    assert.deepEqual(data.ideInfo, { name: 'neovim', displayName: 'Neovim' });
    const lock = status.discovery_files.find((file) => file.endsWith('.lock'));
    const qwen = JSON.parse(readFileSync(lock ?? '', 'utf8')) as { ppid: number };
    assert.equal(qwen.ppid, await session.lua<number>('return vim.fn.getpid()'));
  });

  test("the engine's warnings, Claude Code's three among them, are in :TandemStatus and :checkhealth, with their fixes", async () => {
    const { warnings } = await session.lua<{ warnings: Warning[] }>(
      `return require('tandem').status()`,
    );
    const find = (code: string, cli: string) => {
      const found = warnings.find((w) => w.code === code && w.cli === cli);
      assert.ok(found?.fix, `${code} (${cli}) in ${JSON.stringify(warnings)}`);
      return { message: found.message, fix: found.fix };
    };
    // The sandbox's settings leave IDE mode off.
    const ideModeOff = find('ide-mode-off', 'gemini');
    const claudeWrites = find('no-diffs', 'claude');
    const terminalDiffs = find('terminal-diffs', 'claude');
    assert.match(terminalDiffs.fix, /Type \/config in Claude Code/);
    const otherCompanion = find('shared-folder', 'claude');
    assert.ok(otherCompanion.message.includes(`: Neovim (PID ${process.pid}, port 1,`));
    assert.match(otherCompanion.fix, /stop claudecode\.nvim there \(:ClaudeCodeStop\)/);

    const printed = await session.lua<string>(`return vim.fn.execute('TandemStatus')`);
    for (const warning of warnings) {
      assert.ok(printed.includes(`Warning: ${warning.message} ${warning.fix ?? ''}`.trim()));
    }
    const report = await healthReport(session);
    for (const warning of [ideModeOff, claudeWrites, terminalDiffs, otherCompanion]) {
      // The message as a warning, its fix as the advice under it.
      const at = report.findIndex((line) => line.includes(warning.message));
      assert.match(report[at] ?? '', /WARNING:? /, report.join('\n'));
      assert.match(report[at + 1] ?? '', /- ADVICE:$/, report.join('\n'));
      assert.ok(report[at + 2]?.endsWith(`- ${warning.fix}`), report.join('\n'));
    }
  });

  test("the sidecar's environment is Neovim's, so a terminal opened later inherits it", async () => {
    const status = await session.status();
    const port = String(status.port);
    assert.equal(status.env['GEMINI_CLI_IDE_SERVER_PORT'], port);
    assert.equal(await session.lua('return vim.env.QWEN_CODE_IDE_SERVER_PORT'), port);
    const out = path.join(sandbox.workspace, 'terminal.out');
    await session.command(
      `terminal printenv GEMINI_CLI_IDE_SERVER_PORT QWEN_CODE_IDE_SERVER_PORT > ${out}`,
    );
    assert.equal(await fileText(out), `${port}\n${port}\n`);
  });

  test(':Tandem opens the CLI in a terminal split that connects here', async () => {
    const before = await session.lua<number>('return #vim.api.nvim_tabpage_list_wins(0)');
    await session.command('Tandem probe');
    assert.equal(
      await fileText(path.join(sandbox.workspace, 'cli.out')),
      `${(await session.status()).port}\n`,
    );
    assert.equal(await session.lua('return vim.bo.buftype'), 'terminal');
    assert.equal(
      await session.lua<number>('return #vim.api.nvim_tabpage_list_wins(0)'),
      before + 1,
    );
  });

  test(':Tandem with an unknown CLI says which ones it knows', async () => {
    await assert.rejects(
      session.command('Tandem nosuchcli'),
      /unknown CLI "nosuchcli": :Tandem takes one of certificates, claude, gemini, probe, qwen/,
    );
  });

  test(":TandemDoctor shows doctor's report, made in Neovim's environment", async () => {
    const port = (await session.status()).port;
    await session.command('TandemDoctor');
    const report = await waitFor("doctor's report", async () => {
      const lines = await session.lines();
      return lines[0]?.startsWith('tandem doctor: ') ? lines.join('\n') : undefined;
    });
    assert.equal(report.split('\n')[0], `tandem doctor: ${sandbox.workspace}`);
    // What the variables of Neovim's terminals make a CLI do.
    assert.ok(report.includes(`GEMINI_CLI_IDE_SERVER_PORT=${port}`), report);
    assert.equal(await session.lua('return vim.bo.buftype'), 'nofile');
    await session.command('bwipeout');
  });

  test(':TandemEnv gives the line that connects a shell in another terminal to this Neovim', async () => {
    const port = String((await session.status()).port);
    await session.lua(`vim.env.SHELL = '/bin/bash'`);
    const printed = await session.lua<string>(`return vim.fn.execute('TandemEnv')`);
    const line = await session.lua<string>(`return vim.fn.getreg('"')`);
    assert.equal(printed.trim(), line);
    assert.match(line, /^eval "\$\(.*\)"$/);
    // A shell of its own, without Neovim's variables, in another folder.
    const shellEnv = neovimEnv(sandbox);
    assert.equal(shellEnv['GEMINI_CLI_IDE_SERVER_PORT'], undefined);
    const script = `${line}\nprintf '%s %s' "$GEMINI_CLI_IDE_SERVER_PORT" "$QWEN_CODE_IDE_SERVER_PORT"`;
    const out = execFileSync('bash', ['-c', script], { cwd: sandbox.root, env: shellEnv });
    assert.equal(out.toString(), `${port} ${port}`);
  });

  test(':TandemEnv for fish: a hostile folder name stays one word, never code', async (t) => {
    if (!needShell(t, 'fish')) return;
    const port = String((await session.status()).port);
    const folder = path.join(sandbox.workspace, "p\\';touch PWNED;#");
    mkdirSync(folder);
    await session.lua(`vim.env.SHELL = '/usr/bin/fish'; vim.fn.chdir(...)`, [folder]);
    try {
      const line = await session.lua<string>(`return require('tandem').env_line()`);
      assert.match(line, / \| source$/);
      const script = `${line}\nprintf '%s' "$GEMINI_CLI_IDE_SERVER_PORT"`;
      const out = execFileSync('fish', ['-c', script], {
        cwd: sandbox.root,
        env: neovimEnv(sandbox),
      });
      assert.equal(existsSync(path.join(sandbox.root, 'PWNED')), false, line);
      assert.equal(out.toString(), port);
    } finally {
      await session.lua(`vim.env.SHELL = '/bin/bash'; vim.fn.chdir(...)`, [sandbox.workspace]);
    }
  });

  test('the status line, :TandemStatus and :checkhealth show the connected CLI', async () => {
    assert.equal(await session.lua(`return require('tandem').statusline()`), 'Tandem: no CLI');
    gemini = await startRealClient({
      kind: 'gemini',
      cwd: sandbox.workspace,
      tmpDir: sandbox.tmpDir,
      qwenHome: sandbox.qwenHome,
    });
    assert.equal((await gemini.connect()).status, 'connected');
    const line = await waitFor('the status line to name the CLI', async () => {
      const text = await session.lua<string>(`return require('tandem').statusline()`);
      return text !== 'Tandem: no CLI' ? text : undefined;
    });
    assert.match(line, /^Tandem: Gemini/);

    const status = await session.status();
    const printed = await session.lua<string>(`return vim.fn.execute('TandemStatus')`);
    assert.match(printed, new RegExp(`Port: ${status.port}`));
    assert.match(printed, /Connected CLIs: Gemini/);
    for (const file of status.discovery_files) assert.ok(printed.includes(file), file);

    const report = (await healthReport(session)).join('\n');
    assert.match(report, /OK:? Node\.js v\d+/);
    assert.match(report, /OK:? tandem command: /);
    assert.match(
      report,
      new RegExp(
        `OK:? sidecar running \\(pid \\d+\\), listening on 127\\.0\\.0\\.1:${status.port}`,
      ),
    );
    for (const file of status.discovery_files)
      assert.ok(report.includes(`discovery file: ${file}`), file);
    assert.match(report, /OK:? connected: Gemini/);
    assert.doesNotMatch(report, /ERROR/);
  });

  test('Qwen Code is shown by its name alone (the version it reports is not its own)', async () => {
    const qwen = await realClientIn(sandbox, 'qwen');
    try {
      assert.equal((await qwen.connect()).status, 'connected');
      await waitFor('Qwen Code in the status line', async () =>
        (await session.lua<string>(`return require('tandem').statusline()`)).includes('Qwen Code')
          ? true
          : undefined,
      );
      const printed = await session.lua<string>(`return vim.fn.execute('TandemStatus')`);
      assert.match(printed, /Connected CLIs: .*Gemini CLI \d+\.\d+\.\d+/);
      assert.match(printed, /Qwen Code(,|\n|$)/);
    } finally {
      await qwen.kill();
    }
  });

  test(':TandemStop removes the discovery files and the environment; :TandemStart brings them back', async () => {
    const running = await session.status();
    await session.command('TandemStop');
    const stopped = await session.waitForState('stopped');
    assert.equal(stopped.port, undefined);
    for (const file of running.discovery_files) assert.equal(existsSync(file), false, file);
    assert.equal(await session.lua('return vim.env.GEMINI_CLI_IDE_SERVER_PORT'), null);
    assert.equal(await session.lua(`return require('tandem').statusline()`), '');
    await gemini?.waitForStatus('disconnected');

    await session.command('TandemStart');
    const restarted = await session.waitForState('running');
    for (const file of restarted.discovery_files) assert.ok(existsSync(file), file);
    assert.equal(
      await session.lua('return vim.env.GEMINI_CLI_IDE_SERVER_PORT'),
      String(restarted.port),
    );
  });

  test(':checkhealth tandem as the sidecar starts waits for it: a starting sidecar is no warning', async () => {
    await session.command('TandemStop');
    await session.waitForState('stopped');
    // One call: the health check runs while the sidecar is still starting.
    const report = (await healthReport(session, `vim.cmd('TandemStart')`)).join('\n');
    assert.doesNotMatch(report, /the sidecar is starting|Start it with :TandemStart/, report);
    assert.match(report, /OK:? sidecar running \(pid \d+\)/);
  });

  test("the sidecar starts with glibc's allocator set to give large buffers back unless Neovim's environment sets it, and without extra CA certificates; terminals and CLIs keep the user's", async () => {
    const { pid } = await session.status();
    assert.equal(processEnvironment(pid!).GLIBC_TUNABLES, 'glibc.malloc.mmap_threshold=65536');
    assert.equal(processEnvironment(pid!).NODE_EXTRA_CA_CERTS, '');
    await session.lua(`vim.env.GLIBC_TUNABLES = 'glibc.malloc.perturb=0'`);
    await session.lua(`vim.env.NODE_EXTRA_CA_CERTS = '/etc/ssl/certs/ca-certificates.crt'`);
    try {
      await session.command('TandemStop');
      await session.waitForState('stopped');
      await session.command('TandemStart');
      const restarted = await session.waitForState('running');
      const environment = processEnvironment(restarted.pid!);
      assert.equal(environment.GLIBC_TUNABLES, 'glibc.malloc.perturb=0');
      assert.equal(environment.NODE_EXTRA_CA_CERTS, '');
      // Only the sidecar goes without them: a CLI may well need the user's certificates.
      const terminal = path.join(sandbox.workspace, 'terminal-certificates.out');
      await session.command(`terminal printenv NODE_EXTRA_CA_CERTS > ${terminal}`);
      assert.equal(await fileText(terminal), '/etc/ssl/certs/ca-certificates.crt\n');
      await session.command('bwipeout!');
      await session.command('Tandem certificates');
      assert.equal(
        await fileText(path.join(sandbox.workspace, 'cli-certificates.out')),
        '/etc/ssl/certs/ca-certificates.crt\n',
      );
      await session.command('bwipeout!');
    } finally {
      await session.lua('vim.env.GLIBC_TUNABLES = nil; vim.env.NODE_EXTRA_CA_CERTS = nil');
    }
  });

  test('a sidecar that dies is reported, and its environment withdrawn', async () => {
    const { pid } = await session.status();
    process.kill(pid ?? 0, 'SIGKILL');
    const failed = await session.waitForState('failed');
    assert.match(failed.error ?? '', /the sidecar exited/);
    assert.equal(await session.lua(`return require('tandem').statusline()`), 'Tandem: failed');
    assert.equal(await session.lua('return vim.env.GEMINI_CLI_IDE_SERVER_PORT'), null);
    await session.command('TandemStart');
    await session.waitForState('running');
  });
});

describe('Tandem failing to start', { skip: neovimSkipReason() }, () => {
  const neovim = neovimForBlock();

  test('a command that is not a program', async () => {
    await neovim.session.lua(
      `require('tandem').setup({ cmd = { '/nonexistent/tandem', 'bridge' } })`,
    );
    const status = await neovim.session.waitForState('failed');
    assert.match(status.error ?? '', /`\/nonexistent\/tandem` is not an executable/);
  });

  test('a sidecar that exits at once', async () => {
    await neovim.session.lua(
      `require('tandem').setup({ cmd = { 'sh', '-c', 'echo broken >&2; exit 3' } })`,
    );
    const status = await neovim.session.waitForState('failed');
    assert.match(status.error ?? '', /did not start|exited/);
    const log = readFileSync(status.log_file, 'utf8');
    assert.match(log, /sidecar: broken/);
    assert.match((await healthReport(neovim.session)).join('\n'), /ERROR:? the sidecar failed/);
  });
});

describe('Terminals ending with Neovim', { skip }, () => {
  let sandbox: Sandbox | undefined;

  after(() => sandbox?.remove());

  /** Whether a process of group `group` is still alive. */
  function groupAlive(group: number): boolean {
    try {
      process.kill(-group, 0);
      return true;
    } catch {
      return false;
    }
  }

  test(':qa! stops a :Tandem CLI that ignores the hang-up, even with the sidecar stopped', async () => {
    sandbox = new Sandbox();
    const pidFile = path.join(sandbox.workspace, 'stubborn.pid');
    const stubborn = `trap '' HUP; echo $$ > ${pidFile}; while :; do sleep 1; done`;
    const session = await NeovimSession.start(sandbox, {
      tandem: `{ terminal = { clis = { stubborn = { 'sh', '-c', ${JSON.stringify(stubborn)} } } } }`,
    });
    let group = 0;
    try {
      await session.command('Tandem stubborn');
      group = Number((await fileText(pidFile)).trim());
      assert.ok(groupAlive(group), 'the CLI runs');
      await session.command('TandemStop');
      await session.waitForState('stopped');
      session.nvim.command('qa!').catch(() => undefined);
      await session.waitForExit();
      await waitFor('the CLI and its children to end', () =>
        groupAlive(group) ? undefined : true,
      );
    } finally {
      if (group > 0 && groupAlive(group)) process.kill(-group, 'SIGKILL');
      await session.close();
    }
  });
});

describe('Tandem with a scripted sidecar', { skip: neovimSkipReason() }, () => {
  const script = path.join(REPO_ROOT, 'test', 'neovim', 'scripted-sidecar.mjs');
  let sandbox: Sandbox;
  let session: NeovimSession;
  let log: string;

  /** Neovim whose sidecar is the script in `mode`, with the diff the script opens on screen. */
  async function startWith(mode: string): Promise<void> {
    sandbox = new Sandbox();
    log = path.join(sandbox.root, 'received.jsonl');
    session = await NeovimSession.start(sandbox, {
      tandem: `{ cmd = { 'node', ${JSON.stringify(script)}, '${mode}', ${JSON.stringify(log)} } }`,
    });
    await waitFor('the diff view', async () =>
      (await session.status()).diffs.length === 1 ? true : undefined,
    );
  }

  /** The messages the script received. */
  function received(): { id?: number; method?: string; params?: unknown }[] {
    return readFileSync(log, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { id?: number; method?: string });
  }

  afterEach(async () => {
    await session?.close();
    sandbox?.remove();
  });

  test('an answer for a diff the sidecar no longer has open closes the view', async () => {
    await startWith('gone');
    // The plugin ships with its sidecar: it offers that one's protocol and no older one.
    assert.deepEqual((received()[0]?.params as { protocol: unknown }).protocol, {
      min: '1.3',
      max: '1.3',
    });
    await session.input(':TandemAccept<CR>');
    await waitFor('the view to close', async () =>
      (await session.status()).diffs.length === 0 ? true : undefined,
    );
    const answer = await waitFor('the answer', () =>
      received().find((message) => message.method === 'diff/accepted'),
    );
    assert.equal(typeof answer.id, 'number', 'sent as a request');
  });

  test(':qa with a diff open ends Neovim even when the sidecar answers nothing', async () => {
    await startWith('deaf');
    session.nvim.input(':qa<CR>').catch(() => undefined);
    // A generous bound: the point is that Neovim ends, not how fast.
    await session.waitForExit(20_000);
    assert.ok(received().some((message) => message.method === 'shutdown'));
  });
});
