#!/usr/bin/env node
// Runs the suite: every *.test.ts with node's test runner, one process per file (and per editor
// version, for the editor tests), several side by side, then lint and types. Arguments narrow
// the run to test files whose path contains one of them (no lint, no types then).
//
//   node scripts/test.js [--jobs N] [PATH-FRAGMENT...]
//
// --jobs (or TANDEM_TEST_JOBS): how many run at once, default 2 per core. Most files wait on
// editors, CLIs and browsers far more than they compute (docs/ci.md).
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { planJobs } from './test-runner/jobs.js';
import { runPool } from './test-runner/pool.js';
import { printResult, printSummary } from './test-runner/report.js';

const root = new URL('..', import.meta.url).pathname;
const args = process.argv.slice(2);
const jobsAt = args.indexOf('--jobs');
const jobsValue = jobsAt === -1 ? process.env.TANDEM_TEST_JOBS : args.splice(jobsAt, 2)[1];
const capacity = jobsValue ? Number(jobsValue) : 2 * os.availableParallelism();
if (!Number.isInteger(capacity) || capacity < 1) {
  console.error(`--jobs takes a whole number of at least 1, not ${jobsValue}`);
  process.exit(2);
}

const jobs = planJobs(root, args, process.env);
if (jobs.length === 0) {
  console.error(`no test files match ${args.join(' ')}`);
  process.exit(2);
}

// No file may run longer than this: a hung editor or CLI must not hold CI for its 90 minutes.
const timeoutMs = 15 * 60_000;
const started = Date.now();
// Every job's marker holds the run's id: .ci/run gives one (TANDEM_TEST_RUN) to find what the
// whole run left behind.
const runId = process.env.TANDEM_TEST_RUN || randomBytes(6).toString('hex');
// Interrupted: the running jobs are ended (and swept) before the summary.
const interrupted = new AbortController();
for (const name of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(name, () => interrupted.abort());
}
console.log(`${jobs.length} jobs, ${capacity} at once`);
const options = { capacity, cwd: root, runId, timeoutMs, signal: interrupted.signal };
const results = await runPool(jobs, options, (result) => printResult(result, process.stdout));
const wallSeconds = (Date.now() - started) / 1000;
const passed = printSummary(results, { wallSeconds, capacity }, process.stdout);
if (interrupted.signal.aborted)
  console.log(`interrupted: ${jobs.length - results.length} jobs not run`);
process.exit(interrupted.signal.aborted ? 130 : passed ? 0 : 1);
