import { readFile, realpath } from 'node:fs/promises';
import { delimiter, dirname, join } from 'node:path';

/**
 * Which version of a CLI the user runs: the npm package of the first `gemini`, `qwen` or `claude` on the
 * PATH, found from the command's real path (npm links the command to a file of its package).
 * Some rules change between versions (Qwen Code's default approval mode, `cli-settings.ts`).
 */

/** Each CLI's command and npm package. */
export const CLI_PACKAGES = {
  gemini: { command: 'gemini', packageName: '@google/gemini-cli' },
  qwen: { command: 'qwen', packageName: '@qwen-code/qwen-code' },
  claude: { command: 'claude', packageName: '@anthropic-ai/claude-code' },
} as const;

/** The version of `client` that runs from this PATH, or undefined when none is found. */
export async function installedCliVersion(
  client: keyof typeof CLI_PACKAGES,
  env: NodeJS.ProcessEnv,
): Promise<string | undefined> {
  const { command, packageName } = CLI_PACKAGES[client];
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const target = await realpath(join(dir, command)).catch(() => undefined);
    if (target) return packageVersion(dirname(target), packageName);
  }
  return undefined;
}

/** The version in the package.json of `packageName` that holds `dir`, looking upwards. */
async function packageVersion(dir: string, packageName: string): Promise<string | undefined> {
  for (let current = dir; ; current = dirname(current)) {
    const manifest = await readFile(join(current, 'package.json'), 'utf8')
      .then((text) => JSON.parse(text) as { name?: unknown; version?: unknown })
      .catch(() => undefined);
    if (manifest?.name === packageName) {
      return typeof manifest.version === 'string' ? manifest.version : undefined;
    }
    if (dirname(current) === current) return undefined;
  }
}

/** Whether `version` (`MAJOR.MINOR.PATCH`, maybe with a suffix) is older than `than`. */
export function isOlderVersion(version: string, than: string): boolean {
  const parts = (text: string) => text.split(/[.-]/, 3).map((part) => Number.parseInt(part, 10));
  const [a, b] = [parts(version), parts(than)];
  for (let i = 0; i < 3; i++) {
    if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) < (b[i] ?? 0);
  }
  return false;
}
