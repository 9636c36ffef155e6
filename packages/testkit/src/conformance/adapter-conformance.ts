/**
 * The conformance suite of editor adapters: one scripted set of cases every editor's adapter
 * runs through its `AdapterDriver`, judged by the real Gemini CLI and Qwen Code clients, which
 * find the editor through the discovery files alone.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, afterEach, before, describe, test, type TestOptions } from 'node:test';
import {
  startRealClient,
  type ClientKind,
  type DiffHandle,
  type DiffResult,
  type IdeContext,
  type IdeFile,
  type RealClient,
} from '../real-clients/real-client.js';
import { Sandbox, type SandboxOptions } from '../sandbox.js';
import { waitFor } from '../wait.js';
import type { AdapterDriver, EditorUnderTest, ShownDiff } from './adapter-driver.js';

export type { AdapterDriver, EditorUnderTest, Position, ShownDiff } from './adapter-driver.js';

const KINDS: ClientKind[] = ['gemini', 'qwen'];

/** The line whose `x` is character 10: two characters of two bytes' and of three bytes' UTF-8. */
const WIDE_LINE = 'héllo 文件 x';

/**
 * Lines after the first three of the context's file, for a selection longer than the clients
 * keep (16,384 characters, cut and marked): of characters of one to three bytes, so that an
 * adapter counting bytes reads more than the limit's worth of them.
 */
const LONG_LINES = Array.from(
  { length: 700 },
  (_, i) => `line ${i + 4}: héllo 文件, the quick brown fox`,
);
/** How the clients cut a selection longer than they keep (docs/clients.md). */
const KEPT_SELECTION = 16_384;
const TRUNCATION_MARK = '... [TRUNCATED]';

/** A running editor in its sandbox, with real clients connected to it. */
export interface Scene {
  sandbox: Sandbox;
  editor: EditorUnderTest;
  clients: Map<ClientKind, RealClient>;
}

/**
 * Starts the editor and `kinds` of real clients before the cases of a block (in a sandbox made
 * with `options`, then `prepare`d); ends them after.
 */
export function sceneWith(
  driver: AdapterDriver,
  kinds: ClientKind[],
  prepare?: (s: Sandbox) => void,
  options: SandboxOptions = {},
): Scene {
  const scene = { clients: new Map() } as Scene;
  before(async () => {
    scene.sandbox = new Sandbox('tandem-test-', options);
    prepare?.(scene.sandbox);
    scene.editor = await driver.start(scene.sandbox);
    for (const kind of kinds) await connectClient(scene, kind);
  });
  after(async () => {
    for (const client of scene.clients.values()) await client.kill();
    await scene.editor?.close();
    scene.sandbox?.remove();
  });
  return scene;
}

/** Starts a real `kind` client in the scene (in place of the one it had) and connects it. */
async function connectClient(scene: Scene, kind: ClientKind): Promise<void> {
  const { workspace: cwd, tmpDir, qwenHome, home } = scene.sandbox;
  const client = await startRealClient({ kind, cwd, tmpDir, qwenHome, home });
  scene.clients.set(kind, client);
  const state = await client.connect();
  assert.equal(state.status, 'connected', `the ${kind} client did not connect: ${state.details}`);
}

type CaseBody = () => Promise<void>;
/** Declares a case, as node:test's `test` does. */
type DeclareCase = {
  (name: string, body: CaseBody): void;
  (name: string, options: TestOptions, body: CaseBody): void;
};

/**
 * node:test's `test` for the cases of the block whose scene is `scene`: when a case fails, what
 * the editor and Tandem in it logged is printed with it, so that a failure explains itself.
 */
function casesOf(scene: Scene): DeclareCase {
  const explained = (name: string, body: CaseBody) => async () => {
    try {
      await body();
    } catch (error) {
      const logs = await scene.editor?.logs?.().catch((why: unknown) => `unreadable: ${why}`);
      if (logs) console.log(`── what the editor logged until "${name}" failed\n${logs}`);
      throw error;
    }
  };
  return (name: string, ...rest: [CaseBody] | [TestOptions, CaseBody]) =>
    rest.length === 1
      ? void test(name, explained(name, rest[0]))
      : void test(name, rest[0], explained(name, rest[1]));
}

function client(scene: Scene, kind: ClientKind): RealClient {
  const found = scene.clients.get(kind);
  assert.ok(found, `no ${kind} client in this block`);
  return found;
}

function activeFile(context: IdeContext | undefined): IdeFile | undefined {
  return context?.workspaceState?.openFiles?.find((file) => file.isActive);
}

function openPaths(context: IdeContext | undefined): string[] {
  return (context?.workspaceState?.openFiles ?? []).map((file) => file.path).sort();
}

/** Waits until the client's active file matches; names what was expected when it does not. */
async function waitForActive(
  judge: RealClient,
  what: string,
  matches: (file: IdeFile) => boolean,
): Promise<IdeFile> {
  const context = await judge.waitForContext((c) => {
    const file = activeFile(c);
    return file !== undefined && matches(file);
  });
  return activeFile(context) as IdeFile;
}

/** Texts compared as the user sees them: a final newline is the editor's business. */
function sameText(a: string, b: string): boolean {
  return a.replace(/\r?\n$/, '') === b.replace(/\r?\n$/, '');
}

function viewOf(views: ShownDiff[], filePath: string): ShownDiff | undefined {
  return views.find((view) => view.filePath === filePath);
}

/** The editor's diff views once the view of `filePath` shows `proposal`. */
function waitForView(editor: EditorUnderTest, filePath: string, proposal: string) {
  return waitFor(`the diff view of ${path.basename(filePath)}`, async () => {
    const view = viewOf(await editor.diffViews(), filePath);
    return view && sameText(view.proposal, proposal) ? view : undefined;
  });
}

function waitForNoView(editor: EditorUnderTest, filePath: string): Promise<true> {
  return waitFor(`the diff view of ${path.basename(filePath)} to close`, async () =>
    viewOf(await editor.diffViews(), filePath) ? undefined : true,
  );
}

/** Whether the client's diff is still waiting for an answer (no timing: a settled one wins). */
async function stillOpen(diff: DiffHandle): Promise<boolean> {
  const pending = Symbol('pending');
  const first = await Promise.race([diff.result, Promise.resolve(pending)]);
  return first === pending;
}

/** Whether the client's diff got its answer: waits for it, within the client's own bound. */
function answered(diff: DiffHandle): Promise<boolean> {
  return diff.result.then(
    () => true,
    () => false,
  );
}

/** The discovery files in the sandbox: Gemini's and the Qwen locks. */

/**
 * Registers the conformance cases (`node:test`) for the editor `driver` starts. Call it once,
 * at the top level of a test file.
 */
export function runAdapterConformance(driver: AdapterDriver): void {
  describe(`${driver.name}: adapter conformance`, { skip: driver.skip }, () => {
    for (const kind of KINDS) describeContext(driver, kind);
    describeDiffs(driver);
    describeQuitting(driver);
  });
}

function describeContext(driver: AdapterDriver, kind: ClientKind): void {
  describe(`the context reaches the real ${kind} client`, () => {
    let first = '';
    let second = '';
    const scene = sceneWith(driver, [kind], (sandbox) => {
      first = path.join(sandbox.workspace, 'first.txt');
      second = path.join(sandbox.workspace, 'second.txt');
      writeFileSync(first, `alpha beta\n${WIDE_LINE}\nlast line\n${LONG_LINES.join('\n')}\n`);
      writeFileSync(second, 'other file\n');
    });
    const test = casesOf(scene);
    /** Waits until the client sees `text` (undefined: nothing) selected in the active file. */
    const selectionSeen = (what: string, text: string | undefined) =>
      waitForActive(client(scene, kind), what, (f) => f.selectedText === text);

    test('an opened file is active, with the cursor at line 1, character 1', async () => {
      await scene.editor.openFile(first);
      // The events of one look may arrive in two updates (the first leaves at once): wait for
      // the one with the cursor, then judge it.
      const file = await waitForActive(
        client(scene, kind),
        'first.txt with its cursor',
        (f) => f.path === first && f.cursor !== undefined,
      );
      assert.deepEqual(file.cursor, { line: 1, character: 1 });
      assert.equal(file.selectedText, undefined);
    });

    test(`the cursor counts code points: the x of "${WIDE_LINE}" is character 10`, async () => {
      await scene.editor.moveCursor({ line: 2, character: 10 });
      const file = await waitForActive(
        client(scene, kind),
        'the cursor on the x',
        (f) => f.cursor?.line === 2 && f.cursor.character === 10,
      );
      assert.equal(file.selectedText, undefined);
    });

    test('the selected text reaches the client', async () => {
      await scene.editor.select({ line: 2, character: 1 }, { line: 2, character: 8 });
      await selectionSeen('the selection', 'héllo 文件');
    });

    test('a selection across lines', async () => {
      await scene.editor.select({ line: 1, character: 7 }, { line: 2, character: 5 });
      await selectionSeen('the selection across lines', 'beta\nhéllo');
    });

    test('ending the selection clears it', { skip: driver.cannot?.endingSelection }, async () => {
      await scene.editor.clearSelection();
      await selectionSeen('no selection', undefined);
    });

    test('a selection longer than the clients keep reaches them cut, and marked', async () => {
      const lines = ['alpha beta', WIDE_LINE, 'last line', ...LONG_LINES];
      await scene.editor.select({ line: 1, character: 1 }, { line: lines.length, character: 1 });
      const selected = `${lines.join('\n')}`.slice(0, -(lines.at(-1)!.length - 1));
      const kept = selected.slice(0, KEPT_SELECTION - TRUNCATION_MARK.length) + TRUNCATION_MARK;
      await selectionSeen('the long selection, cut', kept);
      await scene.editor.clearSelection();
      if (driver.cannot?.endingSelection) return; // the next move of the cursor ends it
      await selectionSeen('no selection', undefined);
    });

    test('every open file is listed; the one focused last is active', async () => {
      await scene.editor.openFile(second);
      const context = await client(scene, kind).waitForContext(
        (c) => activeFile(c)?.path === second,
      );
      assert.deepEqual(openPaths(context), [first, second].sort());
      await scene.editor.openFile(first);
      await waitForActive(client(scene, kind), 'first.txt again', (f) => f.path === first);
    });
  });
}

function describeDiffs(driver: AdapterDriver): void {
  describe('diffs proposed by the real clients', () => {
    const scene = sceneWith(driver, KINDS);
    const test = casesOf(scene);
    let serial = 0;
    /** The diffs the case under way opened. */
    const opened: { kind: ClientKind; diff: DiffHandle }[] = [];

    // A failed case leaves nothing behind for the next: the views it left are rejected in the
    // editor, and a client whose diff still got no answer (it waits on one diff at a time, so
    // every later one would wait behind it) is started again.
    afterEach(async () => {
      const left = opened.splice(0);
      for (const view of await scene.editor.diffViews().catch(() => [])) {
        const gesture = driver.gestures.reject[0] as string;
        await scene.editor.reject(view.filePath, gesture).catch(() => undefined);
      }
      const stuck = new Set<ClientKind>();
      for (const { kind, diff } of left) if (!(await answered(diff))) stuck.add(kind);
      for (const kind of stuck) {
        await client(scene, kind).kill();
        await connectClient(scene, kind);
      }
    });

    /** Has `kind` propose `proposal` for a new file holding `disk`; waits for the view. */
    async function propose(kind: ClientKind, disk: string, proposal: string) {
      serial += 1;
      const filePath = path.join(scene.sandbox.workspace, `proposal-${serial}.txt`);
      writeFileSync(filePath, disk);
      const diff = client(scene, kind).openDiff(filePath, proposal);
      opened.push({ kind, diff });
      await diff.opened;
      await waitForView(scene.editor, filePath, proposal);
      return { filePath, diff };
    }

    for (const gesture of driver.gestures.accept) {
      for (const kind of KINDS) {
        test(`${gesture} accepts, and ${kind} receives the edited text`, async () => {
          const { filePath, diff } = await propose(kind, 'alpha\nbeta\n', 'alpha\nBETA\n');
          const edited = 'alpha\nBETA\nedited in the editor\n';
          await scene.editor.editProposal(filePath, edited);
          await scene.editor.accept(filePath, gesture);
          assert.deepEqual(await diff.result, { status: 'accepted', content: edited });
          await waitForNoView(scene.editor, filePath);
        });
      }
    }

    for (const gesture of driver.gestures.reject) {
      for (const kind of KINDS) {
        test(`${gesture} rejects, and ${kind} is told`, async () => {
          const { filePath, diff } = await propose(kind, 'alpha\nbeta\n', 'alpha\nBETA\n');
          await scene.editor.reject(filePath, gesture);
          assert.deepEqual(await diff.result, { status: 'rejected' });
          await waitForNoView(scene.editor, filePath);
        });
      }
    }

    for (const kind of KINDS) {
      test(`${kind} closing a diff gets the edited text, and the view disappears`, async () => {
        const { filePath, diff } = await propose(kind, 'one\n', 'two\n');
        await scene.editor.editProposal(filePath, 'two, edited\n');
        const content = await client(scene, kind).closeDiff(filePath);
        assert.equal(content, 'two, edited\n');
        await waitForNoView(scene.editor, filePath);
        assert.equal((await diff.result).status, 'rejected');
      });
    }

    test('gemini approving in its terminal writes the text edited in the editor', async () => {
      const { filePath, diff } = await propose('gemini', 'one\n', 'two\n');
      await scene.editor.editProposal(filePath, 'two, edited\n');
      await client(scene, 'gemini').resolveDiffFromCli(filePath, 'accepted');
      assert.deepEqual(await diff.result, { status: 'accepted', content: 'two, edited\n' });
      await waitForNoView(scene.editor, filePath);
    });

    test('two diffs at once from two clients, each with its own answer', async () => {
      const fromGemini = await propose('gemini', 'g\n', 'G\n');
      const fromQwen = await propose('qwen', 'q\n', 'Q\n');
      const views = await scene.editor.diffViews();
      assert.ok(viewOf(views, fromGemini.filePath) && viewOf(views, fromQwen.filePath));
      await scene.editor.accept(fromGemini.filePath, driver.gestures.accept[0] as string);
      assert.deepEqual(await fromGemini.diff.result, { status: 'accepted', content: 'G\n' });
      await waitForNoView(scene.editor, fromGemini.filePath);
      assert.ok(viewOf(await scene.editor.diffViews(), fromQwen.filePath), 'the other view');
      assert.equal(await stillOpen(fromQwen.diff), true, 'the other diff is still open');
      await scene.editor.reject(fromQwen.filePath, driver.gestures.reject[0] as string);
      assert.deepEqual(await fromQwen.diff.result, { status: 'rejected' });
      await waitForNoView(scene.editor, fromQwen.filePath);
    });

    test(
      "an emptied proposal is not accepted: the engine's reason is shown, the view stays",
      {
        skip: driver.cannot?.emptiedAccept,
      },
      async () => {
        const { filePath, diff } = await propose('gemini', 'alpha\n', 'ALPHA\n');
        await scene.editor.editProposal(filePath, '');
        const before = await scene.editor.messages();
        await scene.editor.accept(filePath, driver.gestures.accept[0] as string);
        await waitFor("the engine's reason among the messages", async () => {
          const shown = (await scene.editor.messages()).slice(before.length);
          return /empty/i.test(shown) ? true : undefined;
        });
        assert.ok(viewOf(await scene.editor.diffViews(), filePath), 'the view is still shown');
        assert.equal(await stillOpen(diff), true, 'the CLI got no answer');
        // The first reject gesture also rejects an edited proposal.
        await scene.editor.reject(filePath, driver.gestures.reject[0] as string);
        assert.deepEqual(await diff.result, { status: 'rejected' });
        await waitForNoView(scene.editor, filePath);
      },
    );
  });
}

function describeQuitting(driver: AdapterDriver): void {
  describe('quitting the editor with a diff open', () => {
    const scene = sceneWith(driver, ['gemini']);
    const test = casesOf(scene);

    test('the client is told rejected, and no discovery file is left', async () => {
      assert.ok(scene.sandbox.discoveryFiles().length > 0, 'the editor wrote discovery files');
      const filePath = path.join(scene.sandbox.workspace, 'pending.txt');
      writeFileSync(filePath, 'a\n');
      const diff = client(scene, 'gemini').openDiff(filePath, 'b\n');
      await diff.opened;
      await waitForView(scene.editor, filePath, 'b\n');
      await scene.editor.quit();
      const result: DiffResult = await diff.result;
      assert.deepEqual(result, { status: 'rejected' });
      await waitFor('the discovery files to be removed', () =>
        scene.sandbox.discoveryFiles().length === 0 ? true : undefined,
      );
    });
  });
}
