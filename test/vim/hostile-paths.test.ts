/**
 * Hostile file names proposed by the real Gemini CLI client in real Vim with the plugin of this
 * checkout: shown for exactly that file, nothing run, nothing written (the testkit's
 * `runHostilePaths`, which says what each name tries).
 */
import { runHostilePaths, vimAdapterDriver } from '@tandem/testkit';

runHostilePaths(vimAdapterDriver());
