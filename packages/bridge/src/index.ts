export { bridgeCommand, bridgeUsage } from './bridge-command.js';
export {
  DIFF_ANSWER_ERRORS,
  PROTOCOL_VERSIONS,
  SIDECAR_CAPABILITIES,
  type ProtocolVersion,
} from './bridge-protocol.js';
