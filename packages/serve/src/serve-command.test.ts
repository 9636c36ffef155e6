import assert from 'node:assert/strict';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  statSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { execFileSync, spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Writable } from 'node:stream';
import { after, afterEach, before, describe, test } from 'node:test';
import { type CommandIO } from '@tandem/command';
import {
  chromiumMissing,
  idleSockets,
  launchChromium,
  needShell,
  needsRoot,
  realClientIn,
  Sandbox,
  TANDEM,
  waitFor,
  waitUntil,
  type RealClient,
} from '@tandem/testkit';
import type { Socket } from 'node:net';
import { serveCommand } from './serve-command.js';
import { startServe, type ServeProcess } from './serve-process.fixture.js';
import { listenOnLoopback } from '@tandem/core';

/** How long the opener may take to run, on a machine as busy as CI's can be. */
const OPENER_WAIT_MS = 60_000;

function capture() {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString('utf8');
      done();
    },
  });
  return { stream, text: () => text };
}

async function run(argv: string[], cwd: string) {
  const stdout = capture();
  const stderr = capture();
  const io = { stdout: stdout.stream, stderr: stderr.stream, env: {}, cwd } as unknown as CommandIO;
  const status = await serveCommand(argv, io);
  return { status, stdout: stdout.text(), stderr: stderr.text() };
}

describe('tandem serve: arguments', () => {
  let scratch: string;
  before(() => {
    scratch = mkdtempSync(join(tmpdir(), 'tandem-serve-args-'));
    writeFileSync(join(scratch, 'file.txt'), 'not a folder');
  });
  after(() => rmSync(scratch, { recursive: true, force: true }));

  test('--help prints the usage and exits 0', async () => {
    const { status, stdout } = await run(['--help'], scratch);
    assert.equal(status, 0);
    assert.match(stdout, /^Usage: tandem serve \[DIR\] \[--port PORT\] \[--open\]/);
  });

  test('a folder that does not exist is a usage error', async () => {
    const { status, stderr } = await run(['missing'], scratch);
    assert.equal(status, 2);
    assert.match(stderr, new RegExp(`tandem serve: ${join(scratch, 'missing')} does not exist`));
  });

  test('a file is not a folder', async () => {
    const { status, stderr } = await run(['file.txt'], scratch);
    assert.equal(status, 2);
    assert.match(stderr, /file\.txt is not a directory/);
  });

  test('a bad port, an unknown option or a second folder is a usage error', async () => {
    for (const argv of [['--port', 'http'], ['--port', '70000'], ['--verbose'], ['.', '..']]) {
      const { status, stderr } = await run(argv, scratch);
      assert.equal(status, 2, argv.join(' '));
      assert.match(stderr, /^tandem serve: .+\n\nUsage:/, argv.join(' '));
    }
  });
});

describe('tandem serve: the process', () => {
  let scratch: string;
  let workspace: string;
  let env: NodeJS.ProcessEnv;
  let serve: ServeProcess | undefined;

  before(() => {
    scratch = realpathSync(mkdtempSync(join(tmpdir(), 'tandem-serve-')));
    workspace = join(scratch, 'workspace');
    for (const dir of ['workspace', 'tmp', 'qwen', 'home', 'bin']) mkdirSync(join(scratch, dir));
    env = {
      ...process.env,
      TMPDIR: join(scratch, 'tmp'),
      QWEN_HOME: join(scratch, 'qwen'),
      HOME: join(scratch, 'home'),
    };
  });

  afterEach(async () => {
    await serve?.stop('SIGKILL');
    serve = undefined;
  });

  after(() => rmSync(scratch, { recursive: true, force: true }));

  const discoveryFiles = () => [
    ...readdirSync(join(scratch, 'tmp', 'gemini', 'ide')).map((name) => `gemini/${name}`),
    ...readdirSync(join(scratch, 'qwen', 'ide')).map((name) => `qwen/${name}`),
  ];

  test('prints one URL with a secret and what to run; SIGTERM cleans up and exits 0', async () => {
    serve = await startServe([], { cwd: workspace, env });
    const output = serve.stdout();
    assert.equal(output.match(/https?:\/\//g)?.length, 1, output);
    assert.match(serve.url, /^http:\/\/127\.0\.0\.1:\d+\/#[\w-]{22,}$/);
    assert.match(output, new RegExp(`Tandem is serving ${workspace}\\n`));
    assert.match(output, /gemini {2,}\(or: qwen\)/);
    // Gemini CLI's first-run offer to install an extension is a dead end: answer No.
    // Qwen Code asks it too.
    assert.match(output, /If Gemini CLI or Qwen Code asks to install an extension/);
    assert.match(output, /answer No, then type\s+\/ide enable/);
    // The engine's warnings for this HOME, which has no settings: IDE mode off in both CLIs,
    // and Qwen Code's default approval mode, which never shows a diff.
    assert.match(output, /Before you start:\n {2}! IDE mode is off in Gemini CLI/);
    assert.match(
      output,
      /! Qwen Code starts in approval mode "auto" \((its default since 0\.21\.0|the default of Qwen Code [\d.]+)\)/,
    );
    assert.match(output, /fix: Type \/approval-mode default in Qwen Code/);
    const files = discoveryFiles();
    assert.ok(
      files.some((file) => file.startsWith('gemini/gemini-ide-server-')),
      String(files),
    );
    assert.ok(
      files.some((file) => /^qwen\/\d+\.lock$/.test(file)),
      String(files),
    );
    const lock = JSON.parse(
      readFileSync(
        join(scratch, 'qwen', 'ide', files.find((f) => f.endsWith('.lock'))!.slice(5)),
        'utf8',
      ),
    );
    assert.equal(lock.ideInfo.displayName, 'Tandem (browser)');

    // What the page does with its URL: trade the fragment's secret, once, for its token.
    const url = new URL(serve.url);
    const signIn = await fetch(new URL('api/session', url), {
      method: 'POST',
      headers: { origin: url.origin, 'x-tandem-secret': url.hash.slice(1) },
    });
    assert.equal(signIn.status, 200);
    const next = await waitFor(
      'the next URL',
      () => /For another browser: (\S+)/.exec(serve!.stdout())?.[1],
    );
    assert.notEqual(new URL(next).hash, url.hash, 'a spent URL is not printed again');

    // `tandem doctor` and `tandem env` probe the companion: their visits are not news.
    for (const command of ['doctor', 'env']) {
      const run = spawnSync(process.execPath, [TANDEM, command], { cwd: workspace, env });
      assert.match(run.stdout.toString(), /Tandem \(browser\)|export /, command);
    }

    assert.equal(await serve.stop('SIGTERM'), 0);
    assert.deepEqual(discoveryFiles(), []);
    // The one address printed, on either stream, is the review page's: not the CLIs' port.
    const everything = serve.stdout() + serve.stderr();
    const ports = new Set(everything.match(/(?<=127\.0\.0\.1:)\d+/g));
    assert.deepEqual([...ports], [url.port], everything);
    assert.doesNotMatch(serve.stderr(), /tandem-probe/);
  });

  test('SIGINT exits 0 too; --port picks the port; DIR may be given', async () => {
    const port = await freePort();
    serve = await startServe(['--port', String(port), workspace], { cwd: scratch, env });
    assert.equal(new URL(serve.url).port, String(port));
    assert.equal(await serve.stop('SIGINT'), 0);
  });

  test("Claude Code's warnings are listed before you start, each with its fix", async () => {
    const sandbox = new Sandbox();
    try {
      sandbox.useClaudeCode('acceptEdits', { diffTool: 'terminal', otherCompanion: 'Neovim' });
      serve = await startServe([], { cwd: sandbox.workspace, env: sandbox.env() });
      const output = await waitFor('the last warning', () =>
        /ClaudeCodeStop/.test(serve!.stdout()) ? serve!.stdout() : undefined,
      );
      const settings = join(sandbox.claudeConfigDir, 'settings.json');
      const state = join(sandbox.claudeConfigDir, '.claude.json');
      for (const [message, fix] of [
        [
          `Claude Code starts in permission mode "acceptEdits" (set in ${settings})`,
          `Start it with --permission-mode default, or set {"permissions": {"defaultMode": "default"}} in ${settings}.`,
        ],
        [
          `Claude Code's diff tool is "terminal" (diffTool in ${state})`,
          `Type /config in Claude Code and set "Diff tool" to auto, or set "diffTool": "auto" in ${state}.`,
        ],
        [
          `Another Claude Code companion serves this folder: Neovim (PID ${process.pid}, port 1, folder ${sandbox.workspace})`,
          // No terminal of its own: the line for Claude Code's, or the other companion stopped.
          `In the terminal of Claude Code, run`,
        ],
      ]) {
        assert.ok(output.includes(`  ! ${message}`), output);
        assert.ok(output.includes(`    fix: ${fix}`), output);
      }
      assert.match(
        output,
        /tandem env --port \d+.* before it; or stop claudecode\.nvim there \(:ClaudeCodeStop\)\.\n/,
      );
      assert.equal(await serve.stop('SIGTERM'), 0);
    } finally {
      await serve?.stop('SIGKILL');
      sandbox.remove();
    }
  });

  for (const shell of ['fish', 'bash'] as const) {
    test(`the printed cd line is quoted for ${shell}: a hostile folder name stays one word`, async (t) => {
      if (!needShell(t, shell)) return;
      const folder = join(scratch, `p\\';touch PWNED-${shell};#`);
      mkdirSync(folder);
      const shellEnv = { ...env, SHELL: `/usr/bin/${shell}` };
      serve = await startServe([folder], { cwd: scratch, env: shellEnv });
      const line = /^ {2}(cd .*) && gemini/m.exec(serve.stdout())?.[1];
      assert.ok(line, serve.stdout());
      const out = execFileSync(shell, ['-c', `${line} && pwd`], { cwd: scratch, encoding: 'utf8' });
      assert.equal(existsSync(join(scratch, `PWNED-${shell}`)), false, line);
      assert.equal(out.trim(), folder);
    });
  }

  test('1,000 idle sockets on the review port, under a limit of 128 descriptors, do not lock a real client out', async () => {
    const sandbox = new Sandbox();
    let sockets: Socket[] = [];
    let gemini: RealClient | undefined;
    try {
      serve = await startServe([], { cwd: sandbox.workspace, env: sandbox.env(), openFiles: 128 });
      sockets = await idleSockets(Number(new URL(serve.url).port), 1000);
      gemini = await realClientIn(sandbox, 'gemini');
      const state = await gemini.connect();
      assert.equal(state.status, 'connected', state.details);
    } finally {
      for (const socket of sockets) socket.destroy();
      await gemini?.kill();
      sandbox.remove();
    }
  });

  test('a port in use is a clear error', async () => {
    serve = await startServe([], { cwd: workspace, env });
    const port = new URL(serve.url).port;
    const second = await run(['--port', port], workspace);
    assert.equal(second.status, 1);
    assert.match(second.stderr, /cannot serve the review page: .*EADDRINUSE/);
  });

  test('--open never puts the secret on a command line: the opener gets an owner-only file that forwards to the URL', async (t) => {
    const opened = join(scratch, 'opened.txt');
    writeOpener(
      `#!/bin/sh\nprintf '%s\\n' "$0" "$@" > '${opened}.part' && mv '${opened}.part' '${opened}'\n`,
    );
    serve = await startServe(['--open'], { cwd: workspace, env: withOpener() });
    await waitUntil('the opener to run', () => existsSync(opened), OPENER_WAIT_MS);
    const argv = readFileSync(opened, 'utf8');
    const secret = new URL(serve.url).hash.slice(1);
    assert.ok(!argv.includes(secret), argv);
    const target = argv.trim().split('\n').at(-1)!;
    assert.match(target, /^file:\/\//);
    const page = fileURLToPath(target);
    assert.equal(statSync(page).mode & 0o777, 0o600);
    assert.equal(statSync(dirname(page)).mode & 0o777, 0o700);
    if (chromiumMissing()) return t.skip('Chromium is not installed');
    // A real browser follows the file to the page, which trades the secret; the file then goes.
    const browser = await launchChromium(join(scratch, 'profile'));
    try {
      const tab = await browser.newPage();
      // The file sends the tab on at once: its own load may never be seen, only its commit.
      await tab.goto(target, { waitUntil: 'commit' });
      await waitUntil('the page to be opened', () =>
        /The review page was opened/.test(serve!.stdout()),
      );
      // The tab's address comes on another channel than the output: it may follow a moment later.
      const origin = new URL(serve.url).origin;
      await waitUntil(`the tab at ${origin}`, () => new URL(tab.url()).origin === origin);
      await waitUntil('the forwarding file to go', () => !existsSync(page));
    } finally {
      await browser.close();
    }
  });

  test('--open gives no file in a folder another user can swap: a warning, the URL printed', async (t) => {
    if (!needsRoot(t)) return;
    const opened = join(scratch, 'opened-anyway.txt');
    writeOpener(`#!/bin/sh\ntouch '${opened}'\n`);
    const theirs = join(scratch, 'their-tmp');
    mkdirSync(theirs, { mode: 0o755 });
    chownSync(theirs, 12345, 12345);
    serve = await startServe(['--open'], {
      cwd: workspace,
      env: { ...withOpener(), TMPDIR: theirs },
    });
    await waitUntil(
      'the warning',
      () => /could not open a browser/.test(serve!.stderr()),
      OPENER_WAIT_MS,
    );
    assert.match(serve.stderr(), /their-tmp, which holds .* another user .*open the URL yourself/);
    assert.deepEqual(
      readdirSync(theirs).filter((name) => name.startsWith('tandem-open-')),
      [],
    );
    assert.equal(existsSync(opened), false);
    assert.equal(await serve.stop('SIGTERM'), 0);
  });

  test('an opener that fails is a warning, not an error', async () => {
    writeOpener('#!/bin/sh\nexit 3\n');
    serve = await startServe(['--open'], { cwd: workspace, env: withOpener() });
    await waitUntil(
      'the warning',
      () => /could not open a browser/.test(serve!.stderr()),
      OPENER_WAIT_MS,
    );
    assert.match(serve.stderr(), /exited with status 3.*open the URL yourself/);
    assert.equal(await serve.stop('SIGTERM'), 0);
  });

  function writeOpener(script: string) {
    const opener = join(scratch, 'bin', process.platform === 'darwin' ? 'open' : 'xdg-open');
    writeFileSync(opener, script);
    chmodSync(opener, 0o755);
  }

  function withOpener(): NodeJS.ProcessEnv {
    return { ...env, PATH: `${join(scratch, 'bin')}:${env.PATH}` };
  }
});

async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  const server = createServer();
  await listenOnLoopback(server);
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('tandem serve in shared discovery folders', () => {
  test('a FIFO and a link to /dev/zero posing as discovery files: the URL is printed, SIGTERM ends it', async () => {
    const sandbox = new Sandbox();
    let serve: ServeProcess | undefined;
    try {
      for (const dir of [join(sandbox.tmpDir, 'gemini', 'ide'), join(sandbox.qwenHome, 'ide')]) {
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        execFileSync('mkfifo', [join(dir, 'x.json')]);
        symlinkSync('/dev/zero', join(dir, 'zero.json'));
      }
      serve = await startServe([], { cwd: sandbox.workspace, env: sandbox.env() });
      assert.match(serve.url, /^http:\/\/127\.0\.0\.1:\d+\/#/);
      assert.equal(await serve.stop('SIGTERM'), 0);
    } finally {
      await serve?.stop('SIGKILL');
      await sandbox.remove();
    }
  });
});
