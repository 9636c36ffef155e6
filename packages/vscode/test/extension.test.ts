/**
 * The extension in real VS Code (code-server 4.100.3 in Chromium), judged by the real Gemini CLI
 * and Qwen Code clients and the newest real Claude Code: discovery, terminals, context from real
 * key presses, the diff editor, diagnostics, and what happens to a pending diff when the window
 * reloads or VS Code stops.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { claudeLocks, parentPid } from '@tandem/core';
import {
  claudeCodeMissing,
  ClaudeWire,
  cliInSandbox,
  CodeServer,
  codeServerSkipReason,
  finalText,
  idlePattern,
  missing,
  readClaudeLock,
  realClientIn,
  Sandbox,
  selectedLines,
  startCliSession,
  startRealClient,
  VsCodeUnderTest,
  waitFor,
  waitUntil,
  type ClientKind,
  type CliSession,
  type RealClient,
} from '@tandem/testkit';

const skip = codeServerSkipReason();
const claudeSkip = skip || missing([], claudeCodeMissing('newest'));

describe('the extension in code-server', { skip, timeout: 600_000 }, () => {
  const sandbox = new Sandbox('tandem-vscode-');
  const clients: RealClient[] = [];
  let vscode: CodeServer;

  before(async () => {
    await writeFile(path.join(sandbox.workspace, 'notes.txt'), 'first line\nsecond line\n');
    await writeFile(path.join(sandbox.workspace, 'wide.txt'), 'a😀b😀c\n');
    await writeFile(path.join(sandbox.workspace, 'other.txt'), 'other\n');
    // Before the start: Quick Open may not list a file made later in time (seen in CI).
    await writeFile(path.join(sandbox.workspace, 'broken.json'), '{ "key": }\n');
    vscode = await CodeServer.start(sandbox);
  });

  after(async () => {
    await Promise.all(clients.map((client) => client.kill()));
    await vscode?.stop();
    sandbox.remove();
  });

  async function connected(kind: ClientKind, env?: Record<string, string>): Promise<RealClient> {
    const { workspace: cwd, tmpDir, qwenHome, home } = sandbox;
    const client = env
      ? await startRealClient({ kind, cwd, tmpDir, qwenHome, home, env })
      : await realClientIn(sandbox, kind);
    clients.push(client);
    const state = await client.connect();
    assert.equal(state.status, 'connected', JSON.stringify(state));
    assert.equal(state.diffingEnabled, true);
    return client;
  }

  /** The Claude Code lock file this window's Tandem wrote. */
  async function tandemClaudeLock() {
    const locks = await claudeLocks(sandbox.env());
    const lock = locks.find((found) => found.tandem && found.alive);
    assert.ok(lock, `no live Tandem lock among ${JSON.stringify(locks)}`);
    return lock;
  }

  test('activation writes the discovery files of both CLIs, named for this window', async () => {
    const files = await vscode.waitForDiscovery();
    const gemini = files.find((file) => /gemini-ide-server-\d+-\d+\.json$/.test(file));
    const lock = files.find((file) => file.endsWith('.lock'));
    assert.ok(gemini && lock, files.join(', '));
    const geminiData = JSON.parse(await readFile(gemini, 'utf8'));
    assert.equal(geminiData.workspacePath, sandbox.workspace);
    assert.deepEqual(geminiData.ideInfo, { name: 'vscode', displayName: 'code-server' });
    const lockData = JSON.parse(await readFile(lock, 'utf8'));
    assert.equal(lockData.port, geminiData.port);
    // The lock names the extension host, alive as long as the window; the Gemini file the
    // process a terminal's shell has as its grandparent (code-server's server process).
    const idePid = Number(/gemini-ide-server-(\d+)-/.exec(gemini)![1]);
    assert.equal(parentPid(lockData.ppid), idePid);
  });

  test('a CLI started with the integrated terminal’s environment connects to this window', async () => {
    const envFile = path.join(sandbox.root, 'terminal-env.json');
    await vscode.runInTerminal(`node -e 'console.log(JSON.stringify(process.env))' > ${envFile}`);
    const terminalEnv = await waitFor('the terminal environment', async () =>
      existsSync(envFile) && (await readFile(envFile, 'utf8')).trim()
        ? (JSON.parse(await readFile(envFile, 'utf8')) as Record<string, string>)
        : undefined,
    );
    const port = JSON.parse(await readFile((await vscode.waitForDiscovery())[0]!, 'utf8')).port;
    assert.equal(terminalEnv.GEMINI_CLI_IDE_SERVER_PORT, String(port));
    assert.equal(terminalEnv.QWEN_CODE_IDE_SERVER_PORT, String(port));
    assert.equal(terminalEnv.CLAUDE_CODE_SSE_PORT, String((await tandemClaudeLock()).port));
    // Claude Code started here never installs Anthropic's extension, which would take it over.
    assert.equal(terminalEnv.CLAUDE_CODE_IDE_SKIP_AUTO_INSTALL, '1');
    assert.equal(terminalEnv.TERM_PROGRAM, 'vscode');
    const ide = Object.fromEntries(
      Object.entries(terminalEnv).filter(([name]) =>
        /^(GEMINI_CLI_IDE_|QWEN_CODE_IDE_|TERM_PROGRAM)/.test(name),
      ),
    );
    for (const kind of ['gemini', 'qwen'] as const) {
      const client = await connected(kind, ide);
      assert.equal(client.detectedIde?.displayName, 'code-server');
      await client.kill();
    }
  });

  test('a CLI started outside VS Code connects through the discovery files alone', async () => {
    for (const kind of ['gemini', 'qwen'] as const) {
      const client = await connected(kind);
      await client.kill();
    }
  });

  test('a key press and a selection reach the client’s context, in code points', async () => {
    const client = await connected('gemini');
    const notes = path.join(sandbox.workspace, 'notes.txt');
    await vscode.openFile('notes.txt');
    await vscode.page.keyboard.press('Control+Home');
    await vscode.page.keyboard.press('ArrowDown');
    await vscode.page.keyboard.press('End');
    await client.waitForContext((context) => {
      const active = context?.workspaceState?.openFiles?.find((file) => file.isActive);
      return active?.path === notes && active.cursor?.line === 2 && active.cursor.character === 12;
    });
    await vscode.page.keyboard.press('Shift+Home');
    await client.waitForContext((context) => {
      const active = context?.workspaceState?.openFiles?.find((file) => file.isActive);
      return active?.selectedText === 'second line';
    });
    // After 'a😀b': three code points, four UTF-16 units.
    await vscode.openFile('wide.txt');
    await vscode.page.keyboard.press('Control+Home');
    for (let i = 0; i < 3; i++) await vscode.page.keyboard.press('ArrowRight');
    await client.waitForContext((context) => {
      const active = context?.workspaceState?.openFiles?.find((file) => file.isActive);
      return active?.path.endsWith('wide.txt') === true && active.cursor?.character === 4;
    });
    await client.kill();
  });

  test('openDiff shows the diff editor; the title button accepts', async () => {
    const client = await connected('gemini');
    const file = path.join(sandbox.workspace, 'notes.txt');
    const diff = client.openDiff(file, 'first line\nchanged\n');
    await diff.opened;
    await vscode.waitForDiff('Gemini CLI');
    await vscode.clickTitleAction('Accept the Proposed Edit');
    assert.deepEqual(await diff.result, { status: 'accepted', content: 'first line\nchanged\n' });
    await waitUntil('the diff tab to close', async () => !(await diffTabOpen(vscode)));
    // The companion never writes the file: the CLI does.
    assert.equal(await readFile(file, 'utf8'), 'first line\nsecond line\n');
    await client.kill();
  });

  test('Ctrl+S in the proposal accepts it with the edit made there', async () => {
    const client = await connected('qwen');
    const file = path.join(sandbox.workspace, 'new-file.txt');
    const diff = client.openDiff(file, 'proposed\n');
    await diff.opened;
    await vscode.waitForDiff('Qwen Code');
    await vscode.typeInProposal('typed in VS Code');
    await vscode.page.keyboard.press('Control+S');
    assert.deepEqual(await diff.result, {
      status: 'accepted',
      content: 'proposed\ntyped in VS Code',
    });
    await waitUntil('the diff tab to close', async () => !(await diffTabOpen(vscode)));
    await client.kill();
  });

  // A save asked for while an auto save of the same text is under way joins it, and VS Code
  // announces no manual save: an accept that waited on one was lost, the CLI never answered.
  for (const gesture of ['Ctrl+S', 'the title button'] as const) {
    test(`${gesture} while an auto save waits on a busy extension host accepts`, async () => {
      const client = await connected('qwen');
      const name = `busy-${gesture === 'Ctrl+S' ? 'key' : 'button'}.txt`;
      const diff = client.openDiff(path.join(sandbox.workspace, name), 'proposed\n');
      await diff.opened;
      await vscode.waitForDiff(name);
      await vscode.withExtensionHostStopped(async () => {
        await vscode.typeInProposal('typed while busy');
        // VS Code shows a save's progress once it has run for 3 s.
        await waitUntil('the auto save to be under way', async () =>
          /Saving/.test(await vscode.page.locator('.part.statusbar').innerText()),
        );
        if (gesture === 'Ctrl+S') await vscode.page.keyboard.press('Control+S');
        else await vscode.clickTitleAction('Accept the Proposed Edit');
      });
      assert.deepEqual(await diff.result, {
        status: 'accepted',
        content: 'proposed\ntyped while busy',
      });
      await waitUntil('the diff tab to close', async () => !(await diffTabOpen(vscode)));
      await client.kill();
    });
  }

  test('closing the tab rejects the proposal', async () => {
    const client = await connected('gemini');
    const diff = client.openDiff(path.join(sandbox.workspace, 'other.txt'), 'rejected\n');
    await diff.opened;
    await vscode.waitForDiff('Gemini CLI');
    await vscode.closeActiveTab();
    assert.equal((await diff.result).status, 'rejected');
    await client.kill();
  });

  test('a close from the CLI closes the tab and returns the edited proposal', async () => {
    const client = await connected('gemini');
    const file = path.join(sandbox.workspace, 'other.txt');
    const diff = client.openDiff(file, 'from the CLI\n');
    await diff.opened;
    await vscode.waitForDiff('Gemini CLI');
    await vscode.typeInProposal('and the user');
    await vscode.extensionHostCaughtUp();
    const content = await client.closeDiff(file, { suppressNotification: true });
    assert.equal(content, 'from the CLI\nand the user');
    await waitUntil('the diff tab to close', async () => !(await diffTabOpen(vscode)));
    await client.kill();
    void diff.result.catch(() => undefined);
  });

  test('answered in the CLI’s terminal: VS Code then says whether the file was written', async () => {
    const client = await connected('gemini');
    const file = path.join(sandbox.workspace, 'answered.txt');
    await writeFile(file, 'as it was\n');
    const notice = (text: string) =>
      vscode.page.locator('.notification-toast', { hasText: text }).waitFor({ timeout: 60_000 });

    const approved = client.openDiff(file, 'from the CLI\n');
    await approved.opened;
    await vscode.waitForDiff('answered.txt');
    await vscode.typeInProposal('and the user');
    await vscode.extensionHostCaughtUp();
    await client.resolveDiffFromCli(file, 'accepted');
    const { status, content } = await approved.result;
    assert.equal(status, 'accepted');
    assert.equal(content, 'from the CLI\nand the user');
    // What the whole Gemini CLI does next after an approval in its terminal.
    await writeFile(file, content);
    await notice('Gemini CLI wrote answered.txt with your edits (approved in its terminal).');
    await vscode.dismissNotifications();

    const cancelled = client.openDiff(file, 'another proposal\n');
    await cancelled.opened;
    await vscode.waitForDiff('answered.txt');
    await client.resolveDiffFromCli(file, 'rejected');
    assert.equal((await cancelled.result).status, 'rejected');
    await notice(
      "answered.txt was not changed: the proposal was cancelled in Gemini CLI's terminal.",
    );
    await vscode.dismissNotifications();
    assert.equal(await readFile(file, 'utf8'), content);
    await client.kill();
  });

  test('two CLIs at once: each diff gets its own answer', async () => {
    const gemini = await connected('gemini');
    const qwen = await connected('qwen');
    await vscode.waitForClient('Gemini CLI');
    await vscode.waitForClient('Qwen Code');
    const geminiDiff = gemini.openDiff(path.join(sandbox.workspace, 'notes.txt'), 'gemini\n');
    await geminiDiff.opened;
    await vscode.waitForDiff('Gemini CLI');
    const qwenDiff = qwen.openDiff(path.join(sandbox.workspace, 'other.txt'), 'qwen\n');
    await qwenDiff.opened;
    await vscode.waitForDiff('Qwen Code');
    await vscode.clickTitleAction('Accept the Proposed Edit');
    assert.deepEqual(await qwenDiff.result, { status: 'accepted', content: 'qwen\n' });
    await vscode.waitForDiff('Gemini CLI');
    await vscode.clickTitleAction('Reject the Proposed Edit');
    assert.deepEqual(await geminiDiff.result, { status: 'rejected' });
    await Promise.all([gemini.kill(), qwen.kill()]);
  });

  const original = 'first line\nsecond line\n';
  const proposed = 'first line\n\tindented "quoted" line\nünïcödé ✓ 文件\n';

  interface ClaudeScene {
    file: string;
    session: CliSession;
    editor: VsCodeUnderTest;
  }

  /**
   * A case with the newest real Claude Code in tmux, started with the integrated terminal's
   * `CLAUDE_CODE_SSE_PORT` alone to find this window, its fake model proposing `proposed` for
   * the file `name`; `answer` runs once the proposal shows in the diff editor. When the case
   * fails, what VS Code logged and Claude Code's screen are printed.
   */
  function claudeCase(title: string, name: string, answer: (scene: ClaudeScene) => Promise<void>) {
    const caseName = `Claude Code: ${title}`;
    test(caseName, { skip: claudeSkip }, (t) =>
      vscode.explained(caseName, async () => {
        let session: CliSession | undefined;
        try {
          const file = path.join(sandbox.workspace, name);
          await writeFile(file, original);
          const { CLAUDE_CODE_SSE_PORT } = await vscode.terminalEnvironment();
          assert.ok(CLAUDE_CODE_SSE_PORT, 'no CLAUDE_CODE_SSE_PORT in the integrated terminal');
          const started = await startCliSession({
            ...cliInSandbox(sandbox, 'claude', { filePath: file, content: proposed }),
            env: { CLAUDE_CODE_SSE_PORT },
            width: 160,
            height: 45,
          });
          session = started;
          t.after(() => started.stop());
          await started.askForEdit(async () => (await vscode.statusText()).includes('Claude Code'));
          const editor = new VsCodeUnderTest(vscode, sandbox.workspace);
          await waitFor(
            'the proposal in the diff editor',
            async () =>
              (await editor.diffViews()).some((view) => view.filePath === file) || undefined,
            120_000,
          );
          await answer({ file, session: started, editor });
        } catch (error) {
          const screen = await session?.screen().catch(() => '(unreadable)');
          console.log(`── Claude Code's screen\n${screen ?? '(not started)'}`);
          throw error;
        }
      }),
    );
  }

  claudeCase(
    'an edit in the diff editor and Ctrl+S write exactly the user’s text',
    'claude-accept.txt',
    async ({ file, session, editor }) => {
      await editor.appendLine(file, 'edited in VS Code');
      await editor.accept(file, 'Ctrl+S');
      await session.waitForScreen((screen) => screen.includes(finalText), 120_000);
      assert.equal(await readFile(file, 'utf8'), `${proposed}edited in VS Code\n`);
    },
  );

  claudeCase(
    'Reject in the diff editor leaves the file as it was',
    'claude-reject.txt',
    async ({ file, session, editor }) => {
      await editor.reject(file, 'title button');
      await waitUntil('the diff to close', async () =>
        (await editor.diffViews()).every((view) => view.filePath !== file),
      );
      // Claude Code takes the rejection: its edit dialog is gone and it waits for a message.
      await session.waitForScreen(
        (screen) =>
          !/Do you want to make this edit/.test(screen) && idlePattern('claude').test(screen),
        120_000,
      );
      assert.equal(await readFile(file, 'utf8'), original);
    },
  );

  test('getDiagnostics answers with what VS Code’s languages API shows', async () => {
    const file = path.join(sandbox.workspace, 'broken.json');
    await vscode.openFile('broken.json');
    const lock = await readClaudeLock(sandbox.claudeConfigDir, (await tandemClaudeLock()).port);
    const { wire, tools } = await ClaudeWire.connect(lock.port, lock.authToken);
    try {
      assert.ok(tools.includes('getDiagnostics'), tools.join(', '));
      // VS Code's JSON language features report the missing value once they have parsed it.
      const [shown] = await waitFor('the JSON diagnostics', async () => {
        const { texts } = await wire.callTool('getDiagnostics', { uri: `file://${file}` });
        const files = JSON.parse(texts[0]!) as { uri: string; diagnostics: unknown[] }[];
        return files.length ? files : undefined;
      });
      assert.equal(shown!.uri, `file://${file}`);
      assert.deepEqual(shown!.diagnostics, [
        {
          message: 'Value expected',
          severity: 'Error',
          range: { start: { line: 0, character: 9 }, end: { line: 0, character: 10 } },
          source: 'json',
          code: '516',
        },
      ]);
      // Without a uri: every file with diagnostics, this one among them.
      const { texts } = await wire.callTool('getDiagnostics', {});
      const all = JSON.parse(texts[0]!) as { uri: string }[];
      assert.ok(
        all.some((entry) => entry.uri === `file://${file}`),
        texts[0],
      );
    } finally {
      await wire.close();
    }
  });

  // Last: Claude Code's settings planted here would change what the cases above do.
  const warningsCase =
    'Claude Code’s warnings, with their fixes: no diffs, the terminal diff tool, another companion';
  test(warningsCase, () =>
    vscode.explained(warningsCase, async () => {
      await vscode.waitForDiscovery();
      // Room for its toast: VS Code shows at most three at once.
      await vscode.dismissNotifications();
      sandbox.useClaudeCode('acceptEdits', {
        diffTool: 'terminal',
        otherCompanion: 'Visual Studio Code',
      });
      // The engine reads the warnings again when a CLI comes.
      const wire = await ClaudeWire.connectByLock(sandbox.claudeConfigDir);
      try {
        const settings = path.join(sandbox.claudeConfigDir, 'settings.json');
        const state = path.join(sandbox.claudeConfigDir, '.claude.json');
        const noDiffs =
          `Claude Code starts in permission mode "acceptEdits" (set in ${settings}): it writes ` +
          `edits without asking, so no diff is ever shown in the editor, though /ide says it is ` +
          `connected. Start it with --permission-mode default, or set {"permissions": ` +
          `{"defaultMode": "default"}} in ${settings}.`;
        const terminalDiffs =
          `Claude Code's diff tool is "terminal" (diffTool in ${state}): it shows every proposed ` +
          `edit in its terminal, never in the editor. Type /config in Claude Code and set ` +
          `"Diff tool" to auto, or set "diffTool": "auto" in ${state}.`;
        const toast = vscode.page.locator('.notification-toast', {
          hasText: 'permission mode "acceptEdits"',
        });
        await toast.waitFor({ state: 'visible', timeout: 60_000 });
        // All three with their fixes pass VS Code's 1,000 characters, where it would cut the text:
        // the third is one link away.
        assert.equal(
          await toast.locator('.notification-list-item-message').innerText(),
          `Tandem: ${noDiffs} ${terminalDiffs} And 1 more warning: Show All Warnings.`,
        );
        // The link in the text: a collapsed toast shows its first line only.
        const expand = toast.locator('.codicon-notifications-expand');
        if (await expand.count()) {
          // Its toolbar shows under the pointer.
          await toast.hover();
          await expand.click();
        }
        await toast.locator('a', { hasText: 'Show All Warnings' }).click();
        const all = await vscode.activeEditorText('Tandem Warnings');
        for (const line of [
          `Claude Code starts in permission mode "acceptEdits" (set in ${settings})`,
          `Claude Code's diff tool is "terminal" (diffTool in ${state})`,
          `Another Claude Code companion serves this folder: Visual Studio Code (PID ${process.pid}, ` +
            `port 1, folder ${sandbox.workspace}).`,
          `or disable Anthropic's Claude Code extension in that Visual Studio Code window.`,
        ]) {
          assert.ok(all.includes(line), `${line}\nnot in\n${all}`);
        }
      } finally {
        await wire.close();
      }
    }),
  );
});

describe('Tandem: Doctor and Tandem: Show Environment', { skip, timeout: 600_000 }, () => {
  const sandbox = new Sandbox('tandem-vscode-inspect-');
  let vscode: CodeServer;

  before(async () => {
    vscode = await CodeServer.start(sandbox);
  });

  after(async () => {
    await vscode?.stop();
    sandbox.remove();
  });

  async function port(): Promise<number> {
    const files = await vscode.waitForDiscovery();
    return (JSON.parse(await readFile(files[0]!, 'utf8')) as { port: number }).port;
  }

  test('Tandem: Doctor shows what a CLI started in a terminal of this window would do', async () => {
    const expected = await port();
    await vscode.runCommand('Tandem: Doctor');
    const report = await waitFor('the whole report', async () => {
      const text = await vscode.activeEditorText('Tandem Doctor');
      return text.includes('Qwen Code') ? text : undefined;
    });
    assert.match(report, new RegExp(`tandem doctor: ${sandbox.workspace}`));
    // Gemini CLI's IDE mode is off in the sandbox: doctor says so, and where it would connect.
    assert.match(report, /IDE mode off/);
    assert.match(report, new RegExp(`connects to code-server on port ${expected}`));
  });

  test('Tandem: Show Environment gives the lines that connect a CLI in another terminal', async () => {
    const expected = await port();
    await vscode.runCommand('Tandem: Show Environment');
    const text = await waitFor('the exports', async () => {
      const shown = await vscode.activeEditorText('Tandem Environment');
      return shown.includes('QWEN_CODE_IDE_WORKSPACE_PATH') ? shown : undefined;
    });
    const shell = spawnSync(
      'bash',
      [
        '-c',
        `${text}\n'${process.execPath}' -e 'process.stdout.write(JSON.stringify(process.env))'`,
      ],
      { encoding: 'utf8', env: {} as NodeJS.ProcessEnv, cwd: sandbox.workspace },
    );
    assert.equal(shell.status, 0, shell.stderr);
    const variables = JSON.parse(shell.stdout) as Record<string, string>;
    assert.equal(variables.GEMINI_CLI_IDE_SERVER_PORT, String(expected));
    assert.equal(variables.QWEN_CODE_IDE_SERVER_PORT, String(expected));
    assert.equal(variables.GEMINI_CLI_IDE_WORKSPACE_PATH, sandbox.workspace);
    const ide = Object.fromEntries(
      Object.entries(variables).filter(([name]) => /^(GEMINI_CLI_IDE_|QWEN_CODE_IDE_)/.test(name)),
    );
    const { workspace: cwd, tmpDir, qwenHome, home } = sandbox;
    for (const kind of ['gemini', 'qwen'] as const) {
      const client = await startRealClient({ kind, cwd, tmpDir, qwenHome, home, env: ide });
      const state = await client.connect();
      await client.kill();
      assert.equal(state.status, 'connected', JSON.stringify(state));
    }
  });

  test('Tandem: Send to Claude Code puts the selected lines, or the file, in Claude Code’s prompt', async () => {
    const file = path.join(sandbox.workspace, 'lines.txt');
    await writeFile(file, 'one\ntwo\nthree\nfour\n');
    await vscode.openFile('lines.txt');
    const told = (text: string) =>
      vscode.page.locator('.notification-toast', { hasText: text }).waitFor({ timeout: 60_000 });
    await vscode.runCommand('Tandem: Send to Claude Code');
    await told('Tandem: no Claude Code is connected to this editor.');
    const wire = await ClaudeWire.connectByLock(sandbox.claudeConfigDir);
    try {
      // From line 2's start to line 4's start: lines 2 and 3.
      await vscode.page.keyboard.press('Control+Home');
      await vscode.page.keyboard.press('ArrowDown');
      await vscode.page.keyboard.press('Shift+ArrowDown');
      await vscode.page.keyboard.press('Shift+ArrowDown');
      await vscode.runCommand('Tandem: Send to Claude Code');
      await wire.paramsOf('at_mentioned', 1);
      await told('Tandem: lines 2–3 of lines.txt sent to Claude Code.');
      await vscode.page.keyboard.press('ArrowRight');
      await vscode.runCommand('Tandem: Send to Claude Code');
      assert.deepEqual(await wire.paramsOf('at_mentioned', 2), [
        { filePath: file, lineStart: 1, lineEnd: 2 },
        { filePath: file },
      ]);
      // Each selection reached it too: whole lines end at the next line's start (Claude Code
      // shows two lines, not three), and one made upwards starts at the cursor.
      assert.deepEqual(await wire.selectionOf('two\nthree\n'), selectedLines(1, 3, 0));
      await vscode.page.keyboard.press('Shift+ArrowUp');
      assert.deepEqual(await wire.selectionOf('three\n'), selectedLines(2, 3, 0));
    } finally {
      await wire.close();
    }
  });
});

describe('VS Code going away with a diff pending', { skip, timeout: 600_000 }, () => {
  async function pendingDiff(sandbox: Sandbox) {
    await writeFile(path.join(sandbox.workspace, 'notes.txt'), 'text\n');
    const vscode = await CodeServer.start(sandbox);
    const files = await vscode.waitForDiscovery();
    const client = await realClientIn(sandbox, 'gemini');
    assert.equal((await client.connect()).status, 'connected');
    const diff = client.openDiff(path.join(sandbox.workspace, 'notes.txt'), 'pending\n');
    await diff.opened;
    await vscode.waitForDiff('Gemini CLI');
    return { vscode, files, client, diff };
  }

  test('Reload Window rejects the pending diff and removes the discovery files', async (t) => {
    const sandbox = new Sandbox('tandem-vscode-reload-');
    const { vscode, files, client, diff } = await pendingDiff(sandbox);
    t.after(async () => {
      await client.kill();
      await vscode.stop();
      sandbox.remove();
    });
    await vscode.runCommand('Developer: Reload Window');
    assert.deepEqual(await diff.result, { status: 'rejected' });
    await waitUntil('the old discovery files to go', () => files.every((f) => !existsSync(f)));
    // The reloaded window starts again, with new files.
    const again = await vscode.waitForDiscovery();
    assert.ok(
      again.every((file) => !files.includes(file)),
      again.join(', '),
    );
  });

  test('stopping code-server rejects the pending diff and leaves no discovery file', async (t) => {
    const sandbox = new Sandbox('tandem-vscode-stop-');
    const { vscode, client, diff } = await pendingDiff(sandbox);
    t.after(async () => {
      await client.kill();
      await vscode.stop();
      sandbox.remove();
    });
    await vscode.terminate();
    assert.deepEqual(await diff.result, { status: 'rejected' });
    await waitUntil('no discovery file', async () => (await vscode.discoveryFiles()).length === 0);
  });
});

async function diffTabOpen(vscode: CodeServer): Promise<boolean> {
  return (await vscode.page.locator('.tab', { hasText: 'proposal' }).count()) > 0;
}
