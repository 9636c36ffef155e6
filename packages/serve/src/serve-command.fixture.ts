/** Runs `tandem serve` from the source, as the bundle's entry would: for tests. */
import { runAsProcess } from '@tandem/command';
import { serveCommand } from './serve-command.js';

await runAsProcess(serveCommand);
