/**
 * Tandem beside the official Qwen Code Companion (0.0.11, built from its published sources by
 * scripts/install-official-companion.sh), both installed in real VS Code: Tandem tells the user
 * and asks which of the two serves Qwen Code, and the answer decides where the real Qwen client
 * connects. Beside Anthropic's Claude Code extension (as its CLI's npm package 1.0.100 shipped
 * it), Tandem leaves Claude Code to it until the user chooses.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, test, type TestContext } from 'node:test';
import { claudeLocks, type ClaudeLock } from '@tandem/core';
import {
  CLAUDE_EXTENSION_VSIX,
  CodeServer,
  codeServerSkipReason,
  missing,
  QWEN_COMPANION_VSIX,
  Sandbox,
  startRealClient,
  waitFor,
  waitUntil,
} from '@tandem/testkit';

const skip =
  codeServerSkipReason() ||
  missing(
    [],
    existsSync(QWEN_COMPANION_VSIX)
      ? []
      : [
          'the Qwen Code Companion is not built (packages/vscode/scripts/install-official-companion.sh)',
        ],
  );
const QUESTION = 'both would serve Qwen Code';

describe('beside the official Qwen Code Companion', { skip, timeout: 900_000 }, () => {
  async function bothInstalled(t: TestContext) {
    const sandbox = new Sandbox('tandem-vscode-official-');
    await writeFile(path.join(sandbox.workspace, 'notes.txt'), 'text\n');
    const vscode = await CodeServer.start(sandbox, { extensions: [QWEN_COMPANION_VSIX] });
    t.after(async () => {
      await vscode.stop();
      sandbox.remove();
    });
    return { sandbox, vscode };
  }

  /** A real Qwen client started as from an integrated terminal of the window. */
  async function qwenInTerminal(sandbox: Sandbox, vscode: CodeServer) {
    const terminal = await vscode.terminalEnvironment();
    const env = Object.fromEntries(
      Object.entries(terminal).filter(([name]) => /^(QWEN_CODE_IDE_|TERM_PROGRAM$)/.test(name)),
    );
    const { workspace: cwd, tmpDir, qwenHome, home } = sandbox;
    const client = await startRealClient({ kind: 'qwen', cwd, tmpDir, qwenHome, home, env });
    return { client, port: terminal.QWEN_CODE_IDE_SERVER_PORT };
  }

  /** The port the companion wrote into its file (`<TMPDIR>/gemini-ide-server-<PID>.json`). */
  async function companionPort(sandbox: Sandbox): Promise<string> {
    return waitFor('the Qwen Code Companion’s port file', async () => {
      const names = await readdir(sandbox.tmpDir);
      const name = names.find((file) => /^gemini-ide-server-\d+\.json$/.test(file));
      if (!name) return undefined;
      const text = await readFile(path.join(sandbox.tmpDir, name), 'utf8');
      return text ? String((JSON.parse(text) as { port: number }).port) : undefined;
    });
  }

  test('choosing the Qwen Code Companion: Qwen Code connects to it, not to Tandem', async (t) => {
    const { sandbox, vscode } = await bothInstalled(t);
    await vscode.waitForDiscovery();
    await vscode.clickNotificationButton(QUESTION, 'Qwen Code Companion');
    await waitUntil(
      'tandem.qwenCode.serve false in settings.json',
      async () => (await vscode.userSettings())['tandem.qwenCode.serve'] === false,
    );
    await waitUntil('Tandem’s Qwen lock to go', async () =>
      (await vscode.discoveryFiles()).every((file) => !file.endsWith('.lock')),
    );
    await waitFor('Tandem, restarted, to serve Gemini CLI', async () =>
      (await vscode.discoveryFiles()).find((file) => /gemini-ide-server-\d+-\d+\.json$/.test(file)),
    );

    const { client, port } = await qwenInTerminal(sandbox, vscode);
    t.after(() => client.kill());
    assert.equal(port, await companionPort(sandbox));
    const state = await client.connect();
    assert.equal(state.status, 'connected', JSON.stringify(state));
    const diff = client.openDiff(path.join(sandbox.workspace, 'notes.txt'), 'companion\n');
    await diff.opened;
    // The companion's diff editor, titled its way; Tandem never saw the CLI.
    await vscode.waitForDiff('notes.txt ↔ Modified');
    assert.doesNotMatch(await vscode.statusText(), /Qwen Code/);
  });

  test('choosing Tandem: Qwen Code connects to Tandem, which offers to show the companion', async (t) => {
    const { sandbox, vscode } = await bothInstalled(t);
    const [lock] = (await vscode.waitForDiscovery()).filter((file) => file.endsWith('.lock'));
    await vscode.clickNotificationButton(QUESTION, 'Tandem');
    await vscode.clickNotificationButton(
      'Disable the Qwen Code Companion',
      'Show the Qwen Code Companion',
    );
    // The Extensions view shows it, where the user can disable it.
    await vscode.page
      .locator('.extensions-viewlet .monaco-list-row', { hasText: 'Qwen Code Companion' })
      .waitFor({ state: 'visible', timeout: 60_000 });
    await waitUntil(
      'tandem.qwenCode.serve true in settings.json',
      async () => (await vscode.userSettings())['tandem.qwenCode.serve'] === true,
    );
    assert.ok(existsSync(lock!), 'Tandem serves Qwen Code on, without a restart');

    const { client } = await qwenInTerminal(sandbox, vscode);
    t.after(() => client.kill());
    const state = await client.connect();
    assert.equal(state.status, 'connected', JSON.stringify(state));
    await vscode.waitForClient('Qwen Code');
    const diff = client.openDiff(path.join(sandbox.workspace, 'notes.txt'), 'tandem\n');
    await diff.opened;
    await vscode.waitForDiff('Qwen Code');
    await vscode.clickTitleAction('Reject the Proposed Edit');
    assert.deepEqual(await diff.result, { status: 'rejected' });
  });
});

const claudeSkip =
  codeServerSkipReason() ||
  missing(
    [],
    existsSync(CLAUDE_EXTENSION_VSIX)
      ? []
      : [
          'Claude Code’s extension is not unpacked (packages/vscode/scripts/install-official-companion.sh)',
        ],
  );

describe('beside Anthropic’s Claude Code extension', { skip: claudeSkip, timeout: 600_000 }, () => {
  test('Tandem leaves Claude Code to it and says so, with none of its warnings; turned on in Settings, Tandem serves it', async (t) => {
    const sandbox = new Sandbox('tandem-vscode-claude-ext-');
    // Settings that Tandem warns of when it serves Claude Code (the extension's lock is the
    // third: another companion on the folder).
    sandbox.useClaudeCode('acceptEdits', { diffTool: 'terminal' });
    const vscode = await CodeServer.start(sandbox, { extensions: [CLAUDE_EXTENSION_VSIX] });
    t.after(async () => {
      await vscode.stop();
      sandbox.remove();
    });
    await vscode.explained('Tandem leaves Claude Code to it', async () => {
      // Its lock goes to ~/.claude/ide, which Claude Code reads beside CLAUDE_CONFIG_DIR's.
      const env = { HOME: sandbox.home, CLAUDE_CONFIG_DIR: sandbox.claudeConfigDir };
      const live = async (tandem: boolean) =>
        (await claudeLocks(env)).find((lock) => lock.alive && lock.tandem === tandem);
      await vscode.waitForDiscovery();
      const theirs = await waitFor('the Claude Code extension’s lock', () => live(false));

      // Left to it before Tandem starts, in the setting the user sees, and told so.
      assert.equal((await vscode.userSettings())['tandem.claudeCode.serve'], false);
      await vscode.page
        .locator('.notification-toast', { hasText: 'Tandem leaves Claude Code to it' })
        .waitFor({ state: 'visible', timeout: 60_000 });
      assert.equal(await live(true), undefined, 'Tandem wrote a Claude Code lock');
      // Its warnings are the other CLIs' alone.
      const left = await warnings(vscode, 'IDE mode is off in Gemini CLI');
      assert.doesNotMatch(left, /Claude Code/);
      // Integrated terminals get the extension's port, not Tandem's; the other CLIs are served.
      const terminal = await vscode.terminalEnvironment();
      assert.equal(terminal.CLAUDE_CODE_SSE_PORT, String(theirs.port));
      assert.equal(terminal.CLAUDE_CODE_IDE_SKIP_AUTO_INSTALL, undefined);
      assert.ok(terminal.QWEN_CODE_IDE_SERVER_PORT, 'Tandem no longer serves Qwen Code');

      // Turned on in the Settings editor: Tandem serves Claude Code too, and warns.
      await vscode.changeSetting('tandem.claudeCode.serve', true);
      const ours: ClaudeLock = await waitFor('Tandem’s Claude Code lock', () => live(true));
      assert.deepEqual(ours.workspaceFolders, [sandbox.workspace]);
      const served = await warnings(vscode, 'permission mode "acceptEdits"');
      assert.match(served, /Claude Code's diff tool is "terminal"/);
      assert.match(served, /Another Claude Code companion serves this folder: code-server/);
    });
  });
});

/** What **Tandem: Show Warnings** shows, once it has `awaited`. */
function warnings(vscode: CodeServer, awaited: string): Promise<string> {
  return waitFor(`"${awaited}" in Tandem: Show Warnings`, async () => {
    await vscode.runCommand('Tandem: Show Warnings');
    const text = await vscode.activeEditorText('Tandem Warnings');
    return text.includes(awaited) ? text : undefined;
  });
}
