/**
 * A short MCP handshake with a companion, as a CLI starts one: `initialize` with the bearer
 * token, then `tools/list`; then the session is deleted so that nothing lingers. No `Origin`
 * header is sent and `Host` is the address dialled, as with the CLIs.
 */
import { initializeRequest, MCP_PROTOCOL_VERSIONS } from '@tandem/core';

export type ProbeOutcome =
  /** The companion answered `initialize` and accepted the token. */
  | 'ok'
  /** 401: the token is wrong or missing. */
  | 'unauthorized'
  /** 403: the companion refused the request (typically the `Host` it was reached by). */
  | 'forbidden'
  /** Nothing listens on the port. */
  | 'refused'
  /** The host name does not resolve. */
  | 'unresolvable'
  | 'timeout'
  /** Something answered, but not like an MCP companion. */
  | 'not-mcp';

export interface ProbeResult {
  outcome: ProbeOutcome;
  /** One line for people. */
  detail: string;
  /** The tools the companion lists (when `ok`). */
  tools?: string[];
  /** `serverInfo` from the `initialize` reply (when `ok`). */
  server?: { name: string; version: string };
}

export interface ProbeTarget {
  host: string;
  port: number;
  token?: string;
}

const DEFAULT_TIMEOUT_MS = 3000;

export async function probeCompanion(
  target: ProbeTarget,
  timeoutMs = DEFAULT_TIMEOUT_MS,
): Promise<ProbeResult> {
  const url = `http://${target.host}:${target.port}/mcp`;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  if (target.token) headers.authorization = `Bearer ${target.token}`;
  const signal = AbortSignal.timeout(timeoutMs);
  let sessionId: string | null = null;
  try {
    const initialize = await fetch(url, {
      method: 'POST',
      headers,
      signal,
      body: initializeRequest('tandem-probe'),
    });
    sessionId = initialize.headers.get('mcp-session-id');
    const refusal = refusalOf(initialize.status);
    if (refusal) {
      await initialize.body?.cancel();
      return refusal;
    }
    const reply = await readJsonRpc(initialize);
    const server = serverInfoOf(reply);
    if (!initialize.ok || !server) {
      return {
        outcome: 'not-mcp',
        detail: `answered initialize with HTTP ${initialize.status} and no MCP result`,
      };
    }
    if (sessionId) headers['mcp-session-id'] = sessionId;
    headers['mcp-protocol-version'] = MCP_PROTOCOL_VERSIONS.gemini;
    const list = await fetch(url, {
      method: 'POST',
      headers,
      signal,
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }),
    });
    const tools = toolNamesOf(await readJsonRpc(list));
    return { outcome: 'ok', detail: `${server.name} ${server.version} answered`, tools, server };
  } catch (error) {
    return failureOf(error, target);
  } finally {
    if (sessionId) {
      await fetch(url, { method: 'DELETE', headers, signal: AbortSignal.timeout(timeoutMs) })
        .then((response) => response.body?.cancel())
        .catch(() => undefined);
    }
  }
}

function refusalOf(status: number): ProbeResult | undefined {
  if (status === 401) {
    return { outcome: 'unauthorized', detail: 'refused the token (HTTP 401)' };
  }
  if (status === 403) {
    return { outcome: 'forbidden', detail: 'refused the request (HTTP 403)' };
  }
  return undefined;
}

/** The first JSON-RPC message of a reply sent as JSON or as an SSE stream. */
async function readJsonRpc(response: Response): Promise<unknown> {
  const text = await response.text();
  const type = response.headers.get('content-type') ?? '';
  const json = type.startsWith('text/event-stream')
    ? text
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trim())
        .find((data) => data !== '')
    : text;
  try {
    return json === undefined ? undefined : (JSON.parse(json) as unknown);
  } catch {
    return undefined;
  }
}

function serverInfoOf(reply: unknown): { name: string; version: string } | undefined {
  const info = (reply as { result?: { serverInfo?: { name?: unknown; version?: unknown } } })
    ?.result?.serverInfo;
  if (typeof info?.name !== 'string') return undefined;
  return { name: info.name, version: typeof info.version === 'string' ? info.version : '' };
}

function toolNamesOf(reply: unknown): string[] {
  const tools = (reply as { result?: { tools?: { name?: unknown }[] } })?.result?.tools;
  if (!Array.isArray(tools)) return [];
  return tools.map((tool) => tool.name).filter((name): name is string => typeof name === 'string');
}

function failureOf(error: unknown, target: ProbeTarget): ProbeResult {
  const name = (error as Error)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') {
    return { outcome: 'timeout', detail: 'did not answer in time' };
  }
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  const code = cause?.code ?? '';
  if (code === 'ECONNREFUSED') {
    return { outcome: 'refused', detail: `nothing listens on ${target.host}:${target.port}` };
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return { outcome: 'unresolvable', detail: `the host name ${target.host} does not resolve` };
  }
  const why = code || cause?.message || (error as Error)?.message || String(error);
  return { outcome: 'not-mcp', detail: `the connection failed (${why})` };
}
