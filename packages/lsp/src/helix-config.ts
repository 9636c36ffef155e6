import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * `tandem lsp --config helix`: the `languages.toml` entries that add Tandem to Helix's languages.
 * Helix 25.x has no server for every language, and a language's `language-servers` in the
 * user's file replaces Helix's own list: so each entry lists the servers Helix already uses for
 * that language (read from `hx --health`), then Tandem, limited to the features it serves.
 * Helix 25.01 prints a server's command there, not always its name: each entry is checked by
 * asking Helix again with it, and a language whose servers it would lose is left out.
 */

/** A language of Helix, with the language servers it is configured with. */
export interface HelixLanguage {
  name: string;
  servers: string[];
}

/** How `languages.toml` starts Tandem: `environment` is added to Helix's. */
export interface ServerCommand {
  command: string;
  args: string[];
  environment: Record<string, string>;
}

/** The name of Tandem's server in `languages.toml`. */
const SERVER_NAME = 'tandem';
/** What Helix asks of Tandem: its code actions and commands, and its diagnostics on proposals. */
const FEATURES = ['code-action', 'workspace-command', 'diagnostics'];
/** Tandem in a language's `language-servers`. */
const TANDEM_ENTRY = `{ name = ${toml(SERVER_NAME)}, only-features = [${FEATURES.map(toml).join(', ')}] }`;

/** Helix has no language for plain text files: Tandem adds one, so that they reach the CLIs. */
const TEXT_LANGUAGE = { name: 'text', scope: 'text.plain', fileTypes: ['txt'] };
/** How many `hx --health LANGUAGE` run at once. */
const PARALLEL_RUNS = 8;

/** Runs Helix with `args` (in `cwd`); resolves with what it printed. */
export type HelixRunner = (args: string[], cwd?: string) => Promise<string>;

/** Runs `program` (`hx`, or `helix` as some systems name it), its colours off. */
export function helixRunner(program: string, env: NodeJS.ProcessEnv): HelixRunner {
  const run = promisify(execFile);
  return async (args, cwd) => {
    const { stdout } = await run(program, args, {
      cwd,
      env: { ...env, COLUMNS: '1000', NO_COLOR: '1' },
      maxBuffer: 16 * 1024 * 1024,
    });
    return stdout;
  };
}

/** Helix's languages (all, or those `only` names) with their servers, as `hx --health` says. */
export async function helixLanguages(
  run: HelixRunner,
  only: string[] = [],
): Promise<HelixLanguage[]> {
  const names = only.length > 0 ? only : languageNames(await run(['--health', 'languages']));
  const health = await inBatches(names, (name) => run(['--health', name]));
  return names.map((name, index) => ({
    name,
    servers: configuredServers(health[index] as string),
  }));
}

/**
 * The languages whose entry keeps every server Helix had for them, asked of Helix with the
 * entries as a project's `.helix/languages.toml`; and those it would lose servers of.
 */
export async function checkedLanguages(
  run: HelixRunner,
  languages: HelixLanguage[],
  server: ServerCommand,
): Promise<{ kept: HelixLanguage[]; lost: { name: string; servers: string[] }[] }> {
  const project = await mkdtemp(path.join(tmpdir(), 'tandem-helix-'));
  try {
    await mkdir(path.join(project, '.helix'));
    await writeFile(path.join(project, '.helix', 'languages.toml'), helixConfig(languages, server));
    const served = languages.filter(({ servers }) => servers.length > 0);
    const health = await inBatches(served, ({ name }) => run(['--health', name], project));
    const lost = served.flatMap(({ name, servers }, index) => {
      const after = configuredServers(health[index] as string);
      const missing = servers.filter((server) => !after.includes(server));
      return missing.length > 0 ? [{ name, servers }] : [];
    });
    const lostNames = new Set(lost.map(({ name }) => name));
    return { kept: languages.filter(({ name }) => !lostNames.has(name)), lost };
  } finally {
    await rm(project, { recursive: true, force: true });
  }
}

async function inBatches<T, R>(items: T[], run: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let first = 0; first < items.length; first += PARALLEL_RUNS) {
    results.push(...(await Promise.all(items.slice(first, first + PARALLEL_RUNS).map(run))));
  }
  return results;
}

/** The first column of `hx --health languages`, under its heading. */
export function languageNames(table: string): string[] {
  const rows = stripColours(table).split('\n');
  const heading = rows.findIndex((row) => /^Language\s+Language servers/.test(row));
  return rows
    .slice(heading + 1)
    .map((row) => row.split(/\s+/)[0] as string)
    .filter((name) => /^[\w.+-]+$/.test(name));
}

/** The servers under "Configured language servers:" of `hx --health LANGUAGE`. */
export function configuredServers(health: string): string[] {
  const servers: string[] = [];
  let inList = false;
  for (const row of stripColours(health).split('\n')) {
    if (/^Configured language servers:/.test(row)) {
      inList = true;
      continue;
    }
    if (!inList) continue;
    const server = /^\s+\S+\s+([^\s:]+):/.exec(row);
    if (!server) break;
    servers.push(server[1] as string);
  }
  return servers.filter((name) => name !== SERVER_NAME);
}

/**
 * The `languages.toml` text: Tandem's server, each language with Tandem added, and a comment
 * naming the languages left out (`lost`), whose entries the user writes.
 */
export function helixConfig(
  languages: HelixLanguage[],
  server: ServerCommand,
  lost: { name: string; servers: string[] }[] = [],
): string {
  // Named by the user, a `text` Helix does not know (no servers) is Tandem's own: written whole.
  const helixOwn = languages.filter(
    ({ name, servers }) => name !== TEXT_LANGUAGE.name || servers.length > 0,
  );
  const entries = helixOwn.map(({ name, servers }) =>
    [
      '[[language]]',
      `name = ${toml(name)}`,
      `language-servers = [${[...servers.map(toml), TANDEM_ENTRY].join(', ')}]`,
    ].join('\n'),
  );
  if (!helixOwn.some(({ name }) => name === TEXT_LANGUAGE.name)) {
    entries.push(
      [
        '[[language]]',
        `name = ${toml(TEXT_LANGUAGE.name)}`,
        `scope = ${toml(TEXT_LANGUAGE.scope)}`,
        `file-types = [${TEXT_LANGUAGE.fileTypes.map(toml).join(', ')}]`,
        `language-servers = [${TANDEM_ENTRY}]`,
      ].join('\n'),
    );
  }
  return [
    '# Tandem for Gemini CLI and Qwen Code, generated by `tandem lsp --config helix`.',
    '# Each language keeps the servers Helix had for it; Tandem comes last and serves only code',
    '# actions, commands and the diagnostics of its proposals. Merge it into',
    '# ~/.config/helix/languages.toml (or .helix/languages.toml of a project).',
    ...(lost.length > 0
      ? [
          '#',
          '# Left out: Helix lists the servers of these languages by their commands, not their',
          `# names; add ${TANDEM_ENTRY} to their language-servers yourself:`,
          ...lost.map(({ name, servers }) => `#   ${name} (${servers.join(', ')})`),
        ]
      : []),
    '',
    `[language-server.${SERVER_NAME}]`,
    `command = ${toml(server.command)}`,
    `args = [${server.args.map(toml).join(', ')}]`,
    `environment = { ${Object.entries(server.environment)
      .map(([name, value]) => `${name} = ${toml(value)}`)
      .join(', ')} }`,
    '',
    entries.join('\n\n'),
    '',
  ].join('\n');
}

/** A TOML basic string (JSON's escapes are TOML's, for every string here). */
function toml(text: string): string {
  return JSON.stringify(text);
}

function stripColours(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\x1b\[[0-9;]*m/g, '');
}
