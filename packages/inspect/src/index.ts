export { doctorCommand } from './doctor/doctor-command.js';
export { envCommand } from './env/env-command.js';
export { checkCommand } from './check/check-command.js';
export type { WireMessage } from './check/claude-check-client.js';
