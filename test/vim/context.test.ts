/**
 * What the real Gemini CLI and Qwen Code clients learn from Vim: they find it through the
 * discovery files alone, and see the files, the cursor (in characters) and the selection.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  ClaudeWire,
  selectedLines,
  connectedClientIn,
  Sandbox,
  suiteInSandbox,
  VimSession,
  vimSkipReason,
  waitFor,
  type ClientKind,
  type RealClient,
} from '@tandem/testkit';

const skip = vimSkipReason({ sidecar: true });

type OpenFile = {
  path: string;
  isActive?: boolean;
  cursor?: { line: number; character: number };
  selectedText?: string;
};

for (const kind of ['gemini', 'qwen'] as ClientKind[]) {
  describe(`context in Vim, seen by the real ${kind} client`, { skip }, () => {
    const scene = {} as { sandbox: Sandbox; vim: VimSession; client: RealClient };
    const wide = () => path.join(scene.sandbox.workspace, 'wide.txt');
    const other = () => path.join(scene.sandbox.workspace, 'other.txt');

    before(async () => {
      scene.sandbox = new Sandbox();
      writeFileSync(
        wide(),
        'first line\nhéllo 文件 x\nthird line\n\tab\tcd\n0123456789abcdefghij\n',
      );
      writeFileSync(other(), 'alpha\nbeta\ngamma\n');
      scene.vim = await VimSession.start(scene.sandbox, { args: ['wide.txt'] });
      await scene.vim.waitForState('running');
      scene.client = await connectedClientIn(scene.sandbox, kind);
    });
    after(async () => {
      await scene.client?.kill();
      await scene.vim?.close();
      scene.sandbox?.remove();
    });

    function active(predicate: (file: OpenFile) => boolean) {
      return scene.client.waitForContext((context) => {
        const files = (context?.workspaceState?.openFiles ?? []) as OpenFile[];
        const file = files.find((f) => f.isActive);
        return file !== undefined && predicate(file);
      });
    }

    /** Waits until the client sees `text` selected in the active file. */
    const selected = (text: string) => active((f) => f.selectedText === text);

    /** Types `keys`, then waits until the client sees `text` selected in the active file. */
    async function typeSelecting(keys: string, text: string) {
      await scene.vim.type(keys);
      await selected(text);
    }

    /** A blockwise Visual selection from where the keys `start` go, stretched by `motion`. */
    async function selectBlock(start: string, motion: string) {
      await scene.vim.type(start);
      await scene.vim.keys('C-v');
      await scene.vim.type(motion);
    }

    test('the client detected Vim through the discovery files', () => {
      assert.deepEqual(scene.client.detectedIde, { name: 'vim', displayName: 'Vim' });
    });

    test('the open file is active, with the cursor in characters, not bytes', async () => {
      await active((f) => f.path === wide() && f.cursor?.line === 1);
      // `x` on line 2 is byte 15 in Vim (col()) but character 10.
      await scene.vim.type('2G$');
      await active((f) => f.cursor?.line === 2 && f.cursor.character === 10);
    });

    test('a Visual selection is the selected text; leaving Visual mode clears it', async () => {
      await typeSelecting('0vf ', 'héllo ');
      await typeSelecting('j', 'héllo 文件 x\nthird ');
      await scene.vim.keys('Escape');
      await active((f) => f.selectedText === undefined && f.cursor?.line === 3);
      await typeSelecting('ggVj', 'first line\nhéllo 文件 x');
      await scene.vim.keys('Escape');
      // Blockwise: screen columns 2 to 3 of both lines, `é` being one of them.
      await selectBlock('gg0l', 'jl');
      await selected('ir\nél');
      // To the end of each line.
      await typeSelecting('$', 'irst line\néllo 文件 x');
      await scene.vim.keys('Escape');
    });

    test('Select mode selects as Visual mode does; a blockwise selection keeps the tabs it covers', async () => {
      await typeSelecting('gg0lgh', 'i');
      await scene.vim.keys('Escape');
      await typeSelecting('2GgH', 'héllo 文件 x');
      await scene.vim.keys('Escape');
      // Screen columns 9 to 17 (tabstop 8): `a`, `b`, the tab at 11–16 and `c` of line 4.
      await selectBlock('4G0l', 'j8l');
      await selected('ab\tc\n89abcdefg');
      await scene.vim.keys('Escape');
    });

    test('switching files focuses the other one; both stay open', async () => {
      await scene.vim.ex('edit other.txt');
      await scene.vim.type('2Gl');
      await active((f) => f.path === other() && f.cursor?.line === 2 && f.cursor.character === 2);
      const context = scene.client.latestContext();
      const paths = (context?.workspaceState?.openFiles ?? []).map((f) => f.path);
      assert.deepEqual([...paths].sort(), [other(), wide()].sort());
    });

    test('terminals, help, scratch and unnamed buffers are never reported', async () => {
      await scene.vim.ex('help');
      await scene.vim.ex('new');
      await scene.vim.ex('setlocal buftype=nofile');
      await scene.vim.ex('file scratch');
      await scene.vim.ex('enew');
      await scene.vim.ex('terminal');
      await waitFor('the terminal', async () =>
        (await scene.vim.eval<string>('&buftype')) === 'terminal' ? true : undefined,
      );
      await scene.vim.keys('C-w', 'N');
      // A moment for any stray update to arrive, proven by a real one that follows it.
      await scene.vim.keys('C-w', 'b');
      await scene.vim.ex('only!');
      await scene.vim.ex('buffer other.txt');
      await scene.vim.type('3G');
      await active((f) => f.path === other() && f.cursor?.line === 3);
      const files = scene.client.latestContext()?.workspaceState?.openFiles ?? [];
      assert.deepEqual(files.map((f) => path.basename(f.path)).sort(), ['other.txt', 'wide.txt']);
    });

    test(':bwipeout closes the file for the client', async () => {
      await scene.vim.ex('bwipeout! wide.txt');
      await scene.client.waitForContext((context) => {
        const files = context?.workspaceState?.openFiles ?? [];
        return files.length === 1 && files[0]?.path === other();
      });
    });
  });
}

describe(
  '`:Tandem send` puts the file or the selected lines in Claude Code’s prompt',
  { skip },
  () => {
    const scene = suiteInSandbox({ 'lines.txt': 'one\ntwo\nthree\nfour\n' }, async (sandbox) => {
      const vim = await VimSession.start(sandbox, { args: ['lines.txt'] });
      await vim.waitForState('running');
      return vim;
    });
    const messages = () => scene.started.eval<string>(`execute('messages')`);

    test('without Claude Code the user is told, and with it a range, a Visual selection and the file reach it as at_mentioned', async () => {
      await scene.started.command('Tandem send');
      const wire = await ClaudeWire.connectAfterRefusal(messages, scene.sandbox.claudeConfigDir);
      const file = path.join(scene.sandbox.workspace, 'lines.txt');
      try {
        // Each waited for: the typed keys and the scripted commands reach Vim by different ways.
        await scene.started.command('2,3Tandem send');
        await wire.paramsOf('at_mentioned', 1);
        await scene.started.type('4GVk');
        await scene.started.ex('Tandem send');
        await wire.paramsOf('at_mentioned', 2);
        await scene.started.command('Tandem send');
        assert.deepEqual(await wire.paramsOf('at_mentioned', 3), [
          { filePath: file, lineStart: 1, lineEnd: 2 },
          { filePath: file, lineStart: 2, lineEnd: 3 },
          { filePath: file },
        ]);
        assert.match(await messages(), /Tandem: lines 2–3 of lines\.txt sent to Claude Code\./);
      } finally {
        await wire.close();
      }
    });

    test('a Visual selection made upwards reaches Claude Code as lines 2–3, not 1–2', async () => {
      const selection = await ClaudeWire.selectionAfter(
        scene.sandbox.claudeConfigDir,
        'two\nthree',
        {
          select: () => scene.started.type('3G$vk0'), // from the e of three up to the t of two
          end: () => scene.started.keys('Escape'),
        },
      );
      assert.deepEqual(selection, selectedLines(1, 2, 5));
    });
  },
);
