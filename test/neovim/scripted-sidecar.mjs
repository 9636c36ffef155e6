// A stand-in for the sidecar, for what the real one cannot be made to do: stop answering, or
// forget a diff. It writes every line it receives to a log file.
//
//   node scripted-sidecar.mjs deaf LOG   replies to initialize, opens a diff, then answers
//                                        nothing more, and ignores SIGTERM and the end of stdin
//   node scripted-sidecar.mjs gone LOG   replies to initialize, opens a diff, and answers each
//                                        answer to it: that diff is not open
import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

// The bridge protocol's error for an answer to a diff that is not open.
const DIFF_NOT_OPEN = -32011;

const [mode, log] = process.argv.slice(2);
const send = (message) =>
  process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\n');
let initialized = false;

createInterface({ input: process.stdin }).on('line', (line) => {
  appendFileSync(log, line + '\n');
  const message = JSON.parse(line);
  if (mode === 'gone' && message.method?.startsWith('diff/') && message.id !== undefined) {
    send({ id: message.id, error: { code: DIFF_NOT_OPEN, message: 'diff diff-1 is not open' } });
    return;
  }
  if (message.method !== 'initialize' || initialized) return;
  initialized = true;
  send({
    id: message.id,
    result: {
      protocol: '1.3',
      capabilities: { diffAnswerReplies: true, clientChanges: true },
      port: 1,
      env: {},
      discoveryFiles: [],
    },
  });
  send({
    id: 1,
    method: 'diff/open',
    params: {
      id: 'diff-1',
      filePath: `${process.cwd()}/scripted.txt`,
      oldContent: 'old\n',
      newContent: 'new\n',
    },
  });
});

if (mode === 'deaf') {
  process.on('SIGTERM', () => undefined);
  setInterval(() => undefined, 60_000);
}
