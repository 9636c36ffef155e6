/**
 * Context in real Emacs (in tmux, moved with real keys), as the real Gemini CLI and Qwen Code
 * clients receive it: the active file, point in characters on a line of wide characters, the
 * region, and only buffers that visit real files.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  ClaudeWire,
  selectedLines,
  connectedClientIn,
  EmacsSession,
  emacsSkipReason,
  Sandbox,
  suiteInSandbox,
  waitFor,
  type IdeContext,
  type RealClient,
} from '@tandem/testkit';

const skip = emacsSkipReason({ sidecar: true, tmux: true });

function active(context: IdeContext | undefined) {
  return context?.workspaceState?.openFiles?.find((file) => file.isActive);
}

function paths(context: IdeContext | undefined): string[] {
  return (context?.workspaceState?.openFiles ?? []).map((file) => file.path).sort();
}

for (const kind of ['gemini', 'qwen'] as const) {
  describe(`context from Emacs reaches the real ${kind} client`, { skip }, () => {
    const scene = {} as { sandbox: Sandbox; emacs: EmacsSession; client: RealClient };
    let wide = '';
    let other = '';

    before(async () => {
      scene.sandbox = new Sandbox();
      wide = path.join(scene.sandbox.workspace, 'wide.txt');
      other = path.join(scene.sandbox.workspace, 'other.py');
      writeFileSync(wide, 'first line\nhéllo 文件 x\n');
      writeFileSync(other, 'print(1)\n');
      scene.emacs = await EmacsSession.start(scene.sandbox, { tandem: true });
      scene.client = await connectedClientIn(scene.sandbox, kind);
    });
    after(async () => {
      await scene.client?.kill();
      await scene.emacs?.close();
      scene.sandbox?.remove();
    });

    test('a file visited with C-x C-f is active, point at line 1, character 1', async () => {
      await scene.emacs.press('C-x', 'C-f');
      await scene.emacs.type(wide);
      await scene.emacs.press('Enter');
      const context = await scene.client.waitForContext((c) => active(c)?.path === wide);
      assert.deepEqual(active(context)?.cursor, { line: 1, character: 1 });
    });

    test('point counts characters, not columns: the x of "héllo 文件 x" is 10', async () => {
      await scene.emacs.press('C-n', 'C-e', 'C-b');
      const context = await scene.client.waitForContext(
        (c) => active(c)?.cursor?.line === 2 && active(c)?.cursor?.character === 10,
      );
      assert.equal(active(context)?.selectedText, undefined);
      // Emacs itself counts display columns there: 11 (文 and 件 are two columns wide).
      assert.equal(
        await scene.emacs.eval('(with-current-buffer (window-buffer) (current-column))'),
        '11',
      );
    });

    test('the active region is the selected text, across lines; C-g ends it', async () => {
      await scene.emacs.press('C-a', 'C-SPace');
      await scene.emacs.press('C-p', 'C-f', 'C-f');
      const selected = await scene.client.waitForContext(
        (c) => active(c)?.selectedText === 'rst line\n',
      );
      assert.deepEqual(active(selected)?.cursor, { line: 1, character: 3 });
      await scene.emacs.press('C-n', 'C-e');
      await scene.client.waitForContext((c) => active(c)?.selectedText === 'héllo 文件 x');
      await scene.emacs.press('C-g');
      await scene.client.waitForContext(
        (c) => active(c)?.cursor?.character === 11 && active(c)?.selectedText === undefined,
      );
    });

    test('scratch, dired, a shell, an indirect and an unsaved new buffer are not files', async () => {
      const fresh = path.join(scene.sandbox.workspace, 'fresh.txt');
      await scene.emacs.press('C-x', 'b');
      await scene.emacs.type('*scratch*');
      await scene.emacs.press('Enter');
      await scene.emacs.press('C-x', 'd');
      await scene.emacs.press('Enter');
      await scene.emacs.press('M-x');
      await scene.emacs.type('shell');
      await scene.emacs.press('Enter');
      await scene.emacs.eval(
        `(with-current-buffer (find-file-noselect ${JSON.stringify(wide)}) (clone-indirect-buffer "wide-indirect" nil))`,
      );
      await scene.emacs.press('C-x', 'C-f');
      await scene.emacs.type(fresh);
      await scene.emacs.press('Enter');
      await scene.emacs.type('not saved yet');
      await scene.emacs.settled();
      // Nothing above changes what the client sees: the visited file stays the active one.
      const status = await scene.emacs.status();
      assert.equal(status.state, 'running');
      const context = scene.client.latestContext();
      assert.deepEqual(paths(context), [wide]);
      assert.equal(active(context)?.path, wide);
      // Saved, the new buffer is a file.
      await scene.emacs.press('C-x', 'C-s');
      await scene.client.waitForContext((c) => active(c)?.path === fresh);
      assert.deepEqual(paths(scene.client.latestContext()), [fresh, wide].sort());
    });

    test('the file of the selected window is active; C-x k closes a file', async () => {
      await scene.emacs.press('C-x', 'C-f');
      await scene.emacs.type(other);
      await scene.emacs.press('Enter');
      await scene.client.waitForContext((c) => active(c)?.path === other);
      await scene.emacs.press('C-x', '2', 'C-x', 'b');
      await scene.emacs.type('wide.txt');
      await scene.emacs.press('Enter');
      await scene.client.waitForContext((c) => active(c)?.path === wide);
      await scene.emacs.press('C-x', 'o');
      await scene.client.waitForContext((c) => active(c)?.path === other);
      await scene.emacs.press('C-x', 'k');
      await scene.emacs.press('Enter');
      await scene.client.waitForContext((c) => !paths(c).includes(other));
    });
  });
}

describe(
  'M-x tandem-send-to-claude puts the region’s lines or the file in Claude Code’s prompt',
  { skip },
  () => {
    const scene = suiteInSandbox({ 'lines.txt': 'one\ntwo\nthree\nfour\n' }, (sandbox) =>
      EmacsSession.start(sandbox, { tandem: true }),
    );
    const messages = () => scene.started.text(`(with-current-buffer "*Messages*" (buffer-string))`);
    async function send(): Promise<void> {
      await scene.started.press('M-x');
      await scene.started.type('tandem-send-to-claude');
      await scene.started.press('Enter');
    }

    test('without Claude Code the user is told, and with it the region’s lines and the file reach it as at_mentioned', async () => {
      const file = path.join(scene.sandbox.workspace, 'lines.txt');
      await scene.started.press('C-x', 'C-f');
      await scene.started.type(file);
      await scene.started.press('Enter');
      await waitFor('lines.txt visited', async () =>
        (await scene.started.text(
          '(or (buffer-file-name (window-buffer (selected-window))) "")',
        )) === file
          ? true
          : undefined,
      );
      await send();
      const wire = await ClaudeWire.connectAfterRefusal(messages, scene.sandbox.claudeConfigDir);
      try {
        // The region from line 2's start to line 4's start: lines 2 and 3.
        await scene.started.press('M-<', 'C-n', 'C-Space', 'C-n', 'C-n');
        await send();
        await wire.paramsOf('at_mentioned', 1);
        // C-g while the command still runs would quit it and leave the region active: wait
        // until Emacs answers again, the command done and the user told.
        await waitFor('the user told the lines were sent', async () =>
          (await messages()).includes('Tandem: lines 2–3 of lines.txt sent to Claude Code.')
            ? true
            : undefined,
        );
        await scene.started.press('C-g');
        await send();
        assert.deepEqual(await wire.paramsOf('at_mentioned', 2), [
          { filePath: file, lineStart: 1, lineEnd: 2 },
          { filePath: file },
        ]);
      } finally {
        await wire.close();
      }
    });

    test('a region made upwards over whole lines reaches Claude Code as lines 2–3, not 1–3', async () => {
      const { claudeConfigDir } = scene.sandbox;
      const selection = await ClaudeWire.selectionAfter(claudeConfigDir, 'two\nthree\n', {
        // From line 4's start up to line 2's: the mark after the region, point before it.
        select: () => scene.started.press('M-<', 'C-n', 'C-n', 'C-n', 'C-Space', 'C-p', 'C-p'),
        end: () => scene.started.press('C-g'),
      });
      assert.deepEqual(selection, selectedLines(1, 3, 0));
    });
  },
);
