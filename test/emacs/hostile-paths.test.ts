/**
 * Hostile file names proposed by the real Gemini CLI client in real Emacs with the package of
 * this checkout: shown for exactly that file, nothing run, nothing written (the testkit's
 * `runHostilePaths`, which says what each name tries).
 */
import { emacsAdapterDriver, runHostilePaths } from '@tandem/testkit';

runHostilePaths(emacsAdapterDriver());
