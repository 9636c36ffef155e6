/**
 * Real VS Code for the tests: code-server 4.100.3 (VS Code 1.100.3) with the packaged extension
 * installed, served on 127.0.0.1 and driven through Debian's Chromium. `.ci/run` installs
 * code-server into `.cache/code-server` (git-ignored); without it the tests skip, printed.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { parentPid } from '@tandem/core';
import { chromiumMissing, launchChromium } from '../chromium.js';
import { missing } from '../needs.js';
import { processGroupAlive } from '../real-clients/tmux.js';
import { REPO_ROOT } from '../repo-root.js';
import type { Sandbox } from '../sandbox.js';
import { waitFor, waitUntil } from '../wait.js';

export const CODE_SERVER = path.join(REPO_ROOT, '.cache/code-server/node_modules/.bin/code-server');
/** The VS Code of that code-server: the oldest the extension is tested in (its `engines.vscode`). */
export const TESTED_VSCODE_VERSION = '1.100.3';
export const VSIX = path.join(REPO_ROOT, 'packages/vscode/dist/tandem-companion.vsix');
/** The official Qwen Code Companion, built by scripts/install-official-companion.sh. */
export const QWEN_COMPANION_VSIX = path.join(
  REPO_ROOT,
  '.cache/official-companions/qwen-code-vscode-ide-companion-0.0.11.vsix',
);
/** Anthropic's Claude Code extension, unpacked by scripts/install-official-companion.sh. */
export const CLAUDE_EXTENSION_VSIX = path.join(
  REPO_ROOT,
  '.cache/official-companions/anthropic-claude-code-1.0.100.vsix',
);

/** Why these tests cannot run here (printed; a failure under CI), or false. */
export function codeServerSkipReason(): string | false {
  const reasons: string[] = [];
  if (!existsSync(CODE_SERVER)) {
    reasons.push(`code-server is not installed in .cache/code-server (see .ci/run)`);
  }
  if (!existsSync(VSIX)) reasons.push(`${VSIX} is not built (npm run build -w tandem-companion)`);
  const browser = existsSync('/usr/bin/chromium') ? undefined : chromiumMissing();
  return missing([], browser ? [browser, ...reasons] : reasons);
}

/** How many of the page's console messages are kept for `diagnostics()`. */
const CONSOLE_LINES_KEPT = 200;

/** Settings that keep the window quiet and the terminal readable (DOM renderer). */
const USER_SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'terminal.integrated.gpuAcceleration': 'off',
  'terminal.integrated.defaultProfile.linux': 'bash',
  'terminal.integrated.enablePersistentSessions': false,
  'files.hotExit': 'off',
  'editor.accessibilitySupport': 'off',
  'window.confirmBeforeClose': 'never',
};

export interface CodeServerOptions {
  /** The extension's .vsix: this checkout's build unless told (a release's, say). */
  vsix?: string;
  /** Folders of the window; the first opens (the others are added as a multi-root workspace). */
  folders?: string[];
  /** Extra environment for code-server (and so for its terminals). */
  env?: Record<string, string>;
  /** Other .vsix files to install beside the extension. */
  extensions?: string[];
  /** Workspace trust on: the window opens in Restricted Mode until the user trusts it. */
  workspaceTrust?: boolean;
  /** More user settings, beside the quiet ones every test has. */
  settings?: Record<string, unknown>;
}

/** One code-server with the extension, and a browser page showing its window. */
export class CodeServer {
  private terminalDumps = 0;
  /** The page's console messages and errors, the last of them. */
  private readonly console: string[] = [];

  private constructor(
    private readonly sandbox: Sandbox,
    private readonly server: ChildProcess,
    readonly url: string,
    private readonly browser: BrowserContext,
    readonly page: Page,
    private readonly output: string[],
    /** The multi-root window's `.code-workspace` file. */
    private readonly workspaceFile: string | undefined,
  ) {
    const keep = (line: string) => {
      this.console.push(line);
      if (this.console.length > CONSOLE_LINES_KEPT) this.console.shift();
    };
    page.on('console', (message) => keep(`[${message.type()}] ${message.text()}`));
    page.on('pageerror', (error) => keep(`[page error] ${error.message}`));
  }

  static async start(sandbox: Sandbox, options: CodeServerOptions = {}): Promise<CodeServer> {
    const dir = path.join(sandbox.root, 'code-server');
    const userData = path.join(dir, 'user-data');
    const extensions = path.join(dir, 'extensions');
    const config = path.join(dir, 'config.yaml');
    await mkdir(path.join(userData, 'User'), { recursive: true });
    const settings = {
      ...USER_SETTINGS,
      'security.workspace.trust.enabled': options.workspaceTrust === true,
      ...options.settings,
    };
    await writeFile(path.join(userData, 'User', 'settings.json'), JSON.stringify(settings));
    await writeFile(config, 'bind-addr: 127.0.0.1:0\nauth: none\ncert: false\n');
    const env = sandbox.env({ ...options.env });
    const common = [
      '--config',
      config,
      '--user-data-dir',
      userData,
      '--extensions-dir',
      extensions,
    ];
    for (const vsix of [options.vsix ?? VSIX, ...(options.extensions ?? [])]) {
      const install = spawnSync(CODE_SERVER, [...common, '--install-extension', vsix], {
        env,
        encoding: 'utf8',
      });
      if (install.status !== 0) throw new Error(`installing ${vsix} failed:\n${install.stderr}`);
    }

    const folders = options.folders ?? [sandbox.workspace];
    const target = folders.length > 1 ? await workspaceFile(dir, folders) : folders[0]!;
    const server = spawn(
      CODE_SERVER,
      [
        ...common,
        '--bind-addr',
        '127.0.0.1:0',
        '--auth',
        'none',
        '--disable-telemetry',
        '--disable-update-check',
        ...(options.workspaceTrust ? [] : ['--disable-workspace-trust']),
        '--disable-getting-started-override',
        target,
      ],
      { env, cwd: sandbox.workspace, detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const output: string[] = [];
    const record = (chunk: Buffer) => output.push(...chunk.toString().split('\n'));
    server.stdout!.on('data', record);
    server.stderr!.on('data', record);
    let url: string;
    try {
      const address = await waitFor(
        'code-server to listen',
        () =>
          output.join('\n').match(/HTTP server listening on (http:\/\/127\.0\.0\.1:\d+)\//)?.[1],
        60_000,
      );
      const query = folders.length > 1 ? `workspace=${target}` : `folder=${target}`;
      url = `${address}/?${query}`;
    } catch (error) {
      killGroup(server);
      throw new Error(`${String(error)}\n${output.slice(-30).join('\n')}`, { cause: error });
    }
    const browser = await launchChromium(path.join(dir, 'chromium-profile'));
    const page = browser.pages()[0] ?? (await browser.newPage());
    const codeServer = new CodeServer(
      sandbox,
      server,
      url,
      browser,
      page,
      output,
      folders.length > 1 ? target : undefined,
    );
    try {
      await codeServer.open();
    } catch (error) {
      await codeServer.stop();
      throw error;
    }
    return codeServer;
  }

  /** Loads the window and waits until the workbench is up. */
  async open(): Promise<void> {
    await this.page.goto(this.url);
    await this.page.waitForSelector('.monaco-workbench .part.statusbar', { timeout: 90_000 });
  }

  get pid(): number {
    return this.server.pid!;
  }

  /** The last lines code-server printed, for error messages. */
  log(lines = 40): string {
    return this.output.slice(-lines).join('\n');
  }

  /**
   * What this window logged, for a failed test: the extension's log (its "Tandem" output
   * channel), the extension host's, code-server's own output and the page's console, the last
   * lines of each.
   */
  async diagnostics(): Promise<string> {
    const logs = path.join(this.sandbox.root, 'code-server', 'user-data', 'logs');
    const files = (await readdir(logs, { recursive: true }).catch(() => [] as string[])).sort();
    const tail = async (name: string, lines: number) => {
      const found = files.filter((file) => path.basename(file) === name);
      const texts = await Promise.all(found.map((file) => readFile(path.join(logs, file), 'utf8')));
      return texts.join('\n').split('\n').slice(-lines).join('\n') || '(none)';
    };
    return [
      `── the extension's log (Tandem.log)\n${await tail('Tandem.log', 300)}`,
      `── the extension host's log\n${await tail('remoteexthost.log', 80)}`,
      `── code-server's output\n${this.log(80)}`,
      `── the page's console\n${this.console.join('\n') || '(none)'}`,
    ].join('\n');
  }

  /**
   * Runs `steps`; when they fail, prints what this window logged (`diagnostics()`) until then,
   * and fails as they did.
   */
  async explained<T>(what: string, steps: () => Promise<T>): Promise<T> {
    try {
      return await steps();
    } catch (error) {
      console.log(`── what VS Code logged until "${what}" failed\n${await this.diagnostics()}`);
      throw error;
    }
  }

  /** The user's settings.json, which VS Code watches: a change there is a change in Settings. */
  get settingsFile(): string {
    return path.join(this.sandbox.root, 'code-server', 'user-data', 'User', 'settings.json');
  }

  async userSettings(): Promise<Record<string, unknown>> {
    return JSON.parse(await readFile(this.settingsFile, 'utf8')) as Record<string, unknown>;
  }

  /** Changes a user setting in the Settings editor, as a person would. */
  async changeSetting(key: string, value: boolean | string): Promise<void> {
    const { page } = this;
    const before = (await this.userSettings())[key];
    await this.runCommand('Preferences: Open User Settings');
    await page.locator('.settings-editor .settings-header').waitFor({ state: 'visible' });
    // The search box has the focus, and may hold the last search.
    await page.keyboard.press('Control+A');
    await page.keyboard.type(`@id:${key}`);
    const item = page.locator('.settings-editor .setting-item-contents').first();
    await item.waitFor({ state: 'visible', timeout: 30_000 });
    if (typeof value === 'boolean') {
      const box = item.locator('.setting-value-checkbox');
      if ((await box.getAttribute('aria-checked')) !== String(value)) await box.click();
    } else {
      await item.locator('input').fill(value);
    }
    // A value equal to the default is removed from the file rather than written.
    await waitUntil(
      `${key} to change in settings.json`,
      async () => (await this.userSettings())[key] !== before,
    );
  }

  /**
   * Clicks `button` on the notification that says `message`: on its toast, or, where VS Code
   * shows it no toast (at most three at once, none past three in 800 ms), in the list under the
   * status bar's bell, where a user finds it.
   */
  async clickNotificationButton(message: string, button: string): Promise<void> {
    const toast = this.page.locator('.notification-toast', { hasText: message });
    const toasted = await toast.waitFor({ state: 'visible', timeout: 30_000 }).then(
      () => true,
      () => false,
    );
    let notification = toast;
    if (!toasted) {
      await this.page.locator('[id="status.notifications"]').click();
      notification = this.page.locator('.notifications-center .monaco-list-row', {
        hasText: message,
      });
      await notification.waitFor({ state: 'visible', timeout: 60_000 });
    }
    // The pointer left where the last click was: over the toast now there, whose message's hover
    // would cover this button.
    await this.page.mouse.move(0, 0);
    await notification.locator('.monaco-button', { hasText: button }).first().click();
    await notification.waitFor({ state: 'hidden', timeout: 30_000 });
  }

  /** Clicks `button` in the modal dialog that is open (VS Code draws it in the page). */
  async clickDialogButton(button: string): Promise<void> {
    const dialog = this.page.locator('.monaco-dialog-box');
    await dialog.waitFor({ state: 'visible', timeout: 90_000 });
    await dialog.locator('.dialog-buttons .monaco-button', { hasText: button }).click();
    await dialog.waitFor({ state: 'hidden', timeout: 30_000 });
  }

  /**
   * Adds `folder` to the window's workspace the way a user edits the workspace file (VS Code
   * reloads the folders from it). Workspaces: Add Folder to Workspace… would do the same, but
   * its file dialog takes a click as "open the selected folder" or "add this one" depending on
   * how far it has read the typed path, which made the test flaky on a busy machine.
   */
  async addFolderToWorkspace(folder: string): Promise<void> {
    const file = this.workspaceFile;
    if (!file) throw new Error('the window has one folder, not a workspace file');
    const workspace = JSON.parse(await readFile(file, 'utf8')) as { folders: { path: string }[] };
    workspace.folders.push({ path: folder });
    await writeFile(file, JSON.stringify(workspace));
  }

  /** The discovery files of the sandbox: Gemini files and Qwen locks. */
  async discoveryFiles(): Promise<string[]> {
    const list = async (dir: string) =>
      (await readdir(dir).catch(() => [] as string[])).map((name) => path.join(dir, name));
    return [
      ...(await list(path.join(this.sandbox.tmpDir, 'gemini', 'ide'))),
      ...(await list(path.join(this.sandbox.qwenHome, 'ide'))),
    ].filter((file) => !path.basename(file).startsWith('.'));
  }

  /** Waits until the extension has written its discovery files; returns them. */
  async waitForDiscovery(): Promise<string[]> {
    return waitFor(
      'the discovery files',
      async () => {
        const files = await this.discoveryFiles();
        return files.some((f) => f.endsWith('.lock')) && files.some((f) => /gemini-ide/.test(f))
          ? files
          : undefined;
      },
      90_000,
    );
  }

  /** Runs a command from the Command Palette by its title. */
  async runCommand(title: string): Promise<void> {
    await this.pickCommand(title);
    await this.page.locator('.quick-input-widget').waitFor({ state: 'hidden' });
  }

  /** Picks a command in the Command Palette (which the command may use again for its input). */
  private async pickCommand(title: string): Promise<void> {
    const { page } = this;
    await this.dismissNotifications();
    await page.keyboard.press('F1');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible' });
    await input.fill(`>${title}`);
    const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
    await row.waitFor({ state: 'visible', timeout: 30_000 });
    // The row itself: Enter runs the highlighted one, which may be another (recently used) match.
    await row.click();
  }

  /** Opens a file of the workspace with Quick Open and waits for its editor. */
  async openFile(relativePath: string): Promise<void> {
    const { page } = this;
    await page.keyboard.press('Control+P');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible' });
    await input.fill(relativePath);
    const name = path.basename(relativePath);
    // Enter opens the highlighted row: until the typed name is matched, that is the last file.
    await page
      .locator('.quick-input-list .monaco-list-row.focused', { hasText: name })
      .waitFor({ state: 'visible', timeout: 30_000 });
    await input.press('Enter');
    await page.locator('.tab.active', { hasText: name }).waitFor({ timeout: 30_000 });
    await this.focusEditor();
  }

  /** Puts the keyboard focus into the active (single) text editor. */
  async focusEditor(): Promise<void> {
    await this.page
      .locator('.editor-group-container.active .monaco-editor textarea')
      .first()
      .focus();
  }

  /** The lines the active editor shows (those scrolled into view), once its tab says `title`. */
  async activeEditorText(title: string): Promise<string> {
    const group = this.page.locator('.editor-group-container.active');
    await group.locator('.tab.active', { hasText: title }).waitFor({ timeout: 60_000 });
    const lines = group.locator('.monaco-editor .view-lines').first();
    await lines.waitFor({ state: 'visible' });
    return (await lines.innerText()).replace(/\u00a0/g, ' ');
  }

  /** The text of the status bar item of the extension. */
  statusText(): Promise<string> {
    return this.page.locator('[id="tandem.tandem-companion.tandem.status"]').innerText();
  }

  /** Waits until the status bar names `name` among the connected CLIs. */
  async waitForClient(name: string): Promise<void> {
    await waitUntil(
      `the status bar to show ${name}`,
      async () => (await this.statusText().catch(() => '')).includes(name),
      60_000,
    );
  }

  /** The active diff editor of the extension, once visible; `titlePart` is in its tab. */
  async waitForDiff(titlePart: string): Promise<void> {
    await this.page
      .locator('.tab.active', { hasText: titlePart })
      .waitFor({ state: 'visible', timeout: 60_000 });
    await this.page
      .locator('.editor-group-container.active .monaco-diff-editor')
      .waitFor({ state: 'visible', timeout: 60_000 });
  }

  /** Clicks a title bar button of the active editor group by its label. */
  async clickTitleAction(label: string): Promise<void> {
    await this.page
      .locator(
        `.editor-group-container.active .editor-actions a.action-label[aria-label^="${label}"]`,
      )
      .click();
  }

  /** Closes the active tab with its close button. */
  async closeActiveTab(): Promise<void> {
    const tab = this.page.locator('.editor-group-container.active .tab.active');
    await tab.hover();
    await tab.locator('.tab-actions .action-label').click();
  }

  /** Types in the proposed (right) side of the active diff editor, at the end of the text. */
  async typeInProposal(text: string): Promise<void> {
    const modified = this.page.locator(
      '.editor-group-container.active .monaco-diff-editor .editor.modified',
    );
    await modified.locator('textarea').focus();
    await this.page.keyboard.press('Control+End');
    await this.page.keyboard.type(text);
    await modified.locator('.view-lines', { hasText: text }).waitFor();
  }

  /**
   * Returns once the extension host has seen everything the window did before: a command of the
   * extension runs there after the edits sent before it (one ordered channel).
   */
  async extensionHostCaughtUp(): Promise<void> {
    await this.runCommand('Tandem: Show the Log');
    await this.page.locator('.part.panel .monaco-editor').waitFor();
  }

  /** Closes every notification toast (they cover the status bar and buttons). */
  async dismissNotifications(): Promise<void> {
    const toasts = this.page.locator('.notification-toast .codicon-notifications-clear');
    for (const clear of await toasts.all()) {
      await clear.click({ timeout: 2000 }).catch(() => undefined);
    }
  }

  /** Opens a new integrated terminal and runs `line` in it. */
  async runInTerminal(line: string): Promise<void> {
    // In the active folder: in a multi-root window the plain command asks which.
    await this.runCommand('Terminal: Create New Terminal (In Active Workspace)');
    const terminal = this.page.locator('.terminal-wrapper.active .xterm');
    await terminal.waitFor({ state: 'visible', timeout: 30_000 });
    await waitUntil('a shell prompt in the terminal', async () =>
      /[$#]\s*$/.test(await this.terminalText()),
    );
    await this.typeInTerminal(line);
  }

  /** The variables a new integrated terminal of this window has. */
  async terminalEnvironment(): Promise<Record<string, string>> {
    const envFile = path.join(this.sandbox.root, `terminal-env-${++this.terminalDumps}.json`);
    await this.runInTerminal(`node -e 'console.log(JSON.stringify(process.env))' > ${envFile}`);
    return waitFor('the terminal environment', async () => {
      const text = existsSync(envFile) ? await readFile(envFile, 'utf8') : '';
      return text.trim() ? (JSON.parse(text) as Record<string, string>) : undefined;
    });
  }

  /**
   * Types `line` in the active terminal and, once it shows, presses Enter (typed in the same
   * burst, a CLI takes the Enter for part of a paste).
   */
  async typeInTerminal(line: string): Promise<void> {
    await this.page.locator('.terminal-wrapper.active .xterm-helper-textarea').focus();
    await this.page.keyboard.type(line);
    const tail = line.slice(-20);
    await waitUntil('the typed text in the terminal', async () =>
      (await this.terminalText()).replace(/\s+/g, '').includes(tail.replace(/\s+/g, '')),
    );
    await this.page.keyboard.press('Enter');
  }

  /** What the active terminal shows (DOM renderer). */
  terminalText(): Promise<string> {
    return this.page
      .locator('.terminal-wrapper.active .xterm-rows')
      .innerText()
      .catch(() => '');
  }

  /**
   * Runs `during` with this window's extension host stopped (SIGSTOP), as a machine too busy to
   * run it leaves it for a while; continues it afterwards. The page still takes keys and clicks:
   * what they ask of the extension host waits, in order.
   */
  async withExtensionHostStopped<T>(during: () => Promise<T>): Promise<T> {
    const hosts = descendantsRunning(this.server.pid!, '--type=extensionHost');
    if (hosts.length === 0) throw new Error('code-server runs no extension host');
    for (const pid of hosts) process.kill(pid, 'SIGSTOP');
    try {
      return await during();
    } finally {
      for (const pid of hosts) process.kill(pid, 'SIGCONT');
    }
  }

  /** Ends code-server as a user stopping it would: SIGTERM to the server process only. */
  async terminate(): Promise<void> {
    this.server.kill('SIGTERM');
    await waitUntil(
      'code-server to exit',
      () => this.server.exitCode !== null || this.server.signalCode !== null,
      60_000,
    );
  }

  /** Closes the browser and ends code-server's whole process group. */
  async stop(): Promise<void> {
    await this.browser.close().catch(() => undefined);
    killGroup(this.server);
    await waitUntil('code-server to end', () => !processGroupAlive(this.server.pid!), 30_000).catch(
      () => killGroup(this.server, 'SIGKILL'),
    );
  }
}

/** The processes descended from `ancestor` whose command line holds `text` (read from /proc). */
function descendantsRunning(ancestor: number, text: string): number[] {
  const descends = (pid: number | undefined): boolean =>
    pid !== undefined && pid > 1 && (pid === ancestor || descends(parentPid(pid)));
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(text) && descends(pid);
      } catch {
        return false; // gone meanwhile
      }
    });
}

function killGroup(server: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): void {
  try {
    process.kill(-server.pid!, signal);
  } catch {
    // Already gone.
  }
}

async function workspaceFile(dir: string, folders: string[]): Promise<string> {
  const file = path.join(dir, 'tandem.code-workspace');
  await writeFile(file, JSON.stringify({ folders: folders.map((folder) => ({ path: folder })) }));
  return file;
}
