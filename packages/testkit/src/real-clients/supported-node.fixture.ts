/** For the tests of the real clients: the Node each CLI's package supports, and a Node's major. */
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { clientModulePath } from './installed-clients.js';
import type { ClientKind } from './runner-protocol.js';

const PACKAGES: Record<ClientKind, string> = {
  gemini: '@google/gemini-cli',
  qwen: '@qwen-code/qwen-code',
};

/** The oldest Node major that `cli`'s installed package declares (`engines.node: ">=N"`). */
export async function supportedNodeMajor(cli: ClientKind): Promise<number> {
  const manifest = JSON.parse(
    await readFile(clientModulePath(`${PACKAGES[cli]}/package.json`), 'utf8'),
  ) as { engines?: { node?: string } };
  const oldest = /^>=\s*(\d+)/.exec(manifest.engines?.node ?? '')?.[1];
  if (oldest === undefined) throw new Error(`${PACKAGES[cli]} declares no engines.node >=N`);
  return Number(oldest);
}

/** Whether the `node` program at `node` is of major `oldest` or newer. */
export function runsOn(node: string, oldest: number): boolean {
  const version = execFileSync(node, ['--version'], { encoding: 'utf8' });
  return Number(/^v(\d+)/.exec(version)?.[1]) >= oldest;
}
