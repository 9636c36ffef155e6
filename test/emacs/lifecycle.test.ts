/**
 * Tandem's life in real Emacs: the discovery files, the environment reaching `M-x shell`, the
 * mode line, `M-x tandem-status`, turning the mode off and quitting Emacs with a diff open, a
 * sidecar that dies, and one that is not built.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { realClientIn, waitFor } from '@tandem/testkit';
import { EmacsSession, lispString, Sandbox, skipReason } from './emacs-session.js';

const skip = skipReason({ sidecar: true, tmux: true });

/** The discovery files in the sandbox: Gemini's and the Qwen locks. */
function discoveryFiles(sandbox: Sandbox): string[] {
  const dirs = [path.join(sandbox.tmpDir, 'gemini', 'ide'), path.join(sandbox.qwenHome, 'ide')];
  return dirs.flatMap((dir) =>
    existsSync(dir) ? readdirSync(dir).map((name) => path.join(dir, name)) : [],
  );
}

async function withEmacs(
  body: (emacs: EmacsSession, sandbox: Sandbox) => Promise<void>,
  options: { tandem?: boolean } = { tandem: true },
): Promise<void> {
  const sandbox = new Sandbox();
  const emacs = await EmacsSession.start(sandbox, options);
  try {
    await body(emacs, sandbox);
  } finally {
    await emacs.close();
    sandbox.remove();
  }
}

test('discovery files name Emacs, with its PID; the mode line counts the CLIs', { skip }, () =>
  withEmacs(async (emacs, sandbox) => {
    const status = await emacs.status();
    assert.equal(status.folder, sandbox.workspace);
    assert.deepEqual([...status.discoveryFiles].sort(), discoveryFiles(sandbox).sort());
    const pid = Number(await emacs.eval('(emacs-pid)'));
    const gemini = status.discoveryFiles.find((file) => file.includes('gemini-ide-server-'));
    const qwen = status.discoveryFiles.find((file) => file.endsWith('.lock'));
    const geminiData = JSON.parse(readFileSync(gemini!, 'utf8'));
    assert.deepEqual(geminiData.ideInfo, { name: 'emacs', displayName: 'Emacs' });
    assert.equal(geminiData.workspacePath, sandbox.workspace);
    assert.equal(JSON.parse(readFileSync(qwen!, 'utf8')).ppid, pid);
    await emacs.waitForScreen(/Tandem\[0\]/);
    const client = await realClientIn(sandbox, 'qwen');
    try {
      assert.equal((await client.connect()).status, 'connected');
      await emacs.waitForScreen(/Tandem\[1\]/);
      await emacs.press('M-x');
      await emacs.type('tandem-status');
      await emacs.press('Enter');
      const screen = await emacs.waitForScreen(/CLIs: +Qwen Code/);
      assert.match(screen, new RegExp(`Port: +${status.port}`));
      assert.match(screen, /Log: +buffer \*tandem-log\*/);
    } finally {
      await client.kill();
    }
    await emacs.waitForScreen(/Tandem\[0\]/);
  }),
);

test('a shell started after tandem-mode has the variables the CLIs look for', { skip }, () =>
  withEmacs(async (emacs) => {
    const { port } = await emacs.status();
    assert.equal(await emacs.text('(getenv "GEMINI_CLI_IDE_SERVER_PORT")'), String(port));
    await emacs.press('M-x');
    await emacs.type('shell');
    await emacs.press('Enter');
    await emacs.type('echo "ports=$GEMINI_CLI_IDE_SERVER_PORT,$QWEN_CODE_IDE_SERVER_PORT"');
    await emacs.press('Enter');
    await emacs.waitForScreen(new RegExp(`ports=${port},${port}`));
  }),
);

test(
  'turning tandem-mode off rejects open diffs, removes the files and the variables',
  { skip },
  () =>
    withEmacs(async (emacs, sandbox) => {
      const gemini = await realClientIn(sandbox, 'gemini');
      try {
        assert.equal((await gemini.connect()).status, 'connected');
        const file = path.join(sandbox.workspace, 'off.txt');
        writeFileSync(file, 'a\n');
        const diff = gemini.openDiff(file, 'b\n');
        await diff.opened;
        await emacs.waitForDiffs(1);
        await emacs.press('M-x');
        await emacs.type('tandem-mode');
        await emacs.press('Enter');
        assert.equal((await diff.result).status, 'rejected');
        const status = await emacs.waitForState('stopped');
        assert.deepEqual(status.diffs, []);
        assert.deepEqual(discoveryFiles(sandbox), []);
        assert.equal(await emacs.eval('(getenv "GEMINI_CLI_IDE_SERVER_PORT")'), 'nil');
        assert.equal(await emacs.eval('(get-buffer "*tandem proposal: off.txt*")'), 'nil');
      } finally {
        await gemini.kill();
      }
    }),
);

test('quitting Emacs with a diff open: the CLI is told, no discovery file is left', { skip }, () =>
  withEmacs(async (emacs, sandbox) => {
    const gemini = await realClientIn(sandbox, 'gemini');
    try {
      assert.equal((await gemini.connect()).status, 'connected');
      const file = path.join(sandbox.workspace, 'quit.txt');
      writeFileSync(file, 'a\n');
      const diff = gemini.openDiff(file, 'b\n');
      await diff.opened;
      await emacs.waitForDiffs(1);
      await emacs.type('an edit nobody saves');
      await emacs.keys('C-x', 'C-c');
      assert.match(await emacs.waitForExit(), /exit status 0|exited/);
      assert.equal((await diff.result).status, 'rejected');
      assert.deepEqual(discoveryFiles(sandbox), []);
    } finally {
      await gemini.kill();
    }
  }),
);

test('a sidecar that dies: the mode line says so, the variables are gone', { skip }, () =>
  withEmacs(async (emacs) => {
    const pid = Number(
      await emacs.eval('(process-id (tandem-rpc-process (tandem-session-rpc tandem--session)))'),
    );
    process.kill(pid, 'SIGKILL');
    const status = await emacs.waitForState('failed');
    assert.match(status.error ?? '', /the sidecar exited/);
    await emacs.waitForScreen(/Tandem\[!\]/);
    assert.equal(await emacs.eval('(getenv "GEMINI_CLI_IDE_SERVER_PORT")'), 'nil');
  }),
);

test('a sidecar that is not built: tandem-mode says how to build it', { skip }, () =>
  withEmacs(
    async (emacs, sandbox) => {
      const missing = path.join(sandbox.root, 'not-built', 'tandem.js');
      await emacs.eval(`(setq tandem-sidecar-script ${lispString(missing)})`);
      await emacs.press('M-x');
      await emacs.type('tandem-mode');
      await emacs.press('Enter');
      const status = await emacs.waitForState('failed');
      assert.match(status.error ?? '', /the sidecar is not built: run `npm run build:sidecar'/);
      await emacs.waitForScreen(/Tandem: the sidecar is not built/);
      await waitFor('no discovery file', () =>
        discoveryFiles(sandbox).length === 0 ? true : undefined,
      );
    },
    { tandem: false },
  ),
);
