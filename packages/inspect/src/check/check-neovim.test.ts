/**
 * `tandem check --interactive` against the Neovim plugin in a real Neovim, the test typing what
 * the person at the editor types for each prompt (the testkit's `neovimAdapterDriver`).
 */
import { neovimAdapterDriver } from '@tandem/testkit';
import { describeCheckAgainst } from './check-run.fixture.js';

describeCheckAgainst(neovimAdapterDriver());
