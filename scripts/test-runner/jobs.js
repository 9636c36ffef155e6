// What one run of the suite is made of: every *.test.ts once, the editor tests once more for
// each newer editor version, and (in a whole run) lint and types. Each job is one process.
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

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

/** A job: a name for people, the command, the variables it adds, its weight in the pool. */
function testJob(file, env = {}) {
  const labels = Object.entries(env).map(([name, value]) => `${name}=${value}`);
  return {
    name: labels.length ? `${file} [${labels.join(' ')}]` : file,
    group: labels.length ? labels.join(' ') : 'once',
    argv: [process.execPath, '--import', 'tsx', '--test', '--test-reporter=spec', file],
    env,
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

/** Every run of `file`: one per editor version when it is an editor test, else one. */
function runsOf(file, environment) {
  const editor = EDITOR_RUNS.find(({ folder }) => file.startsWith(folder));
  if (!editor) return [testJob(file)];
  const chosen = environment[editor.variable]?.trim();
  const labels = chosen ? [chosen] : [...editor.labels, ...(editor.also?.[file] ?? [])];
  return labels.map((label) => testJob(file, { [editor.variable]: label }));
}

/**
 * Where a job comes in the order of starting: the longest first, so that none of them starts
 * last and runs alone. The heavier files take minutes, the editors' files most of a minute,
 * lint and types a minute of CPU, unit tests seconds (docs/ci.md has the measured times).
 */
function startRank(job) {
  const kind = job.name.startsWith('test/') ? 0 : job.group === 'checks' ? 1 : 2;
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
  const jobs = files.flatMap((file) => runsOf(file, environment));
  if (filters.length === 0) jobs.push(npmJob('lint'), npmJob('typecheck'));
  return jobs.sort((a, b) => startRank(a) - startRank(b));
}
