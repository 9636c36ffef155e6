export { lspCommand, lspUsage } from './lsp-command.js';
