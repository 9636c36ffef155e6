/**
 * The Node each real CLI runs on, as its users run it: Qwen Code 0.24.4 declares `node >=22`,
 * so it runs on this process's Node when that is 22 or newer, else on the Node 24 that
 * `npm run setup:clients` installs (scripts/install-node.sh, linked as .cache/node-24). Gemini
 * CLI declares `node >=20` and runs on this process's Node: the suite's runs on Node 20 and on
 * Node 24 (scripts/test-runner/jobs.js) run it on both.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../repo-root.js';
import type { ClientKind } from './runner-protocol.js';

/** The Node 24 installed for the tests. */
const NODE_24 = path.join(REPO_ROOT, '.cache', 'node-24', 'bin', 'node');

/** The oldest Node major each CLI supports (its package's `engines.node`). */
const OLDEST_NODE: Record<ClientKind, number> = { gemini: 20, qwen: 22 };

/** The `node` program that runs `cli`: this process's, unless it is older than `cli` supports. */
export function clientNode(cli: ClientKind): string {
  const major = Number(process.versions.node.split('.')[0]);
  if (major >= OLDEST_NODE[cli]) return process.execPath;
  if (!existsSync(NODE_24)) {
    throw new Error(
      `${cli} needs Node ${OLDEST_NODE[cli]} or newer and this is ${process.version}: ` +
        `run npm run setup:clients to install Node 24 in ${path.dirname(NODE_24)}`,
    );
  }
  return NODE_24;
}
