/**
 * Tandem's life in real Emacs: the discovery files, the environment reaching `M-x shell`, the
 * mode line, `M-x tandem-status`, turning the mode off and quitting Emacs with a diff open, a
 * sidecar that dies, and a `tandem-sidecar-script` that is not there.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import {
  connectedClientIn,
  EmacsSession,
  emacsSkipReason,
  lispString,
  processEnvironment,
  Sandbox,
  waitFor,
  type DiffHandle,
} from '@tandem/testkit';

const skip = emacsSkipReason({ sidecar: true, tmux: true });

/** The discovery files in the sandbox: Gemini's and the Qwen locks. */

async function withEmacs(
  body: (emacs: EmacsSession, sandbox: Sandbox) => Promise<void>,
  options: { tandem?: boolean; prepare?: (sandbox: Sandbox) => void } = { tandem: true },
): Promise<void> {
  const sandbox = new Sandbox();
  options.prepare?.(sandbox);
  const emacs = await EmacsSession.start(sandbox, { tandem: options.tandem });
  try {
    await body(emacs, sandbox);
  } finally {
    await emacs.close();
    sandbox.remove();
  }
}

/**
 * Has a connected Gemini client propose `b` for `name` (holding `a`), waits until Emacs shows
 * the diff, runs `body` with it, and ends the client.
 */
async function withDiffShown(
  emacs: EmacsSession,
  sandbox: Sandbox,
  name: string,
  body: (diff: DiffHandle) => Promise<void>,
): Promise<void> {
  const gemini = await connectedClientIn(sandbox, 'gemini');
  try {
    const file = path.join(sandbox.workspace, name);
    writeFileSync(file, 'a\n');
    const diff = gemini.openDiff(file, 'b\n');
    await diff.opened;
    await emacs.waitForDiffs(1);
    await body(diff);
  } finally {
    await gemini.kill();
  }
}

test('discovery files name Emacs, with its PID; the mode line counts the CLIs', { skip }, () =>
  withEmacs(async (emacs, sandbox) => {
    const status = await emacs.status();
    assert.equal(status.folder, sandbox.workspace);
    assert.deepEqual([...status.discoveryFiles].sort(), sandbox.discoveryFiles().sort());
    const pid = Number(await emacs.eval('(emacs-pid)'));
    const gemini = status.discoveryFiles.find((file) => file.includes('gemini-ide-server-'));
    const qwen = status.discoveryFiles.find((file) => file.endsWith('.lock'));
    const geminiData = JSON.parse(readFileSync(gemini!, 'utf8'));
    assert.deepEqual(geminiData.ideInfo, { name: 'emacs', displayName: 'Emacs' });
    assert.equal(geminiData.workspacePath, sandbox.workspace);
    assert.equal(JSON.parse(readFileSync(qwen!, 'utf8')).ppid, pid);
    await emacs.waitForScreen(/Tandem\[0\]/);
    const client = await connectedClientIn(sandbox, 'qwen');
    try {
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

interface Warning {
  code: string;
  cli?: string;
  message: string;
  fix?: string;
}

/** The engine's warnings as Emacs keeps them. */
function warnings(emacs: EmacsSession): Promise<Warning[]> {
  return emacs.json<Warning[]>("(vconcat (alist-get 'warnings (tandem-status-data)))");
}

/** What Emacs showed in the echo area so far. */
function messages(emacs: EmacsSession): Promise<string> {
  return emacs.text('(with-current-buffer "*Messages*" (buffer-string))');
}

test(
  "the engine's warnings, Claude Code's three among them: said once, marked in the mode line, with their fixes in tandem-status",
  { skip },
  () =>
    withEmacs(
      async (emacs, sandbox) => {
        // The sandbox has no settings of Gemini CLI and Qwen Code: IDE mode is off in both, Qwen Code
        // writes without asking.
        const first = await warnings(emacs);
        assert.ok(
          first.some((w) => w.code === 'ide-mode-off' && w.cli === 'gemini'),
          JSON.stringify(first),
        );
        assert.ok(
          first.some((w) => w.code === 'no-diffs' && w.cli === 'qwen'),
          JSON.stringify(first),
        );
        // And Claude Code writes edits without asking, shows its diffs in its terminal, and
        // claude-code-ide.el (whose lock names its editor "Emacs") serves the folder too.
        const claude = (code: string) => {
          const found = first.find((w) => w.code === code && w.cli === 'claude');
          assert.ok(found?.fix, `${code} in ${JSON.stringify(first)}`);
          return { message: found.message, fix: found.fix };
        };
        claude('no-diffs');
        assert.match(claude('terminal-diffs').fix, /Type \/config in Claude Code/);
        const otherCompanion = claude('shared-folder');
        assert.ok(
          otherCompanion.message.includes(`: Emacs (PID ${process.pid}, port 1,`),
          otherCompanion.message,
        );
        assert.match(
          otherCompanion.fix,
          /stop claude-code-ide\.el there \(M-x claude-code-ide-stop\)/,
        );
        await emacs.waitForScreen(/Tandem\[0\]!/);
        const said = (await messages(emacs))
          .split('\n')
          .filter((line) => line.startsWith('Tandem: '));
        assert.deepEqual(said, [
          `Tandem: ${first.map((w) => w.message).join('  ')} (M-x tandem-status says what to do)`,
        ]);
        await emacs.press('M-x');
        await emacs.type('tandem-status');
        await emacs.press('Enter');
        await emacs.waitForScreen(/Warning: IDE mode is off/);
        const report = await emacs.text('(with-current-buffer "*tandem-status*" (buffer-string))');
        for (const warning of first) {
          assert.ok(
            report.includes(`Warning: ${warning.message}\n  Fix:   ${warning.fix}\n`),
            report,
          );
        }
        // Qwen Code set up to show diffs: the sidecar looks again when a CLI connects.
        writeFileSync(
          path.join(sandbox.qwenHome, 'settings.json'),
          JSON.stringify({ ide: { enabled: true }, tools: { approvalMode: 'default' } }),
        );
        const qwen = await connectedClientIn(sandbox, 'qwen');
        try {
          const second = await waitFor('the new warnings', async () => {
            const now = await warnings(emacs);
            return now.some((w) => w.cli === 'qwen') ? undefined : now;
          });
          assert.ok(second.length > 0, 'Gemini CLI still has IDE mode off');
          await waitFor('the new warnings said', async () =>
            (await messages(emacs)).includes(
              `Tandem: ${second.map((w) => w.message).join('  ')} (M-x tandem-status`,
            )
              ? true
              : undefined,
          );
        } finally {
          await qwen.kill();
        }
      },
      {
        tandem: true,
        prepare: (sandbox) =>
          sandbox.useClaudeCode('acceptEdits', { diffTool: 'terminal', otherCompanion: 'Emacs' }),
      },
    ),
);

test('M-x tandem-doctor shows the report of tandem doctor for the folder', { skip }, () =>
  withEmacs(async (emacs, sandbox) => {
    await emacs.press('M-x');
    await emacs.type('tandem-doctor');
    await emacs.press('Enter');
    await emacs.waitForScreen(new RegExp(`tandem doctor: ${sandbox.workspace}`));
    const report = await waitFor('the whole report', async () => {
      const text = await emacs.text('(with-current-buffer "*tandem-doctor*" (buffer-string))');
      return text.includes('Problems and fixes') ? text : undefined;
    });
    assert.ok(report.startsWith(`tandem doctor: ${sandbox.workspace}\n`), report);
    // Run with the variables of Emacs's terminals: both CLIs would find this Emacs.
    const { port } = await emacs.status();
    assert.match(report, new RegExp(`port ${port}`));
    assert.equal(
      await emacs.eval('(with-current-buffer "*tandem-doctor*" (derived-mode-p \'special-mode))'),
      'special-mode',
    );
  }),
);

test('M-x tandem-env shows and copies the line for another terminal', { skip }, () =>
  withEmacs(async (emacs, sandbox) => {
    await emacs.press('M-x');
    await emacs.type('tandem-env');
    await emacs.press('Enter');
    const line = await emacs.text('(current-kill 0)');
    await emacs.waitForScreen(/Copied; paste it into the terminal/);
    assert.match(line, /^eval "\$\(node .*tandem\.js env --cwd .* --port \d+\)"$/);
    const { port } = await emacs.status();
    const exports = execFileSync('bash', ['-c', `${line}; echo "$QWEN_CODE_IDE_SERVER_PORT"`], {
      cwd: sandbox.workspace,
      env: sandbox.env(),
      encoding: 'utf8',
    });
    assert.equal(exports.trim(), String(port));
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
    withEmacs((emacs, sandbox) =>
      withDiffShown(emacs, sandbox, 'off.txt', async (diff) => {
        await emacs.press('M-x');
        await emacs.type('tandem-mode');
        await emacs.press('Enter');
        assert.equal((await diff.result).status, 'rejected');
        const status = await emacs.waitForState('stopped');
        assert.deepEqual(status.diffs, []);
        assert.deepEqual(sandbox.discoveryFiles(), []);
        assert.equal(await emacs.eval('(getenv "GEMINI_CLI_IDE_SERVER_PORT")'), 'nil');
        assert.equal(await emacs.eval('(get-buffer "*tandem proposal: off.txt*")'), 'nil');
      }),
    ),
);

test('quitting Emacs with a diff open: the CLI is told, no discovery file is left', { skip }, () =>
  withEmacs((emacs, sandbox) =>
    withDiffShown(emacs, sandbox, 'quit.txt', async (diff) => {
      await emacs.type('an edit nobody saves');
      await emacs.keys('C-x', 'C-c');
      assert.match(await emacs.waitForExit(), /exit status 0|exited/);
      assert.equal((await diff.result).status, 'rejected');
      assert.deepEqual(sandbox.discoveryFiles(), []);
    }),
  ),
);

test(
  "the sidecar starts with glibc's allocator set to give large buffers back unless Emacs's environment sets it, and without extra CA certificates; terminals and CLIs keep the user's",
  { skip },
  () =>
    withEmacs(async (emacs, sandbox) => {
      const sidecarEnvironment = async () =>
        processEnvironment(Number(await emacs.eval("(alist-get 'pid (tandem-status-data))")));
      const running = await sidecarEnvironment();
      assert.equal(running.GLIBC_TUNABLES, 'glibc.malloc.mmap_threshold=65536');
      assert.equal(running.NODE_EXTRA_CA_CERTS, '');
      await emacs.eval('(setenv "GLIBC_TUNABLES" "glibc.malloc.perturb=0")');
      await emacs.eval('(setenv "NODE_EXTRA_CA_CERTS" "/etc/ssl/certs/ca-certificates.crt")');
      await emacs.eval('(tandem-mode -1)');
      await emacs.waitForState('stopped');
      await emacs.eval('(tandem-mode 1)');
      await emacs.waitForState('running');
      const restarted = await sidecarEnvironment();
      assert.equal(restarted.GLIBC_TUNABLES, 'glibc.malloc.perturb=0');
      assert.equal(restarted.NODE_EXTRA_CA_CERTS, '');
      // Only the sidecar goes without them: a CLI may well need the user's certificates.
      await emacs.eval(
        '(progn (setq tandem-gemini-command "printenv NODE_EXTRA_CA_CERTS > cli-certificates.out") (tandem-run-gemini))',
      );
      const out = path.join(sandbox.workspace, 'cli-certificates.out');
      const text = await waitFor('the CLI to write its certificates', () => {
        const text = existsSync(out) ? readFileSync(out, 'utf8') : '';
        return text.endsWith('\n') ? text : undefined;
      });
      assert.equal(text, '/etc/ssl/certs/ca-certificates.crt\n');
    }),
);

test('a sidecar that dies: the mode line says so, the variables are gone', { skip }, () =>
  withEmacs(async (emacs) => {
    const pid = Number(await emacs.eval("(alist-get 'pid (tandem-status-data))"));
    process.kill(pid, 'SIGKILL');
    const status = await emacs.waitForState('failed');
    assert.match(status.error ?? '', /the sidecar exited/);
    await emacs.waitForScreen(/Tandem\[!\]/);
    assert.equal(await emacs.eval('(getenv "GEMINI_CLI_IDE_SERVER_PORT")'), 'nil');
  }),
);

test('a tandem-sidecar-script that is not there: tandem-mode says so', { skip }, () =>
  withEmacs(
    async (emacs, sandbox) => {
      const missing = path.join(sandbox.root, 'not-built', 'tandem.js');
      await emacs.eval(`(setq tandem-sidecar-script ${lispString(missing)})`);
      await emacs.press('M-x');
      await emacs.type('tandem-mode');
      await emacs.press('Enter');
      const status = await emacs.waitForState('failed');
      assert.match(status.error ?? '', /`tandem-sidecar-script' names \S+, which cannot be read/);
      await emacs.waitForScreen(/Tandem: `tandem-sidecar-script' names/);
      await waitFor('no discovery file', () =>
        sandbox.discoveryFiles().length === 0 ? true : undefined,
      );
    },
    { tandem: false },
  ),
);
