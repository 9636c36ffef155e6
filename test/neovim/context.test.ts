/**
 * What the user looks at in real Neovim reaches the real CLI clients, beyond what every adapter
 * shows in conformance.test.ts: the cursor after multibyte text, linewise, blockwise and
 * Select-mode selections, buffers that are not files, closed files, new files, the workspace
 * folder, and how few messages cursor moves cost.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  ClaudeWire,
  selectedLines,
  connectedClientIn,
  NeovimSession,
  neovimSkipReason,
  Sandbox,
  suiteInSandbox,
  waitFor,
  type ClientKind,
  type IdeContext,
  type IdeFile,
  type RealClient,
} from '@tandem/testkit';

const skip = neovimSkipReason({ sidecar: true });

function active(context: IdeContext | undefined): IdeFile | undefined {
  return context?.workspaceState?.openFiles?.find((file) => file.isActive);
}

function paths(context: IdeContext | undefined): string[] {
  return (context?.workspaceState?.openFiles ?? []).map((file) => file.path).sort();
}

for (const kind of ['gemini', 'qwen'] as ClientKind[]) {
  describe(`Neovim's context reaches the real ${kind} client`, { skip }, () => {
    let sandbox: Sandbox;
    let session: NeovimSession;
    let client: RealClient;
    let first: string;
    let second: string;

    before(async () => {
      sandbox = new Sandbox();
      first = path.join(sandbox.workspace, 'first.txt');
      second = path.join(sandbox.workspace, 'second.txt');
      writeFileSync(first, 'alpha beta\nsecond line é€ x\nthird\n');
      writeFileSync(second, 'other file\n');
      session = await NeovimSession.start(sandbox, { tandem: '{}' });
      client = await connectedClientIn(sandbox, kind);
    });

    after(async () => {
      await client?.kill();
      await session?.close();
      sandbox?.remove();
    });

    /** Waits until the client's active file matches. */
    function activeFile(what: string, matches: (file: IdeFile) => boolean): Promise<IdeFile> {
      return client
        .waitForContext((context) => {
          const file = active(context);
          return file !== undefined && matches(file);
        }, 20_000)
        .then((context) => active(context) as IdeFile)
        .catch((error: unknown) => {
          throw new Error(`${what}: ${String(error)}`);
        });
    }

    test('the cursor at the end of a line after multibyte characters, in characters', async () => {
      await session.command(`edit ${first}`);
      await activeFile('first.txt active', (f) => f.path === first);
      await session.input('j$');
      await activeFile(
        'the cursor at the end of line 2',
        (f) => f.cursor?.line === 2 && f.cursor.character === 16,
      );
    });

    test('a linewise selection', async () => {
      await session.input('0Vj');
      await activeFile('linewise selection', (f) => f.selectedText === 'second line é€ x\nthird');
      await session.input('<Esc>');
    });

    test('a blockwise selection', async () => {
      await session.input('gg0<C-v>jl');
      await activeFile('blockwise selection', (f) => f.selectedText === 'al\nse');
      await session.input('<Esc>');
    });

    test('a selection in Select mode', async () => {
      await session.input('gg0gh<S-Right>');
      await activeFile('select-mode selection', (f) => (f.selectedText ?? '').startsWith('alpha'));
      await session.input('<Esc>');
    });

    test('terminals, help, quickfix, scratch and unnamed buffers never reach the CLI', async () => {
      await session.command('help');
      await session.command('terminal');
      await session.command('copen');
      await session.command('enew');
      await session.command('new | setlocal buftype=nofile | file scratch-buffer');
      await session.command(`edit ${second}`);
      // A real file after them: once it is reported, the others would have been too.
      const third = path.join(sandbox.workspace, 'third.txt');
      writeFileSync(third, '3\n');
      await session.command(`tabedit ${third}`);
      const context = await client.waitForContext((c) => active(c)?.path === third);
      assert.deepEqual(paths(context), [first, second, third].sort());
    });

    test('closing a file buffer removes it', async () => {
      await session.command(`bdelete ${first}`);
      const context = await client.waitForContext((c) => !paths(c).includes(first));
      assert.ok(paths(context).includes(second));
    });

    test('a new file appears once it is written', async () => {
      const fresh = path.join(sandbox.workspace, 'fresh.txt');
      await session.command(`edit ${fresh}`);
      await session.input('ihello<Esc>:w<CR>');
      await client.waitForContext((c) => active(c)?.path === fresh);
    });
  });
}

describe('the workspace follows :cd', { skip }, () => {
  let sandbox: Sandbox;
  let session: NeovimSession;

  before(async () => {
    sandbox = new Sandbox();
    session = await NeovimSession.start(sandbox, { tandem: '{}' });
  });

  after(async () => {
    await session?.close();
    sandbox?.remove();
  });

  test('the discovery files name the new folder', async () => {
    const geminiDir = path.join(sandbox.tmpDir, 'gemini', 'ide');
    const workspaceOf = () => {
      const file = readdirSync(geminiDir).find((name) => name.startsWith('gemini-ide-server-'));
      return (
        file &&
        (JSON.parse(readFileSync(path.join(geminiDir, file), 'utf8')) as { workspacePath: string })
          .workspacePath
      );
    };
    assert.equal(workspaceOf(), sandbox.workspace);
    const sub = path.join(sandbox.workspace, 'sub');
    mkdirSync(sub);
    await session.command(`cd ${sub}`);
    await waitFor('the discovery file to name the new folder', () =>
      workspaceOf() === sub ? true : undefined,
    );
  });

  test('terminals opened afterwards get the new folder in their environment', async () => {
    const sub = path.join(sandbox.workspace, 'sub');
    await waitFor('the environment to name the new folder', async () =>
      (await session.lua<string>('return vim.env.GEMINI_CLI_IDE_WORKSPACE_PATH')) === sub
        ? true
        : undefined,
    );
    assert.equal(await session.lua<string>('return vim.env.QWEN_CODE_IDE_WORKSPACE_PATH'), sub);
  });
});

describe('cursor messages stay cheap', { skip }, () => {
  let sandbox: Sandbox;
  let session: NeovimSession;

  before(async () => {
    sandbox = new Sandbox();
    writeFileSync(path.join(sandbox.workspace, 'lines.txt'), 'one\ntwo\nthree\nfour\n');
    session = await NeovimSession.start(sandbox, { tandem: '{}' });
    await session.command('edit lines.txt');
    // Count what the plugin sends, by wrapping its RPC notify in the running Neovim.
    await session.lua(`
      local rpc = require('tandem').instance().bridge.rpc
      local notify = rpc.notify
      _G.tandem_test_sent = {}
      rpc.notify = function(self, method, params)
        table.insert(_G.tandem_test_sent, method)
        return notify(self, method, params)
      end
    `);
  });

  after(async () => {
    await session?.close();
    sandbox?.remove();
  });

  async function sentFor(keys: string): Promise<string[]> {
    await session.lua('_G.tandem_test_sent = {}');
    await session.input(keys);
    return session.lua<string[]>('return _G.tandem_test_sent');
  }

  test('one small message per real move', async () => {
    assert.deepEqual(await sentFor('jjk'), ['cursor/changed', 'cursor/changed', 'cursor/changed']);
  });

  test('nothing when the cursor did not move', async () => {
    assert.deepEqual(await sentFor('0'), []);
    assert.deepEqual(await sentFor(':doautocmd CursorMoved<CR>:doautocmd CursorMoved<CR>'), []);
    assert.deepEqual(await sentFor('i<Esc>'), []);
  });
});

describe(
  '`:Tandem send` puts the file or the selected lines in Claude Code’s prompt',
  { skip },
  () => {
    const scene = suiteInSandbox({ 'lines.txt': 'one\ntwo\nthree\nfour\n' }, async (sandbox) => {
      const session = await NeovimSession.start(sandbox, { tandem: '{}' });
      await session.command('edit lines.txt');
      return session;
    });
    const messages = () => scene.started.lua<string>(`return vim.fn.execute('messages')`);

    test('without Claude Code the user is told, and with it a range, a Visual selection and the file reach it as at_mentioned', async () => {
      await scene.started.command('Tandem send');
      const wire = await ClaudeWire.connectAfterRefusal(messages, scene.sandbox.claudeConfigDir);
      const file = path.join(scene.sandbox.workspace, 'lines.txt');
      try {
        await scene.started.command('2,3Tandem send');
        await scene.started.input('4GVk:Tandem send<CR>');
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
          select: () => scene.started.input('3G$vk0'), // from the e of three up to the t of two
          end: () => scene.started.input('<Esc>'),
        },
      );
      assert.deepEqual(selection, selectedLines(1, 2, 5));
    });
  },
);
