// Which processes a job left behind. Every job's processes carry its marker variable, also
// those that leave its process group (a tmux server, an editor daemon, a program in an editor
// root): the marker is in /proc/PID/environ of each descendant that kept its environment.
import { readdirSync, readFileSync } from 'node:fs';

/** The processes whose environment holds `name=value`, with their command lines. */
export function processesMarked(name, value) {
  const marker = `\0${name}=${value}\0`;
  const found = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const environ = `\0${readFileSync(`/proc/${entry}/environ`, 'latin1')}`;
      if (!environ.includes(marker)) continue;
      const command = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
      // A zombie has no command line and holds nothing but its entry.
      if (command) found.push({ pid: Number(entry), command });
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Waits up to `graceMs` for the marked processes to end by themselves, then ends the rest
 * (SIGTERM, then SIGKILL) and returns what had to be ended.
 */
export async function sweepMarked(name, value, graceMs) {
  const deadline = Date.now() + graceMs;
  let left = processesMarked(name, value);
  while (left.length > 0 && Date.now() < deadline) {
    await sleep(100);
    left = processesMarked(name, value);
  }
  for (const signal of ['SIGTERM', 'SIGKILL']) {
    const still = processesMarked(name, value);
    if (still.length === 0) break;
    for (const { pid } of still) {
      try {
        process.kill(pid, signal);
      } catch {
        // Already gone.
      }
    }
    await sleep(500);
  }
  return left;
}
