import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The checkout the tests run in: the editors load Tandem's plugins from it. */
export const REPO_ROOT = realpathSync(fileURLToPath(new URL('../../..', import.meta.url)));
