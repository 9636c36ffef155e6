/**
 * Fuzzing the review page's API: random methods, paths, headers (Host, Origin, token, cookie,
 * content type) and bodies, sent as raw HTTP. Nothing fails the server (no 5xx, it keeps
 * answering), and nothing changes a review unless it came with the page's token, from the
 * page's origin, as JSON. Bounded in requests and time; the seed is printed on failure (set
 * TANDEM_FUZZ_SEED to replay one).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fuzzSeed, seededRandom } from '@tandem/testkit';
import { diffRequest, recordingQueue } from './review-queue.fixture.js';
import { ReviewServer } from './review-server.js';

const SEED = fuzzSeed(0x51de);
const REQUESTS = 300;
const TIME_BUDGET_MS = 40_000;

/** One raw HTTP exchange on its own connection; the status, or 0 when none came back. */
function exchange(port: number, request: Buffer): Promise<number> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    const timer = setTimeout(() => socket.destroy(), 5000);
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0));
    });
    socket.end(request);
  });
}

test(`the review page's API, fuzzed (seed ${SEED})`, async () => {
  const r = seededRandom(SEED);
  const pageDir = mkdtempSync(join(tmpdir(), 'tandem-review-fuzz-'));
  writeFileSync(join(pageDir, 'index.html'), '<!doctype html><p>page</p>');
  const errors: string[] = [];
  const { queue, answers } = recordingQueue();
  const server = await ReviewServer.start({
    queue,
    pageDir,
    workspaceFolders: ['/work/project'],
    maxBodyBytes: 64 * 1024,
    log: { warn: () => {}, error: (message) => errors.push(message) },
  });
  try {
    const origin = `http://127.0.0.1:${server.port}`;
    const secret = new URL(server.url).hash.slice(1);
    const signIn = await fetch(`${origin}/api/session`, {
      method: 'POST',
      headers: { origin, 'x-tandem-secret': secret },
    });
    const { token } = (await signIn.json()) as { token: string };
    await queue.showDiff(diffRequest('a'));
    const nextSecret = new URL(server.url).hash.slice(1);

    let changes = 0;
    const end = Date.now() + TIME_BUDGET_MS;
    for (let i = 0; i < REQUESTS && Date.now() < end; i++) {
      const honest = r.next() < 0.25;
      const action = r.pick(['accept', 'reject', 'draft'] as const);
      const method = honest
        ? action === 'draft'
          ? 'PUT'
          : 'POST'
        : r.pick(['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'HEAD', 'PATCH', 'G\u00e9T']);
      const path = honest
        ? `/api/reviews/a/${action}`
        : r.pick([
            '/',
            '/api/state',
            `/api/events?token=${r.pick([token, 'x', ''])}`,
            '/api/session',
            `/api/reviews/${r.pick(['a', 'b', '%2e%2e', '%E0%A4%A', 'a%2Fb', ''])}/${r.pick(['accept', 'reject', 'draft', 'x'])}`,
            '/assets/../../etc/passwd',
            '//evil.example/',
            `/${'a'.repeat(r.int(9000))}`,
            '*',
          ]);
      const withToken = honest ? 'valid' : r.pick(['valid', 'wrong', 'none'] as const);
      const from = honest
        ? 'page'
        : r.pick(['page', 'foreign', 'other-port', 'none', 'null'] as const);
      const host = honest
        ? `127.0.0.1:${server.port}`
        : r.pick([`127.0.0.1:${server.port}`, 'evil.example', `localhost:${server.port}`, '']);
      const type = honest
        ? 'application/json'
        : r.pick(['application/json', 'text/plain', 'application/json; charset=utf-8', '']);
      const body = honest
        ? JSON.stringify({ content: `fuzz ${i}` })
        : r.pick([
            JSON.stringify({ content: 'fuzz' }),
            JSON.stringify({ content: r.int(9) }),
            JSON.stringify([{ content: 'x' }]),
            '{"content":',
            '\u0000\u00ff',
            `{"__proto__":{"content":"polluted"}}`,
            '',
            `${'['.repeat(5000)}${']'.repeat(5000)}`,
          ]);
      const headers = [
        `${method} ${path} HTTP/1.1`,
        ...(host ? [`Host: ${host}`] : []),
        ...(withToken === 'valid' ? [`X-Tandem-Token: ${token}`] : []),
        ...(withToken === 'wrong' ? [`X-Tandem-Token: ${token.slice(1)}x`] : []),
        ...(r.next() < 0.5 ? [`X-Tandem-Secret: ${r.pick([secret, 'guess', ''])}`] : []),
        ...(r.next() < 0.5 ? [`Cookie: tandem-review-${server.port}=${r.pick([token, 'x'])}`] : []),
        ...{
          page: [`Origin: ${origin}`],
          foreign: ['Origin: http://evil.example'],
          'other-port': [`Origin: http://127.0.0.1:${server.port + 1}`],
          null: ['Origin: null'],
          none: [],
        }[from],
        ...(type ? [`Content-Type: ${type}`] : []),
        `Content-Length: ${Buffer.byteLength(body)}`,
        'Connection: close',
      ];
      const before = { answers: answers.length, draft: queue.pending()[0]?.draft };
      const status = await exchange(
        server.port,
        Buffer.from(`${headers.join('\r\n')}\r\n\r\n${body}`),
      );
      const where = `seed ${SEED}, request ${i}: ${method} ${path.slice(0, 60)} (${withToken} token, ${from} origin, host ${host})`;
      assert.ok(status < 500, `${where}: status ${status}; ${errors.join('\n')}`);
      const mayChange =
        withToken === 'valid' &&
        from === 'page' &&
        host !== 'evil.example' &&
        host !== '' &&
        type.startsWith('application/json');
      if (mayChange && status === 204) changes += 1;
      if (!mayChange) {
        assert.equal(answers.length, before.answers, `${where}: answered without the page's proof`);
        assert.equal(queue.pending()[0]?.draft, before.draft, `${where}: draft changed`);
      }
      assert.notEqual(new URL(server.url).hash.slice(1), '', where);
      if (queue.pending().length === 0) {
        await queue.showDiff(diffRequest('a'));
      }
    }
    assert.ok(changes > 0, `seed ${SEED}: no request was valid enough to change anything`);
    // The secret spent at sign-in stays spent; the current one was never guessed.
    assert.equal(new URL(server.url).hash.slice(1), nextSecret, `seed ${SEED}`);
    assert.deepEqual(errors, [], `seed ${SEED}`);
    const state = await fetch(`${origin}/api/state`, { headers: { 'x-tandem-token': token } });
    assert.equal(state.status, 200, `seed ${SEED}: still serving`);
  } finally {
    await server.stop();
    rmSync(pageDir, { recursive: true, force: true });
  }
});
