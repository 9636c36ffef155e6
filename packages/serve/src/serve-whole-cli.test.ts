/**
 * End to end, as a user runs it: `tandem serve` on the example workspace, the whole real CLI in
 * tmux (a fake model proposes an edit), and the user editing it on the page in real Chromium,
 * then accepting it there, or approving it in the CLI's terminal; Claude Code (the newest,
 * connected by `CLAUDE_CODE_SSE_PORT`, the port its lock file names) accepted with an edit on
 * the page, or rejected there.
 */
import assert from 'node:assert/strict';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import {
  chromiumMissing,
  claudeCodeMissing,
  CLI_DISPLAY_NAMES,
  editPrompt,
  finalText,
  idlePattern,
  launchChromium,
  missing as missingNeeds,
  needsProgram,
  startCliSession,
  type CliName,
  type CliSession,
} from '@tandem/testkit';
import { startServe } from './serve-process.fixture.js';
import { writtenNotice } from './written-notice.fixture.js';

const EXAMPLE = new URL('../../../examples/workspace/', import.meta.url);
const missing = chromiumMissing();

async function until(condition: () => boolean, what: string, ms = 60_000) {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** What a test sees: the page, the CLI's pane, and the file the CLI is asked to edit. */
interface Scene {
  page: Page;
  session: CliSession;
  target: string;
  original: string;
  proposal: string;
}

/**
 * `tandem serve` on a copy of the example workspace, the page in Chromium, and the whole CLI in
 * tmux; the CLI has proposed its edit, now under review on the page. Runs `body`, then ends all.
 */
async function withProposal(cli: CliName, body: (scene: Scene) => Promise<void>): Promise<void> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), `tandem-e2e-${cli}-`)));
  const workspace = join(root, 'workspace');
  const [tmpDir, home, qwenHome] = ['tmp', 'home', 'qwen'].map((name) => join(root, name));
  for (const dir of [tmpDir, home, qwenHome!]) mkdirSync(dir!);
  cpSync(EXAMPLE, workspace, { recursive: true });
  const target = join(workspace, 'src', 'stats.js');
  const original = readFileSync(target, 'utf8');
  const proposal = `${original}\nexport function median(values) {\n  const sorted = [...values].sort((a, b) => a - b);\n  return sorted[Math.floor(sorted.length / 2)];\n}\n`;
  const env = { ...process.env, TMPDIR: tmpDir!, QWEN_HOME: qwenHome!, HOME: home! };
  const serve = await startServe([], { cwd: workspace, env });
  const browser = await launchChromium(join(root, 'profile'));
  // Claude Code connects by itself to the port `CLAUDE_CODE_SSE_PORT` names (as `tandem env`
  // gives it): the name of the lock file `tandem serve` wrote.
  const claudePort = () => {
    const locks = readdirSync(join(home!, '.claude', 'ide'));
    return { CLAUDE_CODE_SSE_PORT: locks[0]!.replace(/\.lock$/, '') };
  };
  const session = await startCliSession({
    cli,
    cwd: workspace,
    home: home!,
    tmpDir: tmpDir!,
    qwenHome,
    edit: { filePath: target, content: proposal },
    promptAtStart: false,
    ...(cli === 'claude' && { env: claudePort() }),
  });
  try {
    // Asked for before the CLI has connected, the edit would be confirmed in the terminal:
    // wait until the page lists the CLI. (Typed too early, even `/ide status` goes to the
    // model.)
    const page = await browser.newPage();
    await page.goto(serve.url);
    await page
      .locator('.clients .chip', { hasText: CLI_DISPLAY_NAMES[cli] })
      .waitFor({ timeout: 90_000 });
    await session.waitForScreen(idlePattern(cli));
    await session.submit(editPrompt({ filePath: target, content: proposal }));
    await page
      .locator('.review:not([hidden]) .path .name', { hasText: 'stats.js' })
      .waitFor({ timeout: 90_000 })
      .catch(async (error: unknown) => {
        throw new Error(`${String(error)}\nthe CLI's screen:\n${await session.screen()}`);
      });
    await body({ page, session, target, original, proposal });
  } finally {
    await session.stop();
    await browser.close();
    await serve.stop('SIGTERM');
    rmSync(root, { recursive: true, force: true });
  }
}

/** Types `text` at the end of the proposal under review. */
async function typeInProposal(page: Page, text: string): Promise<void> {
  await page.locator('.review:not([hidden]) .cm-merge-b .cm-line').first().click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type(text);
}

for (const cli of ['gemini', 'qwen'] as const) {
  describe(`the whole ${cli} CLI with tandem serve`, { skip: missing }, () => {
    test('an edit proposed in the terminal, edited and accepted on the page, lands on disk', async (t) => {
      if (!needsProgram(t, 'tmux')) return;
      await withProposal(cli, async ({ page, target, proposal }) => {
        await typeInProposal(page, '// reviewed on the page\n');
        await page
          .locator('.review:not([hidden])')
          .getByRole('button', { name: /^Accept/ })
          .click();
        await until(
          () => readFileSync(target, 'utf8') === `${proposal}// reviewed on the page\n`,
          `${target} to hold the accepted edit`,
        );
        await page.locator('.review').waitFor({ state: 'detached' });
      });
    });

    test('edited on the page, approved in the terminal: the page says what the CLI wrote', async (t) => {
      if (!needsProgram(t, 'tmux')) return;
      await withProposal(cli, async ({ page, session, target, proposal }) => {
        await typeInProposal(page, '// edited on the page\n');
        await page
          .locator('.review:not([hidden]) .draft-state', { hasText: 'saved' })
          .waitFor({ timeout: 60_000 });
        await session.approveInTerminal(120_000);
        await page.locator('.review').waitFor({ state: 'detached', timeout: 60_000 });
        // Gemini CLI writes the page's text; Qwen Code its own proposal (docs/clients.md, "Both").
        const written = cli === 'gemini' ? `${proposal}// edited on the page\n` : proposal;
        await until(() => readFileSync(target, 'utf8') === written, `${target} to be written`);
        // The edits Qwen Code drops are kept on the page with what it wrote; Gemini CLI wrote
        // them, and the page says so in a notice of its own.
        const notice = await writtenNotice(page, cli, 'stats.js');
        if (cli === 'qwen') {
          assert.equal(
            await notice.locator('textarea').inputValue(),
            `${proposal}// edited on the page\n`,
          );
        }
      });
    });
  });
}

describe(
  'the whole Claude Code with tandem serve',
  { skip: missing || missingNeeds([], claudeCodeMissing('newest')) },
  () => {
    test("an edit proposed in the terminal, edited and accepted on the page: the file gets exactly the page's text", async (t) => {
      if (!needsProgram(t, 'tmux')) return;
      await withProposal('claude', async ({ page, session, target, proposal }) => {
        await typeInProposal(page, '// reviewed on the page\n');
        await page
          .locator('.review:not([hidden])')
          .getByRole('button', { name: /^Accept/ })
          .click();
        await session.waitForScreen((screen) => screen.includes(finalText), 120_000);
        assert.equal(readFileSync(target, 'utf8'), `${proposal}// reviewed on the page\n`);
        await page.locator('.review').waitFor({ state: 'detached' });
      });
    });

    test('rejected on the page: the file stays as it was, and Claude Code takes the rejection', async (t) => {
      if (!needsProgram(t, 'tmux')) return;
      await withProposal('claude', async ({ page, session, target, original }) => {
        await page
          .locator('.review:not([hidden])')
          .getByRole('button', { name: /^Reject/ })
          .click();
        await page.locator('.review').waitFor({ state: 'detached' });
        await session.waitForScreen(/Rejected update to (src\/)?stats\.js|User rejected/, 120_000);
        assert.equal(readFileSync(target, 'utf8'), original);
      });
    });
  },
);
