import { runAsProcess } from '@tandem/command';
import { main } from './main.js';

await runAsProcess(main);
