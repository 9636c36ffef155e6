export { serveCommand, serveUsage } from './serve-command.js';
