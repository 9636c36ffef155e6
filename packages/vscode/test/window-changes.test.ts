/**
 * The window changing under a running Tandem, in real VS Code (code-server 4.100.3): the user
 * trusts the folder, folders are added to the workspace, settings change. Judged by the real
 * clients and the discovery files they read.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  CodeServer,
  codeServerSkipReason,
  realClientIn,
  Sandbox,
  startRealClient,
  waitFor,
  waitUntil,
  type ClientKind,
  type RealClient,
} from '@tandem/testkit';

const skip = codeServerSkipReason();

describe('workspace trust granted while Tandem runs', { skip, timeout: 600_000 }, () => {
  const sandbox = new Sandbox('tandem-vscode-trust-');
  let vscode: CodeServer;
  let client: RealClient | undefined;

  after(async () => {
    await client?.kill();
    await vscode?.stop();
    sandbox.remove();
  });

  test('the client’s context turns isTrusted true when the user trusts the folder', async () => {
    await writeFile(path.join(sandbox.workspace, 'notes.txt'), 'text\n');
    vscode = await CodeServer.start(sandbox, { workspaceTrust: true });
    // VS Code asks at once; the user does not trust the folder yet: Restricted Mode.
    await vscode.clickDialogButton("No, I don't trust the authors");
    await vscode.waitForDiscovery();
    client = await realClientIn(sandbox, 'gemini');
    assert.equal((await client.connect()).status, 'connected');
    await vscode.openFile('notes.txt');
    await client.waitForContext((context) => context?.workspaceState?.isTrusted === false);

    await vscode.runCommand('Workspaces: Manage Workspace Trust');
    await vscode.page
      .locator('.workspace-trust-editor .monaco-button', { hasText: /^Trust/ })
      .first()
      .click();
    await client.waitForContext((context) => context?.workspaceState?.isTrusted === true);
  });
});

describe('folders and settings changed while Tandem runs', { skip, timeout: 900_000 }, () => {
  const sandbox = new Sandbox('tandem-vscode-changes-');
  const second = path.join(sandbox.root, 'second');
  const third = path.join(sandbox.root, 'third');
  const clients: RealClient[] = [];
  let vscode: CodeServer;

  before(async () => {
    await Promise.all([mkdir(second), mkdir(third)]);
    vscode = await CodeServer.start(sandbox, { folders: [sandbox.workspace, second] });
  });

  after(async () => {
    await Promise.all(clients.map((client) => client.kill()));
    await vscode?.stop();
    sandbox.remove();
  });

  /** A real client started in `cwd` that finds the window through the discovery files alone. */
  async function clientIn(kind: ClientKind, cwd = sandbox.workspace): Promise<RealClient> {
    const { tmpDir, qwenHome, home } = sandbox;
    const client = await startRealClient({ kind, cwd, tmpDir, qwenHome, home });
    clients.push(client);
    return client;
  }

  async function geminiFile(): Promise<string | undefined> {
    return (await vscode.discoveryFiles()).find((file) => /gemini-ide-server-/.test(file));
  }

  async function qwenLock(): Promise<string | undefined> {
    return (await vscode.discoveryFiles()).find((file) => file.endsWith('.lock'));
  }

  async function workspacePathOf(file: string): Promise<string[]> {
    const data = JSON.parse(await readFile(file, 'utf8')) as { workspacePath: string | string[] };
    return Array.isArray(data.workspacePath)
      ? data.workspacePath
      : data.workspacePath.split(path.delimiter);
  }

  test('a folder added to the workspace: the discovery files and the clients follow', async () => {
    await vscode.waitForDiscovery();
    assert.deepEqual(await workspacePathOf((await geminiFile())!), [sandbox.workspace, second]);
    const outside = await clientIn('gemini', third);
    assert.equal((await outside.connect()).status, 'disconnected');
    await outside.kill();

    await vscode.addFolderToWorkspace(third);
    for (const file of [(await geminiFile())!, (await qwenLock())!]) {
      await waitUntil(`${file} to name the added folder`, async () =>
        (await workspacePathOf(file)).includes(third),
      );
    }
    for (const kind of ['gemini', 'qwen'] as const) {
      const client = await clientIn(kind, third);
      const state = await client.connect();
      assert.equal(state.status, 'connected', JSON.stringify(state));
      await client.kill();
    }
  });

  test('tandem.qwenCode.serve turned off and on again: Qwen Code is left and served again', async () => {
    await vscode.waitForDiscovery();
    const gemini = await clientIn('gemini');
    assert.equal((await gemini.connect()).status, 'connected');
    const connectedQwen = await clientIn('qwen');
    assert.equal((await connectedQwen.connect()).status, 'connected');
    const lock = (await qwenLock())!;

    await vscode.changeSetting('tandem.qwenCode.serve', false);
    await waitUntil('the Qwen lock to go', () => !existsSync(lock));
    await connectedQwen.waitForStatus('disconnected');
    await connectedQwen.kill();
    await waitFor('Gemini CLI still served, by the restarted engine', geminiFile);
    const qwen = await clientIn('qwen');
    assert.notEqual((await qwen.connect()).status, 'connected');
    await qwen.kill();
    const env = await vscode.terminalEnvironment();
    assert.equal(env.QWEN_CODE_IDE_SERVER_PORT, undefined);
    assert.ok(env.GEMINI_CLI_IDE_SERVER_PORT);
    // Gemini CLI, served all along, finds the window again.
    const again = await clientIn('gemini');
    assert.equal((await again.connect()).status, 'connected');
    await Promise.all([gemini.kill(), again.kill()]);

    await vscode.changeSetting('tandem.qwenCode.serve', true);
    await waitFor('a Qwen lock again', qwenLock);
    const served = await clientIn('qwen');
    assert.equal((await served.connect()).status, 'connected');
    assert.ok((await vscode.terminalEnvironment()).QWEN_CODE_IDE_SERVER_PORT);
    await served.kill();
  });

  test('changing the command a terminal runs leaves the connected CLIs connected', async () => {
    await vscode.waitForDiscovery();
    const file = await geminiFile();
    const client = await clientIn('gemini');
    assert.equal((await client.connect()).status, 'connected');
    await vscode.waitForClient('Gemini CLI');

    await vscode.changeSetting('tandem.geminiCli.command', 'echo gemini-started-here');
    // The command runs after the change reached the extension host (one ordered channel).
    await vscode.runCommand('Tandem: Start Gemini CLI in a Terminal');
    await waitUntil('the new command in a terminal', async () =>
      (await vscode.terminalText()).includes('gemini-started-here'),
    );
    assert.equal(await geminiFile(), file);
    assert.equal((await client.status()).status, 'connected');
    await client.kill();
  });
});
