import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import {
  createServer,
  request as httpRequest,
  type ClientRequest,
  type IncomingMessage,
} from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import { MAX_PROPOSAL_BYTES } from '@tandem/core';
import { rawRequest, type RawReply, type RawRequest } from '@tandem/testkit';
import { ReviewQueue } from './review-queue.js';
import { ReviewServer } from './review-server.js';
import { diffRequest, recordingQueue } from './review-queue.fixture.js';

/** A raw HTTP request: the test sets `Host` and `Origin` as a browser (or an attacker) would. */
function send(port: number, path: string, options: RawRequest = {}): Promise<RawReply> {
  return rawRequest(port, { ...options, path });
}

/** The page's event stream, open: its response as soon as the headers came. */
function openEvents(
  port: number,
  token: string,
): Promise<{ request: ClientRequest; response: IncomingMessage }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path: `/api/events?token=${token}`,
        headers: { host: `127.0.0.1:${port}` },
      },
      (response) => resolve({ request, response }),
    );
    request.on('error', reject);
    request.end();
  });
}

/** What the page does with the secret in its URL's fragment: trades it for its token. */
async function signIn(server: ReviewServer, origin: string): Promise<string> {
  const reply = await send(server.port, '/api/session', {
    method: 'POST',
    headers: { origin, 'x-tandem-secret': new URL(server.url).hash.slice(1) },
  });
  assert.equal(reply.status, 200, reply.body);
  return (JSON.parse(reply.body) as { token: string }).token;
}

describe('ReviewServer', () => {
  let pageDir: string;
  let server: ReviewServer;
  let queue: ReviewQueue;
  let answers: string[];
  let warnings: string[];
  let token: string;
  let auth: Record<string, string>;
  let origin: string;
  let firstSecret: string;
  let usedUrls: string[];

  before(() => {
    pageDir = mkdtempSync(join(tmpdir(), 'tandem-review-page-'));
    mkdirSync(join(pageDir, 'assets', 'chunks'), { recursive: true });
    writeFileSync(
      join(pageDir, 'index.html'),
      '<!doctype html><meta name="tandem-style-nonce" content="__CSP_NONCE__"><p>page</p>',
    );
    writeFileSync(join(pageDir, 'assets', 'app.js'), 'console.log(1);');
    writeFileSync(join(pageDir, 'assets', 'chunks', 'python.js'), 'export {};');
    writeFileSync(join(pageDir, 'secret.txt'), 'outside the assets');
  });

  after(() => rmSync(pageDir, { recursive: true, force: true }));

  /** What the engine does when the CLI closes diff `id`: the view closes, then the user is told. */
  async function closedByTheCli(id: string): Promise<void> {
    await queue.closeDiff(id);
    queue.diffClosed(id, { reason: 'withdrawn', filePath: '/work/project/a', message: 'gone' });
  }

  beforeEach(async () => {
    ({ queue, answers, warnings } = recordingQueue());
    server = await ReviewServer.start({
      queue,
      pageDir,
      workspaceFolders: ['/work/project'],
      maxBodyBytes: 4096,
      secretUsed: (url) => usedUrls.push(url),
      log: { warn: (message) => warnings.push(message), error: () => {} },
    });
    usedUrls = [];
    firstSecret = new URL(server.url).hash.slice(1);
    origin = `http://127.0.0.1:${server.port}`;
    token = await signIn(server, origin);
    auth = { 'x-tandem-token': token };
  });

  afterEach(() => server.stop());

  const json = (body: unknown, headers: Record<string, string> = {}): RawRequest => ({
    method: 'POST',
    headers: { ...auth, origin, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

  test('the URL carries a secret of at least 128 bits in its fragment, which no browser sends', () => {
    const url = new URL(server.url);
    assert.equal(url.hostname, '127.0.0.1');
    assert.equal(url.search, '');
    assert.ok(Buffer.from(url.hash.slice(1), 'base64url').length >= 16);
  });

  test('without a page token the API answers 401; the page itself holds nothing', async () => {
    await queue.showDiff(
      diffRequest('a', { oldContent: 'print("old")\n', newContent: 'print("new")\n' }),
    );
    for (const path of ['/api/state', '/api/events', '/api/events?token=guess']) {
      const reply = await send(server.port, path);
      assert.equal(reply.status, 401, path);
      assert.doesNotMatch(reply.body, /print\(/, path);
      // The page is tandem lsp's too: the message names where each gives its URL.
      assert.match(JSON.parse(reply.body).error, /tandem serve prints .*tandem lsp shows/);
    }
    const page = await send(server.port, '/');
    assert.equal(page.status, 200);
    assert.doesNotMatch(page.body, /print\(/);
  });

  test('a wrong secret or a forged token gets a 401', async () => {
    const wrong = await send(server.port, '/api/session', {
      method: 'POST',
      headers: { origin, 'x-tandem-secret': 'guess' },
    });
    assert.equal(wrong.status, 401);
    const forged = await send(server.port, '/api/state', { headers: { 'x-tandem-token': 'x' } });
    assert.equal(forged.status, 401);
    assert.equal((await send(server.port, '/api/state', { headers: auth })).status, 200);
  });

  test('a stolen cookie replayed with a forged Origin cannot accept anything', async () => {
    await queue.showDiff(diffRequest('a'));
    // What another program on 127.0.0.1 could collect: any cookie the browser has for the host.
    const cookie = `tandem-review-${server.port}=stolen`;
    const reply = await send(server.port, '/api/reviews/a/accept', {
      method: 'POST',
      headers: { cookie, origin, 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'attacker' }),
    });
    assert.equal(reply.status, 401);
    assert.equal((await send(server.port, '/api/state', { headers: { cookie } })).status, 401);
    assert.deepEqual(answers, []);
    assert.equal(queue.pending().length, 1);
    const page = await send(server.port, '/', { headers: { cookie } });
    assert.equal(page.headers['set-cookie'], undefined, 'the server sets no cookie at all');
  });

  test('the secret opens one page: spent once traded, the next URL opens the next', async () => {
    const spent = await send(server.port, '/api/session', {
      method: 'POST',
      headers: { origin, 'x-tandem-secret': firstSecret },
    });
    assert.equal(spent.status, 401, 'a URL already used opens nothing');
    assert.notEqual(new URL(server.url).hash.slice(1), firstSecret);
    assert.deepEqual(usedUrls, [server.url]);
    const second = await signIn(server, origin);
    assert.notEqual(second, token);
    for (const each of [token, second]) {
      const reply = await send(server.port, '/api/state', { headers: { 'x-tandem-token': each } });
      assert.equal(reply.status, 200, 'both pages stay signed in');
    }
  });

  test('the secret is traded only from the page’s own origin', async () => {
    const secret = new URL(server.url).hash.slice(1);
    for (const from of [{ origin: 'http://127.0.0.1:1' }, {}] as Record<string, string>[]) {
      const reply = await send(server.port, '/api/session', {
        method: 'POST',
        headers: { ...from, 'x-tandem-secret': secret },
      });
      assert.equal(reply.status, 403);
    }
    assert.equal(new URL(server.url).hash.slice(1), secret, 'a refused trade spends nothing');
  });

  test('every response has a strict CSP; the page gets its style nonce', async () => {
    const page = await send(server.port, '/', { headers: auth });
    const csp = String(page.headers['content-security-policy']);
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    assert.ok(nonce);
    assert.match(page.body, new RegExp(`content="${nonce.replace(/[+/=]/g, '\\$&')}"`));
    const other = await send(server.port, '/', { headers: auth });
    assert.notEqual(
      /'nonce-([^']+)'/.exec(String(other.headers['content-security-policy']))?.[1],
      nonce,
    );
    const refused = await send(server.port, '/api/state');
    assert.match(String(refused.headers['content-security-policy']), /default-src 'none'/);
    assert.equal(page.headers['x-frame-options'], 'DENY');
    assert.equal(page.headers['referrer-policy'], 'no-referrer');
  });

  test('the port is held on [::1] too: no other server can answer a localhost URL of it', async () => {
    const squatter = createServer();
    const taken = await new Promise<string>((resolve) => {
      squatter.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
      squatter.listen(server.port, '::1', () => resolve('listening'));
    });
    squatter.close();
    assert.equal(taken, 'EADDRINUSE');
    const page = await fetch(`http://[::1]:${server.port}/`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<p>page<\/p>/);
  });

  test('a foreign Host is refused with 403, even with the token', async () => {
    for (const host of [`evil.example:${server.port}`, `127.0.0.1:1`, 'localhost']) {
      const reply = await send(server.port, '/api/state', { headers: { ...auth, host } });
      assert.equal(reply.status, 403, host);
      assert.match(reply.body, /tandem serve printed or tandem lsp showed/, host);
    }
    for (const host of [`localhost:${server.port}`, `[::1]:${server.port}`]) {
      const reply = await send(server.port, '/api/state', { headers: { ...auth, host } });
      assert.equal(reply.status, 200, host);
    }
  });

  test('no CORS headers, not even for a preflight', async () => {
    const preflight = await send(server.port, '/api/reviews/a/accept', {
      method: 'OPTIONS',
      headers: { origin: 'http://evil.example', 'access-control-request-method': 'POST' },
    });
    const page = await send(server.port, '/', { headers: auth });
    for (const reply of [preflight, page]) {
      assert.deepEqual(
        Object.keys(reply.headers).filter((name) => name.startsWith('access-control-')),
        [],
      );
    }
  });

  test('a state change from a foreign Origin is refused with 403', async () => {
    await queue.showDiff(diffRequest('a'));
    const reply = await send(
      server.port,
      '/api/reviews/a/accept',
      json({ content: 'x' }, { origin: 'http://evil.example' }),
    );
    assert.equal(reply.status, 403);
    const otherPort = await send(
      server.port,
      '/api/reviews/a/reject',
      json({}, { origin: `http://127.0.0.1:${server.port + 1}` }),
    );
    assert.equal(otherPort.status, 403);
    assert.deepEqual(answers, []);
    assert.equal(queue.pending().length, 1);
  });

  test('a state change without Origin is refused with 403', async () => {
    await queue.showDiff(diffRequest('a'));
    const options = json({ content: 'x' });
    delete options.headers!.origin;
    assert.equal((await send(server.port, '/api/reviews/a/accept', options)).status, 403);
    assert.deepEqual(answers, []);
  });

  test('a state change needs a JSON content type', async () => {
    await queue.showDiff(diffRequest('a'));
    const reply = await send(
      server.port,
      '/api/reviews/a/accept',
      json({ content: 'x' }, { 'content-type': 'text/plain' }),
    );
    assert.equal(reply.status, 415);
    assert.deepEqual(answers, []);
  });

  test('a body over the limit gets a clear 413', async () => {
    await queue.showDiff(diffRequest('a'));
    const reply = await send(server.port, '/api/reviews/a/draft', {
      ...json({ content: 'x'.repeat(5000) }),
      method: 'PUT',
    });
    assert.equal(reply.status, 413);
    assert.match(JSON.parse(reply.body).error, /larger than the limit of 4096 bytes/);
    assert.equal(queue.pending()[0]?.draft, 'new\n');
  });

  test('accept reaches the engine with the page content', async () => {
    await queue.showDiff(diffRequest('a'));
    const reply = await send(server.port, '/api/reviews/a/accept', json({ content: 'edited\n' }));
    assert.equal(reply.status, 204);
    assert.deepEqual(answers, ['accepted a: edited\n']);
    assert.deepEqual(queue.pending(), []);
  });

  test('reject reaches the engine; answering again is a 409 and a warning', async () => {
    await queue.showDiff(diffRequest('a'));
    assert.equal((await send(server.port, '/api/reviews/a/reject', json({}))).status, 204);
    const again = await send(server.port, '/api/reviews/a/accept', json({ content: 'x' }));
    assert.equal(again.status, 409);
    assert.deepEqual(answers, ['rejected a']);
    assert.equal(warnings.length, 1);
  });

  test('a draft is kept for closeDiff; a malformed one is a 400', async () => {
    await queue.showDiff(diffRequest('a'));
    const draft = (content: unknown) => ({ ...json({ content }), method: 'PUT' });
    assert.equal((await send(server.port, '/api/reviews/a/draft', draft('mine\n'))).status, 204);
    assert.equal((await send(server.port, '/api/reviews/a/draft', draft(42))).status, 400);
    const broken = { ...draft(''), body: '{not json' };
    assert.equal((await send(server.port, '/api/reviews/a/draft', broken)).status, 400);
    assert.equal(await queue.closeDiff('a'), 'mine\n');
  });

  test('the wrong method is a 405; an unknown route a 404', async () => {
    await queue.showDiff(diffRequest('a'));
    const wrong = { ...json({ content: 'x' }), method: 'PUT' };
    assert.equal((await send(server.port, '/api/reviews/a/accept', wrong)).status, 405);
    assert.equal((await send(server.port, '/api/nothing', json({}))).status, 404);
  });

  test('a malformed request target is a 400, and the server carries on', async () => {
    for (const path of ['//[', '//evil.example/', '/assets/%E0%A4%A']) {
      assert.equal((await send(server.port, path, { headers: auth })).status, 400, path);
    }
    assert.equal((await send(server.port, '/', { headers: auth })).status, 200);
  });

  test('assets are served; nothing outside assets/ is', async () => {
    const chunk = await send(server.port, '/assets/chunks/python.js', { headers: auth });
    assert.equal(chunk.status, 200);
    assert.match(String(chunk.headers['content-type']), /text\/javascript/);
    for (const path of ['/assets/..%2fsecret.txt', '/assets/%2e%2e/secret.txt', '/secret.txt']) {
      const reply = await send(server.port, path, { headers: auth });
      assert.equal(reply.status, 404, path);
      assert.doesNotMatch(reply.body, /outside the assets/);
    }
  });

  test('the state lists the workspace, clients and pending reviews', async () => {
    queue.clientsChanged([{ sessionId: 's', name: 'Qwen Code', version: '0.24.4' }]);
    await queue.showDiff(diffRequest('a', { oldContent: null }));
    const reply = await send(server.port, '/api/state', { headers: auth });
    const state = JSON.parse(reply.body);
    assert.deepEqual(state.workspaceFolders, ['/work/project']);
    assert.deepEqual(state.clients, [{ name: 'Qwen Code', version: '0.24.4' }]);
    assert.equal(state.reviews[0].oldContent, null);
  });

  test('the event stream sends a snapshot, then every change', async () => {
    await queue.showDiff(diffRequest('a'));
    const { request, response } = await openEvents(server.port, token);
    assert.match(String(response.headers['content-type']), /text\/event-stream/);
    const events: { type: string; id?: string }[] = [];
    let buffer = '';
    await new Promise<void>((resolve) => {
      response.on('data', (chunk: Buffer) => {
        buffer += chunk.toString('utf8');
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const data = buffer.slice(0, end).replace(/^data: /, '');
          buffer = buffer.slice(end + 2);
          events.push(JSON.parse(data));
          if (events.length === 1) void queue.showDiff(diffRequest('b'));
          if (events.length === 2) void closedByTheCli('a');
          if (events.length === 3) {
            request.destroy();
            resolve();
          }
        }
      });
    });
    assert.deepEqual(
      events.map((event) => event.type),
      ['snapshot', 'opened', 'closed'],
    );
    assert.equal(events[2]?.id, 'a');
  });

  test('stop ends open event streams', async () => {
    const { response } = await openEvents(server.port, token);
    response.resume();
    const ended = new Promise((resolve) => response.on('close', resolve));
    void server.stop();
    await ended;
  });
});

describe('ReviewServer sizes', () => {
  test('what the engine accepts can be accepted back: 8 MiB of control characters, 48 MiB as JSON', async () => {
    const pageDir = mkdtempSync(join(tmpdir(), 'tandem-review-page-'));
    writeFileSync(join(pageDir, 'index.html'), '<!doctype html><p>page</p>');
    const answers: number[] = [];
    const queue = new ReviewQueue({ warn: () => {} });
    queue.answerTo({
      diffAccepted: (_id, content) => (answers.push(content.length), { ok: true as const }),
      diffRejected: () => ({ ok: true as const }),
    });
    const server = await ReviewServer.start({
      queue,
      pageDir,
      workspaceFolders: ['/work/project'],
      log: { warn: () => {}, error: () => {} },
    });
    try {
      const proposal = '\u0001'.repeat(8 * 1024 * 1024);
      // The proposal as the CLI sent it fits the engine's limit on a request...
      assert.ok(JSON.stringify({ newContent: proposal }).length <= MAX_PROPOSAL_BYTES);
      await queue.showDiff(diffRequest('big', { newContent: proposal }));
      const origin = `http://127.0.0.1:${server.port}`;
      const token = await signIn(server, origin);
      // ...and the page sends it back as JSON.stringify makes it: six bytes a character.
      const body = JSON.stringify({ content: proposal });
      assert.ok(body.length > 48 * 1024 * 1024);
      const reply = await send(server.port, '/api/reviews/big/accept', {
        method: 'POST',
        headers: { origin, 'x-tandem-token': token, 'content-type': 'application/json' },
        body,
      });
      assert.equal(reply.status, 204, reply.body);
      assert.deepEqual(answers, [proposal.length]);
    } finally {
      await server.stop();
      rmSync(pageDir, { recursive: true, force: true });
    }
  });
});
