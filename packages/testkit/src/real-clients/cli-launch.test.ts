import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import {
  commandShellLine,
  editPrompt,
  prepareCliLaunch,
  type CliLaunch,
  type CliName,
} from './cli-launch.js';
import { runsOn, supportedNodeMajor } from './supported-node.fixture.js';

const edit = { filePath: '/ws/notes.txt', content: 'new\n' };

async function prepare(
  t: TestContext,
  cli: CliName,
  env: Record<string, string> = {},
): Promise<{ launch: CliLaunch; root: string }> {
  const root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'cli-launch-')));
  const launch = await prepareCliLaunch({
    cli,
    cwd: root,
    home: path.join(root, 'home'),
    tmpDir: path.join(root, 'tmp'),
    edit,
    env,
  });
  t.after(async () => {
    await launch.close();
    await rm(root, { recursive: true, force: true });
  });
  return { launch, root };
}

/** Runs `body` with the test runner's own environment polluted, then restores it. */
async function withRunnerEnv<T>(vars: Record<string, string>, body: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(vars).map((name) => [name, process.env[name]]));
  Object.assign(process.env, vars);
  try {
    return await body();
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

test('gemini: private settings with IDE mode, a pinned model, default approval, and nothing of the runner env', async (t) => {
  const leaks = {
    CI: 'true',
    TERM_PROGRAM: 'vscode',
    GEMINI_API_KEY: 'real-key',
    GOOGLE_CLOUD_PROJECT: 'p',
  };
  const { launch, root } = await withRunnerEnv(leaks, () =>
    prepare(t, 'gemini', { GEMINI_CLI_IDE_PID: '42' }),
  );
  const { argv, env, cwd } = launch.command;
  const home = path.join(root, 'home');
  assert.equal(cwd, root);
  assert.deepEqual(
    {
      HOME: env.HOME,
      TMPDIR: env.TMPDIR,
      GEMINI_API_KEY: env.GEMINI_API_KEY,
      REMOTE_CONTAINERS: env.REMOTE_CONTAINERS,
      GEMINI_CLI_IDE_PID: env.GEMINI_CLI_IDE_PID,
    },
    {
      HOME: home,
      TMPDIR: path.join(root, 'tmp'),
      GEMINI_API_KEY: 'fake-key',
      REMOTE_CONTAINERS: 'true',
      GEMINI_CLI_IDE_PID: '42',
    },
  );
  for (const name of ['CI', 'TERM_PROGRAM', 'GOOGLE_CLOUD_PROJECT'])
    assert.equal(env[name], undefined, name);

  const settings = JSON.parse(
    await readFile(path.join(home, '.gemini', 'settings.json'), 'utf8'),
  ) as Record<string, Record<string, unknown>>;
  assert.deepEqual(settings.ide, { enabled: true, hasSeenNudge: true });
  assert.deepEqual(settings.security, {
    auth: { selectedType: 'gemini-api-key' },
    folderTrust: { enabled: false },
  });

  assert.equal(argv[0], process.execPath);
  assert.match(argv[1] ?? '', /@google\/gemini-cli\/bundle\/gemini\.js$/);
  const flag = (name: string) => argv[argv.indexOf(name) + 1];
  assert.equal(flag('-m'), 'gemini-2.5-flash');
  assert.equal(flag('--approval-mode'), 'default');
  assert.equal(flag('-i'), editPrompt(edit));
  assert.match(await readFile(flag('--fake-responses-non-strict') ?? '', 'utf8'), /"write_file"/);
});

test('qwen: private QWEN_HOME settings and a live fake model at OPENAI_BASE_URL until close', async (t) => {
  const { launch, root } = await prepare(t, 'qwen');
  const { argv, env } = launch.command;
  assert.equal(env.QWEN_HOME, path.join(root, 'home', '.qwen'));
  const settings = JSON.parse(
    await readFile(path.join(root, 'home', '.qwen', 'settings.json'), 'utf8'),
  ) as Record<string, Record<string, unknown>>;
  assert.deepEqual(settings.security, {
    auth: { selectedType: 'openai' },
    folderTrust: { enabled: false },
  });
  assert.equal(settings.ide?.enabled, true);
  assert.match(argv[1] ?? '', /@qwen-code\/qwen-code\/cli-entry\.js$/);
  assert.deepEqual(argv.slice(2), ['--approval-mode', 'default', '-i', editPrompt(edit)]);

  const ask = () =>
    fetch(`${env.OPENAI_BASE_URL}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ messages: [] }),
    });
  assert.equal((await ask()).status, 200);
  await launch.close();
  await launch.close();
  await assert.rejects(ask());
});

test('gemini and qwen: each on a Node its package supports (Qwen Code: 22 or newer)', async (t) => {
  for (const cli of ['gemini', 'qwen'] as const) {
    const { launch } = await prepare(t, cli);
    const [node = ''] = launch.command.argv;
    assert.ok(runsOn(node, await supportedNodeMajor(cli)), `${cli} runs on ${node}`);
  }
});

test('claude: the native binary asking for edits, its state seeded, a live fake model editing the file as it is', async (t) => {
  const root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'cli-launch-')));
  t.after(() => rm(root, { recursive: true, force: true }));
  const filePath = path.join(root, 'notes.txt');
  await writeFile(filePath, 'old\n');
  const claudeConfigDir = path.join(root, 'claude');
  const launch = await prepareCliLaunch({
    cli: 'claude',
    cwd: root,
    home: path.join(root, 'home'),
    tmpDir: path.join(root, 'tmp'),
    claudeConfigDir,
    edit: { filePath, content: 'new\n' },
    promptAtStart: false,
  });
  t.after(() => launch.close());
  const { argv, env } = launch.command;
  assert.match(argv[0] ?? '', /claude-code-newest\/claude$/);
  assert.deepEqual(argv.slice(1), ['--permission-mode', 'default']);
  assert.equal(env.CLAUDE_CONFIG_DIR, claudeConfigDir);
  // The editor's terminal gives the port: the launch must not name one of its own.
  assert.equal(env.CLAUDE_CODE_SSE_PORT, undefined);
  const state = JSON.parse(await readFile(path.join(claudeConfigDir, '.claude.json'), 'utf8')) as {
    projects: Record<string, { hasTrustDialogAccepted: boolean }>;
  };
  assert.equal(state.projects[root]?.hasTrustDialogAccepted, true);

  const reply = await fetch(`${env.ANTHROPIC_BASE_URL}/v1/messages`, {
    method: 'POST',
    body: JSON.stringify({
      messages: [
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'toolu_read', content: '' }],
        },
      ],
    }),
  });
  const edit = JSON.stringify(((await reply.json()) as { content: unknown[] }).content);
  assert.match(edit, /"name":"Edit"/);
  assert.match(edit, /"old_string":"old\\n","new_string":"new\\n"/);
});

test('the shell line changes directory, sets the env exactly, and drops the terminal markers', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'shell line '));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const tricky = `it's "quoted" $HOME; \\ ✓`;
  const line = commandShellLine({
    argv: ['sh', '-c', 'pwd; printf "%s\\n" "$TRICKY" "[$TERM_PROGRAM$TERM_PROGRAM_VERSION]"'],
    env: { TRICKY: tricky },
    cwd: dir,
  });
  const out = execFileSync('sh', ['-c', line], {
    encoding: 'utf8',
    env: { ...process.env, TERM_PROGRAM: 'tmux', TERM_PROGRAM_VERSION: '3.3a' },
  });
  assert.deepEqual(out.split('\n'), [await realpath(dir), tricky, '[]', '']);
});
