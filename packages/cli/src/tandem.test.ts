/**
 * The built `tandem` command loads its bundles through a compile cache: `tandem bridge`, as an
 * editor starts it, with the real Gemini client connecting (which loads the MCP sessions' bundle);
 * Claude Code's sessions (`ws` and the MCP SDK) loaded only once Claude Code connects; entries
 * that others planted are never run; and nothing is made in a home of another user. On Node 20
 * the cache is the hand-written one (compile-cache.ts), on Node 22.1 and newer Node's own
 * (node-compile-cache.ts), in a private folder alone.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  BridgeEditor,
  ClaudeWire,
  needsRoot,
  readClaudeLock,
  realClientIn,
  Sandbox,
  TANDEM,
  waitFor,
  type RealClient,
} from '@tandem/testkit';
import { CompileCache } from './compile-cache.js';
import { runtimeHasCompileCache } from './node-compile-cache.js';

/** Set when the cases of the hand-written cache do not apply to this Node. */
const nodeKeepsItsOwn = runtimeHasCompileCache()
  ? `Node ${process.version} keeps its own compile cache (node-compile-cache.ts)`
  : undefined;

const sandbox = new Sandbox();
after(() => sandbox.remove());

const env = sandbox.env({ NODE_DEBUG: 'tandem-compile-cache' });
const folder = join(env.XDG_CACHE_HOME!, 'tandem', 'compile-cache');

/** What the cache did for `bundle` in the sidecar's log: `used`, `missed`, … */
const outcome = (editor: BridgeEditor, bundle: string) =>
  new RegExp(`TANDEM-COMPILE-CACHE \\d+: ${bundle}-[0-9a-f]{16}: (\\w+) `)
    .exec(editor.stderr.join('\n'))
    ?.at(1);

/** A sidecar that answered `initialize`, with the real Gemini client connected to it. */
async function startConnected(
  environment = env,
): Promise<{ editor: BridgeEditor; stop(): Promise<void> }> {
  const editor = new BridgeEditor(environment);
  let client: RealClient | undefined;
  try {
    await editor.initialize(sandbox.workspace, { name: 'cache-test', displayName: 'Cache Test' });
    client = await realClientIn(sandbox, 'gemini');
    const state = await client.connect();
    assert.equal(state.status, 'connected', state.details);
  } catch (error) {
    await client?.kill();
    await editor.kill();
    throw error;
  }
  return {
    editor,
    async stop() {
      await client.kill();
      await editor.request('shutdown');
      assert.equal(await editor.exited, 0);
    },
  };
}

describe('tandem bridge with its compile cache', { skip: nodeKeepsItsOwn }, () => {
  it('writes the entries after its first start, and the next start uses them', async () => {
    const first = await startConnected();
    try {
      assert.equal(outcome(first.editor, 'bridge'), 'missed');
      await first.editor.waitForLog('mcp-sessions');
      assert.equal(outcome(first.editor, 'mcp-sessions'), 'missed');
      const entries = await waitFor('both entries', () => {
        const names = readdirSync(folder).filter((name) => name.endsWith('.cache'));
        return names.length === 2 ? names : undefined;
      });
      assert.deepEqual(entries.map((name) => name.replace(/-[0-9a-f-]+\.cache$/, '')).sort(), [
        'bridge',
        'mcp-sessions',
      ]);
      assert.equal(statSync(folder).mode & 0o777, 0o700);
      for (const name of entries) assert.equal(statSync(join(folder, name)).mode & 0o777, 0o600);
    } finally {
      await first.stop();
    }

    const second = await startConnected();
    try {
      assert.equal(outcome(second.editor, 'bridge'), 'used');
      await second.editor.waitForLog('mcp-sessions');
      assert.equal(outcome(second.editor, 'mcp-sessions'), 'used');
    } finally {
      await second.stop();
    }
  });
});

describe('a sidecar no Claude Code has reached', () => {
  /** The sources esbuild put in a bundle of dist/commands, from its source map. */
  const sourcesOf = (bundle: string) =>
    (
      JSON.parse(readFileSync(join(dirname(TANDEM), 'commands', `${bundle}.js.map`), 'utf8')) as {
        sources: string[];
      }
    ).sources;
  const claudeSessionCode = /node_modules\/ws\/|claude\/(claude-session|websocket-transport)\.ts$/;

  it("holds none of Claude Code's session code (ws, the session) in the editors' sidecars", () => {
    for (const bundle of ['bridge', 'lsp', 'serve']) {
      assert.deepEqual(
        sourcesOf(bundle).filter((source) => claudeSessionCode.test(source)),
        [],
      );
    }
    assert.ok(sourcesOf('claude-sessions').some((source) => source.includes('node_modules/ws/')));
  });

  it("loads Claude Code's sessions only when Claude Code connects", async () => {
    // Node's module log names every bundle required, whichever compile cache this Node uses.
    const editor = new BridgeEditor(sandbox.env({ NODE_DEBUG: 'module' }));
    const required = (bundle: string) =>
      editor.stderr.some((line) => line.includes('Module._load REQUEST') && line.includes(bundle));
    let wire: ClaudeWire | undefined;
    try {
      await editor.initialize(sandbox.workspace, { name: 'lazy-test', displayName: 'Lazy Test' });
      assert.ok(required('bridge'), 'the module log names the bundles required');
      assert.equal(required('claude-sessions'), false);
      const locks = await readdir(join(sandbox.claudeConfigDir, 'ide'));
      const ports = locks.map((name) => Number.parseInt(name, 10));
      const mine = await Promise.all(
        ports.map((port) => readClaudeLock(sandbox.claudeConfigDir, port)),
      );
      const lock = mine.find((each) => each.ideName === 'Lazy Test')!;
      wire = (await ClaudeWire.connect(lock.port, lock.authToken)).wire;
      await editor.waitForLog('claude-sessions');
      assert.ok(required('claude-sessions'));
    } finally {
      await wire?.close();
      await editor.request('shutdown');
      await editor.exited;
    }
  });
});

/** A user id no account has here: what it owns is another user's. */
const OTHER_USER = 12345;

const sha256 = (...parts: Buffer[]) => {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return hash.digest();
};

/** Runs `tandem doctor --help` (which loads the inspect bundle) and returns its output. */
const doctorHelp = (cacheHome: string) =>
  spawnSync(process.execPath, [TANDEM, 'doctor', '--help'], {
    env: sandbox.env({ XDG_CACHE_HOME: cacheHome }),
    encoding: 'utf8',
  }).stdout;

/**
 * An entry for the real inspect bundle, whole by its digest, whose V8 data is that of other code
 * of the same length (V8 checks no more than the length): code that prints PLANTED. Made by the
 * compile cache itself, for that code, then given the real bundle's digest.
 */
async function plantedEntry(): Promise<{ name: string; content: Buffer }> {
  const bundle = join(dirname(TANDEM), 'commands', 'inspect.js');
  const source = readFileSync(bundle);
  const length = source.toString('utf8').length;
  const start = 'process.stdout.write("PLANTED\\n");/*';
  const planted = Buffer.from(`${start}${'x'.repeat(length - start.length - 2)}*/`);
  const scratch = join(sandbox.root, 'scratch');
  new CompileCache(scratch, 0).compile(bundle, planted);
  const made = await waitFor('the planted entry', () =>
    readdirSync(scratch).find((name) => name.endsWith('.cache')),
  );
  const data = readFileSync(join(scratch, made)).subarray(32);
  const digest = sha256(source);
  return {
    name: made.replace(sha256(planted).toString('hex'), digest.toString('hex')),
    content: Buffer.concat([sha256(digest, data), data]),
  };
}

describe('tandem with entries planted in its compile cache', { skip: nodeKeepsItsOwn }, () => {
  let cases = 0;
  /** A cache home with `plant` done in its compile cache folder; the folder made 0700. */
  const cacheWith = (plant: (folder: string) => void) => {
    const cacheHome = join(sandbox.root, `cache-${++cases}`);
    const folder = join(cacheHome, 'tandem', 'compile-cache');
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    chmodSync(cacheHome, 0o700);
    plant(folder);
    return cacheHome;
  };

  it('runs an entry of this user’s alone, whole (what every other case must not do)', async () => {
    const entry = await plantedEntry();
    const cacheHome = cacheWith((folder) =>
      writeFileSync(join(folder, entry.name), entry.content, { mode: 0o600 }),
    );
    assert.match(doctorHelp(cacheHome), /^PLANTED\n/);
  });

  it('never runs a damaged, linked, oversized or group-writable entry', async () => {
    const entry = await plantedEntry();
    const elsewhere = join(sandbox.root, 'elsewhere.cache');
    writeFileSync(elsewhere, entry.content, { mode: 0o600 });
    const plants: Record<string, (at: string) => void> = {
      damaged: (at) =>
        writeFileSync(at, Buffer.concat([entry.content, Buffer.from('x')]), { mode: 0o600 }),
      'a symbolic link': (at) => symlinkSync(elsewhere, at),
      'a hard link': (at) => linkSync(elsewhere, at),
      oversized: (at) =>
        writeFileSync(at, Buffer.concat([entry.content, Buffer.alloc(64 * 2 ** 20)]), {
          mode: 0o600,
        }),
      'group-writable': (at) => writeFileSync(at, entry.content, { mode: 0o660 }),
    };
    for (const [how, plant] of Object.entries(plants)) {
      const output = doctorHelp(cacheWith((folder) => plant(join(folder, entry.name))));
      assert.match(output, /^Usage: tandem doctor/, how);
    }
  });

  it('never runs an entry of another user’s, or one in a folder another user can swap', async (t) => {
    if (!needsRoot(t)) return;
    const entry = await plantedEntry();
    const theirs = cacheWith((folder) => {
      writeFileSync(join(folder, entry.name), entry.content, { mode: 0o600 });
      chownSync(join(folder, entry.name), OTHER_USER, OTHER_USER);
    });
    assert.match(doctorHelp(theirs), /^Usage: tandem doctor/);
    // XDG_CACHE_HOME in a shared folder where another user made `tandem/` first: everything in
    // it is theirs to replace, even a folder and an entry that are this user's.
    const swappable = cacheWith((folder) => {
      writeFileSync(join(folder, entry.name), entry.content, { mode: 0o600 });
      chownSync(dirname(folder), OTHER_USER, OTHER_USER);
    });
    assert.match(doctorHelp(swappable), /^Usage: tandem doctor/);
  });
});

describe('tandem bridge with Node’s own compile cache', { skip: !nodeKeepsItsOwn }, () => {
  /** Node's report of its compile cache: which bundles it read an entry for and V8 accepted. */
  const accepted = (editor: BridgeEditor, bundle: string) =>
    new RegExp(`V8 code cache for CommonJS \\S*/commands/${bundle}\\.js was accepted`).test(
      editor.stderr.join('\n'),
    );
  const entries = (cacheFolder: string) =>
    readdirSync(cacheFolder, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());

  it('writes the entries in a private folder, and the next start uses them', async () => {
    const cacheHome = join(sandbox.root, 'node-cache');
    const cacheFolder = join(cacheHome, 'tandem', 'compile-cache');
    const start = () =>
      startConnected(
        sandbox.env({ XDG_CACHE_HOME: cacheHome, NODE_DEBUG_NATIVE: 'COMPILE_CACHE' }),
      );
    const first = await start();
    try {
      await first.editor.waitForLog('mcp-sessions');
      // Written 2 s after each bundle loaded: the bridge's, then the MCP sessions'.
      await waitFor('both entries', () => (entries(cacheFolder).length === 2 ? true : undefined));
      assert.equal(statSync(cacheFolder).mode & 0o777, 0o700);
    } finally {
      await first.stop();
    }
    const second = await start();
    try {
      await second.editor.waitForLog('mcp-sessions');
      assert.ok(accepted(second.editor, 'bridge'), 'the bridge bundle from the cache');
      assert.ok(accepted(second.editor, 'mcp-sessions'), 'the MCP sessions from the cache');
    } finally {
      await second.stop();
    }
  });

  it('is off in a folder that others can change: nothing read or written there', () => {
    const run = (cacheHome: string, folderMode: number) => {
      const cacheFolder = join(cacheHome, 'tandem', 'compile-cache');
      mkdirSync(cacheFolder, { recursive: true, mode: 0o700 });
      chmodSync(cacheFolder, folderMode);
      const env = sandbox.env({ XDG_CACHE_HOME: cacheHome, NODE_DEBUG: 'tandem-compile-cache' });
      const help = spawnSync(process.execPath, [TANDEM, 'doctor', '--help'], {
        env,
        encoding: 'utf8',
      });
      assert.match(help.stdout, /^Usage: tandem doctor/);
      return { written: entries(cacheFolder).length, log: help.stderr };
    };
    // The same command in a private folder writes its entry (at exit): the case can fail.
    assert.equal(run(join(sandbox.root, 'private-cache'), 0o700).written, 1);
    const shared = run(join(sandbox.root, 'shared-cache'), 0o770);
    assert.equal(shared.written, 0);
    assert.match(shared.log, /off: .* can be changed by other users/);
  });
});

describe('tandem run as root with a user’s HOME', () => {
  it('makes nothing in that home (no ~/.cache owned by root)', (t) => {
    if (!needsRoot(t)) return;
    const home = join(sandbox.root, 'their-home');
    mkdirSync(home, { mode: 0o755 });
    chownSync(home, OTHER_USER, OTHER_USER);
    const env = sandbox.env({ HOME: home });
    delete env.XDG_CACHE_HOME;
    // Whatever doctor finds, it finds nothing to connect to: it runs to the end all the same.
    const doctor = spawnSync(process.execPath, [TANDEM, 'doctor', '--cwd', sandbox.workspace], {
      env,
      encoding: 'utf8',
    });
    assert.match(doctor.stdout, /Gemini CLI/);
    assert.deepEqual(readdirSync(home), []);
  });
});
