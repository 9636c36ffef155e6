/**
 * `tandem check --interactive` against the Vim plugin in a real Vim (in tmux), the test typing
 * what the person at the editor types for each prompt (the testkit's `vimAdapterDriver`).
 */
import { vimAdapterDriver } from '@tandem/testkit';
import { describeCheckAgainst } from './check-run.fixture.js';

describeCheckAgainst(vimAdapterDriver());
