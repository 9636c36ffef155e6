/**
 * What each editor adapter costs per keystroke, in the real editor: the editor process's CPU time
 * over a few hundred cursor moves and selection changes in a 20,000-line file, with Tandem running
 * and with it stopped, in turns; the difference per key is the adapter's cost (its autocommands
 * or hooks, the look that follows, the message to the sidecar). Keys come 80 ms apart, slower
 * than any adapter's 50 ms gathering delay, so each one costs a whole look: the worst case.
 * Emacs runs Tandem byte-compiled, as package.el installs it (interpreted Lisp costs several times
 * more). Emacs collects its garbage all at once, some 15 ms every hundred keys or so, Tandem
 * running or not: where those collections fall would decide a sample, so its figures leave them
 * out and add back the share of Tandem's own allocations (what it allocates more per key, at what
 * the run's collections cost per byte allocated). Prints Markdown tables; docs/benchmarks.md keeps
 * the numbers. Run it alone on a quiet machine.
 *
 *   node --import tsx bench/keystroke.ts [--keys N] [--editor neovim|vim|emacs …]
 *
 * TANDEM_NVIM, TANDEM_VIM and TANDEM_EMACS pick the versions.
 */
import { execFileSync } from 'node:child_process';
import { cp, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  EMACS_PACKAGE_DIR,
  emacsCommand,
  EmacsSession,
  emacsSkipReason,
  lispString,
  NeovimSession,
  neovimSkipReason,
  Sandbox,
  TANDEM,
  VimSession,
  vimSkipReason,
} from '@tandem/testkit';

const { values } = parseArgs({
  options: {
    keys: { type: 'string', default: '300' },
    editor: { type: 'string', multiple: true, default: ['neovim', 'vim', 'emacs'] },
  },
});
const KEYS = Number(values.keys);
const KEY_INTERVAL_MS = 80;
const LINES = 20_000;
const ROUNDS = 2;

type Motion = 'cursor moves' | 'selection changes';

/** One real editor with Tandem in it, driven as a user drives it. */
interface Subject {
  name: string;
  pid: number;
  tandem(on: boolean): Promise<void>;
  /** Cursor moves: the cursor at the top. Selection changes: the whole file selected. */
  prepare(motion: Motion): Promise<void>;
  /** One key: down for cursor moves, up (the selection shrinks by a line) for selections. */
  press(motion: Motion): Promise<void>;
  /** An editor that collects garbage all at once: the time spent on it so far, what it allocated. */
  collector?(): Promise<Collector>;
  close(): Promise<void>;
}

interface Collector {
  /** CPU time spent collecting garbage, in ms. */
  collectingMs: number;
  /** Bytes allocated. */
  allocated: number;
}

/** Per key, over one sample of KEYS keys. */
interface Sample {
  /** The editor's CPU time, in ms, outside garbage collections when it reports them. */
  cpuMs: number;
  collectingMs: number;
  allocated: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The CPU time all of a process's threads have used, in ms (`schedstat`, nanoseconds). */
async function cpuMs(pid: number): Promise<number> {
  let total = 0;
  for (const task of await readdir(`/proc/${pid}/task`)) {
    const stat = await readFile(`/proc/${pid}/task/${task}/schedstat`, 'utf8').catch(() => '0');
    total += Number(stat.split(' ')[0]) / 1e6;
  }
  return total;
}

async function neovim(sandbox: Sandbox, file: string): Promise<Subject> {
  const session = await NeovimSession.start(sandbox, { tandem: '{}' });
  await session.command(`edit ${file}`);
  return {
    name: `Neovim ${await session.lua<string>("local v = vim.version() return v.major .. '.' .. v.minor .. '.' .. v.patch")}`,
    pid: await session.lua<number>('return vim.fn.getpid()'),
    tandem: async (on) => {
      await session.lua(`require('tandem').${on ? 'start' : 'stop'}()`);
      if (on) await session.waitForState('running');
    },
    prepare: (motion) => session.input(motion === 'cursor moves' ? '<Esc>gg' : '<Esc>ggVG'),
    press: (motion) => session.input(motion === 'cursor moves' ? 'j' : 'k'),
    close: () => session.close(),
  };
}

async function vim(sandbox: Sandbox, file: string): Promise<Subject> {
  const session = await VimSession.start(sandbox, { args: [file] });
  await session.waitForState('running');
  return {
    name: `Vim ${await session.eval<string>("printf('%d.%d.%d', v:version / 100, v:version % 100, v:versionlong % 10000)")}`,
    pid: await session.eval<number>('getpid()'),
    tandem: async (on) => {
      await session.command(on ? 'TandemStart' : 'TandemStop');
      if (on) await session.waitForState('running');
    },
    prepare: async (motion) => {
      await session.keys('Escape');
      await session.type(motion === 'cursor moves' ? 'gg' : 'ggVG');
    },
    press: (motion) => session.keys(motion === 'cursor moves' ? 'j' : 'k'),
    close: () => session.close(),
  };
}

async function emacs(sandbox: Sandbox, file: string): Promise<Subject> {
  const compiled = join(sandbox.root, 'tandem-compiled');
  await cp(EMACS_PACKAGE_DIR, compiled, { recursive: true });
  const [program, ...prefix] = emacsCommand();
  const sources = (await readdir(compiled)).filter((name) => name.endsWith('.el'));
  execFileSync(
    program!,
    [...prefix, '-Q', '--batch', '-L', compiled, '-f', 'batch-byte-compile', ...sources],
    {
      cwd: compiled,
      stdio: 'ignore',
    },
  );
  const session = await EmacsSession.start(sandbox, { args: [file] });
  // The compiled copy runs this checkout's sidecar, which it would look for beside itself.
  await session.eval(
    String.raw`(progn (dolist (file (directory-files ${lispString(compiled)} t "\\.elc\\'")) (load file nil t))
                      (setq tandem-sidecar-script ${lispString(TANDEM)}))`,
  );
  if (
    (await session.eval("(byte-code-function-p (symbol-function 'tandem-context-flush))")) !== 't'
  ) {
    throw new Error('Emacs runs Tandem from its sources, not compiled');
  }
  await session.eval('(with-current-buffer (window-buffer (selected-window)) (tandem-mode 1))');
  await session.waitForState('running');
  return {
    name: `Emacs ${JSON.parse(await session.eval('emacs-version')) as string}`,
    pid: Number(await session.eval('(emacs-pid)')),
    tandem: async (on) => {
      await session.eval(`(tandem-mode ${on ? 1 : -1})`);
      if (on) await session.waitForState('running');
    },
    prepare: async (motion) => {
      await session.keys('C-g');
      await session.eval(
        motion === 'cursor moves'
          ? '(with-selected-window (selected-window) (deactivate-mark) (goto-char (point-min)))'
          : '(with-selected-window (selected-window) (goto-char (point-max)) (push-mark (point-min) t t))',
      );
    },
    press: (motion) => session.keys(motion === 'cursor moves' ? 'C-n' : 'C-p'),
    collector: async () => {
      // memory-use-counts: conses, floats, vector cells, symbols, string characters, intervals,
      // strings; weighed by their sizes on a 64-bit Emacs.
      const [collectingMs, allocated] = await session.json<[number, number]>(
        `(vector (* 1000 gc-elapsed)
                 (let ((sizes '(16 16 8 48 1 56 32)) (counts (memory-use-counts)) (bytes 0))
                   (while counts (setq bytes (+ bytes (* (pop sizes) (pop counts)))))
                   bytes))`,
      );
      return { collectingMs, allocated };
    },
    close: () => session.close(),
  };
}

const NO_COLLECTOR: Collector = { collectingMs: 0, allocated: 0 };

/** The editor's CPU time per key, in ms, over KEYS keys; its garbage collections apart. */
async function perKey(subject: Subject, motion: Motion): Promise<Sample> {
  await subject.prepare(motion);
  await sleep(500);
  const collectorBefore = (await subject.collector?.()) ?? NO_COLLECTOR;
  const before = await cpuMs(subject.pid);
  for (let i = 0; i < KEYS; i++) {
    await subject.press(motion);
    await sleep(KEY_INTERVAL_MS);
  }
  await sleep(500);
  const cpu = (await cpuMs(subject.pid)) - before;
  const collectorAfter = (await subject.collector?.()) ?? NO_COLLECTOR;
  const collectingMs = collectorAfter.collectingMs - collectorBefore.collectingMs;
  return {
    cpuMs: (cpu - collectingMs) / KEYS,
    collectingMs: collectingMs / KEYS,
    allocated: (collectorAfter.allocated - collectorBefore.allocated) / KEYS,
  };
}

const sum = (samples: number[]) => samples.reduce((a, b) => a + b, 0);
const mean = (samples: number[]) => sum(samples) / samples.length;

const editors = [
  { name: 'neovim', start: neovim, skip: neovimSkipReason({ sidecar: true }) },
  { name: 'vim', start: vim, skip: vimSkipReason({ sidecar: true }) },
  { name: 'emacs', start: emacs, skip: emacsSkipReason({ sidecar: true }) },
].filter(({ name }) => values.editor.includes(name));
const rows: string[] = [];
const collectorRows: string[] = [];
for (const { start, skip } of editors) {
  if (skip) {
    console.error(`skipped: ${skip}`);
    continue;
  }
  const sandbox = new Sandbox();
  const file = join(sandbox.workspace, 'big.txt');
  const lines = Array.from({ length: LINES }, (_, i) => `line ${i + 1}: the quick brown fox`);
  await writeFile(file, `${lines.join('\n')}\n`);
  const subject = await start(sandbox, file);
  try {
    for (const motion of ['cursor moves', 'selection changes'] as Motion[]) {
      const on: Sample[] = [];
      const off: Sample[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        // In turns, the order swapped each round: both states see the same machine.
        for (const state of round % 2 ? [false, true] : [true, false]) {
          await subject.tandem(state);
          (state ? on : off).push(await perKey(subject, motion));
        }
      }
      const cpu = (samples: Sample[]) => mean(samples.map((sample) => sample.cpuMs));
      const allocated = (samples: Sample[]) => mean(samples.map((sample) => sample.allocated));
      let cost = cpu(on) - cpu(off);
      if (subject.collector) {
        // What collecting costs per byte allocated, over the whole run; Tandem's share of it.
        const all = [...on, ...off];
        const msPerByte =
          sum(all.map((sample) => sample.collectingMs)) /
          sum(all.map((sample) => sample.allocated));
        const share = (allocated(on) - allocated(off)) * msPerByte;
        cost += share;
        const kb = (bytes: number) => (bytes / 1024).toFixed(1);
        const collecting = (samples: Sample[]) =>
          mean(samples.map((sample) => sample.collectingMs)).toFixed(3);
        collectorRows.push(
          `| ${subject.name} | ${motion} | ${kb(allocated(on))} / ${kb(allocated(off))} | ${(msPerByte * 2 ** 20).toFixed(1)} | ${share.toFixed(3)} | ${collecting(on)} / ${collecting(off)} |`,
        );
      }
      const cells = [cpu(on), cpu(off), cost].map((ms) => ms.toFixed(3));
      rows.push(`| ${subject.name} | ${motion} | ${cells.join(' | ')} |`);
    }
  } finally {
    await subject.close();
    sandbox.remove();
  }
}

console.log(`${KEYS} keys ${KEY_INTERVAL_MS} ms apart in a ${LINES.toLocaleString('en')}-line file, ${ROUNDS} rounds each way

| editor | keys | CPU ms per key, Tandem running | stopped | Tandem's cost per key |
|---|---|---|---|---|
${rows.join('\n')}`);
if (collectorRows.length > 0) {
  console.log(`
Emacs's garbage collections, left out of its CPU time above; Tandem's cost adds its share:

| editor | keys | KB allocated per key, Tandem running / stopped | collecting, ms per MB allocated | Tandem's share, ms per key | collecting, ms per key, running / stopped |
|---|---|---|---|---|---|
${collectorRows.join('\n')}`);
}
