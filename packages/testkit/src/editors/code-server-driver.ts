/**
 * VS Code as the shared suites drive it: code-server in Chromium driven through the page (keys,
 * clicks, the command palette), for the adapter conformance suite and `tandem check`'s test.
 */
import path from 'node:path';
import type { Locator } from 'playwright-core';
import type {
  AdapterDriver,
  EditorUnderTest,
  Position,
  ShownDiff,
} from '../conformance/adapter-driver.js';
import type { Sandbox } from '../sandbox.js';
import { waitUntil } from '../wait.js';
import { CodeServer, codeServerSkipReason } from './code-server.js';

/** What separates a diff tab's file name from the rest of its title. */
const DIFF_TITLE = ' ↔ ';

/** How far a selection's last line must be for Shift+PageDown to take it there faster than lines. */
const PAGING_LINES = 60;

/** The text of an editor's rendered lines, top to bottom, as the user reads it. */
async function renderedText(editor: Locator): Promise<string> {
  const lines = await editor.locator('.view-lines .view-line').all();
  const placed = await Promise.all(
    lines.map(async (line) => ({
      top: Number(/top:\s*(-?[\d.]+)px/.exec((await line.getAttribute('style')) ?? '')?.[1]),
      text: ((await line.textContent()) ?? '').replace(/\u00a0/g, ' '),
    })),
  );
  return placed
    .sort((a, b) => a.top - b.top)
    .map((line) => line.text)
    .join('\n');
}

/** VS Code as a user drives it: keys and clicks in the page, what it renders read back. */
export class VsCodeUnderTest implements EditorUnderTest {
  /** Every notification text shown so far, in the order first seen. */
  private readonly shown: string[] = [];

  constructor(
    private readonly vscode: CodeServer,
    private readonly workspace: string,
  ) {}

  private get page() {
    return this.vscode.page;
  }

  async openFile(filePath: string): Promise<void> {
    await this.vscode.openFile(path.relative(this.workspace, filePath));
  }

  /** Go to Line/Column in Quick Open (`:line:column`); its columns are UTF-16 units. */
  async moveCursor({ line, character }: Position): Promise<void> {
    await this.page.keyboard.press('Control+P');
    const input = this.page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible' });
    await input.fill(`:${line}:${character}`);
    await input.press('Enter');
    await this.page.locator('.quick-input-widget').waitFor({ state: 'hidden' });
    await this.vscode.focusEditor();
  }

  /** The status bar's cursor and selection entry ("Ln 3, Col 7 (12 selected)"). */
  private get selectionStatus(): Locator {
    return this.page.locator('[id="status.editor.selection"]');
  }

  /** The cursor's line as the status bar shows it. */
  private async statusLine(): Promise<number> {
    return Number(/Ln (\d+)/.exec(await this.selectionStatus.innerText())?.[1]);
  }

  /**
   * From `first`, as a user extends a selection by keys: Shift+Right up to `last` on one line;
   * across lines Shift+PageDown while `last`'s line is far, Shift+Down (or Up, from a page too
   * far) to that line, Shift+Home, then Shift+Right through `last`.
   */
  async select(first: Position, last: Position): Promise<void> {
    await this.moveCursor(first);
    const keys = this.page.keyboard;
    if (last.line === first.line) {
      for (let i = first.character; i <= last.character; i++) await keys.press('Shift+ArrowRight');
      return;
    }
    let line = first.line;
    if (last.line - line > PAGING_LINES) {
      await waitUntil(
        'the cursor at the first line',
        async () => (await this.statusLine()) === line,
      );
    }
    while (last.line - line > PAGING_LINES) {
      const before = line;
      await keys.press('Shift+PageDown');
      // One press moves the cursor once: the status bar's next line is where it went.
      await waitUntil('the page down', async () => (line = await this.statusLine()) !== before);
    }
    for (; line < last.line; line++) await keys.press('Shift+ArrowDown');
    for (; line > last.line; line--) await keys.press('Shift+ArrowUp');
    await keys.press('Shift+Home');
    for (let i = 1; i <= last.character; i++) await keys.press('Shift+ArrowRight');
    await waitUntil('the selection to its last line', async () => {
      return (await this.statusLine()) === last.line;
    });
  }

  /** Escape until the status bar shows no selection: VS Code may take the first for another use. */
  async clearSelection(): Promise<void> {
    const status = this.selectionStatus;
    await waitUntil('the selection to end', async () => {
      await this.page.keyboard.press('Escape');
      return !/selected/.test(await status.innerText());
    });
  }

  /**
   * Every diff tab, each shown in turn to read its proposed side. A tab that is closing as it is
   * listed is gone within moments: it is not waited for as a tab about to open is.
   */
  async diffViews(): Promise<ShownDiff[]> {
    const titles = await this.page.locator('.tab', { hasText: DIFF_TITLE }).allInnerTexts();
    const views: ShownDiff[] = [];
    for (const title of titles) {
      const name = title.split(DIFF_TITLE)[0]!.trim();
      const proposal = await this.proposalOf(name, 3_000).catch(() => undefined);
      if (proposal !== undefined) {
        views.push({ filePath: path.join(this.workspace, name), proposal });
      }
    }
    return views;
  }

  /** Makes the diff tab of the file `name` the active editor; returns its proposed side. */
  private async showDiff(name: string, timeout = 30_000): Promise<Locator> {
    const tab = this.page.locator('.tab', { hasText: `${name}${DIFF_TITLE}` }).first();
    await tab.click({ timeout });
    const group = this.page.locator('.editor-group-container.active');
    await group.locator('.tab.active', { hasText: `${name}${DIFF_TITLE}` }).waitFor({ timeout });
    const modified = group.locator('.monaco-diff-editor .editor.modified');
    await modified.waitFor({ state: 'visible', timeout: 2 * timeout });
    return modified;
  }

  private async proposalOf(name: string, timeout?: number): Promise<string> {
    return renderedText(await this.showDiff(name, timeout));
  }

  async editProposal(filePath: string, text: string): Promise<void> {
    const modified = await this.showDiff(path.basename(filePath));
    await modified.locator('textarea').focus();
    await this.page.keyboard.press('Control+A');
    if (text === '') await this.page.keyboard.press('Delete');
    else await this.page.keyboard.type(text);
    await waitUntil(
      'the edit in the proposal',
      async () => (await renderedText(modified)) === text,
    );
    await this.vscode.extensionHostCaughtUp();
  }

  async appendLine(filePath: string, line: string): Promise<void> {
    const modified = await this.showDiff(path.basename(filePath));
    await modified.locator('textarea').focus();
    await this.page.keyboard.press('Control+End');
    await this.page.keyboard.type(line);
    await this.page.keyboard.press('Enter');
    await waitUntil('the line in the proposal', async () =>
      (await renderedText(modified)).includes(line),
    );
    await this.vscode.extensionHostCaughtUp();
  }

  async accept(filePath: string, gesture: string): Promise<void> {
    const modified = await this.showDiff(path.basename(filePath));
    if (gesture === 'title button') {
      await this.vscode.clickTitleAction('Accept the Proposed Edit');
    } else if (gesture === 'Ctrl+S') {
      await modified.locator('textarea').focus();
      await this.page.keyboard.press('Control+S');
    } else if (gesture === 'command') {
      await this.vscode.runCommand('Tandem: Accept the Proposed Edit');
    } else {
      throw new Error(`no accept gesture "${gesture}"`);
    }
  }

  async reject(filePath: string, gesture: string): Promise<void> {
    await this.showDiff(path.basename(filePath));
    if (gesture === 'title button') {
      await this.vscode.clickTitleAction('Reject the Proposed Edit');
    } else if (gesture === 'closing the tab') {
      await this.vscode.closeActiveTab();
    } else if (gesture === 'command') {
      await this.vscode.runCommand('Tandem: Reject the Proposed Edit');
    } else {
      throw new Error(`no reject gesture "${gesture}"`);
    }
  }

  /** The notification toasts' texts, each appended once, the first time it is seen. */
  async messages(): Promise<string> {
    const toasts = this.page.locator('.notification-toast .notification-list-item-message');
    for (const text of await toasts.allInnerTexts()) {
      if (!this.shown.includes(text)) this.shown.push(text);
    }
    return this.shown.join('\n');
  }

  quit(): Promise<void> {
    return this.vscode.terminate();
  }

  close(): Promise<void> {
    return this.vscode.stop();
  }

  logs(): Promise<string> {
    return this.vscode.diagnostics();
  }
}

/** VS Code (code-server) with the extension, for the adapter conformance suite. */
export function vscodeAdapterDriver(): AdapterDriver {
  return {
    name: 'VS Code',
    skip: codeServerSkipReason(),
    gestures: {
      accept: ['title button', 'Ctrl+S', 'command'],
      reject: ['title button', 'closing the tab', 'command'],
    },
    async start(sandbox: Sandbox) {
      // Enter types a line break, whatever word suggestion shows while the proposal is typed.
      const vscode = await CodeServer.start(sandbox, {
        settings: { 'editor.acceptSuggestionOnEnter': 'off' },
      });
      try {
        await vscode.waitForDiscovery();
      } catch (error) {
        await vscode.stop();
        throw error;
      }
      return new VsCodeUnderTest(vscode, sandbox.workspace);
    },
  };
}
