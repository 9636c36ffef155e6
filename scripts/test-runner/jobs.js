// What one run of the suite is made of: every *.test.ts once, the editor tests once more for
// each newer editor version, the `tandem` command's own tests once more on Node 24, and (in a
// whole run) lint and types. Each job is one process.
import { existsSync, readdirSync, realpathSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const skip = new Set(['node_modules', 'dist', '.git', '.cache']);

/**
 * The editor tests run on the oldest and the newest version users run: one run of each file per
 * label. Neovim 0.10 runs only what differs between versions (`also`): every branch the plugin
 * takes on 0.10 it takes on 0.7 or the newest too (docs/ci.md, "The matrix"). The labels are the
 * testkit's (packages/testkit/src/editors/registry.ts); setting the variable chooses one run.
 */
const EDITOR_RUNS = [
  {
    folder: 'test/neovim/',
    variable: 'TANDEM_NVIM',
    labels: ['0.7', 'newest'],
    also: { 'test/neovim/versions.test.ts': ['0.10'] },
  },
  { folder: 'test/vim/', variable: 'TANDEM_VIM', labels: ['9.0', 'newest'] },
  { folder: 'test/emacs/', variable: 'TANDEM_EMACS', labels: ['28.2', 'newest'] },
  { folder: 'test/helix/', variable: 'TANDEM_HELIX', labels: ['25.01', 'newest'] },
];

/**
 * The `tandem` command runs on the user's own `node`: its tests run on this process's Node (20,
 * the oldest users run: Debian 13's) and once more on Node 24, the active LTS line
 * (scripts/install-node.sh; `npm run setup:clients` installs it). Once more are the files that
 * test the command's packages from the inside (the engine, the bridge, lsp, serve, doctor, env
 * and check, the cli) and the release tarball's install; the Gemini CLI client the engine's
 * tests run goes on the Node of the run, Qwen Code's on Node 24 in both.
 * Not those that spend their time in whole CLIs, editors, browsers or Claude Code's binary (what
 * they test does not change with the Node that runs `tandem`, and they cost minutes), nor the
 * longest of the others whose cases the rest repeat (doctor against every real client, the
 * diff-closing rules of each client, the recorded sessions of the LSP clients, the bridge's
 * hardening against hostile editors), nor the load tests (bridge-load,
 * engine.load: floods that fail on Node 20 and 24 alike on a starved machine, so a second run
 * doubles the chance of a red run for little): docs/ci.md has the cost. TANDEM_NODE=24 chooses
 * the Node 24 runs alone.
 */
const NODE_RUNS = {
  variable: 'TANDEM_NODE',
  label: '24',
  bin: '.cache/node-24/bin',
  files:
    /^packages\/(core|bridge|lsp|serve|inspect|cli|command)\/src\/(?!.*(whole-cli|real-clients|check-(defects|emacs|neovim|vim|vscode|claude-real)|review-page|helix-config|diff-closing|replays\/|bridge-(load|hardening)|engine\.load))|^scripts\/release\/npm-package\.test\.ts$/,
};

/**
 * How much of the machine a file takes while it runs, against the pool's capacity (4 by default
 * on 2 cores): code-server with Chromium takes most of a core for minutes and times out when
 * starved, so it runs beside one light file at most; a whole CLI (Gemini CLI, Qwen Code) with
 * an editor takes about a core while it starts. Everything else mostly waits. Measured in
 * docs/ci.md.
 */
const WEIGHTS = [
  { weight: 3, files: /^packages\/vscode\/test\/(?!package\.test)|check-vscode\.test\.ts$/ },
  { weight: 2, files: /cli-e2e\.test\.ts$|whole-cli\.test\.ts$|install-eat\.test\.ts$/ },
  { weight: 2, files: /check-real-clients\.test\.ts$|real-clients\/cli-(session|launch)\.test/ },
  // Claude Code in tmux, two at a time.
  { weight: 2, files: /check-claude-real\.test\.ts$/ },
  // The README's quick start: npm ci and npm run build of a fresh clone.
  { weight: 2, files: /^test\/docs\/install\.test\.ts$/ },
];

function* testFiles(root, dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (skip.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* testFiles(root, path);
    else if (entry.name.endsWith('.test.ts')) yield relative(root, path);
  }
}

/**
 * A job: a name for people, the command, the variables it adds, its weight in the pool. `node`
 * runs it and comes first on its PATH (the `tandem` a test starts runs on it too).
 */
function testJob(file, env = {}, node = process.execPath) {
  const labels = Object.entries(env).map(([name, value]) => `${name}=${value}`);
  const path = node === process.execPath ? {} : { PATH: `${dirname(node)}:${process.env.PATH}` };
  return {
    name: labels.length ? `${file} [${labels.join(' ')}]` : file,
    group: labels.length ? labels.join(' ') : 'once',
    argv: [node, '--import', 'tsx', '--test', '--test-reporter=spec', file],
    env: { ...env, ...path },
    weight: WEIGHTS.find(({ files }) => files.test(file))?.weight ?? 1,
  };
}

function npmJob(script) {
  return {
    name: `npm run ${script}`,
    group: 'checks',
    argv: ['npm', 'run', '--silent', script],
    env: {},
    weight: 1,
  };
}

/** The runs of one of the `tandem` command's files: on this Node and on Node 24, or one of them. */
function nodeRunsOf(root, file, environment) {
  const { variable, label, bin } = NODE_RUNS;
  const chosen = environment[variable]?.trim();
  const node = join(root, bin, 'node');
  if (chosen !== undefined && chosen !== '' && chosen !== label) {
    throw new Error(`${variable} takes ${label} (or nothing, for both runs), not ${chosen}`);
  }
  if (!existsSync(node)) {
    throw new Error(`the runs on Node ${label} need ${node}: run npm run setup:clients`);
  }
  // Its real place, outside the checkout: a user's PATH keeps it (testkit's userPath).
  const other = testJob(file, { [variable]: label }, realpathSync(node));
  return chosen ? [other] : [testJob(file), other];
}

/**
 * Every run of `file`: one per editor version when it is an editor test, two (Node 20 and 24)
 * when it is one of the `tandem` command's, else one.
 */
function runsOf(root, file, environment) {
  if (NODE_RUNS.files.test(file)) return nodeRunsOf(root, file, environment);
  const editor = EDITOR_RUNS.find(({ folder }) => file.startsWith(folder));
  if (!editor) return [testJob(file)];
  const chosen = environment[editor.variable]?.trim();
  const labels = chosen ? [chosen] : [...editor.labels, ...(editor.also?.[file] ?? [])];
  return labels.map((label) => testJob(file, { [editor.variable]: label }));
}

/**
 * Where a job comes in the order of starting: the longest first, so that none of them starts
 * last and runs alone. The heavier files take minutes, the editors' files most of a minute,
 * lint and types a minute of CPU, unit tests seconds (docs/ci.md has the measured times). The
 * Node 24 runs of the command's files come after the others of their weight: started beside their
 * Node 20 twins, two copies of one file compete for the same work (ten real clients starting at
 * once timed out so), and the last minutes of a run have room for them.
 */
function startRank(job) {
  const kind = job.name.startsWith('test/')
    ? 0
    : job.group === 'checks'
      ? 1
      : job.env[NODE_RUNS.variable]
        ? 3
        : 2;
  return kind - 10 * job.weight;
}

/**
 * The jobs of a run, in the order they start. `filters` narrow it to files whose path contains
 * one of them; without filters the run also checks lint and types.
 */
export function planJobs(root, filters, environment) {
  const files = [...testFiles(root, root)]
    .filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)))
    .sort();
  const jobs = files.flatMap((file) => runsOf(root, file, environment));
  if (filters.length === 0) jobs.push(npmJob('lint'), npmJob('typecheck'));
  return jobs.sort((a, b) => startRank(a) - startRank(b));
}
