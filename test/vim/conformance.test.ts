/**
 * The adapter conformance suite of @tandem/testkit, run against real Vim in tmux: the driver
 * (the testkit's `vimAdapterDriver`) types keys and commands as a user would, and reads what Vim
 * shows through the test driver.
 */
import { runAdapterConformance, vimAdapterDriver } from '@tandem/testkit';

runAdapterConformance(vimAdapterDriver());
