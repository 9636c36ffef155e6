// A stand-in for the sidecar, for what the real one cannot be made to do: speak protocol 1.0
// only, or stop answering. It writes every line it receives to a log file.
//
//   node scripted-sidecar.mjs v1.0 LOG   replies to initialize as a 1.0 sidecar, opens a diff
//   node scripted-sidecar.mjs deaf LOG   replies to initialize (1.1), opens a diff, then answers
//                                        nothing more, and ignores SIGTERM and the end of stdin
//   node scripted-sidecar.mjs gone LOG   replies to initialize (1.1), opens a diff, and answers
//                                        each answer to it: that diff is not open (-32011)
import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const [mode, log] = process.argv.slice(2);
const send = (message) =>
  process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\n');
let initialized = false;

createInterface({ input: process.stdin }).on('line', (line) => {
  appendFileSync(log, line + '\n');
  const message = JSON.parse(line);
  if (mode === 'gone' && message.method?.startsWith('diff/') && message.id !== undefined) {
    send({ id: message.id, error: { code: -32011, message: 'diff diff-1 is not open' } });
    return;
  }
  if (message.method !== 'initialize' || initialized) return;
  initialized = true;
  const v1 = mode === 'v1.0';
  send({
    id: message.id,
    result: {
      protocol: v1 ? 1 : '1.1',
      ...(v1 ? {} : { capabilities: { diffAnswerReplies: true } }),
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
