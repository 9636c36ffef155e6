/**
 * The VS Code extension in real VS Code (code-server 4.100.3, Chromium), against the real Gemini
 * CLI client: key press → the client's context store, openDiff → the diff editor visible,
 * accept click → the client's openDiff resolved, activation → discovery files written.
 * Prints a Markdown report. Needs `.cache/code-server` and the built .vsix (see .ci/run).
 * `node --import tsx bench/vscode.ts [rounds]`
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { cpus, loadavg, totalmem } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  CodeServer,
  codeServerSkipReason,
  realClientIn,
  Sandbox,
  type RealClient,
} from '@tandem/testkit';
import { row } from './report.js';

const ROUNDS = Number(process.argv[2] ?? 30);
const WARM_UP = 3;
const KEY_INTERVAL_MS = 100;
/** Between two diffs: the window has closed the last one, as before a proposal of a real CLI. */
const SETTLE_MS = 500;

/** Milliseconds since the epoch, comparable between this process and the page. */
function now(): number {
  return performance.timeOrigin + performance.now();
}

/** In the page: resolves with the time the diff editor's proposal side shows text. */
const DIFF_VISIBLE = `new Promise((resolve) => {
  const selector = '.monaco-diff-editor .editor.modified .view-lines .view-line';
  const observer = new MutationObserver(() => {
    if (!document.querySelector(selector)) return;
    observer.disconnect();
    resolve(performance.timeOrigin + performance.now());
  });
  observer.observe(document.body, { childList: true, subtree: true });
})`;

function diffVisibleInPage(vscode: CodeServer): Promise<number> {
  return vscode.page.evaluate(DIFF_VISIBLE) as Promise<number>;
}

async function keyToContext(vscode: CodeServer, client: RealClient, file: string) {
  await vscode.openFile(path.basename(file));
  await vscode.page.keyboard.press('Control+Home');
  const samples: number[] = [];
  for (let i = 0; i < ROUNDS + WARM_UP; i++) {
    const down = i % 2 === 0;
    const line = down ? 2 : 1;
    const start = now();
    await vscode.page.keyboard.press(down ? 'ArrowDown' : 'ArrowUp');
    await client.waitForContext((context) => {
      const active = context?.workspaceState?.openFiles?.find((f) => f.isActive);
      return active?.path === file && active.cursor?.line === line;
    });
    if (i >= WARM_UP) samples.push(now() - start);
    // A fast typist's pace: the engine sends the first change after a quiet moment at once.
    await new Promise((resolve) => setTimeout(resolve, KEY_INTERVAL_MS));
  }
  return samples;
}

async function openDiffToVisible(
  vscode: CodeServer,
  client: RealClient,
  file: string,
  content: string,
) {
  const samples: number[] = [];
  for (let i = 0; i < Math.ceil(ROUNDS / 3) + WARM_UP; i++) {
    const visible = diffVisibleInPage(vscode);
    const start = now();
    const diff = client.openDiff(file, content);
    const shownAt = await visible;
    if (i >= WARM_UP) samples.push(shownAt - start);
    await diff.opened;
    await vscode.waitForDiff('Gemini CLI');
    await vscode.clickTitleAction('Reject the Proposed Edit');
    await diff.result;
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  }
  return samples;
}

async function acceptToResolved(vscode: CodeServer, client: RealClient, file: string) {
  const samples: number[] = [];
  for (let i = 0; i < Math.ceil(ROUNDS / 3) + WARM_UP; i++) {
    const diff = client.openDiff(file, `accepted ${i}\n`);
    await diff.opened;
    await vscode.waitForDiff('Gemini CLI');
    const button = vscode.page.locator(
      '.editor-group-container.active .editor-actions a.action-label[aria-label^="Accept the Proposed Edit"]',
    );
    const box = (await button.boundingBox())!;
    const start = now();
    await vscode.page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    await diff.result;
    if (i >= WARM_UP) samples.push(now() - start);
  }
  return samples;
}

/** Reloads the window and reads the extension's own "ready N ms after activation" lines. */
async function activationToDiscovery(vscode: CodeServer, sandbox: Sandbox) {
  const reloads = 5;
  for (let i = 0; i < reloads; i++) {
    const before = await vscode.discoveryFiles();
    await vscode.runCommand('Developer: Reload Window');
    // The page reloads itself; the new extension host writes new files once it is back.
    for (;;) {
      const files = await vscode.discoveryFiles();
      if (files.length && files.every((f) => !before.includes(f))) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await vscode.page.waitForSelector('.monaco-workbench .part.statusbar', { timeout: 90_000 });
  }
  const samples: number[] = [];
  for (const log of await logFiles(path.join(sandbox.root, 'code-server', 'user-data', 'logs'))) {
    for (const match of (await readFile(log, 'utf8')).matchAll(
      /ready ([\d.]+) ms after activation/g,
    )) {
      samples.push(Number(match[1]));
    }
  }
  return samples;
}

async function logFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('Tandem.log'))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

async function main(): Promise<void> {
  const skip = codeServerSkipReason();
  if (skip) throw new Error(skip);
  const sandbox = new Sandbox('tandem-bench-vscode-');
  const notes = path.join(sandbox.workspace, 'notes.txt');
  const small = path.join(sandbox.workspace, 'small.txt');
  const large = path.join(sandbox.workspace, 'large.txt');
  const line = (i: number) => `line ${String(i).padStart(6, '0')} of the file, some text\n`;
  const lines = (count: number) => Array.from({ length: count }, (_, i) => line(i)).join('');
  await writeFile(notes, lines(200));
  await writeFile(small, lines(24)); // about 1 KiB
  await writeFile(large, lines(24_000)); // about 1 MiB
  // A proposal as the CLIs make them: a few lines changed, one added.
  const proposal = (text: string) => {
    const all = text.split('\n');
    const middle = Math.floor(all.length / 2);
    all.splice(middle, 2, 'a changed line', 'another changed line', 'an added line');
    return all.join('\n');
  };
  const vscode = await CodeServer.start(sandbox);
  let client: RealClient | undefined;
  try {
    await vscode.waitForDiscovery();
    client = await realClientIn(sandbox, 'gemini');
    await client.connect();
    const key = await keyToContext(vscode, client, notes);
    const smallText = proposal(await readFile(small, 'utf8'));
    const largeText = proposal(await readFile(large, 'utf8'));
    const open1k = await openDiffToVisible(vscode, client, small, smallText);
    const open1m = await openDiffToVisible(vscode, client, large, largeText);
    const accept = await acceptToResolved(vscode, client, small);
    await client.kill();
    client = undefined;
    const activation = await activationToDiscovery(vscode, sandbox);
    const cpu = cpus()[0]?.model ?? 'unknown CPU';
    const load = loadavg()
      .map((n) => n.toFixed(1))
      .join(', ');
    console.log(`## VS Code extension in code-server 4.100.3 (VS Code 1.100.3), Chromium headless`);
    console.log('');
    console.log(
      `${new Date().toISOString().slice(0, 10)}, ${cpus().length} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}; real Gemini CLI client (gemini-cli-core 0.61.0); load average at the end ${load}.`,
    );
    console.log('');
    console.log('| measure (ms) | p50 | p95 | max | n |');
    console.log('|---|---|---|---|---|');
    console.log(row('key press → Gemini client context store', key));
    console.log(row('openDiff 1 KiB → diff editor visible', open1k));
    console.log(row('openDiff 1 MiB → diff editor visible', open1m));
    console.log(row('accept click → client openDiff resolved', accept));
    console.log(row('activation → discovery files written', activation));
  } finally {
    await client?.kill();
    await vscode.stop();
    sandbox.remove();
  }
}

await main();
