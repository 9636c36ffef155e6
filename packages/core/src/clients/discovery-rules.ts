import { userInfo } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { CLAUDE_PORT_VARIABLE, CLAUDE_SKIP_EXTENSION_INSTALL } from './claude-rules.js';
import { containerTerminalVariables, type ContainerFacts } from './container-rules.js';

/**
 * How Gemini CLI and Qwen Code find a companion, for every client version Tandem serves
 * (docs/clients.md, "Discovery"): where they look, what each file is named and holds, the variables they read,
 * and how they compute the editor's PID. The writer (the engine), the readers (`doctor`, `env`,
 * `check`) and the tests all take these rules from here.
 */

/** Where the CLIs look, computed from an environment and a working directory as they do it. */
export interface DiscoveryLocations {
  /** `os.tmpdir()` of a CLI started with this environment. */
  tmpDir: string;
  /** Gemini CLI's discovery files (and Qwen Code 0.1's): `<tmpDir>/gemini/ide`. */
  geminiIdeDir: string;
  /** `$QWEN_HOME` (`~`, `~/` or `~\` in the home, else from the working directory), else `~/.qwen`. */
  qwenHome: string;
  /** Qwen Code's lock files: `<qwenHome>/ide`. */
  qwenIdeDir: string;
  /** The user's home (`$HOME`, else the account's). */
  home: string;
  /** Gemini CLI's home for its settings: `$GEMINI_CLI_HOME`, else the user's home. */
  geminiHome: string;
}

export function discoveryLocations(
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): DiscoveryLocations {
  const home = env.HOME || userInfo().homedir;
  const tmpDir = nodeTmpDir(env);
  const qwenHome = env.QWEN_HOME ? expandQwenHome(env.QWEN_HOME, home, cwd) : join(home, '.qwen');
  return {
    tmpDir,
    geminiIdeDir: join(tmpDir, 'gemini', 'ide'),
    qwenHome,
    qwenIdeDir: join(qwenHome, 'ide'),
    home,
    geminiHome: env.GEMINI_CLI_HOME || home,
  };
}

/** Node's `os.tmpdir()` on Linux and macOS, for any environment. */
function nodeTmpDir(env: NodeJS.ProcessEnv): string {
  const dir = env.TMPDIR || env.TMP || env.TEMP || '/tmp';
  return dir.length > 1 && dir.endsWith('/') ? dir.slice(0, -1) : dir;
}

/**
 * Qwen Code (0.24): `~`, `~/…` and `~\…` lie in the home, the rest split on either slash;
 * any other value is resolved from the working directory, backslashes kept.
 */
function expandQwenHome(value: string, home: string, cwd: string): string {
  if (value === '~' || value.startsWith('~/') || value.startsWith('~\\')) {
    return join(home, ...value.slice(2).split(/[/\\]+/));
  }
  return resolve(cwd, value);
}

/**
 * The kinds of discovery file, each named after where it lives and who reads it:
 * - `gemini`: `<tmp>/gemini/ide/gemini-ide-server-<PID>-<PORT>.json`, Gemini CLI.
 * - `gemini-pid`: `<tmp>/gemini/ide/gemini-ide-server-<PID>.json`, written by older companions;
 *   Gemini CLI reads it first when PID is its IDE PID.
 * - `qwen-lock`: `<qwenHome>/ide/<PORT>.lock`, Qwen Code ≥ 0.5.
 * - `qwen-tmp`: `<tmp>/qwen-code-ide-server-<PID or PORT>.json`, Qwen Code's legacy lookup.
 * - `qwen-legacy`: `<tmp>/gemini/ide/qwen-code-ide-server-<PID>-<PORT>.json`, Qwen Code 0.1.
 */
export type DiscoveryKind = 'gemini' | 'gemini-pid' | 'qwen-lock' | 'qwen-tmp' | 'qwen-legacy';

/** The numbers a discovery file's name carries. */
export interface NameNumbers {
  pid?: number;
  port?: number;
}

interface KindRule {
  dir: keyof Pick<DiscoveryLocations, 'geminiIdeDir' | 'qwenIdeDir' | 'tmpDir'>;
  pattern: RegExp;
  /** The numbers in a name that matched `pattern`. */
  numbers(match: RegExpExecArray): NameNumbers;
  name(numbers: Required<NameNumbers>): string;
  /** Which CLIs, of which versions, read it. */
  readBy: string;
}

/** In the order the CLIs read them, which breaks ties in Gemini CLI's choice. */
export const DISCOVERY_KINDS: Record<DiscoveryKind, KindRule> = {
  gemini: {
    readBy: 'Gemini CLI',
    dir: 'geminiIdeDir',
    pattern: /^gemini-ide-server-(\d+)-(\d+)\.json$/,
    numbers: (m) => ({ pid: Number(m[1]), port: Number(m[2]) }),
    name: ({ pid, port }) => `gemini-ide-server-${pid}-${port}.json`,
  },
  'gemini-pid': {
    readBy: 'Gemini CLI, when the PID in its name is the IDE PID',
    dir: 'geminiIdeDir',
    pattern: /^gemini-ide-server-(\d+)\.json$/,
    numbers: (m) => ({ pid: Number(m[1]) }),
    name: ({ pid }) => `gemini-ide-server-${pid}.json`,
  },
  'qwen-legacy': {
    readBy: 'Qwen Code 0.1 only',
    dir: 'geminiIdeDir',
    pattern: /^qwen-code-ide-server-(\d+)-(\d+)\.json$/,
    numbers: (m) => ({ pid: Number(m[1]), port: Number(m[2]) }),
    name: ({ pid, port }) => `qwen-code-ide-server-${pid}-${port}.json`,
  },
  'qwen-lock': {
    readBy: 'Qwen Code 0.5 and later',
    dir: 'qwenIdeDir',
    pattern: /^(\d+)\.lock$/,
    numbers: (m) => ({ port: Number(m[1]) }),
    name: ({ port }) => `${port}.lock`,
  },
  'qwen-tmp': {
    readBy: 'Qwen Code, when the number in its name is the IDE PID or QWEN_CODE_IDE_SERVER_PORT',
    dir: 'tmpDir',
    pattern: /^qwen-code-ide-server-(\d+)\.json$/,
    numbers: () => ({}),
    name: ({ pid }) => `qwen-code-ide-server-${pid}.json`,
  },
};

/**
 * Whether a CLI may be pointed at a discovery file (`tandem env`'s exports, the companion
 * `tandem check` judges): only at one of the user's own. Anyone can write into a shared folder
 * such as `/tmp/gemini/ide`; Gemini CLI reads no other user's file, and Qwen Code, which reads
 * any, must not be led to one.
 */
export function mayPointTo(file: { ownedByUser: boolean }): boolean {
  return file.ownedByUser;
}

/** Where a discovery file of `kind` with these numbers lives. */
export function discoveryFilePath(
  locations: DiscoveryLocations,
  kind: DiscoveryKind,
  numbers: Required<NameNumbers>,
): string {
  const rule = DISCOVERY_KINDS[kind];
  return join(locations[rule.dir], rule.name(numbers));
}

/** The editor, as discovery data names it: what lets a CLI connect to an editor it does not know. */
export interface IdeInfo {
  name: string;
  displayName: string;
}

/** What a companion puts in its discovery files. */
export interface DiscoveryData {
  port: number;
  authToken: string;
  workspaceFolders: string[];
  ideInfo: IdeInfo;
  /** The editor's own live PID: Qwen Code deletes a lock file whose `ppid` is dead. */
  editorPid: number;
}

/** The JSON each CLI reads from a file of `kind` (only the kinds a companion writes). */
export function discoveryContent(
  kind: 'gemini' | 'qwen-lock' | 'qwen-legacy',
  data: DiscoveryData,
): Record<string, unknown> {
  const common = { port: data.port, authToken: data.authToken, ideInfo: data.ideInfo };
  const joined = data.workspaceFolders.join(delimiter);
  switch (kind) {
    case 'gemini':
      return { ...common, workspacePath: joined };
    case 'qwen-lock':
      return {
        ...common,
        // Qwen Code also takes a JSON array, the only safe form when a path holds the delimiter.
        workspacePath: data.workspaceFolders.some((folder) => folder.includes(delimiter))
          ? JSON.stringify(data.workspaceFolders)
          : joined,
        ppid: data.editorPid,
        // Named in the specification; no client reads it, and it costs nothing.
        ideName: data.ideInfo.displayName,
      };
    case 'qwen-legacy':
      return { ...common, workspacePath: joined, ppid: data.editorPid };
  }
}

/** The environment variables the CLIs read, each named once. */
export const CLI_VARIABLES = {
  gemini: {
    port: 'GEMINI_CLI_IDE_SERVER_PORT',
    workspacePath: 'GEMINI_CLI_IDE_WORKSPACE_PATH',
    /** Used when the file carries no token. */
    authToken: 'GEMINI_CLI_IDE_AUTH_TOKEN',
    /** Overrides the process walk (≥ 0.36). */
    idePid: 'GEMINI_CLI_IDE_PID',
    stdioCommand: 'GEMINI_CLI_IDE_SERVER_STDIO_COMMAND',
    stdioArgs: 'GEMINI_CLI_IDE_SERVER_STDIO_ARGS',
  },
  qwen: {
    port: 'QWEN_CODE_IDE_SERVER_PORT',
    workspacePath: 'QWEN_CODE_IDE_WORKSPACE_PATH',
    stdioCommand: 'QWEN_CODE_IDE_SERVER_STDIO_COMMAND',
    stdioArgs: 'QWEN_CODE_IDE_SERVER_STDIO_ARGS',
  },
  claude: {
    /** Claude Code connects by itself to the companion listening on this port. */
    port: CLAUDE_PORT_VARIABLE,
  },
} as const;

/** Every variable above, for code that must clear or report them all. */
export const ALL_CLI_VARIABLES: readonly string[] = [
  ...Object.values(CLI_VARIABLES.gemini),
  ...Object.values(CLI_VARIABLES.qwen),
  ...Object.values(CLI_VARIABLES.claude),
];

/**
 * The variables an editor exports to its terminals so that a CLI started there connects to it,
 * for every version: Gemini CLI prefers, among the files matching its folder, the one with this
 * port (≥ 0.36) and orders the file named after this PID first; Qwen Code 0.5–0.10 find the lock
 * file only through the port, later ones read it first. No token travels this way (the files
 * carry it), and `TERM_PROGRAM` is never faked: `ideInfo` names the editor. In a container
 * (`container`, of the terminal's machine), Gemini CLI is also told to dial 127.0.0.1: the
 * terminal runs in the editor's container. Claude Code connects by itself to the port named by
 * its variable (`ports.claude`, its own listener's), and is kept from installing Anthropic's
 * extension. `clis` limits them to the CLIs this editor serves.
 */
export function terminalVariables(
  ports: { mcp: number; claude?: number },
  workspaceFolders: string[],
  geminiIdePid: number,
  container: ContainerFacts = {},
  clis: readonly TerminalCli[] = ['gemini', 'qwen', 'claude'],
): Record<string, string> {
  const port = ports.mcp;
  const workspacePath = workspaceFolders.join(delimiter);
  return {
    ...(clis.includes('gemini') && {
      [CLI_VARIABLES.gemini.port]: String(port),
      [CLI_VARIABLES.gemini.workspacePath]: workspacePath,
      [CLI_VARIABLES.gemini.idePid]: String(geminiIdePid),
      ...containerTerminalVariables(container),
    }),
    ...(clis.includes('qwen') && {
      [CLI_VARIABLES.qwen.port]: String(port),
      [CLI_VARIABLES.qwen.workspacePath]: workspacePath,
    }),
    ...(clis.includes('claude') &&
      ports.claude !== undefined && {
        [CLI_VARIABLES.claude.port]: String(ports.claude),
        // Every editor's terminals, not only VS Code's: Claude Code takes a terminal for VS
        // Code's by TERM_PROGRAM, which a terminal editor started in VS Code passes on to its own.
        [CLAUDE_SKIP_EXTENSION_INSTALL.name]: CLAUDE_SKIP_EXTENSION_INSTALL.value,
      }),
  };
}

/** The CLIs a terminal's variables are for. */
export type TerminalCli = keyof typeof CLI_VARIABLES;

/** `GEMINI_CLI_IDE_PID` as Gemini CLI reads it: a positive integer, else ignored. */
export function geminiIdePidFromEnv(env: NodeJS.ProcessEnv): number | undefined {
  const pid = parseInt(env[CLI_VARIABLES.gemini.idePid] ?? '', 10);
  return Number.isNaN(pid) || pid <= 0 ? undefined : pid;
}

/** The process names both CLIs take for "the terminal's shell" (a login `-bash` does not count). */
export const TERMINAL_SHELLS: ReadonlySet<string> = new Set([
  'zsh',
  'bash',
  'sh',
  'tcsh',
  'csh',
  'ksh',
  'fish',
  'dash',
]);

/**
 * The IDE PID both CLIs compute on Linux and macOS once their walk up the process tree reaches
 * the terminal's shell: the shell's grandparent if it is above init, else the shell's parent.
 */
export function idePidAboveShell(
  shellParent: number,
  shellGrandparent: number | undefined,
): number {
  return shellGrandparent !== undefined && shellGrandparent > 1 ? shellGrandparent : shellParent;
}
