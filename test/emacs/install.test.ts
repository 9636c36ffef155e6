/**
 * The install snippets of `emacs/README.md`, each run as written in real batch Emacs with a
 * private HOME (so `~/.emacs.d/elpa` is the test's): `use-package` with `:load-path` (every
 * version; Emacs 28 takes Debian's elpa-use-package), `package-vc-install-from-checkout` and
 * `package-vc-install` with `:lisp-dir "emacs"` (Emacs 29+), `use-package` with `:vc` (Emacs
 * 30+), these two with the release's npm package as the `tandem` on the PATH (their clones have
 * no sidecar built). The clone is `~/tandem`, as the quick start makes it. After each install a second
 * Emacs, as the next session would start, finds the commands autoloaded, turns `tandem-mode` on
 * (the real sidecar writes the discovery files; the real Gemini CLI client connects) and off
 * (the files are gone).
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { test, type TestContext } from 'node:test';
import {
  EMACS_PACKAGE_DIR,
  emacsCommand,
  emacsSkipReason,
  emacsVersion,
  installTandem,
  lispString,
  missing,
  realClientIn,
  releaseArtifacts,
  REPO_ROOT,
  Sandbox,
  TANDEM,
  waitFor,
} from '@tandem/testkit';

const skip = emacsSkipReason({ sidecar: true }) || missing(['git']);
/** The release, whose npm package is the `tandem` on the PATH of the package-vc installs. */
const release = skip ? undefined : releaseArtifacts();
const major = skip ? 0 : Number(emacsVersion().version.split('.')[0]);
const README = readFileSync(path.join(EMACS_PACKAGE_DIR, 'README.md'), 'utf8');

/** The commands a user calls before anything of Tandem is loaded. */
const COMMANDS = [
  'tandem-mode',
  'tandem-status',
  'tandem-doctor',
  'tandem-env',
  'tandem-run-gemini',
  'tandem-run-qwen',
  'tandem-run-claude',
  'tandem-send-to-claude',
];

/** The snippets of emacs/README.md, word for word. */
const SNIPPETS = {
  loadPath: `(use-package tandem
  :load-path "~/tandem/emacs"
  :commands (${COMMANDS.join(' ')}))`,
  fromCheckout: `(package-vc-install-from-checkout "~/tandem/emacs" "tandem")`,
  vcInstall: `(package-vc-install \`(tandem :url ,(expand-file-name "~/tandem") :lisp-dir "emacs"))`,
  useVc: `(use-package tandem
  :vc (:url "/home/you/tandem" :lisp-dir "emacs" :rev :newest)
  :defer t)`,
};

/** Fails unless the README shows `snippet` as it is. */
function documented(snippet: string): string {
  assert.ok(README.includes(snippet), `emacs/README.md does not show:\n${snippet}`);
  return snippet;
}

interface Setup {
  sandbox: Sandbox;
  /** A file of the workspace, where the user turns `tandem-mode` on. */
  file: string;
  /** The environment of every Emacs of the test. */
  env: Record<string, string>;
}

/**
 * A sandbox whose `~/tandem` is a clone as the quick start leaves it: a git repository whose
 * `emacs/` holds this working tree's package (copied rather than cloned from the checkout, so
 * uncommitted work is what gets tested), with the built sidecar at `packages/cli/dist`, which
 * git ignores as in this repository (a link to this checkout's build). `~/.emacs.d` exists, as
 * for anyone who has used Emacs (package-vc writes its list of projects there). With
 * `tandemOnPath`, the release's npm package is installed too, its `tandem` on the PATH.
 */
function prepare(t: TestContext, { tandemOnPath = false } = {}): Setup {
  const sandbox = new Sandbox();
  t.after(() => sandbox.remove());
  const clone = path.join(sandbox.home, 'tandem');
  cpSync(EMACS_PACKAGE_DIR, path.join(clone, 'emacs'), {
    recursive: true,
    filter: (source) => !/\.elc$|-(autoloads|pkg)\.el$/.test(source),
  });
  cpSync(path.join(REPO_ROOT, '.gitignore'), path.join(clone, '.gitignore'));
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=Tandem', '-c', 'user.email=tandem@localhost', ...args], {
      cwd: clone,
      stdio: 'pipe',
    });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'The Emacs package');
  mkdirSync(path.join(clone, 'packages', 'cli'), { recursive: true });
  symlinkSync(path.dirname(TANDEM), path.join(clone, 'packages', 'cli', 'dist'));
  mkdirSync(path.join(sandbox.home, '.emacs.d'));
  const file = path.join(sandbox.workspace, 'notes.txt');
  writeFileSync(file, 'first line\n');
  const env = tandemOnPath ? installTandem(sandbox, release!).env : sandbox.env();
  return { sandbox, file, env };
}

/** No package archive: none is reachable here, and Tandem needs none. */
const NO_ARCHIVES = '(progn (require (quote package)) (setq package-archives nil))';

/**
 * Batch Emacs as the user's own would start without their init file: the system's startup files
 * run (Debian's make its elpa-* packages, e.g. use-package for Emacs 28, installable), Tandem is
 * not on the load path. The forms run in order.
 */
function batchArgs(forms: string[]): string[] {
  return [
    '-q',
    '--batch',
    '--eval',
    '(setq native-comp-deferred-compilation nil)',
    '--eval',
    NO_ARCHIVES,
    ...forms.flatMap((form) => ['--eval', form]),
  ];
}

/** Runs batch Emacs with `forms` to its end; its output. Fails the test if Emacs does. */
function install({ sandbox, env }: Setup, ...forms: string[]): string {
  const [program, ...prefix] = emacsCommand();
  const run = spawnSync(program!, [...prefix, ...batchArgs(forms)], {
    cwd: sandbox.workspace,
    env,
    encoding: 'utf8',
    timeout: 300_000,
  });
  const output = `${run.stdout}${run.stderr}`;
  assert.equal(run.status, 0, output);
  assert.match(output, /VC package .tandem. installed/, output);
  return output;
}

/**
 * Asserts that the package's own files were byte-compiled in `lispDir` without a word (its
 * ERT suites, compiled too by package-vc, are not the package) and that Emacs loads them.
 */
function assertCompiled(output: string, lispDir: string): void {
  const sections = output.split(/^(?=Compiling )/m);
  for (const name of readdirSync(EMACS_PACKAGE_DIR).filter((file) => file.endsWith('.el'))) {
    const section = sections.find((text) =>
      text.startsWith(`Compiling ${path.join(lispDir, name)}...`),
    );
    assert.ok(section, `${name} was not compiled:\n${output}`);
    assert.doesNotMatch(section.split('\n').slice(1).join('\n'), /Warning|Error/, section);
    assert.ok(existsSync(path.join(lispDir, `${name}c`)), `${name}c is missing`);
  }
}

/** The discovery files in the sandbox: Gemini's, the Qwen locks and Claude Code's. */

interface Report {
  loaded: boolean;
  autoloaded: string[];
  library: string;
  state: string;
  error: string | null;
  port: number | null;
  files: string[];
}

/**
 * The next session: a new Emacs runs `init` (what the user's init file holds), then, in a
 * buffer of the workspace, reports what is defined, turns `tandem-mode` on, reports again, and
 * turns it off once the test says so. Between, the test checks the discovery files and
 * connects the real Gemini CLI client. Returns the file Tandem was loaded from.
 */
async function useInNextSession({ sandbox, file, env }: Setup, ...init: string[]): Promise<string> {
  const off = path.join(sandbox.root, 'turn-off');
  // `message`: batch Emacs writes it to stderr at once (stdout it keeps until it ends).
  const report = (tag: string, value: string) =>
    `(message "${tag} %s" (base64-encode-string (encode-coding-string (json-encode ${value}) 'utf-8) t))`;
  const session = `(progn
    (require 'json)
    ${report(
      'BEFORE',
      `(list (cons 'loaded (if (featurep 'tandem) t :json-false))
             (cons 'autoloaded (vconcat (seq-filter (lambda (f) (autoloadp (symbol-function f)))
                                                    '(${COMMANDS.join(' ')})))))`,
    )}
    (find-file ${lispString(file)})
    (tandem-mode 1)
    (let ((deadline (+ (float-time) 120)))
      (while (and (eq (tandem-session-state tandem--session) 'starting) (< (float-time) deadline))
        (accept-process-output nil 0.1)))
    ${report(
      'ON',
      `(let-alist (tandem-status-data)
         (list (cons 'library (locate-library "tandem")) (cons 'state .state) (cons 'error .error)
               (cons 'port .port) (cons 'files (vconcat .discovery-files))))`,
    )}
    (let ((deadline (+ (float-time) 300)))
      (while (and (not (file-exists-p ${lispString(off)})) (< (float-time) deadline))
        (accept-process-output nil 0.1)))
    (tandem-mode -1)
    ${report('OFF', `(list (cons 'state (alist-get 'state (tandem-status-data))))`)})`;
  const [program, ...prefix] = emacsCommand();
  const emacs = spawn(program!, [...prefix, ...batchArgs([...init, session])], {
    cwd: sandbox.workspace,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  emacs.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => emacs.on('close', resolve));
  const reports = new Map<string, Report>();
  createInterface({ input: emacs.stderr }).on('line', (line) => {
    output += `${line}\n`;
    const [tag, data] = line.split(' ');
    if (tag && data && /^(BEFORE|ON|OFF)$/.test(tag)) {
      reports.set(tag, JSON.parse(Buffer.from(data, 'base64').toString('utf8')) as Report);
    }
  });
  const reported = (tag: string) =>
    waitFor(
      `Emacs to report ${tag}`,
      async () => {
        if (emacs.exitCode !== null && !reports.has(tag)) {
          throw new Error(`Emacs ended (${emacs.exitCode})`);
        }
        return reports.get(tag);
      },
      180_000,
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}; Emacs said:\n${output}`);
    });
  try {
    const before = await reported('BEFORE');
    assert.equal(before.loaded, false, `Tandem was loaded before its first use:\n${output}`);
    assert.deepEqual(before.autoloaded, COMMANDS, output);
    const on = await reported('ON');
    assert.equal(on.state, 'running', `${on.error}\n${output}`);
    assert.deepEqual([...on.files].sort(), sandbox.discoveryFiles().sort());
    const gemini = on.files.find((name) => name.includes('gemini-ide-server-'));
    assert.ok(gemini, output);
    assert.equal(JSON.parse(readFileSync(gemini, 'utf8')).port, on.port);
    const client = await realClientIn(sandbox, 'gemini');
    try {
      assert.equal((await client.connect()).status, 'connected');
    } finally {
      await client.kill();
    }
    writeFileSync(off, '');
    assert.equal((await reported('OFF')).state, 'stopped');
    assert.equal(await exited, 0, output);
    assert.deepEqual(sandbox.discoveryFiles(), []);
    return on.library;
  } finally {
    if (emacs.exitCode === null) {
      // After a failure: the way out Emacs was written for, then the sure one.
      writeFileSync(off, '');
      await waitFor(
        'Emacs to end',
        () => (emacs.exitCode !== null ? true : undefined),
        30_000,
      ).catch(() => emacs.kill('SIGKILL'));
    }
  }
}

/** Why git, which package-vc clones with, cannot run beside this Emacs, or false. */
function gitMissing(): string | false {
  const [program, ...prefix] = emacsCommand('git');
  if (spawnSync(program!, [...prefix, '--version']).status === 0) return false;
  return missing([], [`${emacsVersion().name} has no git; run sudo scripts/editor-roots.sh`]);
}

/** Whether Debian's elpa-use-package is installed (Emacs 28 has no use-package of its own). */
function debianUsePackage(): boolean {
  const elpa = '/usr/share/emacs/site-lisp/elpa';
  return existsSync(elpa) && readdirSync(elpa).some((name) => name.startsWith('use-package-'));
}

test('use-package with :load-path "~/tandem/emacs"', { skip, timeout: 600_000 }, async (t) => {
  if (major < 29 && !debianUsePackage()) {
    if (process.env.CI)
      throw new Error('elpa-use-package is not installed (required when CI is set)');
    t.skip('elpa-use-package is not installed (Emacs 28 has no use-package of its own)');
    return;
  }
  const setup = prepare(t);
  const library = await useInNextSession(
    setup,
    // Emacs 28 has no use-package of its own: this activates Debian's elpa-use-package, as
    // Emacs does before reading an init file.
    '(package-initialize)',
    documented(SNIPPETS.loadPath),
  );
  assert.equal(library, path.join(setup.sandbox.home, 'tandem', 'emacs', 'tandem.el'));
});

if (skip || major >= 29) {
  test(
    'package-vc-install-from-checkout "~/tandem/emacs": compiled, autoloaded, working',
    { skip, timeout: 600_000 },
    async (t) => {
      const setup = prepare(t);
      const output = install(setup, documented(SNIPPETS.fromCheckout));
      const installed = path.join(setup.sandbox.home, '.emacs.d', 'elpa', 'tandem');
      assertCompiled(output, installed);
      // The sidecar is found beside the clone's emacs/ folder, with no setting.
      const library = await useInNextSession(setup, '(package-initialize)');
      assert.equal(library, path.join(installed, 'tandem.elc'));
    },
  );

  test(
    'package-vc-install with :lisp-dir "emacs": cloned, compiled, autoloaded, working',
    { skip: skip || gitMissing(), timeout: 600_000 },
    async (t) => {
      const setup = prepare(t, { tandemOnPath: true });
      const output = install(setup, documented(SNIPPETS.vcInstall));
      const installed = path.join(setup.sandbox.home, '.emacs.d', 'elpa', 'tandem', 'emacs');
      assertCompiled(output, installed);
      // Its clone has no built sidecar: the tandem on the PATH runs.
      const library = await useInNextSession(setup, '(package-initialize)');
      assert.equal(library, path.join(installed, 'tandem.elc'));
    },
  );
} else {
  console.log(`# package-vc: Emacs 29 or newer has it (this is ${emacsVersion().name})`);
}

if (skip || major >= 30) {
  test(
    'use-package with :vc: cloned, compiled, autoloaded, working',
    { skip: skip || gitMissing(), timeout: 600_000 },
    async (t) => {
      const setup = prepare(t, { tandemOnPath: true });
      // git takes :url as written: the README's placeholder is the clone's full path.
      const snippet = documented(SNIPPETS.useVc).replace('/home/you', setup.sandbox.home);
      const output = install(setup, snippet);
      const installed = path.join(setup.sandbox.home, '.emacs.d', 'elpa', 'tandem', 'emacs');
      assertCompiled(output, installed);
      const library = await useInNextSession(setup, '(package-initialize)', snippet);
      assert.equal(library, path.join(installed, 'tandem.elc'));
    },
  );
} else {
  console.log(`# use-package :vc: Emacs 30 or newer has it (this is ${emacsVersion().name})`);
}
