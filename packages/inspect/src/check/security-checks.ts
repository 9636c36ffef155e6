import { request, type IncomingHttpHeaders } from 'node:http';
import { initializeRequest } from '@tandem/core';
import { probeCompanion } from '../scan/mcp-probe.js';
import { outcome, type CheckResult, type CheckRule } from './check-report.js';
import type { CompanionAddress } from './check-client.js';

export const SECURITY_RULES = {
  noToken: {
    id: 'security.no-token',
    title: 'a request without the token is refused (401)',
    severity: 'unsafe',
    effect:
      'Any program on the machine can open diffs in the editor and read what the user is looking at.',
    fix: 'Write a random token (32 bytes from a CSPRNG) in the discovery files and answer 401 to every request without `Authorization: Bearer <token>`.',
  },
  wrongToken: {
    id: 'security.wrong-token',
    title: 'a request with a wrong token is refused (401)',
    severity: 'unsafe',
    effect: 'Any program on the machine can drive the editor by guessing nothing.',
    fix: 'Compare the bearer token with the one in the discovery files, in constant time.',
  },
  host: {
    id: 'security.host',
    title: 'a foreign Host header is refused (403)',
    severity: 'unsafe',
    effect: 'A web page can reach the companion through DNS rebinding.',
    fix: 'Accept only `Host: 127.0.0.1:<port>` and `localhost:<port>` (and `host.docker.internal:<port>` when serving a container).',
  },
  origin: {
    id: 'security.origin',
    title: 'a request with an Origin header is refused (403)',
    severity: 'unsafe',
    effect: 'The CLIs never send Origin: a request that carries one comes from a web page.',
    fix: 'Refuse every request that carries an `Origin` header, before the token is checked.',
  },
  preflight: {
    id: 'security.cors',
    title: 'a CORS preflight is not granted',
    severity: 'unsafe',
    effect: 'A web page may send the companion requests it reads the answers of.',
    fix: 'Send no `Access-Control-Allow-*` headers; answer OPTIONS with 403 or 405.',
  },
  bodyFirst: {
    id: 'security.body-before-token',
    title: 'an oversized request without the token is refused before its body is read',
    severity: 'unsafe',
    effect:
      'Any program can make the editor read and parse megabytes before it is even authenticated.',
    fix: 'Check Host, Origin, the token and Content-Length before reading a byte of the body; bound the body size.',
  },
  garbage: {
    id: 'security.garbage',
    title: 'a body that is not JSON gets an error answer',
    severity: 'advice',
    effect: 'A malformed request can crash or hang the companion, and the CLIs with it.',
    fix: 'Answer a JSON-RPC parse error (HTTP 400) and go on serving.',
  },
  survives: {
    id: 'security.still-serving',
    title: 'the companion still serves a CLI after all this',
    severity: 'breaks',
    effect:
      'The CLI connected to it fails with "IDE connection error" and never reconnects by itself.',
    fix: 'Never let a refused or malformed request end the listener or a session.',
  },
} satisfies Record<string, CheckRule>;

/** How long an answer may take before the companion is deemed to wait on the body. */
const ANSWER_MS = 3000;
const OVERSIZED_BYTES = 256 * 1024 * 1024;

interface RawAnswer {
  status?: number;
  headers?: IncomingHttpHeaders;
  /** Milliseconds until the answer's head arrived. */
  ms: number;
  error?: string;
}

/** The HTTP guards, as a hostile program or web page would meet them. */
export async function checkSecurity(address: CompanionAddress): Promise<CheckResult[]> {
  const { port, token } = address;
  const body = initializeRequest('tandem-check');
  const auth: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const host = `127.0.0.1:${port}`;
  const checks: CheckResult[] = [];

  const noToken = await send(port, { method: 'POST', headers: { host, ...jsonHeaders() }, body });
  checks.push(outcome(SECURITY_RULES.noToken, noToken.status === 401, answered(noToken)));

  const wrong = await send(port, {
    method: 'POST',
    headers: { host, ...jsonHeaders(), authorization: 'Bearer not-the-token' },
    body,
  });
  checks.push(outcome(SECURITY_RULES.wrongToken, wrong.status === 401, answered(wrong)));

  const foreign = await send(port, {
    method: 'POST',
    headers: { host: `attacker.example:${port}`, ...jsonHeaders(), ...auth },
    body,
  });
  checks.push(outcome(SECURITY_RULES.host, refused(foreign), answered(foreign)));

  const origin = await send(port, {
    method: 'POST',
    headers: { host, origin: 'http://attacker.example', ...jsonHeaders(), ...auth },
    body,
  });
  checks.push(outcome(SECURITY_RULES.origin, refused(origin), answered(origin)));

  const preflight = await send(port, {
    method: 'OPTIONS',
    headers: {
      host,
      origin: 'http://attacker.example',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type, mcp-session-id',
    },
  });
  const granted = Object.keys(preflight.headers ?? {}).filter((name) =>
    name.startsWith('access-control-allow-'),
  );
  checks.push(
    outcome(
      SECURITY_RULES.preflight,
      preflight.status !== undefined && granted.length === 0,
      granted.length > 0
        ? `${answered(preflight)} with ${granted.join(', ')}`
        : answered(preflight),
    ),
  );

  const oversized = await sendOversized(port, host);
  checks.push(
    outcome(
      SECURITY_RULES.bodyFirst,
      oversized.status !== undefined && oversized.status >= 400 && oversized.status < 500,
      `declared ${OVERSIZED_BYTES / 1024 / 1024} MB, sent 1 KB: ${answered(oversized)}`,
    ),
  );

  const garbage = await send(port, {
    method: 'POST',
    headers: { host, ...jsonHeaders(), ...auth },
    body: '{"jsonrpc": "2.0", "id": 1, "method": ',
  });
  checks.push(
    outcome(
      SECURITY_RULES.garbage,
      garbage.status !== undefined && garbage.status >= 400 && garbage.status < 500,
      answered(garbage),
    ),
  );

  const probe = await probeCompanion({ host: '127.0.0.1', port, ...(token && { token }) });
  checks.push(outcome(SECURITY_RULES.survives, probe.outcome === 'ok', probe.detail));
  return checks;
}

function refused(answer: RawAnswer): boolean {
  return answer.status !== undefined && answer.status >= 400 && answer.status < 500;
}

function answered(answer: RawAnswer): string {
  if (answer.status === undefined) return `no answer (${answer.error})`;
  return `HTTP ${answer.status} after ${answer.ms} ms`;
}

function jsonHeaders(): Record<string, string> {
  return { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
}

/** One request with exactly these headers (Host included); the body is then discarded. */
function send(
  port: number,
  options: { method: string; headers: Record<string, string>; body?: string },
): Promise<RawAnswer> {
  const started = Date.now();
  return new Promise((resolve) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/mcp', method: options.method, headers: options.headers },
      (res) => {
        resolve({ status: res.statusCode, headers: res.headers, ms: Date.now() - started });
        res.destroy();
        req.destroy();
        endSession(port, options.headers, res.headers['mcp-session-id']);
      },
    );
    req.setTimeout(ANSWER_MS, () => req.destroy(new Error(`no answer within ${ANSWER_MS} ms`)));
    req.on('error', (error) => resolve({ ms: Date.now() - started, error: error.message }));
    req.end(options.body);
  });
}

/** A request that should have been refused opened a session: end it, so none is left behind. */
function endSession(
  port: number,
  headers: Record<string, string>,
  id: string | string[] | undefined,
) {
  if (typeof id !== 'string') return;
  request({
    host: '127.0.0.1',
    port,
    path: '/mcp',
    method: 'DELETE',
    headers: { ...headers, 'mcp-session-id': id },
  })
    .on('response', (res) => res.resume())
    .on('error', () => undefined)
    .end();
}

/**
 * Declares a huge body without the token and sends only its first kilobyte: a companion that
 * checks the token first answers at once; one that reads the body first waits for the rest.
 */
function sendOversized(port: number, host: string): Promise<RawAnswer> {
  const started = Date.now();
  return new Promise((resolve) => {
    const req = request({
      host: '127.0.0.1',
      port,
      path: '/mcp',
      method: 'POST',
      headers: { host, ...jsonHeaders(), 'content-length': String(OVERSIZED_BYTES) },
    });
    req.on('response', (res) => {
      resolve({ status: res.statusCode, headers: res.headers, ms: Date.now() - started });
      res.destroy();
      req.destroy();
    });
    req.setTimeout(ANSWER_MS, () =>
      req.destroy(new Error(`no answer within ${ANSWER_MS} ms: it waits for the body`)),
    );
    req.on('error', (error) => resolve({ ms: Date.now() - started, error: error.message }));
    req.write(Buffer.alloc(1024, 0x20));
  });
}
