/**
 * The judge of `tandem check`'s messages: for each check whose failure "breaks a real CLI", a
 * companion with that defect planted makes the real IdeClient of Gemini CLI 0.61 / Qwen Code
 * 0.24 fail the way the check's message says — and the same companion without the defect works.
 * Where the kit only warns (advice, unsafe), the client is shown to work all the same, as the
 * warning says. (The other security checks describe risks no client sees: not judged here.)
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  cliInSandbox,
  finalText,
  needsProgram,
  realClientIn,
  Sandbox,
  startCliSession,
  waitFor,
  type CliSession,
  type ClientKind,
  type RealClient,
} from '@tandem/testkit';
import {
  BrokenCompanion,
  cannotPlant,
  OPEN_ERROR,
  type Defect,
  type OpenDiff,
} from './broken-companion.fixture.js';

/** Long enough for an answer that comes; the control case shows that it does. */
const ANSWER_MS = 5000;
const PROPOSAL = 'first line\nlast line\n';

function settlesWithin(promise: Promise<unknown>, ms = ANSWER_MS): Promise<boolean> {
  return Promise.race([
    promise.then(
      () => true,
      () => true,
    ),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms)),
  ]);
}

interface Scene {
  sandbox: Sandbox;
  companion: BrokenCompanion;
  start(kind: ClientKind): Promise<RealClient>;
  file: string;
}

interface Case {
  /** The defect, or none for the control case. */
  defect?: Defect;
  /** The check whose message this proves. */
  check: string;
  clients: ClientKind[];
  /** Starts the client(s) and shows what they do. */
  prove(scene: Scene, kind: ClientKind): Promise<void>;
}

async function openAndWait(client: RealClient, companion: BrokenCompanion, filePath: string) {
  const diff = client.openDiff(filePath, PROPOSAL);
  await diff.opened;
  const open = companion.newestDiff();
  assert.ok(open, 'the companion has the diff');
  return { diff, open };
}

const CASES: Case[] = [
  {
    check: 'none (the control case: every round trip works)',
    clients: ['gemini', 'qwen'],
    async prove({ companion, start, file }, kind) {
      const client = await start(kind);
      assert.equal(client.detectedIde?.displayName, 'Broken Editor');
      const state = await client.connect();
      assert.equal(state.status, 'connected', state.details);
      assert.equal(state.diffingEnabled, true);
      assert.ok(await client.waitForContext((c) => c?.workspaceState?.openFiles?.length === 1));
      const accepted = await openAndWait(client, companion, file);
      await companion.accept(accepted.open, `${PROPOSAL}edit\n`);
      assert.deepEqual(await accepted.diff.result, {
        status: 'accepted',
        content: `${PROPOSAL}edit\n`,
      });
      const closed = await openAndWait(client, companion, file);
      companion.edit(closed.open, `${PROPOSAL}draft\n`);
      assert.equal(await client.closeDiff(file), `${PROPOSAL}draft\n`);
      await closed.diff.result;
      const inTerminal = await openAndWait(client, companion, file);
      companion.edit(inTerminal.open, `${PROPOSAL}draft\n`);
      await client.resolveDiffFromCli(file, 'accepted');
      assert.deepEqual(await inTerminal.diff.result, {
        status: 'accepted',
        content: `${PROPOSAL}draft\n`,
      });
      const left = await openAndWait(client, companion, file);
      await companion.stop();
      assert.equal((await left.diff.result).status, 'rejected');
    },
  },
  {
    defect: 'no-ide-info',
    check: 'discovery.ide-info',
    clients: ['gemini', 'qwen'],
    async prove({ start }, kind) {
      const client = await start(kind);
      assert.equal(client.detectedIde, undefined, 'no IDE detected: "not supported"');
      assert.notEqual((await client.connect()).status, 'connected');
    },
  },
  {
    defect: 'dead-ppid',
    check: 'discovery.ppid',
    clients: ['qwen'],
    async prove({ companion, start }, kind) {
      const lock = companion.files.find((file) => file.endsWith('.lock'))!;
      const client = await start(kind);
      assert.equal(existsSync(lock), false, 'Qwen Code deleted the lock');
      assert.notEqual((await client.connect()).status, 'connected');
    },
  },
  {
    defect: 'quit-leaves-files',
    check: 'diffs.quit-files',
    clients: ['gemini', 'qwen'],
    async prove({ companion, start }, kind) {
      await companion.stop();
      const client = await start(kind);
      const state = await client.connect();
      assert.equal(state.status, 'disconnected');
      assert.match(state.details ?? '', /Failed to connect|connection error/i);
    },
  },
  {
    defect: 'no-event-stream',
    check: 'transport.event-stream',
    clients: ['gemini', 'qwen'],
    async prove({ start }, kind) {
      const client = await start(kind);
      assert.equal((await client.connect()).status, 'connected', 'it connects...');
      const context = client.waitForContext((c) => c !== undefined, ANSWER_MS);
      assert.equal(await settlesWithin(context.catch(() => new Promise(() => undefined))), false);
      assert.equal(client.latestContext(), undefined, '...but no notification reaches it');
    },
  },
  {
    defect: 'no-context',
    check: 'transport.context',
    clients: ['gemini', 'qwen'],
    async prove({ start }, kind) {
      const client = await start(kind);
      assert.equal((await client.connect()).status, 'connected');
      const context = client.waitForContext((c) => c !== undefined, ANSWER_MS);
      assert.equal(await settlesWithin(context.catch(() => new Promise(() => undefined))), false);
    },
  },
  {
    defect: 'no-close-diff',
    check: 'transport.tools',
    clients: ['gemini', 'qwen'],
    async prove({ start }, kind) {
      const client = await start(kind);
      const state = await client.connect();
      assert.equal(state.status, 'connected');
      assert.equal(state.diffingEnabled, false, 'diffing is off');
    },
  },
  {
    defect: 'invalid-context',
    check: 'transport.notifications-valid',
    clients: ['gemini', 'qwen'],
    async prove({ start }, kind) {
      const client = await start(kind);
      // The companion's first notification can come while connect() still runs: the connection
      // is lost then (and Gemini CLI may report connected after it), so the loss is awaited
      // from the start of the connection, not from its end.
      const connecting = client.waitForStatus('connecting');
      const connected = client.connect();
      await connecting;
      const lost = client.waitForStatus('disconnected');
      await connected;
      await lost;
    },
  },
  {
    defect: 'crashes-on-garbage',
    check: 'security.still-serving',
    clients: ['gemini', 'qwen'],
    async prove({ companion, start }, kind) {
      const client = await start(kind);
      assert.equal((await client.connect()).status, 'connected');
      await sendGarbage(companion.port, companion.token);
      await client.waitForStatus('disconnected');
    },
  },
  {
    defect: 'newest-session-only',
    check: 'sessions.routing',
    clients: ['gemini'],
    async prove({ start, file }) {
      const older = await start('gemini');
      assert.equal((await older.connect()).status, 'connected');
      const newer = await start('qwen');
      assert.equal((await newer.connect()).status, 'connected');
      assert.equal(await settlesWithin(older.openDiff(file, PROPOSAL).opened), false);
      await newer.openDiff(`${file}.2`, PROPOSAL).opened;
    },
  },
  {
    defect: 'foreign-owner',
    check: 'discovery.owner',
    clients: ['gemini'],
    async prove({ start }, kind) {
      const client = await start(kind);
      assert.equal(client.detectedIde, undefined, 'the file was skipped: no IDE detected');
      assert.notEqual((await client.connect()).status, 'connected');
    },
  },
  {
    defect: 'foreign-owner',
    check: 'discovery.lock-owner (a warning: Qwen Code uses the lock all the same)',
    clients: ['qwen'],
    async prove({ start }, kind) {
      const client = await start(kind);
      assert.equal(client.detectedIde?.displayName, 'Broken Editor');
      assert.equal((await client.connect()).status, 'connected');
    },
  },
  {
    defect: 'world-readable',
    check: 'discovery.private (unsafe: the clients connect all the same)',
    clients: ['gemini', 'qwen'],
    async prove({ start }, kind) {
      const client = await start(kind);
      assert.equal((await client.connect()).status, 'connected');
    },
  },
  {
    defect: 'open-diff-errors',
    check: 'diffs.open',
    clients: ['gemini', 'qwen'],
    async prove({ companion, start, file }, kind) {
      const client = await start(kind);
      await client.connect();
      const diff = client.openDiff(file, PROPOSAL);
      await assert.rejects(diff.result, new RegExp(OPEN_ERROR), 'settled at once with the error');
      // The editor shows the diff all the same: the person's answer there reaches nobody.
      await companion.accept(companion.newestDiff()!, `${PROPOSAL}edit\n`);
      assert.equal((await client.status()).status, 'connected');
    },
  },
  {
    defect: 'open-diff-waits',
    check: 'diffs.open-at-once (advice: the outcome comes from the notification)',
    clients: ['gemini', 'qwen'],
    async prove({ companion, start, file }, kind) {
      const client = await start(kind);
      await client.connect();
      const diff = client.openDiff(file, PROPOSAL);
      const open = await waitFor('the diff in the editor', () => companion.newestDiff());
      assert.equal(await settlesWithin(diff.opened), false, 'the reply is held back');
      await companion.accept(open, `${PROPOSAL}edit\n`);
      assert.deepEqual(await diff.result, { status: 'accepted', content: `${PROPOSAL}edit\n` });
    },
  },
  {
    defect: 'normalizes-path',
    check: 'diffs.accepted',
    clients: ['gemini', 'qwen'],
    async prove({ companion, start, file }, kind) {
      const client = await start(kind);
      await client.connect();
      const { diff, open } = await openAndWait(client, companion, file);
      await companion.accept(open, `${PROPOSAL}edit\n`);
      assert.equal(await settlesWithin(diff.result), false, 'the diff stays pending');
    },
  },
  {
    defect: 'plain-close-diff',
    check: 'diffs.close-json',
    clients: ['gemini', 'qwen'],
    async prove({ companion, start, file }, kind) {
      const client = await start(kind);
      await client.connect();
      const { open } = await openAndWait(client, companion, file);
      companion.edit(open, `${PROPOSAL}draft\n`);
      assert.notEqual(await client.closeDiff(file), `${PROPOSAL}draft\n`, 'the edits are lost');
    },
  },
  {
    defect: 'quit-leaves-diffs',
    check: 'diffs.quit-rejects',
    clients: ['gemini', 'qwen'],
    async prove({ companion, start, file }, kind) {
      const client = await start(kind);
      await client.connect();
      const { diff } = await openAndWait(client, companion, file);
      await companion.stop();
      assert.equal(await settlesWithin(diff.result), false, 'the diff stays pending');
    },
  },
];

/** What the whole CLI does with a diff, in tmux against a fake model proposing `PROPOSAL`. */
interface WholeCliCase {
  defect: Defect;
  check: string;
  /** The file before the edit; undefined: it does not exist. */
  before?: string;
  /** What the person does, in the editor or in the CLI's terminal. */
  act(companion: BrokenCompanion, diff: OpenDiff, session: CliSession): Promise<void>;
  /** What the screen shows once the turn is over, when not the model's last words. */
  endsWith?: Partial<Record<ClientKind, string>>;
  /** The screen once the turn is over, and the file then. */
  prove(screen: string, file: string, cli: ClientKind): void;
}

/** The person accepts `content` in the editor. */
function acceptsInEditor(content: string): WholeCliCase['act'] {
  return async (companion, diff) => assert.equal(await companion.accept(diff, content), true);
}

const WHOLE_CLI_CASES: WholeCliCase[] = [
  {
    // Only the whole CLI shows it: its edit tool, not its IdeClient, reads "" as "use the proposal".
    defect: 'passes-empty-accept',
    check: 'diffs.empty-accept',
    before: 'the original\n',
    act: acceptsInEditor(''),
    prove(_screen, file) {
      assert.equal(readFileSync(file, 'utf8'), PROPOSAL, 'the user emptied it; the CLI wrote it');
    },
  },
  {
    // The diff is of a new file, as the kit's are: the companion's write comes first.
    defect: 'writes-file',
    check: 'diffs.no-write',
    act: acceptsInEditor(`${PROPOSAL}edit\n`),
    prove(screen, file, cli) {
      assert.equal(readFileSync(file, 'utf8'), `${PROPOSAL}edit\n`, 'written by the companion');
      const told = {
        gemini: /WriteFile +notes\.txt → Accepted \(\+0, -0\)\s+No changes detected/,
        qwen: /x WriteFile[^]*has not been read in this session/,
      };
      assert.match(screen, told[cli]);
    },
  },
  {
    // The reject reaches the client before closeDiff's reply, which it then settles the diff by.
    defect: 'ignores-suppress',
    check: 'diffs.close-suppress',
    act: (_companion, _diff, session) => session.approveInTerminal(),
    endsWith: { gemini: 'Request cancelled.' },
    prove(screen, file, cli) {
      if (cli === 'gemini') {
        assert.match(screen, /WriteFile +notes\.txt → Rejected/, 'approved, then rejected');
        assert.equal(existsSync(file), false, 'nothing written');
      } else {
        assert.equal(readFileSync(file, 'utf8'), PROPOSAL, 'Qwen Code goes on');
      }
    },
  },
];

for (const entry of WHOLE_CLI_CASES) {
  for (const cli of ['gemini', 'qwen'] as const) {
    describe(`${entry.defect} → ${entry.check}, the whole ${cli}`, () => {
      it('the CLI does what the check says', async (t) => {
        if (!needsProgram(t, 'tmux')) return;
        const sandbox = new Sandbox();
        const env = sandbox.env();
        const companion = await BrokenCompanion.start([entry.defect], {
          env,
          workspace: sandbox.workspace,
        });
        const file = join(sandbox.workspace, 'notes.txt');
        if (entry.before !== undefined) writeFileSync(file, entry.before);
        const started: { session?: CliSession } = {};
        t.after(async () => {
          await started.session?.stop();
          await companion.stop();
          sandbox.remove();
        });
        const session = await startCliSession(
          cliInSandbox(sandbox, cli, { filePath: file, content: PROPOSAL }),
        );
        started.session = session;
        await session.askForEdit(async () => companion.sessionCount > 0);
        const diff = await waitFor('the diff', () => companion.newestDiff(), 120_000);
        await entry.act(companion, diff, session);
        const end = entry.endsWith?.[cli] ?? finalText;
        const screen = await session.waitForScreen((s) => s.includes(end), 120_000);
        entry.prove(screen, file, cli);
      });
    });
  }
}

/** A body that is not JSON, with the token. */
function sendGarbage(port: number, token: string): Promise<void> {
  return new Promise((resolve) => {
    request({
      host: '127.0.0.1',
      port,
      path: '/mcp',
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    })
      .on('response', (res) => res.resume().on('end', resolve))
      .on('error', () => resolve())
      .end('{"jsonrpc": ');
  });
}

// Most cases wait out ANSWER_MS to show that an answer never comes; each case has a sandbox and a
// companion of its own, so they wait side by side.
describe('the real clients against planted defects', { concurrency: 6 }, () => {
  for (const entry of CASES) {
    for (const kind of entry.clients) {
      describe(
        `${entry.defect ?? 'no defect'} → ${entry.check}`,
        { skip: cannotPlant(entry.defect) },
        () => {
          let sandbox: Sandbox;
          let companion: BrokenCompanion;
          const clients: RealClient[] = [];

          before(async () => {
            sandbox = new Sandbox();
            companion = await BrokenCompanion.start(entry.defect ? [entry.defect] : [], {
              env: sandbox.env(),
              workspace: sandbox.workspace,
            });
          });

          after(async () => {
            await Promise.all(clients.map((client) => client.kill()));
            await companion.stop();
            sandbox.remove();
          });

          it(`the real ${kind === 'gemini' ? 'Gemini CLI' : 'Qwen Code'} client does what the check says`, async () => {
            await entry.prove(
              {
                sandbox,
                companion,
                file: join(sandbox.workspace, 'tandem check ü.txt'),
                start: async (which) => {
                  const client = await realClientIn(sandbox, which);
                  clients.push(client);
                  return client;
                },
              },
              kind,
            );
          });
        },
      );
    }
  }
});
