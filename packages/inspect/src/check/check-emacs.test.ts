/**
 * `tandem check --interactive` against the Emacs package in a real Emacs (in tmux), the test
 * pressing the keys the person at the editor presses for each prompt (the testkit's
 * `emacsAdapterDriver`).
 */
import { emacsAdapterDriver } from '@tandem/testkit';
import { describeCheckAgainst } from './check-run.fixture.js';

describeCheckAgainst(emacsAdapterDriver());
