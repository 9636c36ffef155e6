/**
 * Helix with `tandem lsp`, set up as docs/lsp.md tells users (`tandem lsp --config helix`), judged
 * by the real Gemini CLI and Qwen Code clients, which find Helix through the discovery files
 * alone. One Helix serves every case, in order: the context, then the proposals, then quitting.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import {
  HelixUnderTest,
  helixSkipReason,
  helixVersion,
  processEnvironment,
  processesWhere,
  realClientIn,
  Sandbox,
  waitFor,
  type ClientKind,
  type IdeContext,
  type RealClient,
} from '@tandem/testkit';

const KINDS: ClientKind[] = ['gemini', 'qwen'];

/** The `x` of this line is its character 10; `文件` are three bytes each in UTF-8. */
const WIDE_LINE = 'héllo 文件 x';

describe(
  `Helix ${helixVersion()} with tandem lsp`,
  { skip: helixSkipReason({ sidecar: true }) },
  () => {
    const scene = {} as {
      sandbox: Sandbox;
      helix: HelixUnderTest;
      clients: Map<ClientKind, RealClient>;
    };
    const file = (name: string) => path.join(scene.sandbox.workspace, name);
    const client = (kind: ClientKind) => scene.clients.get(kind) as RealClient;

    before(async () => {
      scene.sandbox = new Sandbox();
      // A Claude Code user in a mode that writes without asking, with the terminal diff tool,
      // and another companion's live lock on this folder: three warnings, before Helix starts.
      scene.sandbox.useClaudeCode('acceptEdits', {
        diffTool: 'terminal',
        otherCompanion: 'Visual Studio Code',
      });
      writeFileSync(file('notes.txt'), `first line\n${WIDE_LINE}\nlast line\n`);
      writeFileSync(file('other.txt'), 'other\n');
      scene.helix = await HelixUnderTest.start(scene.sandbox, ['notes.txt']);
      await waitFor('the discovery files', () =>
        scene.sandbox.discoveryFiles().length >= 2 ? true : undefined,
      );
      scene.clients = new Map();
      for (const kind of KINDS) scene.clients.set(kind, await realClientIn(scene.sandbox, kind));
    });
    after(async () => {
      for (const each of scene.clients?.values() ?? []) await each.kill();
      await scene.helix?.close();
      scene.sandbox?.remove();
    });

    function activeFile(context: IdeContext | undefined) {
      return context?.workspaceState?.openFiles?.find((each) => each.isActive);
    }

    test('both clients connect, and the discovery files name Helix', async () => {
      for (const kind of KINDS) {
        const state = await client(kind).connect();
        assert.equal(state.status, 'connected', `${kind}: ${state.details}`);
        assert.deepEqual(client(kind).detectedIde, { name: 'helix', displayName: 'Helix' });
      }
    });

    test("Tandem's warnings (IDE mode off, the approval and permission modes, Claude Code's diff tool, another companion) reach Helix as messages, each once", async () => {
      const told = (entry: { direction: string; message: { method?: string } }) =>
        entry.direction === 'received' && entry.message.method === 'window/showMessage';
      const text = (entry: { message: { params?: unknown } }) =>
        (entry.message.params as { message: string }).message;
      const expected = [
        ...['Gemini CLI', 'Qwen Code'].map((cli) => ({
          message: `IDE mode is off in ${cli}`,
          fix: /Type \/ide enable/,
        })),
        { message: 'Qwen Code starts in approval mode', fix: /Type \/approval-mode default/ },
        {
          message: 'Claude Code starts in permission mode "acceptEdits"',
          fix: /Start it with --permission-mode default/,
        },
        {
          message: `Claude Code's diff tool is "terminal"`,
          fix: /set "Diff tool" to auto/,
        },
        {
          message: 'Another Claude Code companion serves this folder: Visual Studio Code',
          fix: /disable Anthropic's Claude Code extension in that Visual Studio Code window/,
        },
      ];
      // Told in one go, one message each: wait for every one of them.
      for (const { message } of expected) {
        await scene.helix.helix.waitForLsp(
          message,
          (entry) => told(entry) && text(entry).includes(message),
        );
      }
      const messages = scene.helix.helix
        .lspLog()
        .filter((entry) => entry.server === 'tandem' && told(entry))
        .map(text);
      for (const { message, fix } of expected) {
        const found = messages.filter((each) => each.includes(message));
        assert.equal(found.length, 1, `${message}:\n${messages.join('\n')}`);
        assert.match(found[0] as string, /^Tandem: /);
        assert.match(found[0] as string, fix);
      }
      assert.equal(new Set(messages).size, messages.length, messages.join('\n'));
    });

    test('Helix starts the server with what every editor adds for a sidecar', () => {
      const servers = processesWhere(
        (argv, environment) => argv.includes('lsp') && environment.HOME === scene.sandbox.home,
      );
      // `--outlive-editor-kill`: the process Helix started, and the server it runs.
      assert.equal(servers.length, 2, `tandem lsp processes: ${servers.join(', ')}`);
      for (const pid of servers) {
        const environment = processEnvironment(pid);
        assert.equal(environment.NODE_EXTRA_CA_CERTS, '');
        assert.equal(
          environment.GLIBC_TUNABLES,
          process.env.GLIBC_TUNABLES ?? 'glibc.malloc.mmap_threshold=65536',
        );
      }
    });

    test('the files opened in Helix reach the context', async () => {
      await scene.helix.openFile(file('other.txt'));
      for (const kind of KINDS) {
        await client(kind).waitForContext((context) => {
          const open = (context?.workspaceState?.openFiles ?? []).map((each) => each.path).sort();
          return open.join() === [file('notes.txt'), file('other.txt')].join();
        });
      }
    });

    test('the send-selection action makes the file active, with the selection and cursor', async () => {
      await scene.helix.command(`open ${file('notes.txt')}`);
      await scene.helix.select({ line: 2, character: 1 }, { line: 2, character: 8 });
      await scene.helix.sendSelection();
      for (const kind of KINDS) {
        const context = await client(kind).waitForContext(
          (c) => activeFile(c)?.selectedText === 'héllo 文件',
        );
        const active = activeFile(context);
        assert.equal(active?.path, file('notes.txt'));
        assert.equal(active?.cursor?.line, 2);
      }
    });

    /** `kind` proposes `text` for `name`; resolves with the diff once Helix shows it. */
    async function proposed(kind: ClientKind, name: string, text: string) {
      const before = scene.helix.helix.lspLog().length;
      const diff = client(kind).openDiff(file(name), text);
      await diff.opened;
      const shown = await scene.helix.proposalShown(before);
      return { diff, uri: shown.uri };
    }

    test('a proposal opens in Helix; an edit and :w accept the edited text', async () => {
      const { diff } = await proposed('gemini', 'notes.txt', 'first line\nPROPOSED\n');
      await scene.helix.appendLine('edited in Helix');
      await scene.helix.command('w');
      assert.deepEqual(await diff.result, {
        status: 'accepted',
        content: 'first line\nPROPOSED\nedited in Helix\n',
      });
      // Helix does not reload the file the CLI writes: the proposal says how.
      await scene.helix.helix.waitForLsp('the proposal to say how to see the new text', (entry) =>
        JSON.stringify(entry.message.params ?? '').includes(':reload in Helix'),
      );
      // The client writes the file; Tandem never does.
      assert.equal(
        readFileSync(file('notes.txt'), 'utf8'),
        `first line\n${WIDE_LINE}\nlast line\n`,
      );
      await scene.helix.command('bc');
    });

    test('closing a proposal (:bc) rejects it', async () => {
      const { diff } = await proposed('qwen', 'other.txt', 'proposed by qwen\n');
      await scene.helix.command('bc');
      assert.deepEqual(await diff.result, { status: 'rejected' });
    });

    test('quitting Helix with a proposal open rejects it and leaves no files', async () => {
      const { diff, uri } = await proposed('gemini', 'other.txt', 'pending\n');
      const proposal = fileURLToPath(uri);
      assert.ok(existsSync(proposal), 'the proposal file exists while it is shown');
      await scene.helix.quit('qa');
      // The server ends within its stop's deadline, and answers first (the client's own bound
      // ends the wait for an answer that never comes).
      assert.deepEqual(await diff.result, { status: 'rejected' });
      await waitFor('the discovery files and the proposal to be removed', () =>
        scene.sandbox.discoveryFiles().length === 0 && !existsSync(path.dirname(proposal))
          ? true
          : undefined,
      );
    });
  },
);
