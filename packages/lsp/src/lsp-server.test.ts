/**
 * `tandem lsp` driven by a test program that is an editor's LSP client, while the real Gemini CLI
 * and Qwen Code clients connect to it through discovery alone and judge what it does.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { symlink } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import {
  callMcpTool,
  ClaudeWire,
  CLIENT_URIS,
  LspEditor,
  openMcpSession,
  realClientIn,
  ReviewPage,
  Sandbox,
  uriOf,
  waitFor,
  type IdeContext,
  type IdeFile,
  type DiffHandle,
  type DiffResult,
  type LspEditorOptions,
  type ShowDocumentBehaviour,
  type RealClient,
} from '@tandem/testkit';

/** An astral character (two UTF-16 units, four UTF-8 bytes), a wide one, then the x. */
const ASTRAL_LINE = 'a😀b 文 x';

function proposalFolders(sandbox: Sandbox): string[] {
  return readdirSync(sandbox.tmpDir).filter((name) => name.startsWith('tandem-lsp-'));
}

function activeFile(context: IdeContext | undefined): IdeFile | undefined {
  return context?.workspaceState?.openFiles?.find((file) => file.isActive);
}

async function startEditor(
  sandbox: Sandbox,
  encodings: string[] | undefined,
  options: Partial<LspEditorOptions> = {},
  processId = process.pid,
): Promise<LspEditor> {
  const editor = new LspEditor({ env: sandbox.env(), cwd: sandbox.workspace, ...options });
  await editor.initialize({
    processId,
    clientInfo: { name: 'helix', version: '25.01' },
    workspaceFolders: [{ uri: uriOf(sandbox.workspace), name: 'workspace' }],
    capabilities: encodings ? { general: { positionEncodings: encodings } } : {},
  });
  await waitFor('the discovery files', () =>
    sandbox.discoveryFiles().length > 0 ? true : undefined,
  );
  return editor;
}

/**
 * The server's exit status once it ends. Its own deadline bounds the wait: a stop that is not
 * done STOP_WITHIN_MS after it began ends with status 1, so a 0 says the stop finished by
 * itself, in time, however busy the machine. A server that never ends fails after HANG_MS.
 */
async function exitStatus(editor: LspEditor): Promise<number | null> {
  const hung = new Promise<'hung'>((resolve) => setTimeout(resolve, HANG_MS, 'hung').unref());
  const status = await Promise.race([editor.exited, hung]);
  assert.notEqual(status, 'hung', `the server still runs ${HANG_MS} ms after its stop began`);
  return status as number | null;
}

/** Far beyond any stop's deadline: only a server that hangs takes this long to end. */
const HANG_MS = 60_000;

describe('tandem lsp with the real clients connected (UTF-8 positions)', () => {
  const sandbox = new Sandbox();
  let editor: LspEditor;
  let gemini: RealClient;
  let qwen: RealClient;
  const file = path.join(sandbox.workspace, 'notes.txt');
  const other = path.join(sandbox.workspace, 'other.txt');
  let uri = '';

  before(async () => {
    writeFileSync(file, `first line\n${ASTRAL_LINE}\nlast\n`);
    writeFileSync(other, 'other\n');
    editor = await startEditor(sandbox, ['utf-8']);
    gemini = await realClientIn(sandbox, 'gemini');
    qwen = await realClientIn(sandbox, 'qwen');
    for (const client of [gemini, qwen]) {
      const state = await client.connect();
      assert.equal(state.status, 'connected', state.details);
    }
  });
  after(async () => {
    await gemini?.kill();
    await qwen?.kill();
    await editor?.kill();
    sandbox.remove();
  });

  test('the editor is named from clientInfo in the discovery files', () => {
    const gem = sandbox.discoveryFiles().find((name) => name.includes('gemini'));
    assert.ok(gem, 'a Gemini discovery file');
    const data = JSON.parse(readFileSync(gem, 'utf8')) as { ideInfo: { displayName: string } };
    assert.equal(data.ideInfo.displayName, 'Helix');
    assert.equal(editor.encoding, 'utf-8');
  });

  test('an opened file and a hover: the cursor in code points reaches both clients', async () => {
    uri = await editor.open(file);
    await editor.request('textDocument/hover', {
      textDocument: { uri },
      position: editor.position(uri, 2, 7),
    });
    for (const client of [gemini, qwen]) {
      const context = await client.waitForContext((c) => activeFile(c)?.cursor?.character === 7);
      assert.deepEqual(activeFile(context), {
        ...activeFile(context),
        path: file,
        cursor: { line: 2, character: 7 },
      });
    }
  });

  test('a code action carries the selection: its text reaches the clients', async () => {
    const range = { start: editor.position(uri, 2, 1), end: editor.position(uri, 2, 6) };
    const actions = await editor.codeActions(uri, range);
    assert.deepEqual(
      actions.map((action) => action.title),
      [
        'Tandem: send the selection to the CLIs',
        'Tandem: Claude Code: send the lines to its prompt',
      ],
    );
    await gemini.waitForContext((c) => activeFile(c)?.selectedText === 'a😀b 文');
    // A request at one position is the cursor alone: the selection has ended.
    await editor.request('textDocument/documentHighlight', {
      textDocument: { uri },
      position: editor.position(uri, 1, 3),
    });
    const context = await gemini.waitForContext((c) => activeFile(c)?.cursor?.line === 1);
    assert.equal(activeFile(context)?.selectedText, undefined);
  });

  test('send to Claude Code: the selection’s lines, or the file, reach it as at_mentioned, and the editor is told', async () => {
    // From line 1's start to line 3's start: lines 1 and 2.
    const range = { start: editor.position(uri, 1, 1), end: editor.position(uri, 3, 1) };
    const told = (text: string) =>
      waitFor(`"${text}" shown`, () => (editor.messages.includes(text) ? true : undefined));
    await editor.runCodeAction(uri, range, /Claude Code: send the lines/);
    await told('Tandem: no Claude Code is connected to this editor.');
    const wire = await ClaudeWire.connectByLock(sandbox.claudeConfigDir);
    try {
      await editor.runCodeAction(uri, range, /Claude Code: send the lines/);
      await told('Tandem: lines 1–2 of notes.txt sent to Claude Code.');
      const cursor = { start: editor.position(uri, 2, 3), end: editor.position(uri, 2, 3) };
      await editor.runCodeAction(uri, cursor, /Claude Code: send the lines/);
      assert.deepEqual(await wire.paramsOf('at_mentioned', 2), [
        { filePath: file, lineStart: 0, lineEnd: 1 },
        { filePath: file },
      ]);
    } finally {
      await wire.close();
    }
  });

  test('the requests of a cursor move are answered empty', async () => {
    const at = { textDocument: { uri }, position: editor.position(uri, 1, 1) };
    assert.equal(await editor.request('textDocument/hover', at), null);
    assert.equal(await editor.request('textDocument/documentHighlight', at), null);
    assert.equal(await editor.request('textDocument/signatureHelp', at), null);
  });

  test('edits in the editor move what a selection covers', async () => {
    await editor.edit(uri, `${ASTRAL_LINE}\nfirst line\nlast\n`);
    await editor.runCodeAction(
      uri,
      { start: editor.position(uri, 1, 2), end: editor.position(uri, 1, 3) },
      /send the selection/,
    );
    await qwen.waitForContext((c) => activeFile(c)?.selectedText === '😀');
  });

  test('every open file is listed, the latest request names the active one', async () => {
    const otherUri = await editor.open(other);
    await editor.request('textDocument/hover', {
      textDocument: { uri: otherUri },
      position: { line: 0, character: 0 },
    });
    const context = await gemini.waitForContext((c) => activeFile(c)?.path === other);
    const paths = (context?.workspaceState?.openFiles ?? []).map((f) => f.path).sort();
    assert.deepEqual(paths, [file, other].sort());
    await editor.close(otherUri);
    await gemini.waitForContext(
      (c) => !(c?.workspaceState?.openFiles ?? []).some((f) => f.path === other),
    );
  });

  let serial = 0;
  /** Closes the proposal once it carries the mark that says it was answered. */
  async function closeOnceAnswered(proposalUri: string) {
    await waitFor('the answered mark', () =>
      editor.diagnostics.get(proposalUri)?.[0]?.code === 'tandem.answered' ? true : undefined,
    );
    await editor.close(proposalUri);
  }

  async function propose(client: RealClient, disk: string, proposal: string) {
    serial += 1;
    const target = path.join(sandbox.workspace, `proposal-${serial}.py`);
    writeFileSync(target, disk);
    const shown = editor.shownDocuments.length;
    const diff = client.openDiff(target, proposal);
    await diff.opened;
    const { uri: proposalUri, takeFocus } = editor.shownDocuments[shown] ?? {};
    assert.ok(proposalUri, 'window/showDocument was asked for');
    assert.equal(takeFocus, true);
    await waitFor('the proposal open in the editor', () =>
      editor.documents.has(proposalUri) ? true : undefined,
    );
    return { target, diff, proposalUri };
  }

  test('a proposal opens as a file named as the original, marked with hint diagnostics', async () => {
    const { target, diff, proposalUri } = await propose(
      gemini,
      'keep\nold one\nkeep\n',
      'keep\nnew one\nnew two\nkeep\n',
    );
    assert.equal(path.basename(proposalUri), path.basename(target));
    assert.notEqual(path.dirname(new URL(proposalUri).pathname), sandbox.workspace);
    const marks = await waitFor('the diagnostics', () => editor.diagnostics.get(proposalUri));
    const hint = marks.find((mark) => mark.severity === 4);
    assert.equal(hint?.message, 'Was:\nold one');
    assert.deepEqual(hint?.range, {
      start: { line: 1, character: 0 },
      end: { line: 2, character: 7 },
    });
    assert.match(String(marks[0]?.message), /Gemini CLI proposes a change to proposal-1\.py/);
    // The proposal is no file of the context: a request on it changes nothing.
    await editor.request('textDocument/hover', {
      textDocument: { uri: proposalUri },
      position: { line: 1, character: 0 },
    });
    await editor.request('textDocument/hover', {
      textDocument: { uri },
      position: { line: 2, character: 1 },
    });
    const context = await gemini.waitForContext((c) => activeFile(c)?.cursor?.character === 2);
    const paths = (context?.workspaceState?.openFiles ?? []).map((f) => f.path);
    assert.ok(!paths.some((p) => p.includes('tandem-lsp-')), paths.join(', '));
    await editor.edit(proposalUri, 'keep\nnew one, edited\n');
    await editor.save(proposalUri);
    assert.deepEqual(await diff.result, { status: 'accepted', content: 'keep\nnew one, edited\n' });
    assert.equal(
      readFileSync(target, 'utf8'),
      'keep\nold one\nkeep\n',
      'Tandem never writes the file',
    );
    await closeOnceAnswered(proposalUri);
  });

  test('closing a proposal unsaved rejects it, and its file is removed', async () => {
    const { diff, proposalUri } = await propose(qwen, 'a\n', 'b\n');
    await editor.edit(proposalUri, 'b, edited\n');
    await editor.close(proposalUri);
    assert.deepEqual(await diff.result, { status: 'rejected' });
    await waitFor('the proposal file removed', () =>
      existsSync(new URL(proposalUri)) ? undefined : true,
    );
  });

  test('the Accept and Reject code actions answer with the text in the editor', async () => {
    const first = await propose(gemini, 'x\n', 'y\n');
    await editor.edit(first.proposalUri, 'y, unsaved\n');
    const here = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
    await editor.runCodeAction(first.proposalUri, here, /accept Gemini CLI's proposal/);
    assert.deepEqual(await first.diff.result, { status: 'accepted', content: 'y, unsaved\n' });
    const second = await propose(qwen, 'x\n', 'z\n');
    await editor.runCodeAction(second.proposalUri, here, /reject Qwen Code's proposal/);
    assert.deepEqual(await second.diff.result, { status: 'rejected' });
    await editor.close(first.proposalUri);
    await editor.close(second.proposalUri);
  });

  test('a proposal opened on the review page too, and answered there', async () => {
    const { diff, proposalUri } = await propose(gemini, 'one\n', 'two\n');
    await editor.edit(proposalUri, 'two, from the editor\n');
    const here = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
    const before = editor.messages.length;
    await editor.runCodeAction(proposalUri, here, /open Gemini CLI's proposal on the review page/);
    const url = await waitFor('the review page URL', () =>
      editor.messages
        .slice(before)
        .map((message) => /(http:\/\/127\.0\.0\.1:\d+\/#\S+)/.exec(message)?.[1])
        .find(Boolean),
    );
    const page = await ReviewPage.open(url);
    const review = await page.newest();
    assert.equal(review.proposal, 'two, from the editor\n');
    assert.equal(await page.act(review.id, 'accept', review.proposal), 204);
    assert.deepEqual(await diff.result, { status: 'accepted', content: 'two, from the editor\n' });
    await closeOnceAnswered(proposalUri);
  });

  test('an emptied proposal is not accepted: the reason is shown, the diff stays open', async () => {
    const { diff, proposalUri } = await propose(gemini, 'a\n', 'b\n');
    await editor.edit(proposalUri, '');
    await editor.save(proposalUri);
    await waitFor('the reason', () =>
      editor.messages.some((m) => /empty/i.test(m)) ? true : undefined,
    );
    await editor.close(proposalUri);
    assert.deepEqual(await diff.result, { status: 'rejected' });
  });

  test('a diff answered in the terminal is said so on the proposal', async () => {
    const { target, diff, proposalUri } = await propose(gemini, 'one\n', 'two\n');
    await gemini.resolveDiffFromCli(target, 'accepted');
    assert.deepEqual(await diff.result, { status: 'accepted', content: 'two\n' });
    await closeOnceAnswered(proposalUri);
  });

  test("unsaved changes in the user's buffer are named on the proposal", async () => {
    const target = path.join(sandbox.workspace, 'dirty.txt');
    writeFileSync(target, 'on disk\n');
    const userUri = await editor.open(target);
    await editor.edit(userUri, 'on disk, and unsaved\n');
    const diff = gemini.openDiff(target, 'proposed\n');
    await diff.opened;
    const proposalUri = editor.shownDocuments.at(-1)?.uri as string;
    const marks = await waitFor('the diagnostics', () => editor.diagnostics.get(proposalUri));
    assert.ok(
      marks.some((mark) => mark.severity === 2 && /unsaved changes/.test(String(mark.message))),
    );
    await editor.close(proposalUri);
    assert.deepEqual(await diff.result, { status: 'rejected' });
    assert.equal(editor.documents.get(userUri)?.text, 'on disk, and unsaved\n');
  });

  test('quitting with a proposal open rejects it, removes every file and exits within 1.5 s', async () => {
    const { diff } = await propose(gemini, 'a\n', 'b\n');
    await editor.connection.sendRequest('shutdown');
    await editor.connection.sendNotification('exit');
    assert.equal(await exitStatus(editor), 0);
    assert.deepEqual(await diff.result, { status: 'rejected' });
    assert.deepEqual(sandbox.discoveryFiles(), []);
    assert.deepEqual(proposalFolders(sandbox), []);
  });
});

describe('tandem lsp: positions in UTF-16 when the client offers none', () => {
  const sandbox = new Sandbox();
  let editor: LspEditor;
  let gemini: RealClient;
  const file = path.join(sandbox.workspace, 'wide.txt');

  before(async () => {
    writeFileSync(file, `${ASTRAL_LINE}\n`);
    editor = await startEditor(sandbox, undefined);
    gemini = await realClientIn(sandbox, 'gemini');
    assert.equal((await gemini.connect()).status, 'connected');
  });
  after(async () => {
    await gemini?.kill();
    await editor?.kill();
    sandbox.remove();
  });

  test('the x after an astral character is character 7', async () => {
    assert.equal(editor.encoding, 'utf-16');
    const uri = await editor.open(file);
    // UTF-16: a, the two units of 😀, b, space, 文, space: the x is at unit 7.
    const position = { line: 0, character: 7 };
    assert.deepEqual(editor.position(uri, 1, 7), position);
    await editor.request('textDocument/hover', { textDocument: { uri }, position });
    const context = await gemini.waitForContext((c) => activeFile(c)?.cursor !== undefined);
    assert.deepEqual(activeFile(context)?.cursor, { line: 1, character: 7 });
  });

  /**
   * A diff on the review page, announced with its URL: edited there, then accepted by the
   * Accept action on the user's own file, which takes the page's text.
   */
  async function editOnPageAcceptOnFile(name: string) {
    const target = path.join(sandbox.workspace, name);
    writeFileSync(target, 'a\n');
    const diff = gemini.openDiff(target, 'b\n');
    await diff.opened;
    const announced = await waitFor('the announcement', () =>
      editor.messages.find((message) => message.includes(name)),
    );
    const url = /(http:\/\/127\.0\.0\.1:\d+\/#\S+)/.exec(announced)?.[1];
    assert.ok(url, announced);
    const page = await ReviewPage.open(url);
    const review = await page.newest();
    assert.equal(review.filePath, target);
    assert.equal(await page.act(review.id, 'draft', 'b, edited on the page\n'), 204);
    const uri = await editor.open(target);
    const here = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
    await editor.runCodeAction(uri, here, /accept Gemini CLI's proposal/);
    assert.deepEqual(await diff.result, {
      status: 'accepted',
      content: 'b, edited on the page\n',
    });
    assert.deepEqual(await page.reviews(), []);
    await editor.close(uri);
  }

  test('showDocument refused: the diff is on the review page, announced with its URL', async () => {
    editor.showDocumentBehaviour = 'fails';
    await editOnPageAcceptOnFile('on-page.txt');
  });

  test('a proposal the editor opens without telling Tandem: the review page is offered too', async () => {
    const { diff } = await proposeShown('opens-untold', 'untold.txt', 'Accept');
    assert.deepEqual(await diff.result, { status: 'accepted', content: 'b\n' });
    assert.ok(editor.messages.some((message) => message.includes('untold.txt')));
  });

  test("a proposal shown without telling Tandem: the code actions on the user's file answer it with the page's text", async () => {
    editor.showDocumentBehaviour = 'opens-untold';
    editor.pickAction = () => undefined;
    await editOnPageAcceptOnFile('untold-answered-here.txt');
  });

  /**
   * Gemini proposes `b` for `name` (`a` on disk), the editor answering `window/showDocument`
   * with `behaviour` and picking the action titled `pick` (none by default) where one is
   * offered; resolves with the diff and the URI it was shown.
   */
  async function proposeShown(
    behaviour: ShowDocumentBehaviour,
    name: string,
    pick?: 'Accept' | 'Reject',
  ) {
    editor.showDocumentBehaviour = behaviour;
    editor.pickAction = ({ actions }) => actions?.find((a) => a.title === pick)?.title;
    const target = path.join(sandbox.workspace, name);
    writeFileSync(target, 'a\n');
    const shown = editor.shownDocuments.length;
    const diff = gemini.openDiff(target, 'b\n');
    await diff.opened;
    return { diff, shownUri: editor.shownDocuments[shown]?.uri ?? '' };
  }

  test('a proposal the editor tells Tandem of only later gets its marks again, and a save accepts', async () => {
    // As eglot does, made to manage a file outside its project: it keeps the diagnostics of a
    // document it has not opened for its list alone, and opens it once shown.
    const { diff, shownUri: proposalUri } = await proposeShown('opens-untold', 'told-later.txt');
    await waitFor('the first marks', () => editor.diagnostics.get(proposalUri));
    editor.diagnostics.delete(proposalUri);
    await editor.open(fileURLToPath(proposalUri));
    const marks = await waitFor('the marks again', () => editor.diagnostics.get(proposalUri));
    assert.equal(marks[0]?.code, 'tandem.pending');
    await editor.edit(proposalUri, 'b, edited\n');
    await editor.save(proposalUri);
    assert.deepEqual(await diff.result, { status: 'accepted', content: 'b, edited\n' });
    await editor.close(proposalUri);
  });

  test("an error from showDocument: the same, and the announcement's Reject rejects", async () => {
    const { diff } = await proposeShown('errors', 'rejected-on-page.txt', 'Reject');
    assert.deepEqual(await diff.result, { status: 'rejected' });
    assert.ok(editor.messages.some((message) => message.includes('rejected-on-page.txt')));
  });

  test('showDocument answered after the diff went to the review page: the editor opens the proposal, whose save accepts', async () => {
    const { diff, shownUri } = await proposeShown('later', 'answered-late.txt');
    await waitFor('the review page offered', () =>
      editor.messages.find((message) => message.includes('answered-late.txt')),
    );
    await editor.answerShowDocument();
    const proposalUri = editor.uriOf(fileURLToPath(shownUri));
    assert.equal(
      editor.documents.get(proposalUri)?.text,
      'b\n',
      'the proposal file is still there',
    );
    await editor.edit(proposalUri, 'b, edited\n');
    await editor.save(proposalUri);
    assert.deepEqual(await outcome(diff), { status: 'accepted', content: 'b, edited\n' });
    await editor.close(proposalUri);
  });
});

/**
 * Runs `body` with an editor (positions in `encodings`) and a connected real Gemini CLI client
 * in `sandbox`; ends both and removes the sandbox after.
 */
async function withGemini(
  sandbox: Sandbox,
  encodings: string[],
  options: Partial<LspEditorOptions>,
  body: (editor: LspEditor, gemini: RealClient) => Promise<void>,
): Promise<void> {
  const editor = await startEditor(sandbox, encodings, options);
  const gemini = await realClientIn(sandbox, 'gemini');
  try {
    assert.equal((await gemini.connect()).status, 'connected');
    await body(editor, gemini);
  } finally {
    await gemini.kill();
    await editor.kill();
    sandbox.remove();
  }
}

/** The user's decision the client got, failing (not hanging) when none comes. */
function outcome(diff: DiffHandle): Promise<DiffResult> {
  let result: DiffResult | undefined;
  void diff.result.then((settled) => (result = settled));
  return waitFor("the client's outcome", () => result);
}

describe("tandem lsp: the editor's own spelling of URIs, the temporary folder behind a link", () => {
  for (const client of ['Neovim', 'eglot'] as const) {
    test(`${client}'s URIs: each proposal is one, and its edited save reaches the CLI`, async () => {
      const sandbox = new Sandbox('tandem-test-', { tmpDirThroughLink: true });
      const options = { uriOf: CLIENT_URIS[client] };
      await withGemini(sandbox, ['utf-32'], options, async (editor, gemini) => {
        const mine = path.join(sandbox.workspace, 'mine.txt');
        writeFileSync(mine, 'my own text\n');
        const mineUri = await editor.open(mine);
        for (const [n, name] of ['café.txt', '[id].js', 'a:b.txt'].entries()) {
          const target = path.join(sandbox.workspace, name);
          writeFileSync(target, 'old\n');
          const shown = editor.shownDocuments.length;
          const diff = gemini.openDiff(target, 'proposed\n');
          await diff.opened;
          const shownUri = editor.shownDocuments[shown]?.uri ?? '';
          const proposalUri = editor.uriOf(fileURLToPath(shownUri));
          assert.ok(editor.documents.has(proposalUri), `${name}: the proposal is open`);
          const marks = await waitFor(`the marks of ${name}`, () =>
            editor.diagnostics.get(proposalUri),
          );
          assert.equal(marks[0]?.code, 'tandem.pending', name);
          // Not listed again under the URI Tandem wrote, for a client that keys them by text.
          if (shownUri !== proposalUri) assert.deepEqual(editor.diagnostics.get(shownUri), []);
          // A request in the proposal, then in the user's file: the proposal is no file of
          // the context.
          await editor.request('textDocument/hover', {
            textDocument: { uri: proposalUri },
            position: { line: 0, character: 0 },
          });
          await editor.request('textDocument/hover', {
            textDocument: { uri: mineUri },
            position: { line: 0, character: n + 1 },
          });
          const context = await gemini.waitForContext(
            (c) => activeFile(c)?.cursor?.character === n + 2,
          );
          assert.deepEqual(
            (context?.workspaceState?.openFiles ?? []).map((file) => file.path),
            [mine],
            name,
          );
          await editor.edit(proposalUri, 'proposed, edited\n');
          await editor.save(proposalUri);
          assert.deepEqual(
            await outcome(diff),
            { status: 'accepted', content: 'proposed, edited\n' },
            name,
          );
          await editor.close(proposalUri);
        }
      });
    });
  }

  test('a proposal that cannot be written (the file size limit) leaves nothing behind, and the next one shows', async () => {
    const sandbox = new Sandbox();
    const limit = 64 * 1024;
    const options = { runUnder: ['prlimit', `--fsize=${limit}`, '--'] };
    await withGemini(sandbox, ['utf-16'], options, async (editor, gemini) => {
      const target = path.join(sandbox.workspace, 'large.txt');
      writeFileSync(target, 'small\n');
      const large = gemini.openDiff(target, 'x'.repeat(4 * limit));
      await assert.rejects(large.opened);
      const [folder] = proposalFolders(sandbox);
      assert.ok(folder, 'the folder of the proposals');
      assert.deepEqual(readdirSync(path.join(sandbox.tmpDir, folder)), []);
      const shown = editor.shownDocuments.length;
      const small = gemini.openDiff(target, 'fits\n');
      await small.opened;
      const proposalUri = editor.shownDocuments[shown]?.uri ?? '';
      assert.equal(readFileSync(new URL(proposalUri), 'utf8'), 'fits\n');
      await editor.close(proposalUri);
      assert.deepEqual(await outcome(small), { status: 'rejected' });
    });
  });
});

describe('tandem lsp: the workspace', () => {
  test('a folder removed as the editor spells it: through a link, in lower-case hex', async () => {
    const sandbox = new Sandbox();
    const second = path.join(sandbox.root, 'sécond');
    mkdirSync(second);
    const linked = path.join(sandbox.root, 'linked-workspace');
    await symlink(sandbox.workspace, linked);
    const editor = await startEditor(sandbox, ['utf-16']);
    const workspacePath = () => {
      const file = sandbox.discoveryFiles().find((name) => name.includes('gemini'));
      if (!file) return undefined;
      return (JSON.parse(readFileSync(file, 'utf8')) as { workspacePath: string }).workspacePath;
    };
    try {
      await editor.connection.sendNotification('workspace/didChangeWorkspaceFolders', {
        event: {
          added: [{ uri: CLIENT_URIS.Neovim(second), name: 'second' }],
          removed: [{ uri: CLIENT_URIS.Neovim(linked), name: 'workspace' }],
        },
      });
      await waitFor('the folders in the discovery file', () =>
        workspacePath() === second ? true : undefined,
      ).catch(() => assert.equal(workspacePath(), second));
    } finally {
      await editor.kill();
      sandbox.remove();
    }
  });

  test('folders added and removed reach the discovery files', async () => {
    const sandbox = new Sandbox();
    const second = path.join(sandbox.root, 'second');
    mkdirSync(second);
    const editor = await startEditor(sandbox, ['utf-16']);
    const workspacePath = () => {
      const file = sandbox.discoveryFiles().find((name) => name.includes('gemini'));
      if (!file) return undefined;
      return JSON.parse(readFileSync(file, 'utf8')) as { workspacePath: string };
    };
    try {
      assert.equal(workspacePath()?.workspacePath, sandbox.workspace);
      await editor.connection.sendNotification('workspace/didChangeWorkspaceFolders', {
        event: {
          added: [{ uri: uriOf(second), name: 'second' }],
          removed: [{ uri: uriOf(sandbox.workspace), name: 'workspace' }],
        },
      });
      await waitFor('the new folder in the discovery file', () =>
        workspacePath()?.workspacePath === second ? true : undefined,
      );
    } finally {
      await editor.kill();
      sandbox.remove();
    }
  });
});

/** A `tandem lsp` (UTF-16) in a sandbox of its own, for `body`; both ended afterwards. */
async function withServer(body: (editor: LspEditor, sandbox: Sandbox) => Promise<void>) {
  const sandbox = new Sandbox();
  const editor = await startEditor(sandbox, ['utf-16']);
  try {
    await body(editor, sandbox);
  } finally {
    await editor.kill();
    sandbox.remove();
  }
}

/** Waits for the server to exit with `status`, having removed its discovery files and proposals. */
async function endsLeavingNoFiles(editor: LspEditor, sandbox: Sandbox, status: number) {
  assert.equal(await exitStatus(editor), status);
  assert.deepEqual(sandbox.discoveryFiles(), []);
  assert.deepEqual(proposalFolders(sandbox), []);
}

describe('tandem lsp: the end of the editor', () => {
  test('stdin closed: every file removed, exit within 1.5 s', () =>
    withServer(async (editor, sandbox) => {
      editor.process.stdin.end();
      await endsLeavingNoFiles(editor, sandbox, 0);
    }));

  test("stdin closed while a CLI's stream is away: the stop is cut at its time, files removed", () =>
    withServer(async (editor, sandbox) => {
      const lock = sandbox.discoveryFiles().find((file) => file.endsWith('.lock'))!;
      const { port, authToken } = JSON.parse(readFileSync(lock, 'utf8')) as {
        port: number;
        authToken: string;
      };
      // A session without its stream, with a diff open: the stop would wait up to 5 s for the
      // stream to come back and carry the rejection.
      const sessionId = await openMcpSession(port, authToken);
      const filePath = path.join(sandbox.workspace, 'away.txt');
      await callMcpTool(port, authToken, sessionId, {
        id: 1,
        name: 'openDiff',
        arguments: { filePath, newContent: 'new\n' },
      });
      editor.process.stdin.end();
      await endsLeavingNoFiles(editor, sandbox, 1);
    }));

  test('the editor process gone: every file removed, exit within 1.5 s', async () => {
    const sandbox = new Sandbox();
    const fakeEditor = spawn('sleep', ['60'], { stdio: 'ignore' });
    const editor = await startEditor(sandbox, ['utf-16'], {}, fakeEditor.pid as number);
    try {
      fakeEditor.kill('SIGKILL');
      await endsLeavingNoFiles(editor, sandbox, 0);
    } finally {
      fakeEditor.kill('SIGKILL');
      await editor.kill();
      sandbox.remove();
    }
  });

  test('--outlive-editor-kill: killed with a diff open right after exit, the diff is still rejected', async () => {
    const sandbox = new Sandbox();
    const editor = await startEditor(sandbox, ['utf-16'], {
      serverOptions: ['--outlive-editor-kill'],
    });
    const gemini = await realClientIn(sandbox, 'gemini');
    try {
      assert.equal((await gemini.connect()).status, 'connected');
      const target = path.join(sandbox.workspace, 'killed.txt');
      writeFileSync(target, 'a\n');
      const diff = gemini.openDiff(target, 'b\n');
      await diff.opened;
      // As Helix 25.07 quits: shutdown and exit written, the process killed, the pipes gone.
      void editor.connection.sendRequest('shutdown').catch(() => undefined);
      void editor.connection.sendNotification('exit').catch(() => undefined);
      editor.process.kill('SIGKILL');
      editor.process.stdin.destroy();
      editor.process.stdout.destroy();
      assert.deepEqual(await diff.result, { status: 'rejected' });
      await waitFor('every file removed', () =>
        sandbox.discoveryFiles().length === 0 && proposalFolders(sandbox).length === 0
          ? true
          : undefined,
      );
    } finally {
      await gemini.kill();
      await editor.kill();
      sandbox.remove();
    }
  });

  test('exit without shutdown: status 1, still cleaned up', () =>
    withServer(async (editor, sandbox) => {
      await editor.connection.sendNotification('exit');
      assert.equal(await exitStatus(editor), 1);
      assert.deepEqual(sandbox.discoveryFiles(), []);
    }));
});
