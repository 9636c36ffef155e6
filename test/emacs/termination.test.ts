/**
 * SIGTERM and SIGHUP to Emacs with `tandem-mode` on, again and again: Emacs runs
 * `kill-emacs-hook` inside its signal handler, where it cannot see the sidecar exit, and once
 * spun there for ever. Each round asserts that Emacs ends, that no discovery file is left and
 * that an open diff is rejected. Bounds are generous: this tests for a hang, not for speed.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import {
  emacsArgs,
  emacsCommand,
  EmacsSession,
  emacsSkipReason,
  lispString,
  realClientIn,
  Sandbox,
  waitUntil,
  type RealClient,
} from '@tandem/testkit';

const ROUNDS = 10;

/**
 * Waits until the sidecar has removed every discovery file: Emacs does not wait for it in its
 * signal handler, so it may still be removing them when Emacs is gone.
 */
async function noDiscoveryFileLeft(sandbox: Sandbox, round: number): Promise<void> {
  await waitUntil(
    `the sidecar to remove its discovery files (round ${round})`,
    () => sandbox.discoveryFiles().length === 0,
    10_000,
    () => `left: ${sandbox.discoveryFiles().join(', ')}`,
  );
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Sends `signal` to Emacs `pid` and waits until it is gone; a hung Emacs is killed, then fails. */
async function terminate(pid: number, signal: NodeJS.Signals, round: number): Promise<void> {
  process.kill(pid, signal);
  try {
    await waitUntil(`Emacs to end after ${signal} (round ${round})`, () => !alive(pid), 10_000);
  } finally {
    if (alive(pid)) process.kill(pid, 'SIGKILL');
  }
}

/** A connected Gemini client that, in rounds with `diff`, has a diff open in Emacs. */
async function connectClient(sandbox: Sandbox, diff: boolean) {
  const gemini: RealClient = await realClientIn(sandbox, 'gemini');
  assert.equal((await gemini.connect()).status, 'connected');
  if (!diff) return { gemini, result: undefined };
  const file = path.join(sandbox.workspace, 'proposed.txt');
  writeFileSync(file, 'a\n');
  const opened = gemini.openDiff(file, 'b\n');
  await opened.opened;
  return { gemini, result: opened.result };
}

test(
  `emacs -nw ends on SIGTERM, ${ROUNDS} times, with a client and every other time a diff open`,
  {
    skip: emacsSkipReason({ sidecar: true, tmux: true }),
  },
  async () => {
    for (let round = 1; round <= ROUNDS; round++) {
      const withDiff = round % 2 === 0;
      const sandbox = new Sandbox();
      const emacs = await EmacsSession.start(sandbox, { tandem: true });
      try {
        const pid = Number(await emacs.eval('(emacs-pid)'));
        const { gemini, result } = await connectClient(sandbox, withDiff);
        try {
          if (withDiff) await emacs.waitForDiffs(1);
          await terminate(pid, 'SIGTERM', round);
          await noDiscoveryFileLeft(sandbox, round);
          if (result) assert.equal((await result).status, 'rejected');
        } finally {
          await gemini.kill();
        }
      } finally {
        await emacs.close();
        sandbox.remove();
      }
    }
  },
);

test(
  `batch Emacs ends on SIGTERM and SIGHUP, ${ROUNDS} times, with a client connected`,
  {
    skip: emacsSkipReason({ sidecar: true }),
  },
  async () => {
    for (let round = 1; round <= ROUNDS; round++) {
      const sandbox = new Sandbox();
      const [program, ...prefix] = emacsCommand();
      const visit = lispString(path.join(sandbox.workspace, 'x.txt'));
      const emacs = spawn(
        program!,
        [
          ...prefix,
          '--batch',
          ...emacsArgs(
            '--eval',
            `(progn (require 'tandem) (find-file ${visit}) (tandem-mode 1) (while t (accept-process-output nil 0.1)))`,
          ),
        ],
        { cwd: sandbox.workspace, env: sandbox.env(), stdio: 'ignore' },
      );
      const pid = emacs.pid!;
      try {
        await waitUntil('the discovery files', () => sandbox.discoveryFiles().length > 0);
        const { gemini } = await connectClient(sandbox, false);
        try {
          await terminate(pid, round % 2 ? 'SIGTERM' : 'SIGHUP', round);
          await noDiscoveryFileLeft(sandbox, round);
        } finally {
          await gemini.kill();
        }
      } finally {
        if (alive(pid)) process.kill(pid, 'SIGKILL');
        sandbox.remove();
      }
    }
  },
);
