/**
 * End to end: `tandem serve` in its own process, the real Gemini CLI and Qwen Code clients
 * connecting to it through its discovery files, and the user answering on the review page in
 * real Chromium.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import {
  chromiumMissing,
  connectedClientIn,
  launchChromium,
  Sandbox,
  type ClientKind,
  type RealClient,
} from '@tandem/testkit';
import { startServe, type ServeProcess } from './serve-process.fixture.js';
import { writtenNotice } from './written-notice.fixture.js';

const missing = chromiumMissing();
const clientNames: Record<ClientKind, string> = { gemini: 'Gemini CLI', qwen: 'Qwen Code' };
const ORIGINAL = 'export function greet(name: string) {\n  return "Hello " + name;\n}\n';
const PROPOSAL = 'export function greet(name: string) {\n  return `Hello, ${name}!`;\n}\n';

for (const kind of ['gemini', 'qwen'] as const satisfies readonly ClientKind[]) {
  describe(`tandem serve with the real ${kind} client`, { skip: missing }, () => {
    let sandbox: Sandbox;
    let filePath: string;
    let serve: ServeProcess;
    let browser: BrowserContext;
    let page: Page;
    let client: RealClient | undefined;

    before(async () => {
      sandbox = new Sandbox(`tandem-serve-${kind}-`);
      mkdirSync(join(sandbox.workspace, 'src'));
      filePath = join(sandbox.workspace, 'src', 'greet.ts');
      serve = await startServe([], { cwd: sandbox.workspace, env: sandbox.env() });
      browser = await launchChromium(join(sandbox.root, 'profile'));
      page = await browser.newPage();
      await page.goto(serve.url);
      await page.locator('.connection[data-state="live"]').waitFor();
    });

    beforeEach(async () => {
      writeFileSync(filePath, ORIGINAL);
      client = await connectedClientIn(sandbox, kind);
      assert.equal(client.detectedIde?.displayName, 'Tandem (browser)');
    });

    afterEach(async () => {
      await client?.kill();
      client = undefined;
    });

    after(async () => {
      await browser?.close();
      await serve?.stop('SIGKILL');
      sandbox?.remove();
    });

    const review = () => page.locator('.review:not([hidden])');

    async function openOnPage(real: RealClient) {
      const diff = real.openDiff(filePath, PROPOSAL);
      await diff.opened;
      await review().locator('.path .name', { hasText: 'greet.ts' }).waitFor();
      return diff;
    }

    async function typeInProposal(text: string) {
      await review().locator('.cm-merge-b .cm-line').first().click();
      await page.keyboard.press('Control+End');
      await page.keyboard.type(text);
    }

    test('the page names the connected CLI and the diff it proposes', async () => {
      await page.locator('.clients .chip', { hasText: clientNames[kind] }).waitFor();
      const diff = await openOnPage(client!);
      assert.match(await review().locator('.client').innerText(), new RegExp(clientNames[kind]));
      await review()
        .getByRole('button', { name: /^Reject/ })
        .click();
      assert.deepEqual(await diff.result, { status: 'rejected' });
    });

    test('an edit accepted on the page is the content the CLI writes', async () => {
      const diff = await openOnPage(client!);
      await typeInProposal('// reviewed\n');
      await review()
        .getByRole('button', { name: /^Accept/ })
        .click();
      assert.deepEqual(await diff.result, {
        status: 'accepted',
        content: `${PROPOSAL}// reviewed\n`,
      });
      await page.locator('.review').waitFor({ state: 'detached' });
    });

    test('a diff approved in the terminal: the page says how it closed, keeping the draft the CLI drops', async () => {
      const diff = await openOnPage(client!);
      await typeInProposal('// draft\n');
      await review().locator('.draft-state', { hasText: 'saved' }).waitFor();
      await client!.resolveDiffFromCli(filePath, 'accepted');
      assert.deepEqual(await diff.result, { status: 'accepted', content: `${PROPOSAL}// draft\n` });
      await page.locator('.review').waitFor({ state: 'detached' });
      // The page says how the diff closed, in the engine's words. Qwen Code never writes the
      // user's edits: the page keeps them to copy. Gemini CLI writes them: nothing to keep.
      if (kind === 'qwen') {
        const kept = page.locator('.kept-edits');
        assert.match(await kept.innerText(), /never writes your edits/);
        assert.equal(await kept.locator('textarea').inputValue(), `${PROPOSAL}// draft\n`);
      } else {
        await page.locator('.toast', { hasText: 'answered in its terminal' }).waitFor();
        assert.equal(await page.locator('.kept-edits').count(), 0);
      }
      // As the whole CLI does next: Gemini CLI writes the text it got back, Qwen Code its own
      // proposal. The engine sees the write, and the page says which it was.
      writeFileSync(filePath, kind === 'gemini' ? `${PROPOSAL}// draft\n` : PROPOSAL);
      const notice = await writtenNotice(page, kind, 'greet.ts');
      await notice.getByRole('button', { name: 'Dismiss' }).click();
    });

    test('closeDiff from the CLI returns the draft; the diff is then rejected', async () => {
      const diff = await openOnPage(client!);
      await typeInProposal('// kept\n');
      await review().locator('.draft-state', { hasText: 'saved' }).waitFor();
      assert.equal(
        await client!.closeDiff(filePath, { suppressNotification: false }),
        `${PROPOSAL}// kept\n`,
      );
      assert.deepEqual(await diff.result, { status: 'rejected' });
      await page.locator('.review').waitFor({ state: 'detached' });
    });

    test('stopping tandem serve rejects the pending diff and exits 0', async () => {
      const diff = await openOnPage(client!);
      assert.equal(await serve.stop('SIGTERM'), 0);
      assert.deepEqual(await diff.result, { status: 'rejected' });
      // The page does not wait for a server that will not come back: it says so.
      await page.locator('.connection[data-state="stopped"]').waitFor();
      await page.locator('[role="alert"]', { hasText: 'tandem serve has stopped' }).waitFor();
    });
  });
}
