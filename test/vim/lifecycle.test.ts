/**
 * Tandem's life in real Vim: it starts with Vim, writes discovery files naming Vim and its PID,
 * puts the sidecar's variables into Vim's environment for every later :terminal, follows :cd,
 * shows the connected CLI, and stops cleanly.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  connectedClientIn,
  needShell,
  processEnvironment,
  Sandbox,
  VimSession,
  vimSkipReason,
  waitFor,
  type RealClient,
  type VimOptions,
  type VimStatus,
} from '@tandem/testkit';

const skip = vimSkipReason({ sidecar: true });

function json(file: string): Record<string, unknown> {
  return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
}

/**
 * Vim started with `options`, Tandem running, for the tests of one block; the client a test puts
 * in `scene.client` is ended with them.
 */
function runningVim(options?: VimOptions, prepare?: (sandbox: Sandbox) => void) {
  const scene = {} as { sandbox: Sandbox; vim: VimSession; status: VimStatus; client?: RealClient };
  before(async () => {
    scene.sandbox = new Sandbox();
    prepare?.(scene.sandbox);
    scene.vim = await VimSession.start(scene.sandbox, options);
    scene.status = await scene.vim.waitForState('running');
  });
  after(async () => {
    await scene.client?.kill();
    await scene.vim?.close();
    scene.sandbox?.remove();
  });
  return scene;
}

describe('Tandem with Vim', { skip }, () => {
  const scene = runningVim({
    before: [
      `let g:tandem_clis = {'certificates': ['sh', '-c', 'printenv NODE_EXTRA_CA_CERTS > cli-certificates.out']}`,
    ],
  });

  test('it starts with Vim; the discovery files name Vim, its PID and its folder', async () => {
    const pid = await scene.vim.eval<number>('getpid()');
    const files = scene.status.discovery_files;
    const lock = files.find((file) => file.endsWith('.lock'));
    const geminiFile = files.find((file) => path.basename(file).startsWith('gemini-ide-server-'));
    assert.ok(lock && geminiFile, files.join(', '));
    assert.equal(json(lock).ppid, pid, "Qwen's lock holds Vim's PID");
    assert.deepEqual(json(geminiFile).ideInfo, { name: 'vim', displayName: 'Vim' });
    assert.equal(json(geminiFile).workspacePath, scene.sandbox.workspace);
  });

  test("the sidecar's variables reach a :terminal opened later", async () => {
    await scene.vim.ex('terminal ++close sh -c "printenv GEMINI_CLI_IDE_SERVER_PORT > port.out"');
    const out = path.join(scene.sandbox.workspace, 'port.out');
    await waitFor('port.out', () =>
      existsSync(out) && readFileSync(out, 'utf8') !== '' ? true : undefined,
    );
    assert.equal(readFileSync(out, 'utf8').trim(), String(scene.status.port));
  });

  test('the status line names the connected CLI; :TandemStatus shows it', async () => {
    scene.client = await connectedClientIn(scene.sandbox, 'gemini');
    await waitFor('the status line', async () =>
      (await scene.vim.eval<string>('tandem#statusline()')) === 'Tandem: Gemini CLI'
        ? true
        : undefined,
    );
    const shown = await scene.vim.eval<string>(`execute('TandemStatus')`);
    assert.match(shown, /Tandem \d+\.\d+\.\d+: running \(sidecar pid \d+\)/);
    assert.match(shown, /Connected CLIs: Gemini CLI/);
    assert.match(shown, new RegExp(`Port: ${scene.status.port}`));
  });

  test(':cd moves the workspace: the discovery files and the variables follow', async () => {
    const sub = path.join(scene.sandbox.workspace, 'sub');
    mkdirSync(sub);
    await scene.vim.ex('cd sub');
    const geminiFile = scene.status.discovery_files.find((file) =>
      path.basename(file).startsWith('gemini-ide-server-'),
    )!;
    await waitFor('the discovery file to name the new folder', () =>
      json(geminiFile).workspacePath === sub ? true : undefined,
    );
    await waitFor('the variable to follow', async () =>
      (await scene.vim.eval<string>('$GEMINI_CLI_IDE_WORKSPACE_PATH')) === sub ? true : undefined,
    );
    await scene.vim.ex('cd ..');
  });

  test(':TandemStop removes the discovery files and the variables; :TandemStart again', async () => {
    await scene.vim.ex('TandemStop');
    await scene.vim.waitForState('stopped');
    await waitFor('the discovery files to go', () =>
      scene.status.discovery_files.some((file) => existsSync(file)) ? undefined : true,
    );
    assert.equal(await scene.vim.eval('$GEMINI_CLI_IDE_SERVER_PORT'), '');
    assert.equal(await scene.vim.eval('tandem#statusline()'), '');
    await scene.vim.ex('TandemStart');
    const again = await scene.vim.waitForState('running');
    assert.notEqual(again.port, null);
    assert.equal(await scene.vim.eval('$GEMINI_CLI_IDE_SERVER_PORT'), String(again.port));
  });

  test("the sidecar starts with glibc's allocator set to give large buffers back unless Vim's environment sets it, and without extra CA certificates; terminals and CLIs keep the user's", async () => {
    const running = processEnvironment((await scene.vim.waitForState('running')).pid!);
    assert.equal(running.GLIBC_TUNABLES, 'glibc.malloc.mmap_threshold=65536');
    assert.equal(running.NODE_EXTRA_CA_CERTS, '');
    await scene.vim.ex("let $GLIBC_TUNABLES = 'glibc.malloc.perturb=0'");
    await scene.vim.ex("let $NODE_EXTRA_CA_CERTS = '/etc/ssl/certs/ca-certificates.crt'");
    try {
      await scene.vim.ex('TandemStop');
      await scene.vim.waitForState('stopped');
      await scene.vim.ex('TandemStart');
      const restarted = processEnvironment((await scene.vim.waitForState('running')).pid!);
      assert.equal(restarted.GLIBC_TUNABLES, 'glibc.malloc.perturb=0');
      assert.equal(restarted.NODE_EXTRA_CA_CERTS, '');
      // Only the sidecar goes without them: a CLI may well need the user's certificates.
      for (const [name, open] of [
        ['terminal', 'terminal sh -c "printenv NODE_EXTRA_CA_CERTS > terminal-certificates.out"'],
        ['cli', 'Tandem certificates'],
      ]) {
        await scene.vim.ex(open!);
        const out = path.join(scene.sandbox.workspace, `${name}-certificates.out`);
        const text = await waitFor(out, () => {
          const text = existsSync(out) ? readFileSync(out, 'utf8') : '';
          return text.endsWith('\n') ? text : undefined;
        });
        assert.equal(text, '/etc/ssl/certs/ca-certificates.crt\n', name);
        await scene.vim.ex('bwipeout!');
      }
    } finally {
      await scene.vim.ex('unlet $GLIBC_TUNABLES $NODE_EXTRA_CA_CERTS');
    }
  });
});

/** The lines of Vim's message history that `pattern` matches. */
async function messages(vim: VimSession, pattern: RegExp): Promise<string[]> {
  const all = await vim.eval<string>(`execute('messages')`);
  return all.split('\n').filter((line) => pattern.test(line));
}

describe("the engine's warnings and the doctor, in Vim", { skip }, () => {
  // Claude Code writes without asking and shows its diffs in its terminal, and Anthropic's
  // extension in a VS Code window serves the folder too.
  const scene = runningVim(undefined, (sandbox) =>
    sandbox.useClaudeCode('acceptEdits', {
      diffTool: 'terminal',
      otherCompanion: 'Visual Studio Code',
    }),
  );

  test("the warnings of the sandbox (IDE mode off, Qwen's default approval mode, Claude Code's permission mode, terminal diff tool and other companion) are told once, and :TandemStatus shows each with its fix", async () => {
    const { warnings } = scene.status;
    const codes = warnings.map((w) => w.code);
    assert.ok(codes.includes('ide-mode-off'), JSON.stringify(warnings));
    const find = (code: string, cliName: string) => {
      const found = warnings.find((w) => w.code === code && w.message.includes(cliName));
      assert.ok(found?.fix, `${code} (${cliName}) in ${JSON.stringify(warnings)}`);
      return { message: found.message, fix: found.fix };
    };
    find('no-diffs', 'Qwen Code');
    find('no-diffs', 'Claude Code');
    assert.match(find('terminal-diffs', 'Claude Code').fix, /Type \/config in Claude Code/);
    const otherCompanion = find('shared-folder', 'Claude Code');
    assert.ok(
      otherCompanion.message.includes(`: Visual Studio Code (PID ${process.pid}, port 1,`),
      otherCompanion.message,
    );
    assert.match(
      otherCompanion.fix,
      /disable Anthropic's Claude Code extension in that Visual Studio Code window/,
    );
    const told = await messages(scene.vim, /see :TandemStatus/);
    assert.equal(told.length, 1, told.join('\n'));
    assert.match(
      told[0]!,
      new RegExp(
        `Tandem: ${warnings.length} warnings, see :TandemStatus \\(${codes.join(', ')}\\)`,
      ),
    );
    assert.doesNotMatch(await scene.vim.screen(), /Press ENTER/);
    const shown = await scene.vim.eval<string>(`execute('TandemStatus')`);
    for (const warning of warnings) {
      assert.ok(warning.fix, JSON.stringify(warning));
      assert.ok(shown.includes(`Warning: ${warning.message} ${warning.fix}`), shown);
    }
  });

  test('a changed list replaces the old one and is told again', async () => {
    const settings = path.join(scene.sandbox.workspace, '.qwen');
    mkdirSync(settings);
    writeFileSync(
      path.join(settings, 'settings.json'),
      JSON.stringify({ ide: { enabled: true }, tools: { approvalMode: 'default' } }),
    );
    // The sidecar looks again when a CLI connects.
    scene.client = await connectedClientIn(scene.sandbox, 'qwen');
    const changed = await waitFor('the warnings about Qwen Code to go', async () => {
      const { warnings } = await scene.vim.status();
      return warnings.some((w) => w.code === 'no-diffs' && w.message.includes('Qwen Code'))
        ? undefined
        : warnings;
    });
    assert.ok(changed.length > 0, 'Gemini CLI still has IDE mode off');
    await waitFor('the new list to be told', async () =>
      (await messages(scene.vim, /see :TandemStatus/)).length === 2 ? true : undefined,
    );
    assert.doesNotMatch(await scene.vim.screen(), /Press ENTER/);
  });

  test(":TandemDoctor shows doctor's report for Vim's folder, with the session's variables, in a window", async () => {
    await scene.vim.ex('TandemDoctor');
    const header = `tandem doctor: ${scene.sandbox.workspace}`;
    await waitFor("doctor's report on screen", async () =>
      (await scene.vim.screen()).includes(header) ? true : undefined,
    );
    const report = (await scene.vim.currentTab()).windows.find((w) => w.current);
    assert.equal(report?.name, 'tandem://doctor');
    assert.equal(report?.lines[0], header);
    assert.ok(report?.lines.includes('Qwen Code'), report?.lines.join('\n'));
    // Run with the session's variables: Qwen Code would pick this Vim by the port they name.
    const port = scene.status.port!;
    assert.ok(
      report?.lines.some((line) =>
        line.includes(`picks ${port}.lock: QWEN_CODE_IDE_SERVER_PORT=${port} names it`),
      ),
      report?.lines.join('\n'),
    );
    await scene.vim.command('bwipeout!');
  });

  test(':TandemEnv shows the line that connects a CLI in another terminal', async () => {
    const line = await scene.vim.eval<string>('tandem#env_line()');
    assert.match(line, /^eval "\$\(\S*node \S*\/packages\/cli\/dist\/tandem\.js env --cwd \S+\)"$/);
    assert.ok(line.includes(`--cwd ${scene.sandbox.workspace})`), line);
    const shown = await scene.vim.eval<string>(`execute('TandemEnv')`);
    assert.ok(shown.includes(line), shown);
  });

  for (const shell of ['bash', 'fish'] as const) {
    test(`:TandemEnv for ${shell} ($SHELL, whatever Vim's 'shell'): a hostile folder name stays one word, never code`, async (t) => {
      if (!needShell(t, shell)) return;
      const folder = path.join(scene.sandbox.workspace, `p\\';touch PWNED;# ${shell}`);
      mkdirSync(folder);
      await scene.vim.command(`let $SHELL = '/usr/bin/${shell}' | set shell=/bin/csh`);
      await scene.vim.command(`call chdir(${JSON.stringify(folder)})`);
      try {
        const line = await scene.vim.eval<string>('tandem#env_line()');
        if (shell === 'fish') assert.match(line, / --shell fish \| source$/);
        // A shell of its own, without Vim's variables, in another folder.
        const script = `${line}\nprintf '%s' "$GEMINI_CLI_IDE_SERVER_PORT"`;
        const out = execFileSync(shell, ['-c', script], {
          cwd: scene.sandbox.root,
          env: scene.sandbox.env(),
        });
        assert.equal(existsSync(path.join(scene.sandbox.root, 'PWNED')), false, line);
        assert.equal(out.toString(), String(scene.status.port));
      } finally {
        await scene.vim.command(
          `let $SHELL = '/bin/bash' | set shell& | call chdir(${JSON.stringify(scene.sandbox.workspace)})`,
        );
      }
    });
  }
});

describe('g:tandem_autostart = 0', { skip }, () => {
  test('nothing starts until :TandemStart', async () => {
    const sandbox = new Sandbox();
    const vim = await VimSession.start(sandbox, { before: ['let g:tandem_autostart = 0'] });
    try {
      assert.equal((await vim.status()).state, 'stopped');
      assert.equal(existsSync(path.join(sandbox.qwenHome, 'ide')), false);
      await vim.ex('TandemStart');
      await vim.waitForState('running');
    } finally {
      await vim.close();
      sandbox.remove();
    }
  });
});

describe('a sidecar that dies', { skip }, () => {
  test('Tandem says so, and the variables are taken out', async () => {
    const sandbox = new Sandbox();
    const vim = await VimSession.start(sandbox);
    try {
      const status = await vim.waitForState('running');
      process.kill(status.pid!, 'SIGKILL');
      const failed = await vim.waitForState('failed');
      assert.match(failed.error ?? '', /the sidecar exited/);
      assert.equal(await vim.eval('$GEMINI_CLI_IDE_SERVER_PORT'), '');
      assert.equal(await vim.eval('tandem#statusline()'), 'Tandem: failed');
    } finally {
      await vim.close();
      sandbox.remove();
    }
  });
});
