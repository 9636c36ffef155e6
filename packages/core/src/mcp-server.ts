import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { TANDEM_VERSION } from './version.js';

/**
 * The SDK checks with this only the answers to elicitations, and Tandem asks the CLIs for none. Its
 * default check (Ajv) would be built for every session, and its code loaded into every sidecar: the
 * `tandem` bundle leaves it out (packages/cli/build.js).
 */
const noElicitations: jsonSchemaValidator = {
  getValidator: () => () => ({
    valid: false,
    data: undefined,
    errorMessage: 'Tandem asks for no input',
  }),
};

/** The MCP server of one CLI session, of any binding: Tandem's name and version. */
export function tandemMcpServer(capabilities: ServerCapabilities): McpServer {
  return new McpServer(
    { name: 'tandem', version: TANDEM_VERSION },
    { capabilities, jsonSchemaValidator: noElicitations },
  );
}
