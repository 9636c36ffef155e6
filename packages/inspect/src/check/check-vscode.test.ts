/**
 * `tandem check --interactive` against the VS Code extension in real VS Code (code-server,
 * driven through Chromium), the test clicking and typing what the person at the editor would
 * for each prompt (the testkit's `vscodeAdapterDriver`).
 */
import { vscodeAdapterDriver } from '@tandem/testkit';
import { describeCheckAgainst } from './check-run.fixture.js';

describeCheckAgainst(vscodeAdapterDriver(), { timeLimitSeconds: 120, timeoutMs: 600_000 });
