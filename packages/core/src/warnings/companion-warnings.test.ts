import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, describe, test } from 'node:test';
import { needShell, RecordingEditor, Sandbox } from '@tandem/testkit';
import { startEngine } from '../engine.fixture.js';
import type { Engine } from '../engine.js';
import type { WarningInput } from '../clients/companion-warnings.js';
import { companionWarnings, tandemCommandFor } from './companion-warnings.js';

const sandbox = new Sandbox('tandem-warnings-');
const engines: Engine[] = [];
after(async () => {
  await Promise.all(engines.map((engine) => engine.stop()));
  sandbox.remove();
});

function input(extra: Partial<WarningInput> = {}): WarningInput {
  return {
    env: { HOME: sandbox.home, TMPDIR: sandbox.tmpDir, QWEN_HOME: sandbox.qwenHome },
    workspaceFolders: [sandbox.workspace],
    port: 1,
    container: {},
    tandem: 'tandem',
    ownTerminals: true,
    showsDiffs: true,
    ...extra,
  };
}

function write(path: string, value: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify(value));
}

const codes = async (extra: Partial<WarningInput> = {}) =>
  (await companionWarnings(input(extra))).map((warning) => `${warning.code}:${warning.cli ?? '*'}`);

describe('companion warnings', () => {
  test('IDE mode off, and Qwen Code in its default "auto" approval mode: no diff is ever shown', async () => {
    assert.deepEqual(await codes(), ['ide-mode-off:gemini', 'ide-mode-off:qwen', 'no-diffs:qwen']);
    const [warning] = (await companionWarnings(input())).filter((w) => w.code === 'no-diffs');
    assert.match(warning!.message, /approval mode "auto" \(its default since 0\.21\.0\)/);
    assert.match(warning!.fix, /\/approval-mode default/);
    assert.match(warning!.fix, /"tools": \{"approvalMode": "default"\}/);
    const ideOff = (await companionWarnings(input()))[0]!;
    assert.match(ideOff.fix, /answer No .* \/ide enable/);
    // An editor that shows no diffs has nothing to lose to an approval mode.
    assert.deepEqual(await codes({ showsDiffs: false }), [
      'ide-mode-off:gemini',
      'ide-mode-off:qwen',
    ]);
  });

  test('settings that turn IDE mode on and ask before each edit leave nothing to say', async () => {
    write(join(sandbox.home, '.gemini', 'settings.json'), { ide: { enabled: true } });
    write(join(sandbox.qwenHome, 'settings.json'), {
      ide: { enabled: true },
      tools: { approvalMode: 'default' },
    });
    assert.deepEqual(await codes(), []);
    write(join(sandbox.home, '.gemini', 'settings.json'), {
      ide: { enabled: true },
      general: { defaultApprovalMode: 'auto_edit' },
    });
    assert.deepEqual(await codes(), ['no-diffs:gemini']);
    write(join(sandbox.home, '.gemini', 'settings.json'), { ide: { enabled: true } });
  });

  test('in a container without an override Gemini CLI dials host.docker.internal: say what to do', async () => {
    const [warning] = await companionWarnings(input({ container: { marker: '/.dockerenv' } }));
    assert.equal(warning?.code, 'container');
    assert.match(warning!.message, /host\.docker\.internal/);
    assert.match(warning!.fix, /eval "\$\(tandem env\)"/);
    assert.match(warning!.fix, /the editor's own terminals have it already/);
    const serve = await companionWarnings(
      input({ container: { marker: '/.dockerenv' }, ownTerminals: false, tandem: 'node /x/t.js' }),
    );
    assert.match(serve[0]!.fix, /eval "\$\(node \/x\/t\.js env\)"/);
    assert.deepEqual(
      await codes({ container: { marker: '/.dockerenv', localOverride: 'REMOTE_CONTAINERS' } }),
      [],
    );
    // Once a Gemini CLI has connected, its terminal had the fix: the warning goes (a Qwen Code
    // connecting says nothing about Gemini CLI's terminals).
    const inContainer = { container: { marker: '/.dockerenv' } };
    assert.deepEqual(await codes({ ...inContainer, connectedClients: ['Gemini CLI'] }), []);
    assert.deepEqual(await codes({ ...inContainer, connectedClients: ['Qwen Code'] }), [
      'container:gemini',
    ]);
  });

  test('another live editor on the same folder, or a parent or child of it, is named', async () => {
    mkdirSync(join(sandbox.workspace, 'pkg'), { recursive: true });
    const first = await startEngine(sandbox, new RecordingEditor(), {
      editor: { name: 'neovim', displayName: 'Neovim', pid: process.pid },
      // A folder inside this one: a CLI started there finds both.
      workspaceFolders: [join(sandbox.workspace, 'pkg')],
    });
    engines.push(first);
    const second = await startEngine(sandbox, new RecordingEditor());
    engines.push(second);
    const shared = second.warnings().filter((warning) => warning.code === 'shared-folder');
    assert.equal(shared.length, 1);
    assert.match(
      shared[0]!.message,
      new RegExp(`Neovim \\(PID ${process.pid}, port ${first.port}`),
    );
    assert.match(shared[0]!.fix, new RegExp(`tandem env --port ${second.port}`));
    // Elsewhere, it is not this editor's business.
    const elsewhere = join(sandbox.root, 'elsewhere');
    mkdirSync(elsewhere);
    assert.deepEqual(
      (await companionWarnings(input({ workspaceFolders: [elsewhere], port: second.port }))).filter(
        (warning) => warning.code === 'shared-folder',
      ),
      [],
    );
  });

  test("an engine reads Claude Code's settings from the folder its discovery options name", async (t) => {
    const own = new Sandbox('tandem-warnings-claude-');
    t.after(() => own.remove());
    own.useClaudeCode('acceptEdits', { diffTool: 'terminal' });
    const engine = await startEngine(own, new RecordingEditor());
    t.after(() => engine.stop());
    const claude = engine.warnings().filter((warning) => warning.cli === 'claude');
    assert.deepEqual(
      claude.map((warning) => warning.code),
      ['no-diffs', 'terminal-diffs'],
    );
  });

  test("Claude Code's facts as its binary reads them: settings by precedence, its state file, other companions' locks", async () => {
    const home = join(sandbox.root, 'claude-user');
    const folder = join(sandbox.root, 'claude-project');
    mkdirSync(folder, { recursive: true });
    const env = { HOME: home, TMPDIR: sandbox.tmpDir, QWEN_HOME: sandbox.qwenHome, PATH: '' };
    const claude = async () =>
      (await companionWarnings(input({ env, workspaceFolders: [folder] }))).filter(
        (warning) => warning.cli === 'claude',
      );
    // No ~/.claude and no claude on the PATH: not a Claude Code user. Nor is one whose
    // ~/.claude holds only the ide folder, which Tandem makes for its own lock.
    assert.deepEqual(await claude(), []);
    mkdirSync(join(home, '.claude', 'ide'), { recursive: true });
    assert.deepEqual(await claude(), []);
    // A claude on the PATH is enough.
    const bin = join(sandbox.root, 'claude-bin');
    write(join(bin, 'claude'), '');
    env.PATH = bin;
    assert.deepEqual(
      (await claude()).map((warning) => warning.code),
      ['no-diffs'],
    );
    env.PATH = '';
    const userFile = join(home, '.claude', 'settings.json');
    write(userFile, {});
    const [byDefault] = await claude();
    assert.equal(byDefault?.code, 'no-diffs');
    assert.match(byDefault!.message, /"auto" \(the default of its newest releases\)/);
    write(userFile, { permissions: { defaultMode: 'default' } });
    assert.deepEqual(await claude(), []);
    // The project's file outranks the user's, the local one outranks both.
    write(join(folder, '.claude', 'settings.json'), {
      permissions: { defaultMode: 'acceptEdits' },
    });
    assert.match((await claude())[0]!.fix, /claude-project\/\.claude\/settings\.json\.$/);
    write(join(folder, '.claude', 'settings.local.json'), {
      permissions: { defaultMode: 'manual' },
    });
    assert.deepEqual(await claude(), []);
    // A folder may not choose "auto": the binary ignores it there.
    write(join(folder, '.claude', 'settings.local.json'), { permissions: { defaultMode: 'auto' } });
    assert.match((await claude())[0]!.message, /"acceptEdits" \(set in/);
    write(join(folder, '.claude', 'settings.json'), {});
    assert.deepEqual(await claude(), []);
    // diffTool lives in its state file, beside the home folder's .claude.
    write(join(home, '.claude.json'), { diffTool: 'terminal' });
    assert.deepEqual(
      (await claude()).map((warning) => warning.code),
      ['terminal-diffs'],
    );
    write(join(home, '.claude.json'), { diffTool: 'auto' });
    // Locks: another companion's, alive, on a parent folder; a dead one; Tandem's own; elsewhere.
    const ide = join(home, '.claude', 'ide');
    write(join(ide, '30001.lock'), {
      pid: process.pid,
      workspaceFolders: [sandbox.root],
      ideName: 'Neovim',
      transport: 'ws',
    });
    write(join(ide, '30002.lock'), {
      pid: 999_999_999,
      workspaceFolders: [folder],
      ideName: 'Emacs',
    });
    write(join(ide, '30003.lock'), {
      pid: process.pid,
      workspaceFolders: [folder],
      ideName: 'Vim',
      tandem: { pid: process.pid },
    });
    write(join(ide, '30004.lock'), {
      pid: process.pid,
      workspaceFolders: [sandbox.home],
      ideName: 'Emacs',
    });
    writeFileSync(join(ide, '30005.lock'), '{not json');
    const shared = await claude();
    assert.deepEqual(
      shared.map((warning) => warning.code),
      ['shared-folder'],
    );
    assert.match(shared[0]!.message, new RegExp(`Neovim \\(PID ${process.pid}, port 30001`));
    assert.match(shared[0]!.fix, /claudecode\.nvim/);
  });

  test('a fix for a fish user is a fish line: a hostile path to tandem stays one word', async (t) => {
    if (!needShell(t, 'fish')) return;
    const dir = join(sandbox.root, "p\\';touch PWNED;#");
    mkdirSync(dir);
    const script = join(dir, 'tandem.js');
    writeFileSync(script, "console.log('set -gx RAN yes')\n");
    const fish = { SHELL: '/usr/bin/fish', PATH: '' };
    const tandem = await tandemCommandFor(script, fish);
    const warnings = await companionWarnings(
      input({ container: { marker: '/.dockerenv' }, tandem, env: { ...input().env, ...fish } }),
    );
    const warning = warnings.find((w) => w.code === 'container');
    const line = /run (.* \| source)/.exec(warning!.fix)?.[1];
    assert.ok(line, warning!.fix);
    const out = execFileSync('fish', ['-c', `${line}; echo $RAN`], {
      cwd: sandbox.root,
      env: { PATH: process.env.PATH },
      encoding: 'utf8',
    });
    assert.equal(existsSync(join(sandbox.root, 'PWNED')), false, line);
    assert.equal(out, 'yes\n');
  });

  test('the fixes name tandem as the user runs it: `tandem` once it is on PATH, else its path', async () => {
    const cli = join(sandbox.root, 'clone', 'packages', 'cli');
    mkdirSync(join(cli, 'bin'), { recursive: true });
    mkdirSync(join(cli, 'dist'), { recursive: true });
    writeFileSync(join(cli, 'bin', 'tandem.js'), '');
    writeFileSync(join(cli, 'dist', 'tandem.js'), '');
    const script = join(cli, 'dist', 'tandem.js');
    const bin = join(sandbox.root, 'bin');
    mkdirSync(bin);
    assert.equal(await tandemCommandFor(script, { PATH: bin }), `node ${script}`);
    // What `npm link -w @tandem/cli` makes: a `tandem` on PATH that leads to bin/tandem.js.
    symlinkSync(join(cli, 'bin', 'tandem.js'), join(bin, 'tandem'));
    assert.equal(await tandemCommandFor(script, { PATH: `/nowhere:${bin}` }), 'tandem');
    // Run by an npm script (`npm run demo`), the clone's own node_modules/.bin leads to it too,
    // but that folder is on npm's PATH only, not in the user's terminal.
    const npmBin = join(sandbox.root, 'clone', 'node_modules', '.bin');
    mkdirSync(npmBin, { recursive: true });
    symlinkSync(join(cli, 'bin', 'tandem.js'), join(npmBin, 'tandem'));
    const npmPath = { PATH: `${npmBin}:/nowhere`, npm_lifecycle_event: 'demo' };
    assert.equal(await tandemCommandFor(script, npmPath), `node ${script}`);
    assert.equal(await tandemCommandFor(script, { PATH: npmBin }), 'tandem');
    // Run as anything else (a test), it is the plain name.
    assert.equal(await tandemCommandFor('/x/some.test.ts', { PATH: '' }), 'tandem');
  });
});
