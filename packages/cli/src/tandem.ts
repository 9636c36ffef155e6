import { runAsProcess } from '@tandem/command';
import { main } from './main.js';

void runAsProcess(main);
