import { join } from 'node:path';
import { CLIENT_NAMES } from '../doctor/prediction.js';
import { MCP_PROTOCOL_VERSIONS } from '@tandem/core';
import { CheckClient, type CompanionAddress } from './check-client.js';
import { outcome, type CheckResult, type CheckRule } from './check-report.js';
import { CONTEXT_MS, REQUEST_MS } from './transport-checks.js';

export const SESSION_RULES = {
  concurrent: {
    id: 'sessions.concurrent',
    title: 'two CLIs connected at once both get the context',
    severity: 'breaks',
    effect:
      "A second CLI (another terminal, Gemini CLI beside Qwen Code) takes the first one's place: the first loses its context and diffs.",
    fix: 'Create one MCP server and transport per session (the SDK forbids connecting one server to several transports).',
  },
  routing: {
    id: 'sessions.routing',
    title: 'each tool call is answered on its own session',
    severity: 'breaks',
    effect:
      "The older CLI's openDiff and closeDiff are answered to the newest session: the older one waits 10 minutes, then fails.",
    fix: 'Give every session its own server object; never reconnect one server to each new transport.',
  },
  freed: {
    id: 'sessions.freed',
    title: 'a session is freed once its client is gone',
    severity: 'advice',
    effect:
      'The CLIs never send DELETE: a companion that waits for one keeps every session it ever served (memory grows with every connection).',
    fix: 'End a session a few seconds after its GET stream closed without being reopened.',
  },
} satisfies Record<string, CheckRule>;

/** How long a companion may keep the session of a client that left. */
const FREED_MS = 30_000;

/**
 * Two sessions at once, as Gemini CLI and Qwen Code in two terminals make them; then the first
 * goes away the way a CLI does (the connection drops, no DELETE).
 */
export async function checkSessions(
  address: CompanionAddress,
  dir: string,
): Promise<CheckResult[]> {
  const checks: CheckResult[] = [];
  let first: CheckClient | undefined;
  let second: CheckClient | undefined;
  try {
    first = await CheckClient.connect(address, 'gemini', REQUEST_MS);
    second = await CheckClient.connect(address, 'qwen', REQUEST_MS);
    const contexts = await Promise.all(
      [first, second].map((client) =>
        client.waitFor((n) => n.method === 'ide/contextUpdate', CONTEXT_MS),
      ),
    );
    checks.push(
      outcome(
        SESSION_RULES.concurrent,
        contexts.every(Boolean),
        contexts
          .map(
            (context, i) =>
              `${i === 0 ? 'first' : 'second'}: ${context ? 'context' : 'no context'}`,
          )
          .join(', '),
      ),
    );
    // closeDiff of a path with no diff open: an answer that needs no one at the editor.
    const nothingOpen = join(dir, '.tandem-check-no-diff-open.txt');
    const answers = await Promise.all(
      [first, second].map((client) =>
        client
          .callTool('closeDiff', { filePath: nothingOpen, suppressNotification: true }, REQUEST_MS)
          .then(() => 'answered')
          .catch((error: Error) => `not answered (${error.message})`),
      ),
    );
    checks.push(
      outcome(
        SESSION_RULES.routing,
        answers.every((answer) => answer === 'answered'),
        `closeDiff on the first session (${CLIENT_NAMES.gemini}, ${MCP_PROTOCOL_VERSIONS.gemini}): ${answers[0]}; on the second: ${answers[1]}`,
      ),
    );
    const id = first.sessionId;
    await first.drop();
    checks.push(await freedCheck(address, id));
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    checks.push(outcome(SESSION_RULES.concurrent, false, `could not connect twice: ${why}`));
  } finally {
    await first?.end();
    await second?.end();
  }
  return checks;
}

/** Polls the dropped session until the companion forgets it (404), within a generous bound. */
async function freedCheck(address: CompanionAddress, id: string | undefined): Promise<CheckResult> {
  if (!id) return outcome(SESSION_RULES.freed, false, 'the companion gave no mcp-session-id');
  const started = Date.now();
  for (;;) {
    const status = await fetch(`http://127.0.0.1:${address.port}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': id,
        'mcp-protocol-version': MCP_PROTOCOL_VERSIONS.gemini,
        ...(address.token && { authorization: `Bearer ${address.token}` }),
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      signal: AbortSignal.timeout(REQUEST_MS),
    })
      .then(async (response) => {
        await response.body?.cancel();
        return response.status;
      })
      .catch(() => undefined);
    const ms = Date.now() - started;
    if (status === 404) return outcome(SESSION_RULES.freed, true, `freed after ${ms} ms`);
    if (ms > FREED_MS) {
      return outcome(
        SESSION_RULES.freed,
        false,
        `still served ${FREED_MS / 1000} s after its client left (HTTP ${status})`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
