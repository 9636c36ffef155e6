// Runs jobs side by side, as many as their weights allow, each in a process group of its own
// with its output kept whole. A job that outlives its deadline is ended, and so is every job
// when the run is aborted; whatever a job leaves running is reported and ended.
import { spawn } from 'node:child_process';
import { sweepMarked } from './leftovers.js';

// Passed on by the testkit also where it builds an environment from nothing (cli-launch.ts).
const MARKER = 'TANDEM_TEST_JOB';

function signalGroup(child, signal) {
  try {
    process.kill(-child.pid, signal);
  } catch {
    // The group is gone.
  }
}

/** Asks the job's process group (it was started as its leader) to end, then makes it. */
function endGroup(child) {
  signalGroup(child, 'SIGTERM');
  setTimeout(() => signalGroup(child, 'SIGKILL'), 5_000).unref();
}

function runJob(job, { cwd, runId, index, timeoutMs, signal }) {
  return new Promise((resolve) => {
    const started = Date.now();
    const marker = `${runId}.${index}`;
    const child = spawn(job.argv[0], job.argv.slice(1), {
      cwd,
      env: { ...process.env, ...job.env, [MARKER]: marker },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      endGroup(child);
    }, timeoutMs);
    const abort = () => endGroup(child);
    signal.addEventListener('abort', abort);
    child.on('error', (error) => output.push(Buffer.from(`${error.stack}\n`)));
    child.on('close', async (status, exitSignal) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', abort);
      signalGroup(child, 'SIGKILL');
      const left = await sweepMarked(MARKER, marker, 3_000);
      resolve({
        job,
        status,
        signal: exitSignal,
        timedOut,
        left,
        seconds: (Date.now() - started) / 1000,
        output: Buffer.concat(output).toString('utf8'),
      });
    });
  });
}

/**
 * Runs `jobs` within `capacity` (a job heavier than that runs alone) and calls `onDone` with
 * each result. The first waiting job starts as soon as it fits; a later one may start before it
 * only into room the first would not need once the running jobs as heavy as it end, so that
 * light jobs, which come and go, never keep a heavy one waiting. Once `signal` aborts, no job
 * starts and the running ones are ended.
 */
export function runPool(jobs, { capacity, signal, ...options }, onDone) {
  return new Promise((resolve) => {
    const waiting = jobs.map((job, index) => ({ job, index }));
    const running = new Set();
    const results = [];
    const weightOf = (group) => group.reduce((sum, job) => sum + job.weight, 0);
    const mayStart = (job, position) => {
      if (running.size === 0) return true;
      if (weightOf([...running]) + job.weight > capacity) return false;
      if (position === 0) return true;
      const first = waiting[0].job;
      const lighter = [...running].filter((other) => other.weight < first.weight);
      return weightOf(lighter) + job.weight + first.weight <= capacity;
    };
    const startMore = () => {
      while (!signal.aborted) {
        const next = waiting.findIndex(({ job }, position) => mayStart(job, position));
        if (next === -1) break;
        const [{ job, index }] = waiting.splice(next, 1);
        running.add(job);
        runJob(job, { ...options, signal, index }).then((result) => {
          running.delete(job);
          results.push(result);
          onDone(result);
          startMore();
        });
      }
      if (running.size === 0) resolve(results);
    };
    startMore();
  });
}
