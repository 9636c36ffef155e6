import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  SERVER_NAME,
  TEXT_LANGUAGE_NAME,
  tandemSection,
  tomlString,
  withTandemSection,
  type HelixLanguage,
  type ServerCommand,
} from './helix-languages-toml.js';

/**
 * `tandem lsp --config helix`: Tandem's section of Helix's `languages.toml`, from what Helix
 * itself says. Helix 25.x has no server for every language, and a language's `language-servers`
 * in the user's file replaces Helix's own list: so each entry lists the servers Helix already
 * uses for that language (read from `hx --health LANGUAGE`), then Tandem.
 *
 * Helix's languages are not read from the table of `hx --health languages`, whose names Helix
 * cuts to the terminal's width (`javasc…` in 80 columns, or with no terminal) and whose footer
 * (25.07) reads like more rows: `hx --health` with a name Helix does not know lists, in full,
 * every language that begins with the same character, and one such question per first
 * character gives them all.
 *
 * Helix is asked with the user's own file as it will be (`XDG_CONFIG_HOME` pointed at a copy),
 * from a folder of no project: the whole file is then checked by Helix itself, which must read
 * it without an error and keep every server each language had. Helix 25.01 prints a server's
 * command there, not always its name: a language whose servers it would lose is left out.
 */

/** How many `hx --health` run at once. */
const PARALLEL_RUNS = 8;
/** The characters every language of Helix's own begins with, asked of even when no table shows them. */
const FIRST_CHARACTERS = 'abcdefghijklmnopqrstuvwxyz0123456789_';
/** After a first character, what makes a name no language has (Helix names have no spaces). */
const UNKNOWN_SUFFIX = ' (tandem asks)';

/** Helix's output for each of `args`, run with `text` as the user's `languages.toml`. */
type Asker = (text: string, args: string[][]) => Promise<string[]>;

/** What Helix printed. */
export interface HelixOutput {
  stdout: string;
  stderr: string;
}

/** Runs Helix with `args`, reading its configuration from `configHome` (and run from there). */
export type HelixRunner = (args: string[], configHome: string) => Promise<HelixOutput>;

/** Neither `hx` nor `helix` is on the PATH. */
export class HelixNotFoundError extends Error {
  constructor() {
    super(
      'Helix was not found: neither `hx` nor `helix` is on the PATH. Install Helix ' +
        '(https://docs.helix-editor.com/install.html), or put the folder of its program on the PATH.',
    );
  }
}

/** Helix does not read the file that was asked of it without an error. */
export class HelixRefusedError extends Error {}

/** Runs `program` (`hx`, or `helix` as some systems name it), its colours off. */
export function helixRunner(program: string, env: NodeJS.ProcessEnv): HelixRunner {
  const run = promisify(execFile);
  return async (args, configHome) => {
    const { stdout, stderr } = await run(program, args, {
      cwd: configHome,
      env: { ...env, XDG_CONFIG_HOME: configHome, NO_COLOR: '1' },
      maxBuffer: 16 * 1024 * 1024,
    });
    return { stdout: stripColours(stdout), stderr: stripColours(stderr) };
  };
}

/** Helix as `hx`, or as `helix` (its name on some systems); `HelixNotFoundError` if neither. */
export async function findHelix(env: NodeJS.ProcessEnv): Promise<HelixRunner> {
  for (const program of ['hx', 'helix']) {
    const run = helixRunner(program, env);
    try {
      await run(['--version'], tmpdir());
      return run;
    } catch (error) {
      if ((error as { code?: string }).code !== 'ENOENT') throw error;
    }
  }
  throw new HelixNotFoundError();
}

/** Tandem's section for `file` (the user's `languages.toml`, '' if none), checked by Helix. */
export interface CheckedSection {
  section: string;
  /** How many languages the section adds Tandem to. */
  languages: number;
  /** The languages left out: Helix would lose some of their servers. */
  lost: HelixLanguage[];
}

/**
 * Tandem's section for the user's `file`, with the languages `only` names (else every language
 * of Helix), as Helix with `file` (less any section of Tandem's) says they are served; checked
 * by Helix with the section in `file`.
 */
export async function checkedSection(
  run: HelixRunner,
  file: string,
  server: ServerCommand,
  only: string[] = [],
): Promise<CheckedSection> {
  const configHome = await mkdtemp(path.join(tmpdir(), 'tandem-helix-'));
  try {
    await mkdir(path.join(configHome, 'helix'));
    const ask: Asker = async (text, args) => {
      await writeFile(path.join(configHome, 'helix', 'languages.toml'), text);
      const outputs = await inBatches(args, (each) => run(each, configHome));
      const refused = outputs.find(({ stderr }) => stderr.trim() !== '');
      if (refused) {
        const which = text === own ? 'your languages.toml' : "it with Tandem's section";
        throw new HelixRefusedError(`Helix cannot read ${which}: ${refused.stderr.trim()}`);
      }
      return outputs.map(({ stdout }) => stdout);
    };
    const own = withTandemSection(file, '');
    const names = only.length > 0 ? only : await languageNames((args) => ask(own, args));
    const health = await ask(
      own,
      names.map((name) => ['--health', name]),
    );
    const languages = names.map((name, index) => {
      const servers = configuredServers(health[index] as string);
      // Tandem's own `text` is the one language Helix need not know.
      if (!servers && name !== TEXT_LANGUAGE_NAME) {
        throw new HelixRefusedError(`Helix has no language named ${JSON.stringify(name)}`);
      }
      // Tandem's entries of an earlier run (in a project's file, say) are not Helix's.
      return { name, servers: (servers ?? []).filter((server) => server !== SERVER_NAME) };
    });
    const withSection = withTandemSection(file, tandemSection(languages, server));
    const lost = (await printsServerNames(ask, own))
      ? await tandemServes(ask, withSection)
      : await lostServers(ask, withSection, languages);
    const kept = languages.filter((language) => !lost.includes(language));
    return { section: tandemSection(kept, server, lost), languages: kept.length, lost };
  } finally {
    await rm(configHome, { recursive: true, force: true });
  }
}

/** Names a test server and its command apart: which of them Helix prints for its language. */
const PROBE = ['tandem-probe', 'tandem-probe-server', 'tandem-probe-command'] as const;

/** Whether Helix prints a language's servers by their names (25.07), not their commands (25.01). */
async function printsServerNames(ask: Asker, own: string): Promise<boolean> {
  const [language, name, command] = PROBE.map(tomlString);
  const probe = [
    `[language-server.${name}]`,
    `command = ${command}`,
    '',
    '[[language]]',
    `name = ${language}`,
    `scope = "source.${PROBE[0]}"`,
    `file-types = [${language}]`,
    `language-servers = [${name}]`,
    '',
  ].join('\n');
  const [health] = await ask(withTandemSection(own, probe), [['--health', PROBE[0]]]);
  return (configuredServers(health as string) ?? []).includes(PROBE[1]);
}

/**
 * Checks `file` (with Tandem's section) when Helix prints names, so that each language keeps
 * the servers listed: Helix reads it whole, and serves Tandem's own language with Tandem.
 */
async function tandemServes(ask: Asker, file: string): Promise<HelixLanguage[]> {
  const [health] = await ask(file, [['--health', TEXT_LANGUAGE_NAME]]);
  if (!(configuredServers(health as string) ?? []).includes(SERVER_NAME)) {
    throw new HelixRefusedError(`Helix does not list Tandem for ${TEXT_LANGUAGE_NAME}: ${health}`);
  }
  return [];
}

/**
 * The languages that would lose servers with `file` (Helix 25.01 lists the commands of their
 * servers, which may not be their names), asked of Helix language by language.
 */
async function lostServers(
  ask: Asker,
  file: string,
  languages: HelixLanguage[],
): Promise<HelixLanguage[]> {
  const served = languages.filter(({ servers }) => servers.length > 0);
  const after = await ask(
    file,
    served.map(({ name }) => ['--health', name]),
  );
  return served.filter(({ servers }, index) => {
    const kept = configuredServers(after[index] as string) ?? [];
    return servers.some((each) => !kept.includes(each));
  });
}

/**
 * Every language of Helix: the names Helix suggests for a name it does not know, one question
 * per first character (those of Helix's own languages, and the first character of each line of
 * its table, for the user's own languages).
 */
async function languageNames(ask: (args: string[][]) => Promise<string[]>): Promise<string[]> {
  const [table] = await ask([['--health', 'languages']]);
  const firsts = new Set([...FIRST_CHARACTERS, ...firstCharacters(table as string)]);
  const answers = await ask([...firsts].map((first) => ['--health', first + UNKNOWN_SUFFIX]));
  const names = [...new Set(answers.flatMap(suggestedNames))].sort();
  if (names.length === 0) {
    throw new HelixRefusedError('Helix named no language (`hx --health NAME` suggested none)');
  }
  return names;
}

/** The first character of each line (not a space, nor `-`, which Helix takes for an option). */
export function firstCharacters(text: string): string[] {
  return text.split('\n').flatMap((line) => {
    const first = [...line][0];
    return first && !/[\s-]/.test(first) ? [first] : [];
  });
}

/** The languages `hx --health NAME` suggests for a NAME it does not know (full names, any width). */
export function suggestedNames(health: string): string[] {
  const suggested = /^Did you mean one of these: (.*) \?$/m.exec(health)?.[1];
  return suggested ? suggested.split(', ').filter((name) => name !== '') : [];
}

/**
 * The servers under "Configured language servers:" of `hx --health LANGUAGE`;
 * `undefined` when Helix printed no such list (it knows no such language).
 */
export function configuredServers(health: string): string[] | undefined {
  if (!/^Configured language servers:/m.test(health)) return undefined;
  const servers: string[] = [];
  let inList = false;
  for (const row of health.split('\n')) {
    if (/^Configured language servers:/.test(row)) {
      inList = true;
      continue;
    }
    if (!inList) continue;
    const server = /^\s+\S+\s+([^\s:]+):/.exec(row);
    if (!server) break;
    servers.push(server[1] as string);
  }
  return servers;
}

async function inBatches<T, R>(items: T[], run: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let first = 0; first < items.length; first += PARALLEL_RUNS) {
    results.push(...(await Promise.all(items.slice(first, first + PARALLEL_RUNS).map(run))));
  }
  return results;
}

function stripColours(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\x1b\[[0-9;]*m/g, '');
}
