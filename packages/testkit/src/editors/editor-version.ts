/**
 * Finds an editor of a given version and gives the command line that runs it: the system's
 * program as it is, or a program of a prepared root through `in-root.sh`. Tests state the
 * versions they must pass on; `TANDEM_NVIM=0.10` (or `TANDEM_VIM`, `TANDEM_EMACS`,
 * `TANDEM_HELIX`) narrows a run. A version not prepared here skips with a printed reason; under
 * `CI` it fails.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { installed } from '../needs.js';
import {
  EDITORS,
  matchesLabel,
  type EditorName,
  type Suite,
  type VersionSource,
} from './registry.js';

const IN_ROOT = fileURLToPath(new URL('./in-root.sh', import.meta.url));

/** One editor of one version, ready to run. */
export interface EditorVersion {
  editor: EditorName;
  /** The label the tests use: `0.10`, `newest`. */
  label: string;
  /** The version the program reports: `0.10.4`. */
  version: string;
  /** For test names: `Neovim 0.10.4`. */
  name: string;
  /** The command line (program and first arguments) that runs `program` of this version. */
  command(program?: string): [string, ...string[]];
}

/** Where `scripts/editor-roots.sh` keeps its roots (the same default as the script). */
export function editorRoots(): string {
  const cache = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return process.env.TANDEM_EDITOR_ROOTS || path.join(cache, 'tandem', 'editor-roots');
}

/** An editor ready to run, or why it is not. */
export type Found =
  { editor: EditorVersion; reason?: undefined } | { editor?: undefined; reason: string };

const found = new Map<string, Found>();

/** The editor of `label`, or why it cannot run here (each looked up once per process). */
export function findEditor(editor: EditorName, label: string): Found {
  const key = `${editor} ${label}`;
  let result = found.get(key);
  if (!result) {
    result = lookUp(editor, label);
    found.set(key, result);
  }
  return result;
}

/** The registry's entry for `label`; `named` says where the label came from, for the error. */
function sourceOf(editor: EditorName, label: string, named: string): VersionSource {
  const family = EDITORS[editor];
  const source = family.versions.find((version) => version.label === label);
  if (source) return source;
  const known = family.versions.map((version) => version.label).join(', ');
  throw new Error(`${named}: not a tested version of ${family.title} (known: ${known})`);
}

function lookUp(editor: EditorName, label: string): Found {
  const family = EDITORS[editor];
  const source = sourceOf(editor, label, label);
  const wanted = `${family.title} ${label}`;
  let command: EditorVersion['command'];
  if (source.from === 'system') {
    if (!installed(family.program)) return { reason: `${family.program} is not installed` };
    command = (program = family.program) => [program];
  } else {
    const root = path.join(editorRoots(), source.from);
    const notReady = rootMissing(root, source.from, family.program);
    if (notReady) return { reason: `${wanted}: ${notReady}` };
    command = (program = family.program) => [IN_ROOT, root, program];
  }
  const [program, ...args] = command();
  const run = spawnSync(program, [...args, '--version'], { encoding: 'utf8', timeout: 60_000 });
  const version = family.versionPattern.exec(run.stdout ?? '')?.[1];
  if (!version) {
    return { reason: `${wanted}: \`${command().join(' ')} --version\` failed: ${run.stderr}` };
  }
  if (!matchesLabel(label, version)) {
    return {
      reason: `${wanted}: ${source.from === 'system' ? 'the system' : source.from} has ${version}`,
    };
  }
  return {
    editor: { editor, label, version, name: `${family.title} ${version}`, command },
  };
}

function rootMissing(root: string, suite: Suite, program: string): string | undefined {
  const prepare = `prepare it with \`sudo scripts/editor-roots.sh ${suite}\``;
  if (!existsSync(path.join(root, '.tandem-root'))) return `${root} is not built; ${prepare}`;
  // Without ps, the CLIs' walk up the process tree fails inside the root.
  for (const needed of [program, 'ps', 'node']) {
    if (!existsSync(path.join(root, 'usr/bin', needed))) {
      return `${root} has no ${needed}; ${prepare} --rebuild`;
    }
  }
  return process.getuid?.() === 0 ? undefined : `running a program of ${root} needs root (chroot)`;
}

/** The labels `$TANDEM_<EDITOR>` selects (all when unset). */
function selected(editor: EditorName): string[] | undefined {
  const family = EDITORS[editor];
  const value = process.env[family.variable]?.trim();
  if (!value) return undefined;
  const labels = value.split(',').map((label) => label.trim());
  for (const label of labels) sourceOf(editor, label, `${family.variable}=${label}`);
  return labels;
}

/**
 * Locally: prints why, and registers a skipped test that says it. Under CI: registers a failing
 * test, so a version CI should have prepared cannot pass by skipping.
 */
function unavailable(name: string, reason: string): void {
  if (process.env.CI) {
    test(`${name} (${reason})`, () => {
      throw new Error(`${reason}: CI is set, so a missing editor fails the tests`);
    });
  } else {
    console.log(`# skipping: ${reason}`);
    test(name, { skip: reason }, () => undefined);
  }
}

/**
 * The versions of `labels` that this run selects and that are ready, oldest first. Those not
 * ready are reported by `unavailable` (skipped locally, failing under CI).
 */
export function editorVersions(editor: EditorName, labels: string[]): EditorVersion[] {
  const family = EDITORS[editor];
  const chosen = selected(editor);
  const wanted = labels.filter((label) => !chosen || chosen.includes(label));
  if (wanted.length === 0) {
    console.log(
      `# skipping: ${family.variable}=${chosen?.join(',')} selects none of ${labels.join(', ')}`,
    );
  }
  const ready: EditorVersion[] = [];
  for (const label of wanted) {
    const result = findEditor(editor, label);
    if (result.editor) ready.push(result.editor);
    else unavailable(`${family.title} ${label}`, result.reason);
  }
  return ready;
}

/** Registers `body`'s tests once per version of `labels` this run selects and has. */
export function forEachVersion(
  editor: EditorName,
  labels: string[],
  body: (editor: EditorVersion) => void,
): void {
  for (const version of editorVersions(editor, labels)) body(version);
}

/**
 * The version for tests that state none: the one `$TANDEM_<EDITOR>` names, or the oldest (the
 * system's). Does not report anything: the caller skips, or fails, with `reason`.
 */
export function defaultEditor(editor: EditorName): Found {
  const chosen = selected(editor);
  if (chosen && chosen.length !== 1) {
    throw new Error(`${EDITORS[editor].variable} must name one version for these tests`);
  }
  const [oldest] = EDITORS[editor].versions;
  return findEditor(editor, chosen?.[0] ?? oldest!.label);
}
