/**
 * `tandem bridge` as the command runs it, but with the `diff/open` deadline the tests give
 * (DIFF_OPEN_TIMEOUT_MS, in ms: the command has no such option) and a heap probe: on SIGUSR2 it
 * collects all garbage and logs `heap-probe: <bytes in use>` to stderr.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { runAsProcess } from '@tandem/command';
import { runSidecar } from './bridge-command.js';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;
process.on('SIGUSR2', () => {
  collectGarbage();
  process.stderr.write(`heap-probe: ${process.memoryUsage().heapUsed}\n`);
});
void runAsProcess((_argv, io) =>
  runSidecar(io, { diffOpenTimeoutMs: Number(io.env.DIFF_OPEN_TIMEOUT_MS) }),
);
