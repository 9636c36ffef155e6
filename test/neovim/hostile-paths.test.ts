/**
 * Hostile file names proposed by the real Gemini CLI client in real Neovim with the plugin of
 * this checkout: shown for exactly that file, nothing run, nothing written (the testkit's
 * `runHostilePaths`, which says what each name tries).
 */
import { neovimAdapterDriver, runHostilePaths } from '@tandem/testkit';

runHostilePaths(neovimAdapterDriver());
