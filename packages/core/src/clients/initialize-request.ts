import type { CliKind } from './cli-settings.js';

/** The MCP protocol version each CLI sends in `initialize` (docs/clients.md, "Transport"). */
export const MCP_PROTOCOL_VERSIONS: Record<CliKind, string> = {
  gemini: '2025-06-18',
  qwen: '2025-11-25',
};

/**
 * The body of an `initialize` request as Gemini CLI sends it, from a client named `clientName`:
 * for what opens a session the way a CLI does without an MCP client (a check, a test).
 */
export function initializeRequest(clientName: string): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: MCP_PROTOCOL_VERSIONS.gemini,
      capabilities: {},
      clientInfo: { name: clientName, version: '1' },
    },
  });
}
