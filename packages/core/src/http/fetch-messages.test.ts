import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as engine from './fetch-messages.js';

/** The engine's classes, then Node's: each case runs through both, and the two are compared. */
const both = [
  { Headers: engine.Headers, Request: engine.Request, Response: engine.Response },
  { Headers, Request, Response },
] as const;

type Outcome = { value: unknown } | { error: string };

/** What `make` gives with each implementation: its value, or the kind of error it throws. */
function sideBySide(make: (classes: (typeof both)[number]) => unknown): Outcome[] {
  return both.map((classes) => {
    try {
      return { value: make(classes) };
    } catch (error) {
      return { error: (error as Error).constructor.name };
    }
  });
}

function assertAlike(make: (classes: (typeof both)[number]) => unknown): void {
  const [ours, node] = sideBySide(make);
  assert.deepEqual(ours, node);
}

/** What a response says: its status, whether it is ok, its headers and its body's text. */
async function described(response: engine.WebResponse) {
  const { status, ok, headers, body } = response;
  let text: string | null = null;
  if (body) {
    text = '';
    const decoder = new TextDecoder();
    for await (const chunk of body) text += decoder.decode(chunk, { stream: true });
    text += decoder.decode();
  }
  return { status, ok, headers: [...headers], body: text };
}

test('headers are found whatever the case of their names, and listed sorted in lower case', () => {
  const inits: (Record<string, string> | [string, string][])[] = [
    { 'Content-Type': 'application/json', Accept: 'text/event-stream' },
    [
      ['Mcp-Session-Id', 'abc'],
      ['X-B', ' padded\t'],
      ['x-a', 'one'],
      ['X-A', 'two'],
    ],
    {},
  ];
  for (const init of inits) {
    assertAlike(({ Headers }) => {
      const headers = new Headers(init);
      headers.append('Accept', 'application/json');
      headers.set('x-set', 'replaced');
      headers.set('X-Set', 'last');
      return {
        entries: [...headers.entries()],
        iterated: [...headers],
        fromEntries: Object.fromEntries(headers),
        got: ['accept', 'MCP-SESSION-ID', 'x-a', 'x-set', 'absent'].map((name) =>
          headers.get(name),
        ),
        has: ['ACCEPT', 'x-b'].map((name) => headers.has(name)),
      };
    });
  }
});

test('a header name that HTTP does not allow, or a value with a line break, is refused alike', () => {
  for (const [name, value] of [
    ['bad name', 'x'],
    ['', 'x'],
    ['x-ok', 'a\r\nInjected: 1'],
    ['x-ok', 'nul\0'],
    ['x-ok', '  fine  '],
  ]) {
    assertAlike(({ Headers }) => new Headers([[name!, value!]]).get(name!));
    assertAlike(({ Headers }) => new Headers().get(name!));
  }
});

test('a request keeps its URL in normal form, its method and its headers', () => {
  for (const [url, method] of [
    ['http://127.0.0.1:4000/mcp', 'POST'],
    ['http://localhost:4000/mcp?x=1#y', 'get'],
    ['http://127.0.0.1:4000/a/../mcp', 'DELETE'],
    ['http://user:secret@127.0.0.1:4000/mcp', 'GET'],
    ['not a url', 'GET'],
  ]) {
    assertAlike(({ Request, Headers }) => {
      const headers = new Headers({ Host: '127.0.0.1:4000', 'Mcp-Session-Id': 'abc' });
      const request = new Request(url!, { method, headers: [...headers] });
      return { url: request.url, method: request.method, headers: [...request.headers] };
    });
  }
});

test('a response has its status, whether it is ok, its headers and its body', async () => {
  const cases: [string | null, { status?: number; headers?: Record<string, string> }][] = [
    ['{"jsonrpc":"2.0"}', { status: 200, headers: { 'Content-Type': 'application/json' } }],
    ['plain', {}],
    ['ünïcode ✓', { status: 404 }],
    [null, { status: 202 }],
    ['', { status: 400 }],
    ['x', { status: 199 }],
    ['x', { status: 600 }],
  ];
  for (const [body, init] of cases) {
    const [ours, node] = await Promise.all(
      both.map(async ({ Response }) => {
        try {
          return await described(new Response(body, init));
        } catch (error) {
          return { error: (error as Error).constructor.name };
        }
      }),
    );
    assert.deepEqual(ours, node, `new Response(${JSON.stringify(body)}, ${JSON.stringify(init)})`);
  }
});

test('a response can be a stream, given as is, and JSON, with its content type', async () => {
  for (const { Response } of both) {
    const stream = new ReadableStream<Uint8Array>({
      start: (controller) => controller.enqueue(new TextEncoder().encode('data: 1\n\n')),
    });
    const streaming = new Response(stream, { headers: { 'content-type': 'text/event-stream' } });
    assert.equal(streaming.body, stream);
  }
  const [ours, node] = await Promise.all(
    both.map(({ Response }) =>
      described(Response.json({ error: 'ü' }, { status: 404, headers: { 'X-A': '1' } })),
    ),
  );
  assert.deepEqual(ours, node);
});
