import { userInfo } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

/**
 * Where the CLIs look for discovery data and settings, computed from an environment and a
 * working directory the way the CLIs compute them (so a test or a user can point it anywhere).
 */
export interface Locations {
  /** `os.tmpdir()` of a CLI started with this environment. */
  tmpDir: string;
  /** Gemini CLI's discovery files (and Qwen Code 0.1's): `<tmpDir>/gemini/ide`. */
  geminiIdeDir: string;
  /** `$QWEN_HOME` (a leading `~` expanded, relative to the working directory), else `~/.qwen`. */
  qwenHome: string;
  /** Qwen Code's lock files: `<qwenHome>/ide`. */
  qwenIdeDir: string;
  /** The user's home (`$HOME`, else the account's). */
  home: string;
  /** Gemini CLI's home for its settings: `$GEMINI_CLI_HOME`, else the user's home. */
  geminiHome: string;
}

export function locationsFor(env: NodeJS.ProcessEnv, cwd: string): Locations {
  const home = env.HOME || userInfo().homedir;
  const tmpDir = posixTmpDir(env);
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

/** Node's `os.tmpdir()` on Linux and macOS. */
function posixTmpDir(env: NodeJS.ProcessEnv): string {
  const dir = env.TMPDIR || env.TMP || env.TEMP || '/tmp';
  return dir.length > 1 && dir.endsWith('/') ? dir.slice(0, -1) : dir;
}

function expandQwenHome(value: string, home: string, cwd: string): string {
  let dir = value;
  if (dir === '~' || dir.startsWith('~/')) dir = join(home, dir.slice(2));
  return isAbsolute(dir) ? dir : resolve(cwd, dir);
}
