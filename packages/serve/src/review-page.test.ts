/**
 * The review page in real Chromium, served by a real ReviewServer whose queue is the frontend of
 * a real engine: the diffs come from the real Gemini CLI and Qwen Code clients, and what the user
 * does on the page is what the client hears.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import { createServer } from 'node:http';
import { Engine, listenOnLoopback } from '@tandem/core';
import type { BrowserContext, Page } from 'playwright-core';
import {
  chromiumMissing,
  launchChromium,
  Sandbox,
  startRealClient,
  type ClientKind,
  type DiffHandle,
  type RealClient,
} from '@tandem/testkit';
import { ReviewQueue } from './review-queue.js';
import { ReviewServer } from './review-server.js';

const WEB_PACKAGE = dirname(createRequire(import.meta.url).resolve('@tandem/web/package.json'));
/** `npm run screenshots` sets it to docs/images; tests write into their own scratch folder. */
const SCREENSHOT_DIR = process.env.TANDEM_SCREENSHOT_DIR;
const WAIT_MS = 20_000;
const OLD = 'const a = 1;\nconst b = 2;\n';
const NEW = 'const a = 1;\nconst b = 3;\n';
/** Both CLIs set to show diffs, so the engine has no warning for the page. */
const SETTINGS_THAT_SHOW_DIFFS = { ide: { enabled: true }, tools: { approvalMode: 'default' } };

const missing = chromiumMissing();

/** Polls `probe` until it returns a value other than undefined. */
async function eventually<T>(what: string, probe: () => T | undefined | Promise<T | undefined>) {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Whether the client is still waiting for the user's answer to `diff`. */
async function unanswered(diff: DiffHandle): Promise<boolean> {
  const wait = new Promise((resolve) => setTimeout(() => resolve('waiting'), 500));
  return (await Promise.race([diff.result, wait])) === 'waiting';
}

function writeJson(path: string, value: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify(value));
}

/** The engine with the review page as its editor, as `tandem serve` composes them. */
interface Served {
  queue: ReviewQueue;
  server: ReviewServer;
  engine: Engine;
}

describe('review page in Chromium', { skip: missing }, () => {
  let sandbox: Sandbox;
  let browser: BrowserContext;
  let pageProblems: string[];

  before(async () => {
    sandbox = new Sandbox('tandem-review-page-');
    // The engine warns from this process's environment as if the CLIs ran with it: their HOME
    // is the sandbox's, and Gemini CLI runs with REMOTE_CONTAINERS=true (see startRealClient).
    // Claude Code's folder comes from the engine's discovery options.
    process.env.HOME = sandbox.home;
    process.env.REMOTE_CONTAINERS = 'true';
    writeJson(join(sandbox.home, '.gemini', 'settings.json'), SETTINGS_THAT_SHOW_DIFFS);
    writeJson(join(sandbox.qwenHome, 'settings.json'), SETTINGS_THAT_SHOW_DIFFS);
    const build = spawnSync(
      process.execPath,
      [join(WEB_PACKAGE, 'build.js'), '--outdir', join(sandbox.root, 'dist')],
      { encoding: 'utf8' },
    );
    assert.equal(build.status, 0, `the page build failed:\n${build.stderr}`);
    browser = await launchChromium(join(sandbox.root, 'profile'));
  });

  after(async () => {
    await browser?.close();
    sandbox.remove();
  });

  /** An engine serving `workspace` (a new folder of the sandbox) to a review server. */
  async function serve(workspace: string, restartCommand?: string): Promise<Served> {
    mkdirSync(workspace);
    const queue = new ReviewQueue({ warn: () => {} });
    const server = await ReviewServer.start({
      queue,
      pageDir: join(sandbox.root, 'dist'),
      workspaceFolders: [workspace],
      ...(restartCommand !== undefined && { restartCommand }),
      log: { warn: () => {}, error: (message) => pageProblems.push(message) },
    });
    const engine = await Engine.start({
      editor: { name: 'tandem-serve', displayName: 'Tandem (browser)', pid: process.pid },
      frontend: queue,
      workspaceFolders: [workspace],
      discovery: {
        tmpDir: sandbox.tmpDir,
        qwenHome: sandbox.qwenHome,
        claudeConfigDir: sandbox.claudeConfigDir,
      },
      ownTerminals: false,
    });
    queue.answerTo(engine);
    return { queue, server, engine };
  }

  /** A real client of `kind` started in `workspace`, connected to the engine serving it. */
  async function connect(kind: ClientKind, workspace: string): Promise<RealClient> {
    const client = await startRealClient({
      kind,
      cwd: workspace,
      tmpDir: sandbox.tmpDir,
      qwenHome: sandbox.qwenHome,
      home: sandbox.home,
    });
    const state = await client.connect();
    assert.equal(state.status, 'connected', state.details);
    return client;
  }

  /** A new page on `url`, live; whatever it logs as an error or a warning is a problem. */
  async function openPage(url: string): Promise<Page> {
    const page = await browser.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') {
        pageProblems.push(message.text());
      }
    });
    page.on('pageerror', (error) => pageProblems.push(error.message));
    await page.goto(url);
    await page.locator('.connection[data-state="live"]').waitFor();
    return page;
  }

  describe('a server with both CLIs connected', () => {
    /** The folder the engine serves, named as a project is. */
    let workspace: string;
    let queue: ReviewQueue;
    let server: ReviewServer;
    let engine: Engine;
    let gemini: RealClient;
    let qwen: RealClient;
    let page: Page;
    /** The URL the page was opened with: its secret is spent once the page is open. */
    let openedUrl: string;

    before(async () => {
      workspace = join(sandbox.root, 'inventory');
      ({ queue, server, engine } = await serve(workspace));
      [gemini, qwen] = await Promise.all([
        connect('gemini', workspace),
        connect('qwen', workspace),
      ]);
    });

    after(async () => {
      await Promise.all([gemini?.kill(), qwen?.kill()]);
      await engine?.stop();
      await server?.stop();
    });

    beforeEach(async () => {
      pageProblems = [];
      openedUrl = server.url;
      page = await openPage(openedUrl);
    });

    afterEach(async () => {
      await page.close();
      // What a test left open is rejected, as the page would: the next test starts with none.
      for (const review of queue.pending()) queue.reject(review.id);
      // Every CSP refusal (an inline style, a script) and every script error lands here.
      assert.deepEqual(pageProblems, []);
    });

    /**
     * `client` proposes `newContent` for `relative` (its content on disk `oldContent`, or no
     * file); resolves once the engine has put it on the page.
     */
    async function propose(
      client: RealClient,
      relative: string,
      { oldContent = OLD as string | null, newContent = NEW } = {},
    ): Promise<DiffHandle & { filePath: string }> {
      const filePath = join(workspace, relative);
      mkdirSync(dirname(filePath), { recursive: true });
      if (oldContent !== null) writeFileSync(filePath, oldContent);
      const diff = client.openDiff(filePath, newContent);
      await diff.opened;
      return { ...diff, filePath };
    }

    const proposed = () => page.locator('.review:not([hidden]) .cm-merge-b .cm-content');

    async function typeAtEnd(text: string) {
      await proposed().click();
      await page.keyboard.press('Control+End');
      await page.keyboard.type(text);
    }

    async function waitForDraft(includes: string) {
      await eventually(`the draft to reach the server`, () =>
        queue.pending().find((review) => review.draft.includes(includes)),
      );
    }

    test('the secret leaves the address bar; the page shows the diff, its file and its CLI', async () => {
      assert.equal(new URL(page.url()).search, '');
      assert.equal(new URL(page.url()).hash, '');
      await propose(gemini, 'src/pricing.ts');
      await page.locator('.review .path .name', { hasText: 'pricing.ts' }).waitFor();
      assert.equal(await page.locator('.review .path .dir').textContent(), 'src/');
      assert.match(await page.locator('.review .client').innerText(), /Gemini CLI \d/);
      assert.match(await page.locator('.clients').innerText(), /Gemini CLI \d/);
      assert.match(await page.locator('.side').first().innerText(), /On disk/);
      // TypeScript is highlighted: its language chunk loaded from this server.
      await page.locator('.cm-merge-b .cm-line span[class]').first().waitFor();
    });

    test('an edit on the page, then Accept, gives the CLI the edited content', async () => {
      const diff = await propose(gemini, 'src/edit.ts');
      await typeAtEnd('const c = 4;\n');
      await page.getByRole('button', { name: /^Accept/ }).click();
      assert.deepEqual(await diff.result, {
        status: 'accepted',
        content: 'const a = 1;\nconst b = 3;\nconst c = 4;\n',
      });
      await page.locator('.empty h2', { hasText: 'Nothing to review' }).waitFor();
    });

    test('Reject (Ctrl+Shift+Backspace) gives the CLI a rejection', async () => {
      const diff = await propose(qwen, 'src/unwanted.ts');
      await proposed().click();
      await page.keyboard.press('Control+Shift+Backspace');
      assert.deepEqual(await diff.result, { status: 'rejected' });
      assert.deepEqual(queue.pending(), []);
    });

    test('a per-hunk revert changes what is accepted (Ctrl+Enter)', async () => {
      const diff = await propose(gemini, 'src/hunks.ts', {
        oldContent: 'one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\n',
        newContent: 'one\nTWO\nthree\nfour\nfive\nsix\nseven\nEIGHT\nnine\n',
      });
      const reverts = page.locator('.cm-merge-revert button');
      await eventually('two revert buttons', async () =>
        (await reverts.count()) === 2 ? 2 : undefined,
      );
      await reverts.first().click();
      await eventually('one revert button left', async () =>
        (await reverts.count()) === 1 ? 1 : undefined,
      );
      await proposed().click();
      await page.keyboard.press('Control+Enter');
      assert.deepEqual(await diff.result, {
        status: 'accepted',
        content: 'one\ntwo\nthree\nfour\nfive\nsix\nseven\nEIGHT\nnine\n',
      });
    });

    test('an accept the engine refuses shows its reason and keeps the diff open', async () => {
      const diff = await propose(gemini, 'src/refused.ts');
      await proposed().click();
      await page.keyboard.press('Control+A');
      await page.keyboard.press('Delete');
      await page.keyboard.press('Control+Enter');
      await page.locator('.toast-error', { hasText: 'An empty file cannot be accepted' }).waitFor();
      // The browser logs the refusal (422) it was shown; nothing else may be logged.
      const refusal = pageProblems.findIndex((problem) => problem.includes('status of 422'));
      assert.notEqual(refusal, -1);
      pageProblems.splice(refusal, 1);
      assert.ok(await unanswered(diff));
      assert.equal(queue.pending().length, 1);
    });

    test('closeDiff takes the diff off the page and returns the draft', async () => {
      const diff = await propose(gemini, 'src/closing.ts');
      await typeAtEnd('// kept\n');
      await waitForDraft('// kept');
      assert.equal(
        await gemini.closeDiff(diff.filePath, { suppressNotification: false }),
        'const a = 1;\nconst b = 3;\n// kept\n',
      );
      await page.locator('.review').waitFor({ state: 'detached' });
      // A withdrawn diff is rejected by the engine; the page keeps the edits to copy.
      const notice = page.locator('.kept-edits');
      assert.match(await notice.innerText(), /closing\.ts: The CLI withdrew this diff/);
      assert.equal(
        await notice.locator('textarea').inputValue(),
        'const a = 1;\nconst b = 3;\n// kept\n',
      );
      assert.deepEqual(await diff.result, { status: 'rejected' });
    });

    test('approved in Qwen Code after an edit on the page: what happened, and the edit kept to copy', async () => {
      const diff = await propose(qwen, 'src/terminal.ts');
      await typeAtEnd('// my edit\n');
      await waitForDraft('// my edit');
      await qwen.resolveDiffFromCli(diff.filePath, 'accepted');
      const notice = page.locator('.kept-edits');
      await notice.waitFor();
      assert.match(await notice.innerText(), /terminal\.ts: .*never writes your edits/);
      assert.equal(
        await notice.locator('textarea').inputValue(),
        'const a = 1;\nconst b = 3;\n// my edit\n',
      );
      // Then Qwen Code writes its own proposal, as the whole CLI does: the same notice says so.
      writeFileSync(diff.filePath, NEW);
      await notice
        .locator('.diff-outcome', {
          hasText: 'Qwen Code wrote its own proposal to terminal.ts, not your edits',
        })
        .waitFor();
      // It stays until the user dismisses it.
      await notice.getByRole('button', { name: 'Dismiss' }).click();
      await notice.waitFor({ state: 'detached' });
    });

    test('cancelled in Gemini CLI, the proposal untouched: the outcome in a notice of its own', async () => {
      const diff = await propose(gemini, 'src/cancelled.ts');
      await page.locator('.review .path .name', { hasText: 'cancelled.ts' }).waitFor();
      await gemini.resolveDiffFromCli(diff.filePath, 'rejected');
      await page.locator('.review').waitFor({ state: 'detached' });
      // The file stays as it was: once the CLI's time to write it is over, the engine says so.
      const notice = page.locator('.notice.outcome');
      await notice.waitFor();
      assert.equal(
        await notice.locator('.diff-outcome').innerText(),
        "cancelled.ts was not changed: the proposal was cancelled in Gemini CLI's terminal.",
      );
      await notice.getByRole('button', { name: 'Dismiss' }).click();
      await notice.waitFor({ state: 'detached' });
    });

    test('warnings from the engine take one line each, their fix on demand, and go with their cause', async () => {
      // Qwen Code in an approval mode that writes without asking: the engine sees it once a
      // client connects, and warns.
      const settings = join(sandbox.qwenHome, 'settings.json');
      writeJson(settings, { ide: { enabled: true }, tools: { approvalMode: 'yolo' } });
      const another = await connect('qwen', workspace);
      const warning = page.locator('.warnings .notice');
      try {
        await warning.waitFor();
        const summary = warning.locator('summary');
        const fix = warning.locator('.notice-fix');
        assert.match(
          await summary.innerText(),
          /Qwen Code starts in approval mode "yolo".*no diff is ever shown/s,
        );
        // One line, however narrow the window: the message is cut, its fix hidden.
        await page.setViewportSize({ width: 640, height: 600 });
        const oneLine = await summary.evaluate((element) => {
          const style = element.ownerDocument.defaultView!.getComputedStyle(element);
          return element.getBoundingClientRect().height < 2 * parseFloat(style.fontSize);
        });
        assert.equal(oneLine, true, 'the warning takes more than one line');
        assert.equal(await fix.isVisible(), false);
        await summary.click();
        assert.match(await fix.innerText(), /Type \/approval-mode default in Qwen Code/);
        assert.equal(await fix.isVisible(), true);
      } finally {
        writeJson(settings, SETTINGS_THAT_SHOW_DIFFS);
        await another.kill();
        await page.setViewportSize({ width: 1440, height: 860 });
      }
      // The engine looks again when the editor reports its folders: the cause is gone, and so
      // is the warning, from the page too.
      await engine.workspaceChanged([workspace]);
      await eventually('no warning', () => (queue.warnings().length === 0 ? true : undefined));
      await warning.waitFor({ state: 'detached' });
    });

    test("Claude Code's warnings take one line each, their fix on demand, and each goes with its cause", async () => {
      // A Claude Code user in a mode that writes without asking, with the terminal diff tool,
      // and another companion's live lock on the sandbox's folder, which the editor now serves
      // too: the engine looks again when the editor reports its folders, and warns three times.
      sandbox.useClaudeCode('acceptEdits', {
        diffTool: 'terminal',
        otherCompanion: 'Visual Studio Code',
      });
      const settings = join(sandbox.claudeConfigDir, 'settings.json');
      const state = join(sandbox.claudeConfigDir, '.claude.json');
      const otherLocks = join(sandbox.home, '.claude');
      const folders = [workspace, sandbox.workspace];
      const warnings = page.locator('.warnings .notice');
      const warning = (message: string) => warnings.filter({ hasText: message });
      const permissionMode = 'Claude Code starts in permission mode "acceptEdits"';
      const diffTool = 'Claude Code\'s diff tool is "terminal"';
      const otherCompanion = 'Another Claude Code companion serves this folder: Visual Studio Code';
      const fixes = [
        {
          message: permissionMode,
          fix: `--permission-mode default, or set {"permissions": {"defaultMode": "default"}} in ${settings}`,
        },
        {
          message: diffTool,
          fix: `set "Diff tool" to auto, or set "diffTool": "auto" in ${state}`,
        },
        {
          message: otherCompanion,
          fix: "disable Anthropic's Claude Code extension in that Visual Studio Code window",
        },
      ];
      try {
        await engine.workspaceChanged(folders);
        await eventually('three warnings', async () =>
          (await warnings.count()) === 3 ? true : undefined,
        );
        for (const { message, fix } of fixes) {
          const summary = warning(message).locator('summary');
          const fixText = warning(message).locator('.notice-fix');
          const oneLine = await summary.evaluate((element) => {
            const style = element.ownerDocument.defaultView!.getComputedStyle(element);
            return element.getBoundingClientRect().height < 2 * parseFloat(style.fontSize);
          });
          assert.equal(oneLine, true, `${message}: more than one line`);
          assert.equal(await fixText.isVisible(), false);
          await summary.click();
          assert.equal(await fixText.isVisible(), true);
          const shown = await fixText.innerText();
          assert.ok(shown.includes(fix), shown);
        }
        // Each cause gone in turn takes its warning with it, and leaves the others.
        rmSync(state);
        await engine.workspaceChanged(folders);
        await warning(diffTool).waitFor({ state: 'detached' });
        writeJson(settings, { permissions: { defaultMode: 'default' } });
        await engine.workspaceChanged(folders);
        await warning(permissionMode).waitFor({ state: 'detached' });
        assert.equal(await warning(otherCompanion).count(), 1);
        rmSync(otherLocks, { recursive: true });
        await engine.workspaceChanged(folders);
        await eventually('no warning', () => (queue.warnings().length === 0 ? true : undefined));
        await warnings.first().waitFor({ state: 'detached' });
      } finally {
        for (const planted of [settings, state, otherLocks]) {
          rmSync(planted, { recursive: true, force: true });
        }
        await engine.workspaceChanged([workspace]);
      }
    });

    test('two diffs queue: the first is shown, then the second, each answered apart', async () => {
      const first = await propose(gemini, 'src/first.ts');
      const second = await propose(qwen, 'src/second.ts');
      const items = page.locator('.queue-item');
      await eventually('two queue items', async () =>
        (await items.count()) === 2 ? 2 : undefined,
      );
      assert.equal(await page.locator('.count').textContent(), '2');
      assert.equal(
        await page.locator('.review:not([hidden]) .path .name').textContent(),
        'first.ts',
      );
      await page.getByRole('button', { name: /^Reject/ }).click();
      await page.locator('.review:not([hidden]) .path .name', { hasText: 'second.ts' }).waitFor();
      assert.match(await page.locator('.review:not([hidden]) .client').innerText(), /Qwen Code/);
      await page
        .locator('.review:not([hidden])')
        .getByRole('button', { name: /^Accept/ })
        .click();
      assert.deepEqual(await first.result, { status: 'rejected' });
      assert.deepEqual(await second.result, { status: 'accepted', content: NEW });
    });

    test('a reload shows the pending diff again, with the draft', async () => {
      await propose(gemini, 'src/durable.ts');
      await typeAtEnd('// draft\n');
      await waitForDraft('// draft');
      await page.reload();
      await eventually('the draft after the reload', async () => {
        const text = await proposed()
          .innerText()
          .catch(() => '');
        return text.includes('// draft') ? text : undefined;
      });
      assert.match(await page.locator('.draft-state').innerText(), /Edited/);
    });

    test('a page of another server on 127.0.0.1 gets nothing that opens the review', async () => {
      const diff = await propose(gemini, 'src/target.ts');
      await page.locator('.review .path .name', { hasText: 'target.ts' }).waitFor();
      const id = queue.pending()[0]!.id;
      // Another program's page on another port of the same host, in the same browser.
      const other = createServer((_request, response) => {
        response.writeHead(200, { 'content-type': 'text/html' });
        response.end('<!doctype html><title>elsewhere</title>');
      });
      const otherPort = await listenOnLoopback(other);
      const elsewhere = await browser.newPage();
      try {
        await elsewhere.goto(`http://127.0.0.1:${otherPort}/`);
        const review = `http://127.0.0.1:${server.port}`;
        const accept = `/api/reviews/${encodeURIComponent(id)}/accept`;
        // A string, run as it is: what a script of that page can do.
        const seen = (await elsewhere.evaluate(`(async () => {
        const target = ${JSON.stringify(review)};
        const accept = ${JSON.stringify(accept)};
        const tried = (path, init) =>
          fetch(target + path, { credentials: 'include', ...init }).then(
            (response) => 'status ' + response.status,
            () => 'blocked',
          );
        const body = JSON.stringify({ content: 'attacker' });
        return {
          cookies: document.cookie,
          state: await tried('/api/state'),
          accept: await tried(accept, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body,
          }),
          plainAccept: await tried(accept, {
            method: 'POST',
            mode: 'no-cors',
            body,
          }),
        };
      })()`)) as { cookies: string; state: string; accept: string; plainAccept: string };
        assert.equal(seen.cookies, '');
        assert.notEqual(seen.state, 'status 200');
        assert.equal(seen.accept, 'blocked');
        // Whatever the browser holds for 127.0.0.1, replayed by a script with a forged Origin.
        const cookie = (await browser.cookies(review))
          .map((c) => `${c.name}=${c.value}`)
          .join('; ');
        const replayed = await fetch(`${review}${accept}`, {
          method: 'POST',
          headers: { origin: review, cookie, 'content-type': 'application/json' },
          body: JSON.stringify({ content: 'attacker' }),
        });
        assert.equal(replayed.status, 401);
        assert.ok(await unanswered(diff));
        assert.equal(queue.pending().length, 1);
      } finally {
        await elsewhere.close();
        other.closeAllConnections();
        await new Promise((resolve) => other.close(resolve));
      }
    });

    test('the URL the page was opened with opens nothing afterwards', async () => {
      await propose(gemini, 'src/private.ts');
      const again = await browser.newPage();
      try {
        await again.goto(openedUrl);
        await again.locator('.connection[data-state="signed-out"]').waitFor();
        assert.equal(await again.locator('.review').count(), 0);
        // Where a new URL comes from, for tandem serve and for tandem lsp, which serves it too.
        assert.match(
          (await again.locator('.connection').getAttribute('title')) ?? '',
          /tandem serve prints .*tandem lsp shows/,
        );
        // The URL printed for another browser opens the page there, once.
        const next = await browser.newPage();
        try {
          await next.goto(server.url);
          await next.locator('.review .path .name', { hasText: 'private.ts' }).waitFor();
        } finally {
          await next.close();
        }
      } finally {
        await again.close();
      }
    });

    test('a new file is labelled as one, with an empty left side', async () => {
      const diff = await propose(gemini, 'src/fresh.ts', {
        oldContent: null,
        newContent: 'export {};\n',
      });
      await page.locator('.review .tag-new', { hasText: 'New file' }).waitFor();
      assert.match(await page.locator('.side').first().innerText(), /New file/);
      assert.equal(await page.locator('.cm-merge-a .cm-content').innerText(), '\n');
      await page.getByRole('button', { name: /^Accept/ }).click();
      assert.deepEqual(await diff.result, { status: 'accepted', content: 'export {};\n' });
    });

    test('a right-to-left override in a file name is shown as an escape, not obeyed: no .js reads as .png', async () => {
      const diff = await propose(gemini, 'rtl-\u202egnp.js');
      const name = page.locator('.review .path .name');
      await name.waitFor();
      assert.equal(await name.textContent(), 'rtl-\\u202egnp.js');
      assert.equal(
        await page.locator('.review .path').getAttribute('title'),
        `${workspace}/rtl-\\u202egnp.js`,
      );
      await proposed().click();
      await page.keyboard.press('Control+Shift+Backspace');
      assert.deepEqual(await diff.result, { status: 'rejected' });
    });

    test('the page works under another host name (relative URLs only)', async () => {
      const url = new URL(server.url);
      url.hostname = 'localhost';
      const other = await browser.newPage();
      try {
        await other.goto(url.href);
        await other.locator('.connection[data-state="live"]').waitFor();
        const diff = await propose(gemini, 'src/tunnel.ts');
        await other.locator('.review .path .name', { hasText: 'tunnel.ts' }).waitFor();
        await other.getByRole('button', { name: /^Reject/ }).click();
        assert.deepEqual(await diff.result, { status: 'rejected' });
      } finally {
        await other.close();
      }
    });

    test('a screenshot of a real review for the documentation', async () => {
      await propose(gemini, 'src/checkout/cart.ts', {
        oldContent: SCREENSHOT_OLD,
        newContent: SCREENSHOT_NEW,
      });
      await propose(qwen, 'docs/pricing.md', { oldContent: null, newContent: '# Pricing\n' });
      await page.locator('.cm-merge-b .cm-line span[class]').first().waitFor();
      await eventually('the revert buttons', async () =>
        (await page.locator('.cm-merge-revert button').count()) > 0 ? true : undefined,
      );
      await page.mouse.move(0, 0);
      const screenshot = join(SCREENSHOT_DIR ?? sandbox.root, 'serve-review.png');
      mkdirSync(dirname(screenshot), { recursive: true });
      await page.screenshot({ path: screenshot });
      assert.ok(existsSync(screenshot));
    });
  });

  describe('a server that ends', () => {
    let served: Served;
    let gemini: RealClient;
    let page: Page;
    /** As `tandem serve` names itself when `tandem` is not on the user's PATH. */
    const restartCommand = "node '/opt/a clone/packages/cli/bin/tandem.js' serve /work/app";

    beforeEach(async () => {
      pageProblems = [];
      const workspace = join(sandbox.root, `ending-${Date.now()}`);
      served = await serve(workspace, restartCommand);
      gemini = await connect('gemini', workspace);
      page = await openPage(served.server.url);
    });

    afterEach(async () => {
      await page.close();
      await gemini.kill();
      await served.engine.stop();
      await served.server.stop();
      assert.deepEqual(pageProblems, []);
    });

    test('a server that stops says so: no CLI badge, and what to open instead', async () => {
      await page.locator('.clients .chip', { hasText: 'Gemini CLI' }).waitFor();
      // As `tandem serve` stops: the queue says so, then the engine stops.
      served.queue.stopped();
      await served.engine.stop();
      await page.locator('.connection[data-state="stopped"]').waitFor();
      assert.match(
        await page.locator('[role="alert"]').innerText(),
        /tandem serve has stopped.*new URL/s,
      );
      // How to start it again, in a command that runs in the user's own terminal.
      assert.equal(await page.locator('[role="alert"] code').innerText(), restartCommand);
      assert.equal(await page.locator('.clients').innerText(), 'No CLI connected');
    });

    test('a server that vanishes without a word is found stopped too', async () => {
      await page.locator('.clients .chip', { hasText: 'Gemini CLI' }).waitFor();
      await served.server.stop();
      await page.locator('.connection[data-state="stopped"]').waitFor({ timeout: WAIT_MS });
      assert.equal(await page.locator('.clients').innerText(), 'No CLI connected');
      // The browser logs each refused or cut connection (until the page closes; a kept-alive
      // socket cut under a request shows as not connected, or as an empty response when the
      // request had been sent); nothing else may be.
      await page.close();
      pageProblems = pageProblems.filter(
        (problem) =>
          !/ERR_(CONNECTION_REFUSED|CONNECTION_RESET|SOCKET_NOT_CONNECTED|EMPTY_RESPONSE)/.test(
            problem,
          ),
      );
    });
  });
});

const SCREENSHOT_OLD = `import type { Item, Money } from '../model';
import { formatMoney } from '../format';

/** The items a customer is about to buy. */
export class Cart {
  private readonly items: Item[] = [];

  add(item: Item): void {
    this.items.push(item);
  }

  remove(sku: string): void {
    const index = this.items.findIndex((item) => item.sku === sku);
    this.items.splice(index, 1);
  }

  total(): Money {
    let cents = 0;
    for (const item of this.items) cents += item.price.cents;
    return { cents, currency: 'EUR' };
  }

  summary(): string {
    return \`\${this.items.length} items, \${formatMoney(this.total())}\`;
  }
}
`;

const SCREENSHOT_NEW = `import type { Item, Money } from '../model';
import { formatMoney } from '../format';

/** The items a customer is about to buy. */
export class Cart {
  private readonly items: Item[] = [];

  add(item: Item, quantity = 1): void {
    for (let i = 0; i < quantity; i++) this.items.push(item);
  }

  remove(sku: string): void {
    const index = this.items.findIndex((item) => item.sku === sku);
    // An unknown SKU leaves the cart as it is.
    if (index >= 0) this.items.splice(index, 1);
  }

  total(): Money {
    const cents = this.items.reduce((sum, item) => sum + item.price.cents, 0);
    return { cents, currency: 'EUR' };
  }

  summary(): string {
    const count = this.items.length;
    return \`\${count} \${count === 1 ? 'item' : 'items'}, \${formatMoney(this.total())}\`;
  }
}
`;
