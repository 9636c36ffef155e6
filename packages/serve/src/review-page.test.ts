/**
 * The review page in real Chromium, served by a real ReviewServer whose queue answers to a
 * plain engine-side sink: what the user does on the page is what the engine hears.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import { createServer } from 'node:http';
import {
  listenOnLoopback,
  terminalAnswerClosing,
  terminalOutcome,
  type DiffRequest,
} from '@tandem/core';
import type { BrowserContext, Page } from 'playwright-core';
import { chromiumMissing, launchChromium } from '@tandem/testkit';
import { ReviewQueue } from './review-queue.js';
import { ReviewServer } from './review-server.js';

const WEB_PACKAGE = dirname(createRequire(import.meta.url).resolve('@tandem/web/package.json'));
/** `npm run screenshots` sets it to docs/images; tests write into their own scratch folder. */
const SCREENSHOT_DIR = process.env.TANDEM_SCREENSHOT_DIR;
const WORKSPACE = '/home/ada/projects/inventory';
const WAIT_MS = 20_000;

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

function diff(id: string, overrides: Partial<DiffRequest> = {}): DiffRequest {
  return {
    id,
    filePath: `${WORKSPACE}/src/${id}.ts`,
    oldContent: 'const a = 1;\nconst b = 2;\n',
    newContent: 'const a = 1;\nconst b = 3;\n',
    client: { sessionId: 'session-1', name: 'Gemini CLI', version: '0.61.0' },
    ...overrides,
  };
}

describe('review page in Chromium', { skip: missing }, () => {
  let scratch: string;
  let browser: BrowserContext;
  let server: ReviewServer;
  let queue: ReviewQueue;
  let answers: string[];
  let page: Page;
  let pageProblems: string[];
  /** The URL the page was opened with: its secret is spent once the page is open. */
  let openedUrl: string;

  before(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'tandem-review-page-'));
    const build = spawnSync(
      process.execPath,
      [join(WEB_PACKAGE, 'build.js'), '--outdir', join(scratch, 'dist')],
      { encoding: 'utf8' },
    );
    assert.equal(build.status, 0, `the page build failed:\n${build.stderr}`);
    browser = await launchChromium(join(scratch, 'profile'));
  });

  after(async () => {
    await browser?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  beforeEach(async () => {
    answers = [];
    queue = new ReviewQueue({ warn: () => {} });
    queue.answerTo({
      diffAccepted: (id, content) =>
        content === ''
          ? { ok: false, code: 'empty-accept', message: 'The engine refused this accept.' }
          : (answers.push(`accepted ${id}:\n${content}`), { ok: true }),
      diffRejected: (id) => (answers.push(`rejected ${id}`), { ok: true as const }),
    });
    server = await ReviewServer.start({
      queue,
      pageDir: join(scratch, 'dist'),
      workspaceFolders: [WORKSPACE],
      log: { warn: () => {}, error: (message) => pageProblems.push(message) },
    });
    pageProblems = [];
    page = await browser.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') {
        pageProblems.push(message.text());
      }
    });
    page.on('pageerror', (error) => pageProblems.push(error.message));
    openedUrl = server.url;
    await page.goto(openedUrl);
    await page.locator('.connection[data-state="live"]').waitFor();
  });

  afterEach(async () => {
    await page.close();
    await server.stop();
    // Every CSP refusal (an inline style, a script) and every script error lands here.
    assert.deepEqual(pageProblems, []);
  });

  const proposed = () => page.locator('.review:not([hidden]) .cm-merge-b .cm-content');

  async function typeAtEnd(text: string) {
    await proposed().click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type(text);
  }

  async function waitForDraft(id: string, includes: string) {
    await eventually(`the draft of ${id} to reach the server`, () =>
      queue.pending().find((review) => review.id === id && review.draft.includes(includes)),
    );
  }

  test('the secret leaves the address bar; the page shows the diff, its file and its CLI', async () => {
    assert.equal(new URL(page.url()).search, '');
    assert.equal(new URL(page.url()).hash, '');
    queue.clientsChanged([{ sessionId: 's', name: 'Gemini CLI', version: '0.61.0' }]);
    await queue.showDiff(diff('pricing'));
    await page.locator('.review .path .name', { hasText: 'pricing.ts' }).waitFor();
    assert.equal(await page.locator('.review .path .dir').textContent(), 'src/');
    assert.match(await page.locator('.review .client').innerText(), /Gemini CLI 0\.61\.0/);
    assert.match(await page.locator('.clients').innerText(), /Gemini CLI 0\.61\.0/);
    assert.match(await page.locator('.side').first().innerText(), /On disk/);
    // TypeScript is highlighted: its language chunk loaded from this server.
    await page.locator('.cm-merge-b .cm-line span[class]').first().waitFor();
  });

  test('an edit on the page, then Accept, gives the engine the edited content', async () => {
    await queue.showDiff(diff('edit'));
    await typeAtEnd('const c = 4;\n');
    await page.getByRole('button', { name: /^Accept/ }).click();
    await eventually('the answer', () => answers[0]);
    assert.deepEqual(answers, ['accepted edit:\nconst a = 1;\nconst b = 3;\nconst c = 4;\n']);
    await page.locator('.empty h2', { hasText: 'Nothing to review' }).waitFor();
  });

  test('Reject (Ctrl+Shift+Backspace) gives the engine a rejection', async () => {
    await queue.showDiff(diff('unwanted'));
    await proposed().click();
    await page.keyboard.press('Control+Shift+Backspace');
    await eventually('the answer', () => answers[0]);
    assert.deepEqual(answers, ['rejected unwanted']);
    assert.deepEqual(queue.pending(), []);
  });

  test('a per-hunk revert changes what is accepted (Ctrl+Enter)', async () => {
    await queue.showDiff(
      diff('hunks', {
        oldContent: 'one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\n',
        newContent: 'one\nTWO\nthree\nfour\nfive\nsix\nseven\nEIGHT\nnine\n',
      }),
    );
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
    await eventually('the answer', () => answers[0]);
    assert.deepEqual(answers, [
      'accepted hunks:\none\ntwo\nthree\nfour\nfive\nsix\nseven\nEIGHT\nnine\n',
    ]);
  });

  test('an accept the engine refuses shows its reason and keeps the diff open', async () => {
    await queue.showDiff(diff('refused'));
    await proposed().click();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    await page.keyboard.press('Control+Enter');
    await page.locator('.toast-error', { hasText: 'The engine refused this accept.' }).waitFor();
    // The browser logs the refusal (422) it was shown; nothing else may be logged.
    const refusal = pageProblems.findIndex((problem) => problem.includes('status of 422'));
    assert.notEqual(refusal, -1);
    pageProblems.splice(refusal, 1);
    assert.deepEqual(answers, []);
    assert.equal(queue.pending().length, 1);
  });

  test('closeDiff takes the diff off the page and returns the draft', async () => {
    await queue.showDiff(diff('closing'));
    await typeAtEnd('// kept\n');
    await waitForDraft('closing', '// kept');
    assert.equal(await queue.closeDiff('closing'), 'const a = 1;\nconst b = 3;\n// kept\n');
    await page.locator('.review').waitFor({ state: 'detached' });
    await page.locator('.toast', { hasText: 'Gemini CLI closed the diff of closing.ts' }).waitFor();
    assert.deepEqual(answers, []);
  });

  test('approved in Qwen Code after an edit on the page: what happened, and the edit kept to copy', async () => {
    await queue.showDiff(
      diff('terminal', { client: { sessionId: 's', name: 'Qwen Code', version: '' } }),
    );
    await typeAtEnd('// my edit\n');
    await waitForDraft('terminal', '// my edit');
    const draft = await queue.closeDiff('terminal', terminalAnswerClosing('Qwen Code'));
    const notice = page.locator('.kept-edits');
    await notice.waitFor();
    assert.match(await notice.innerText(), /terminal\.ts: .*never writes your edits/);
    assert.equal(
      await notice.locator('textarea').inputValue(),
      'const a = 1;\nconst b = 3;\n// my edit\n',
    );
    // Then the engine saw Qwen Code write its own proposal: the same notice says so.
    const { filePath, newContent } = diff('terminal');
    const after = { changed: true, content: newContent } as const;
    queue.diffOutcome('terminal', terminalOutcome('Qwen Code', filePath, after, draft, newContent));
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
    await queue.showDiff(diff('cancelled'));
    const draft = await queue.closeDiff('cancelled', terminalAnswerClosing('Gemini CLI'));
    await page.locator('.review').waitFor({ state: 'detached' });
    const { filePath, newContent } = diff('cancelled');
    const outcome = terminalOutcome('Gemini CLI', filePath, { changed: false }, draft, newContent);
    queue.diffOutcome('cancelled', outcome);
    const notice = page.locator('.notice.outcome');
    await notice.waitFor();
    assert.equal(
      await notice.locator('.diff-outcome').innerText(),
      "cancelled.ts was not changed: the proposal was cancelled in Gemini CLI's terminal.",
    );
    await notice.getByRole('button', { name: 'Dismiss' }).click();
    await notice.waitFor({ state: 'detached' });
  });

  test('warnings from the engine are shown with their fix', async () => {
    queue.warningsChanged([
      {
        code: 'no-diffs',
        cli: 'qwen',
        message: 'Qwen Code shows no diffs.',
        fix: 'Type /approval-mode default.',
      },
    ]);
    const warning = page.locator('.warnings .notice');
    await warning.waitFor();
    assert.match(
      await warning.innerText(),
      /Qwen Code shows no diffs\.\s+Type \/approval-mode default\./,
    );
  });

  test('a server that stops says so: no CLI badge, and what to open instead', async () => {
    queue.clientsChanged([{ sessionId: 's', name: 'Gemini CLI', version: '0.61.0' }]);
    await page.locator('.clients .chip', { hasText: 'Gemini CLI' }).waitFor();
    queue.stopped();
    await page.locator('.connection[data-state="stopped"]').waitFor();
    assert.match(
      await page.locator('[role="alert"]').innerText(),
      /tandem serve has stopped.*new URL/s,
    );
    assert.equal(await page.locator('.clients').innerText(), 'No CLI connected');
  });

  test('a server that vanishes without a word is found stopped too', async () => {
    queue.clientsChanged([{ sessionId: 's', name: 'Gemini CLI', version: '0.61.0' }]);
    await page.locator('.clients .chip', { hasText: 'Gemini CLI' }).waitFor();
    await server.stop();
    await page.locator('.connection[data-state="stopped"]').waitFor({ timeout: WAIT_MS });
    assert.equal(await page.locator('.clients').innerText(), 'No CLI connected');
    // The browser logs each refused or cut connection (until the page closes); nothing else may be.
    await page.close();
    pageProblems = pageProblems.filter(
      (problem) => !/ERR_CONNECTION_(REFUSED|RESET)/.test(problem),
    );
  });

  test('two diffs queue: the first is shown, then the second, each answered apart', async () => {
    await queue.showDiff(diff('first'));
    await queue.showDiff(
      diff('second', { client: { sessionId: 's2', name: 'Qwen Code', version: '0.24.4' } }),
    );
    const items = page.locator('.queue-item');
    await eventually('two queue items', async () => ((await items.count()) === 2 ? 2 : undefined));
    assert.equal(await page.locator('.count').textContent(), '2');
    assert.equal(await page.locator('.review:not([hidden]) .path .name').textContent(), 'first.ts');
    await page.getByRole('button', { name: /^Reject/ }).click();
    await page.locator('.review:not([hidden]) .path .name', { hasText: 'second.ts' }).waitFor();
    assert.match(await page.locator('.review:not([hidden]) .client').innerText(), /Qwen Code/);
    await page
      .locator('.review:not([hidden])')
      .getByRole('button', { name: /^Accept/ })
      .click();
    await eventually('two answers', () => answers[1]);
    assert.deepEqual(answers, ['rejected first', 'accepted second:\nconst a = 1;\nconst b = 3;\n']);
  });

  test('a reload shows the pending diff again, with the draft', async () => {
    await queue.showDiff(diff('durable'));
    await typeAtEnd('// draft\n');
    await waitForDraft('durable', '// draft');
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
    await queue.showDiff(diff('target'));
    await page.locator('.review .path .name', { hasText: 'target.ts' }).waitFor();
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
      // A string, run as it is: what a script of that page can do.
      const seen = (await elsewhere.evaluate(`(async () => {
        const target = ${JSON.stringify(review)};
        const tried = (path, init) =>
          fetch(target + path, { credentials: 'include', ...init }).then(
            (response) => 'status ' + response.status,
            () => 'blocked',
          );
        const body = JSON.stringify({ content: 'attacker' });
        return {
          cookies: document.cookie,
          state: await tried('/api/state'),
          accept: await tried('/api/reviews/target/accept', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body,
          }),
          plainAccept: await tried('/api/reviews/target/accept', {
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
      const cookie = (await browser.cookies(review)).map((c) => `${c.name}=${c.value}`).join('; ');
      const replayed = await fetch(`${review}/api/reviews/target/accept`, {
        method: 'POST',
        headers: { origin: review, cookie, 'content-type': 'application/json' },
        body: JSON.stringify({ content: 'attacker' }),
      });
      assert.equal(replayed.status, 401);
      assert.deepEqual(answers, []);
      assert.equal(queue.pending().length, 1);
    } finally {
      await elsewhere.close();
      other.closeAllConnections();
      await new Promise((resolve) => other.close(resolve));
    }
  });

  test('the URL the page was opened with opens nothing afterwards', async () => {
    await queue.showDiff(diff('private'));
    const again = await browser.newPage();
    try {
      await again.goto(openedUrl);
      await again.locator('.connection[data-state="signed-out"]').waitFor();
      assert.equal(await again.locator('.review').count(), 0);
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
    await queue.showDiff(diff('fresh', { oldContent: null, newContent: 'export {};\n' }));
    await page.locator('.review .tag-new', { hasText: 'New file' }).waitFor();
    assert.match(await page.locator('.side').first().innerText(), /New file/);
    assert.equal(await page.locator('.cm-merge-a .cm-content').innerText(), '\n');
    await page.getByRole('button', { name: /^Accept/ }).click();
    await eventually('the answer', () => answers[0]);
    assert.deepEqual(answers, ['accepted fresh:\nexport {};\n']);
  });

  test('the page works under another host name (relative URLs only)', async () => {
    const url = new URL(server.url);
    url.hostname = 'localhost';
    const other = await browser.newPage();
    try {
      await other.goto(url.href);
      await other.locator('.connection[data-state="live"]').waitFor();
      await queue.showDiff(diff('tunnel'));
      await other.locator('.review .path .name', { hasText: 'tunnel.ts' }).waitFor();
      await other.getByRole('button', { name: /^Reject/ }).click();
      await eventually('the answer', () => answers[0]);
      assert.deepEqual(answers, ['rejected tunnel']);
    } finally {
      await other.close();
    }
  });

  test('a screenshot of a real review for the documentation', async () => {
    queue.clientsChanged([
      { sessionId: 's1', name: 'Gemini CLI', version: '0.61.0' },
      { sessionId: 's2', name: 'Qwen Code', version: '0.24.4' },
    ]);
    await queue.showDiff(
      diff('cart', {
        filePath: `${WORKSPACE}/src/checkout/cart.ts`,
        oldContent: SCREENSHOT_OLD,
        newContent: SCREENSHOT_NEW,
      }),
    );
    await queue.showDiff(
      diff('readme', {
        filePath: `${WORKSPACE}/docs/pricing.md`,
        oldContent: null,
        newContent: '# Pricing\n',
        client: { sessionId: 's2', name: 'Qwen Code', version: '0.24.4' },
      }),
    );
    await page.locator('.cm-merge-b .cm-line span[class]').first().waitFor();
    await eventually('the revert buttons', async () =>
      (await page.locator('.cm-merge-revert button').count()) > 0 ? true : undefined,
    );
    await page.mouse.move(0, 0);
    const screenshot = join(SCREENSHOT_DIR ?? scratch, 'serve-review.png');
    mkdirSync(dirname(screenshot), { recursive: true });
    await page.screenshot({ path: screenshot });
    assert.ok(existsSync(screenshot));
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
