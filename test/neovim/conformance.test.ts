/**
 * The adapter conformance suite of @tandem/testkit, run against real Neovim with the plugin: the
 * driver (the testkit's `neovimAdapterDriver`) types keys and commands as a user would, and
 * reads the windows Neovim shows.
 */
import { neovimAdapterDriver, runAdapterConformance } from '@tandem/testkit';

runAdapterConformance(neovimAdapterDriver());
