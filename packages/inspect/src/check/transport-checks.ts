import { CLIENT_NAMES, type ClientKind } from '../doctor/prediction.js';
import { MCP_PROTOCOL_VERSIONS } from '@tandem/core';
import { CheckClient, type CompanionAddress } from './check-client.js';
import { outcome, type CheckResult, type CheckRule } from './check-report.js';

export const TRANSPORT_RULES = {
  initialize: {
    id: 'transport.initialize',
    title: "initialize with the client's own protocol version",
    severity: 'breaks',
    effect:
      'The CLI reports "Failed to connect to IDE companion extension" (or "IDE connection error").',
    fix: 'Serve MCP Streamable HTTP at /mcp with stateful sessions and accept protocol versions 2025-06-18 (Gemini CLI) and 2025-11-25 (Qwen Code).',
  },
  stream: {
    id: 'transport.event-stream',
    title: 'GET /mcp opens the event stream',
    severity: 'breaks',
    effect:
      'The CLI connects, but every ide/* notification is lost: no context, and every diff stays pending for ever.',
    fix: 'Answer the GET with `text/event-stream` and send every notification on that stream (with the SDK: never await the GET before pushing).',
  },
  tools: {
    id: 'transport.tools',
    title: 'tools/list names openDiff and closeDiff',
    severity: 'breaks',
    effect: 'The CLI turns diffing off: edits are confirmed in the terminal only.',
    fix: 'Register both tools on every session.',
  },
  context: {
    id: 'transport.context',
    title: 'an ide/contextUpdate arrives soon after the stream opens',
    severity: 'breaks',
    effect:
      'The CLI knows nothing of the open files, the cursor or the selection until the user does something.',
    fix: 'Send the current context as soon as a session opens its stream, then on every change.',
  },
  valid: {
    id: 'transport.notifications-valid',
    title: "every notification passes the client's schema",
    severity: 'breaks',
    effect:
      'One invalid ide/* notification flips the CLI to "disconnected" until the user types /ide enable.',
    fix: 'Validate every notification before sending it: timestamps are numbers, cursor line and character are integers from 1, diffAccepted carries content.',
  },
} satisfies Record<string, CheckRule>;

/** How long a first context update may take, on a busy machine. */
export const CONTEXT_MS = 5000;
export const REQUEST_MS = 10_000;

/** Connects as `kind`, then checks the handshake, stream, tools and first context. */
export async function checkTransport(
  address: CompanionAddress,
  kind: ClientKind,
): Promise<{ checks: CheckResult[]; client?: CheckClient }> {
  const clients = [kind];
  const name = CLIENT_NAMES[kind];
  let client: CheckClient;
  try {
    client = await CheckClient.connect(address, kind, REQUEST_MS);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return {
      checks: [outcome(TRANSPORT_RULES.initialize, false, `as ${name}: ${why}`, clients)],
    };
  }
  const checks = [
    outcome(
      TRANSPORT_RULES.initialize,
      true,
      `as ${name} with ${MCP_PROTOCOL_VERSIONS[kind]}: answered ${client.protocolVersion ?? '?'}`,
      clients,
    ),
  ];
  const tools = await client.toolNames(REQUEST_MS).catch((error: Error) => error);
  const context = await client.waitFor((n) => n.method === 'ide/contextUpdate', CONTEXT_MS);
  const stream = client.stream;
  checks.push(
    outcome(
      TRANSPORT_RULES.stream,
      stream?.status === 200 && stream.contentType.startsWith('text/event-stream'),
      stream ? `HTTP ${stream.status} ${stream.contentType}` : 'the GET got no answer',
      clients,
    ),
  );
  const listed = tools instanceof Error ? [] : tools;
  checks.push(
    outcome(
      TRANSPORT_RULES.tools,
      listed.includes('openDiff') && listed.includes('closeDiff'),
      tools instanceof Error
        ? `tools/list failed: ${tools.message}`
        : `listed: ${listed.join(', ') || 'none'}`,
      clients,
    ),
  );
  checks.push(
    outcome(
      TRANSPORT_RULES.context,
      context !== undefined && context.invalid === undefined,
      context === undefined
        ? `none within ${CONTEXT_MS / 1000} s`
        : `after ${context.atMs} ms${context.invalid ? `, invalid: ${context.invalid}` : ''}`,
      clients,
    ),
  );
  checks.push(validity(client));
  return { checks, client };
}

/** Every notification the client received so far passes the client's schema. */
export function validity(client: CheckClient): CheckResult {
  const invalid = client.received.filter((n) => n.invalid !== undefined);
  return outcome(
    TRANSPORT_RULES.valid,
    invalid.length === 0,
    invalid.length === 0
      ? `${client.received.length} received, all valid`
      : invalid.map((n) => n.invalid).join('; '),
    [client.kind],
  );
}
