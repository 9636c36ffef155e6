import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { CLIENTS_DIR, needsProgram } from '@tandem/testkit';
import {
  approvalModeOrigin,
  cliSettings,
  ideModeSetting,
  stripJsonComments,
} from './cli-settings.js';
import { discoveryLocations } from './discovery-rules.js';

let root: string;
let env: NodeJS.ProcessEnv;
let project: string;

before(() => {
  root = mkdtempSync(join(tmpdir(), 'tandem-settings-'));
  project = join(root, 'project');
  mkdirSync(project);
  env = {
    HOME: join(root, 'home'),
    QWEN_HOME: join(root, 'qwen'),
    GEMINI_CLI_SYSTEM_SETTINGS_PATH: join(root, 'etc-gemini', 'settings.json'),
    QWEN_CODE_SYSTEM_SETTINGS_PATH: join(root, 'etc-qwen', 'settings.json'),
  };
});

after(() => rmSync(root, { recursive: true, force: true }));

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

function remove(...paths: string[]): void {
  for (const path of paths) rmSync(path, { force: true });
}

test('IDE mode is off when no settings file sets it', async () => {
  for (const client of ['gemini', 'qwen'] as const) {
    const setting = await ideModeSetting(client, discoveryLocations(env, project), project, env);
    assert.equal(setting.enabled, false);
    assert.equal(setting.decidedBy, undefined);
  }
});

test("Gemini CLI: the user's file, overridden by the project's, overridden by the system's", async () => {
  const user = join(env.HOME as string, '.gemini', 'settings.json');
  const workspace = join(project, '.gemini', 'settings.json');
  const system = env.GEMINI_CLI_SYSTEM_SETTINGS_PATH as string;
  const read = () => ideModeSetting('gemini', discoveryLocations(env, project), project, env);
  write(user, '{\n  // IDE integration\n  "ide": { "enabled": true /* on */ }\n}');
  assert.deepEqual([(await read()).enabled, (await read()).decidedBy?.path], [true, user]);
  write(workspace, '{"ide": {"enabled": false}}');
  assert.deepEqual([(await read()).enabled, (await read()).decidedBy?.scope], [false, 'workspace']);
  write(system, '{"ide": {"enabled": true}}');
  assert.deepEqual([(await read()).enabled, (await read()).decidedBy?.scope], [true, 'system']);
  remove(user, workspace, system);
});

test('Qwen Code: $QWEN_HOME/settings.json, and the older top-level ideMode', async () => {
  const user = join(env.QWEN_HOME as string, 'settings.json');
  const read = () => ideModeSetting('qwen', discoveryLocations(env, project), project, env);
  write(user, '{"ideMode": true}');
  assert.equal((await read()).enabled, true);
  write(user, '{"ide": {"enabled": false}, "ideMode": true}');
  assert.equal((await read()).enabled, false);
  write(user, '{"ide": ');
  const broken = await read();
  assert.equal(broken.enabled, false);
  assert.equal(broken.layers.find((layer) => layer.scope === 'user')?.error, 'is not valid JSON');
  remove(user);
});

test('approval mode: Qwen Code starts in "auto" (no diffs), Gemini CLI in "default"', async () => {
  const at = discoveryLocations(env, project);
  const qwen = () => cliSettings('qwen', at, project, env);
  const gemini = () => cliSettings('gemini', at, project, env);
  assert.deepEqual((await qwen()).approvalMode, { mode: 'auto', showsDiffs: false });
  assert.deepEqual((await gemini()).approvalMode, { mode: 'default', showsDiffs: true });
  const qwenUser = join(env.QWEN_HOME as string, 'settings.json');
  write(qwenUser, '{"tools": {"approvalMode": "DEFAULT"}}');
  assert.equal((await qwen()).approvalMode.showsDiffs, true);
  write(join(project, '.qwen', 'settings.json'), '{"tools": {"approvalMode": "auto_edit"}}');
  assert.equal((await qwen()).approvalMode.mode, 'auto-edit');
  assert.equal((await qwen()).approvalMode.decidedBy?.scope, 'workspace');
  const geminiUser = join(env.HOME as string, '.gemini', 'settings.json');
  write(geminiUser, '{"general": {"defaultApprovalMode": "auto_edit"}}');
  assert.deepEqual(
    [(await gemini()).approvalMode.mode, (await gemini()).approvalMode.showsDiffs],
    ['auto_edit', false],
  );
  // Gemini CLI refuses yolo from a settings file: it starts in its default.
  write(geminiUser, '{"general": {"defaultApprovalMode": "yolo"}}');
  assert.equal((await gemini()).approvalMode.mode, 'default');
  remove(qwenUser, geminiUser, join(project, '.qwen', 'settings.json'));
});

test("Qwen Code's default approval mode is its version's: auto in the real 0.24.4, default in 0.15.10 (Node 20's)", async (t) => {
  const realQwen = join(CLIENTS_DIR, 'node_modules', '.bin', 'qwen');
  if (!needsProgram(t, realQwen)) return;
  const at = discoveryLocations(env, project);
  const qwenFrom = (PATH: string) => cliSettings('qwen', at, project, { ...env, PATH });
  const real = await qwenFrom(`${join(root, 'nowhere')}:${dirname(realQwen)}`);
  const { version } = JSON.parse(
    readFileSync(
      join(CLIENTS_DIR, 'node_modules', '@qwen-code', 'qwen-code', 'package.json'),
      'utf8',
    ),
  );
  assert.deepEqual(real.approvalMode, { mode: 'auto', showsDiffs: false, version });
  assert.equal(
    approvalModeOrigin('qwen', real.approvalMode),
    `the default of Qwen Code ${version}`,
  );

  // As `npm install -g @qwen-code/qwen-code` lays out 0.15.10, the newest release for Node 20.
  const prefix = join(root, 'node20');
  const pkg = join(prefix, 'lib', 'node_modules', '@qwen-code', 'qwen-code');
  write(join(pkg, 'package.json'), '{"name": "@qwen-code/qwen-code", "version": "0.15.10"}');
  write(join(pkg, 'cli.js'), '');
  mkdirSync(join(prefix, 'bin'));
  symlinkSync('../lib/node_modules/@qwen-code/qwen-code/cli.js', join(prefix, 'bin', 'qwen'));
  const old = await qwenFrom(join(prefix, 'bin'));
  assert.deepEqual(old.approvalMode, { mode: 'default', showsDiffs: true, version: '0.15.10' });

  // No qwen on the PATH: the newest releases' default, said as such.
  const none = await qwenFrom(join(root, 'nowhere'));
  assert.deepEqual(none.approvalMode, { mode: 'auto', showsDiffs: false });
  assert.equal(approvalModeOrigin('qwen', none.approvalMode), 'its default since 0.21.0');
});

test('comments are removed outside strings only', () => {
  const text = '{"url": "http://x/*y*/", // note\n "a": "//b" /* c */}';
  assert.deepEqual(JSON.parse(stripJsonComments(text)), { url: 'http://x/*y*/', a: '//b' });
  assert.deepEqual(JSON.parse(stripJsonComments('{"q": "say \\"//hi\\""}')), { q: 'say "//hi"' });
});
