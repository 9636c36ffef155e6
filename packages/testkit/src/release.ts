/**
 * The release artifacts as users get them: packed by `scripts/release/release.js` from the
 * built files, once per set of inputs (kept in `.cache/release/KEY`, so every test file of a
 * run shares one), and the `tandem` command installed from its npm tarball into a sandbox.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import path from 'node:path';
import { after } from 'node:test';
import { missing } from './needs.js';
import { REPO_ROOT } from './repo-root.js';
import { Sandbox } from './sandbox.js';

export interface Release {
  version: string;
  dir: string;
  /** `tandem-ide-VERSION.tgz`: the `tandem` command. */
  npmTarball: string;
  /** `tandem-VERSION.tar`: the Emacs package. */
  emacsArchive: string;
  vsix: string;
}

/** What the release is packed from: a change in any of these packs it anew. */
const INPUTS = [
  'package.json',
  'LICENSE',
  'CHANGELOG.md',
  'emacs',
  'scripts/release/release.js',
  'scripts/release/manifests.js',
  'packages/cli/bin',
  'packages/cli/dist',
  'packages/cli/README.md',
  'packages/web/dist',
  'packages/vscode/dist/tandem-companion.vsix',
];

/** The release of the built checkout; undefined (skipped, or failing under CI) when not built. */
export function releaseArtifacts(): Release | undefined {
  const unbuilt = ['packages/cli/dist/tandem.js', 'packages/vscode/dist/tandem-companion.vsix']
    .filter((file) => !existsSync(path.join(REPO_ROOT, file)))
    .map((file) => `${file} is not built (npm run build)`);
  if (missing(['npm', 'tar'], unbuilt)) return undefined;

  const { version } = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
    version: string;
  };
  const dir = path.join(REPO_ROOT, '.cache/release', inputsKey());
  if (!existsSync(path.join(dir, 'SHA256SUMS'))) pack(dir);
  return {
    version,
    dir,
    npmTarball: path.join(dir, `tandem-ide-${version}.tgz`),
    emacsArchive: path.join(dir, `tandem-${version}.tar`),
    vsix: path.join(dir, `tandem-companion-${version}.vsix`),
  };
}

/**
 * Packs into a folder of its own, then renames it into place (a concurrent file packs too), and
 * removes the releases of earlier builds.
 */
function pack(dir: string): void {
  const scratch = `${dir}.${process.pid}`;
  const run = spawnSync(
    process.execPath,
    [path.join(REPO_ROOT, 'scripts/release/release.js'), '--out', scratch],
    { encoding: 'utf8', env: withoutNpmConfig(process.env) },
  );
  if (run.status !== 0) throw new Error(`the release did not pack:\n${run.stdout}${run.stderr}`);
  try {
    renameSync(scratch, dir);
  } catch (error) {
    if (!existsSync(path.join(dir, 'SHA256SUMS'))) throw error;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  const cache = path.dirname(dir);
  for (const name of readdirSync(cache)) {
    // Another file's scratch folder ends in its PID: it renames it into place itself.
    if (name !== path.basename(dir) && !/\.\d+$/.test(name)) {
      rmSync(path.join(cache, name), { recursive: true, force: true });
    }
  }
}

function inputsKey(): string {
  const hash = createHash('sha256');
  const add = (file: string): void => {
    const full = path.join(REPO_ROOT, file);
    if (statSync(full).isDirectory()) {
      for (const entry of readdirSync(full).sort()) add(path.join(file, entry));
    } else {
      hash.update(`${file}\0`).update(readFileSync(full)).update('\0');
    }
  };
  for (const input of INPUTS) if (existsSync(path.join(REPO_ROOT, input))) add(input);
  return hash.digest('hex').slice(0, 16);
}

/** The `tandem` command installed from the release's npm tarball, as a user installs it. */
export interface InstalledTandem {
  /** The empty npm prefix it was installed into. */
  prefix: string;
  /** The package's folder (`PREFIX/lib/node_modules/tandem-ide`). */
  packageDir: string;
  /** A user's PATH with that `tandem` first, and no folder of the checkout (nor another `tandem`). */
  path: string;
  /** The sandbox's environment with that PATH. */
  env: Record<string, string>;
}

/** `npm install -g` of the tarball into an empty prefix in the sandbox, offline. */
export function installTandem(sandbox: Sandbox, release: Release): InstalledTandem {
  const prefix = path.join(sandbox.root, 'npm-prefix');
  const PATH = userPath(path.join(prefix, 'bin'));
  const env = { ...withoutNpmConfig(sandbox.env()), PATH };
  const install = spawnSync(
    'npm',
    [
      'install',
      '--global',
      '--prefix',
      prefix,
      '--offline',
      '--no-audit',
      '--no-fund',
      release.npmTarball,
    ],
    { cwd: sandbox.home, env, encoding: 'utf8' },
  );
  if (install.status !== 0) {
    throw new Error(`npm install -g failed:\n${install.stdout}${install.stderr}`);
  }
  return { prefix, packageDir: path.join(prefix, 'lib/node_modules/tandem-ide'), path: PATH, env };
}

/**
 * The repository's files as a plugin manager clones them, into `dir`: every tracked file but
 * `packages/`, so no sidecar is built there and there is no node_modules.
 */
export function pluginClone(dir: string): string {
  const files = spawnSync('git', ['ls-files', '-z'], { cwd: REPO_ROOT, encoding: 'utf8' });
  if (files.status !== 0) throw new Error(`git ls-files failed: ${files.stderr}`);
  for (const file of files.stdout.split('\0')) {
    if (!file || file.startsWith('packages/') || !existsSync(path.join(REPO_ROOT, file))) continue;
    mkdirSync(path.join(dir, path.dirname(file)), { recursive: true });
    copyFileSync(path.join(REPO_ROOT, file), path.join(dir, file));
  }
  return dir;
}

/**
 * A user's PATH: `first`, then this process's folders but those inside the checkout (npm run
 * puts its node_modules/.bin there) and those holding a `tandem` (a linked checkout).
 */
export function userPath(first: string): string {
  const inCheckout = (dir: string) => path.resolve(dir).startsWith(`${REPO_ROOT}${path.sep}`);
  const others = (process.env.PATH ?? '')
    .split(path.delimiter)
    .filter((dir) => dir && !inCheckout(dir) && !existsSync(path.join(dir, 'tandem')));
  return [first, ...others].join(path.delimiter);
}

/** A user's PATH in `sandbox` on which there is no `tandem` at all. */
export function pathWithoutTandem(sandbox: Sandbox): string {
  return userPath(mkdirSync(path.join(sandbox.root, 'no-tandem'), { recursive: true })!);
}

/** npm run sets npm_config_* (the prefix among them): a user's npm sees none of them. */
function withoutNpmConfig(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter(
      (entry): entry is [string, string] =>
        entry[1] !== undefined && !/^npm_/i.test(entry[0]) && entry[0] !== 'INIT_CWD',
    ),
  );
}

/** A plugin manager's clone of the repository and the npm package's `tandem`, as a user has them. */
export interface UserInstall {
  release: Release;
  tandem: InstalledTandem;
  /** The clone, without `packages/`. */
  pluginDir: string;
}

/**
 * A `UserInstall` in a sandbox of its own, removed after the test file; undefined when the
 * release cannot be packed here (skipped, or failing under CI).
 */
export function userInstall(): UserInstall | undefined {
  const release = releaseArtifacts();
  if (!release) return undefined;
  const sandbox = new Sandbox('tandem-user-install-');
  after(() => sandbox.remove());
  const tandem = installTandem(sandbox, release);
  return { release, tandem, pluginDir: pluginClone(path.join(sandbox.root, 'plugin')) };
}

/** That an editor's status view says the release's version is running on the installed `tandem`. */
export function assertStatusNamesInstall(shown: string, { release, tandem }: UserInstall): void {
  assert.match(shown, new RegExp(`^Tandem ${release.version}: running`, 'm'));
  assert.ok(shown.includes(`Sidecar: ${tandem.prefix}/bin/tandem bridge`), shown);
}

/**
 * That Tandem, finding no `tandem`, failed with the message that says what to run, and that the
 * editor's `messages` hold it once. `close` ends a quoted name (Emacs quotes `so').
 */
export function assertNoTandemSaidOnce(
  error: string | null | undefined,
  messages: string,
  close = '`',
): void {
  const name = `\`tandem${close}`;
  assert.match(
    error ?? '',
    new RegExp(
      `^no ${name} command: run \`npm run build:sidecar${close} in \\S+, or put a ${name} on`,
    ),
  );
  assert.equal(messages.split(`no ${name} command`).length - 1, 1, messages);
}
