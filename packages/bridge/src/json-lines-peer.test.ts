/**
 * The peer's own requests: what becomes of one the editor never answers, answers late, twice,
 * or in a shape JSON-RPC does not allow.
 */
import assert from 'node:assert/strict';
import { createInterface } from 'node:readline';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { memoryLogger, type BridgeMessage } from '@tandem/testkit';
import { z } from 'zod/mini';
import { JsonLinesPeer } from './json-lines-peer.js';

/** A peer over in-memory streams, with what it wrote and logged. */
function peerScene() {
  const input = new PassThrough();
  const output = new PassThrough();
  const log = memoryLogger();
  const peer = new JsonLinesPeer(input, output, log, { maxLineBytes: 4096, maxDepth: 8 });
  const sent: BridgeMessage[] = [];
  createInterface({ input: output }).on('line', (line) => {
    sent.push(JSON.parse(line) as BridgeMessage);
  });
  const reply = (message: object) =>
    input.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  const warned = (text: string) => log.lines.filter((line) => line.includes(text)).length;
  return { peer, sent, reply, warned, log };
}

const anything = z.unknown();

describe('the requests of a JSON-lines peer', () => {
  it('1,000 unanswered requests fail at their deadline, and their late replies are ignored with a warning', async () => {
    const { peer, sent, reply, warned } = peerScene();
    // Each deadline runs from its own request, all at once: every request is on its way before
    // the first one fails (one after another, the second would leave after the first failed).
    const sentAtFailure: number[] = [];
    const outcomes = await Promise.allSettled(
      Array.from({ length: 1000 }, (_, n) =>
        peer
          .request('diff/open', { n }, anything, 100)
          .finally(() => sentAtFailure.push(sent.length)),
      ),
    );
    assert.equal(sentAtFailure[0], 1000);
    for (const outcome of outcomes) {
      assert.equal(outcome.status, 'rejected');
      assert.match(String(outcome.reason), /the editor did not answer diff\/open within 0\.1 s/);
    }
    // Each id is forgotten with its request: a late reply resolves nothing and is named.
    for (const { id } of sent) reply({ id, result: {} });
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(warned('ignored a reply to unknown request id'), 1000);
  });

  it('a second reply to a request is ignored with a warning; the first one counts', async () => {
    const { peer, sent, reply, warned } = peerScene();
    const answer = peer.request('diff/close', {}, z.object({ content: z.string() }), 5000);
    await new Promise((resolve) => setImmediate(resolve));
    const { id } = sent[0]!;
    reply({ id, result: { content: 'first' } });
    reply({ id, result: { content: 'second' } });
    assert.deepEqual(await answer, { content: 'first' });
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(warned(`ignored a reply to unknown request id ${id}`), 1);
  });

  it('replies of the wrong shape fail their request at once, named in the warning', async () => {
    const { peer, sent, reply, warned } = peerScene();
    const cases: Array<[object, RegExp]> = [
      [{ error: 'no' }, /its error is not an object with an integer code and a string message/],
      [{ error: { code: '1', message: 'x' } }, /its error is not an object/],
      [{ result: {}, error: { code: 1, message: 'x' } }, /it has both result and error/],
      [{ result: { content: 5 } }, /the editor's reply to diff\/close is invalid: content/],
    ];
    for (const [shape, reason] of cases) {
      const answer = peer.request('diff/close', {}, z.object({ content: z.string() }), 5000);
      await new Promise((resolve) => setImmediate(resolve));
      reply({ id: sent.at(-1)!.id, ...shape });
      await assert.rejects(answer, reason);
    }
    assert.equal(warned('refused the reply to request'), 3);
    assert.equal(warned('is invalid'), 1);
  });

  it('a reply over the line limit fails its request at once; one to no request is refused as a message', async () => {
    const { peer, sent, reply, warned } = peerScene();
    const answer = peer.request('diff/close', {}, z.object({ content: z.string() }), 5000);
    await new Promise((resolve) => setImmediate(resolve));
    const huge = 'x'.repeat(5000);
    reply({ id: sent[0]!.id, result: { content: huge } });
    await assert.rejects(answer, /the editor's reply: Invalid Request: a line longer than 4096/);
    reply({ id: 424242, result: { content: huge } });
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(warned('refused a reply: Invalid Request: a line longer than 4096 bytes'), 1);
    // Refused as a message (there is no request to fail): the error goes to its id.
    assert.match(sent.at(-1)!.error?.message ?? '', /longer than 4096 bytes/);
  });

  it('a reply whose id has another type than the request it means is ignored, and the request still waits', async () => {
    const { peer, sent, reply, warned } = peerScene();
    const answer = peer.request('diff/open', {}, anything, 5000);
    await new Promise((resolve) => setImmediate(resolve));
    const { id } = sent[0]!;
    reply({ id: String(id), result: 'wrong' });
    reply({ id: [id], result: 'wrong' });
    reply({ id: { id }, result: 'wrong' });
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(warned(`ignored a reply to unknown request id "${id}"`), 1);
    assert.equal(warned('refused a message whose id is not a string, a number or null'), 2);
    reply({ id, result: 'right' });
    assert.equal(await answer, 'right');
  });
});
