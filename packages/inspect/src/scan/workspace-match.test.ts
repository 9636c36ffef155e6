/**
 * The workspace checks against the clients' own functions, called in this process: Gemini CLI's
 * `validateWorkspacePath` and Qwen Code's `IdeClient.validateWorkspacePath`.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { clientModulePath, importClientModule } from '@tandem/testkit';
import {
  geminiWorkspaceCheck,
  qwenWorkspaceCheck,
  type WorkspaceCheck,
} from './workspace-match.js';

type Validate = (workspacePath: unknown, cwd: string) => { isValid: boolean; error?: string };

let geminiValidate: Validate;
let qwenValidate: Validate;
let root: string;
const startDir = process.cwd();

before(async () => {
  const gemini = await importClientModule<
    typeof import('@google/gemini-cli-core/dist/src/ide/ide-connection-utils.js')
  >('@google/gemini-cli-core/dist/src/ide/ide-connection-utils.js');
  geminiValidate = gemini.validateWorkspacePath as Validate;
  const qwen = (await import(pathToFileURL(qwenIdeClientChunk()).href)) as {
    IdeClient: { validateWorkspacePath: Validate };
  };
  qwenValidate = qwen.IdeClient.validateWorkspacePath.bind(qwen.IdeClient);
  root = mkdtempSync(join(tmpdir(), 'tandem-workspace-match-'));
  for (const dir of ['ws/src/deep', 'other', 'with space', 'a%20b', 'multi/one', 'multi/two']) {
    mkdirSync(join(root, dir), { recursive: true });
  }
  symlinkSync(join(root, 'ws'), join(root, 'link'));
  symlinkSync(join(root, 'missing-target'), join(root, 'dangling'));
});

after(() => {
  process.chdir(startDir);
  rmSync(root, { recursive: true, force: true });
});

/** The Qwen Code bundle's chunk that holds its IDE client (its name carries a content hash). */
function qwenIdeClientChunk(): string {
  const chunks = join(dirname(clientModulePath('@qwen-code/qwen-code/package.json')), 'chunks');
  const name = readdirSync(chunks).find(
    (file) =>
      file.endsWith('.js') &&
      readFileSync(join(chunks, file), 'utf8').includes('packages/core/src/ide/ide-client.ts'),
  );
  assert.ok(name, `no chunk in ${chunks} holds the IDE client`);
  return join(chunks, name);
}

/** [workspacePath, cwd] pairs, paths relative to the test's root unless absolute or a URI. */
function cases(): [unknown, string][] {
  const at = (path: string) => join(root, path);
  return [
    [at('ws'), at('ws')],
    [at('ws'), at('ws/src/deep')],
    [at('ws'), at('other')],
    [at('ws/src'), at('ws')],
    [`${at('ws')}/`, at('ws/src')],
    [at('link'), at('ws/src')],
    [at('ws'), at('link/src')],
    [`${at('other')}:${at('ws')}`, at('ws/src')],
    [`${at('multi/one')}:${at('multi/two')}`, at('multi')],
    [JSON.stringify([at('other'), at('ws')]), at('ws')],
    [JSON.stringify([at('other')]), at('ws')],
    [`  ${JSON.stringify([at('ws')])}`, at('ws')],
    ['[not json', at('ws')],
    [pathToFileURL(at('ws')).href, at('ws')],
    [pathToFileURL(at('with space')).href, at('with space')],
    [at('a%20b'), at('a%20b')],
    [`${at('other')}:`, at('ws')],
    ['relative/dir', at('ws')],
    [at('dangling'), at('ws')],
    [at('does/not/exist'), at('ws')],
    [`${at('ws')}x`, at('ws')],
    ['', at('ws')],
    [undefined, at('ws')],
  ];
}

function verdict(check: WorkspaceCheck): boolean {
  return check.outcome === 'match';
}

describe('workspace checks agree with the clients', () => {
  for (const [name, kind] of [
    ['Gemini CLI', 'gemini'],
    ['Qwen Code', 'qwen'],
  ] as const) {
    test(name, () => {
      // The clients' own functions are loaded by `before`.
      const validate = kind === 'gemini' ? geminiValidate : qwenValidate;
      const check = kind === 'gemini' ? geminiWorkspaceCheck : qwenWorkspaceCheck;
      for (const [workspacePath, cwd] of cases()) {
        process.chdir(cwd);
        const theirs = validate(workspacePath, cwd);
        const ours = check(workspacePath, cwd);
        const label = `${JSON.stringify(workspacePath)} from ${cwd}`;
        assert.equal(verdict(ours), theirs.isValid, label);
        if (ours.outcome === 'mismatch') {
          assert.ok(theirs.error?.endsWith(ours.roots.join(', ')), `${label}: ${theirs.error}`);
        }
      }
    });
  }

  test('a workspacePath that is not a string makes both clients throw', () => {
    const cwd = join(root, 'ws');
    for (const value of [[cwd], 42, null]) {
      assert.throws(() => geminiValidate(value, cwd));
      assert.throws(() => qwenValidate(value, cwd));
      assert.equal(geminiWorkspaceCheck(value, cwd).outcome, 'invalid');
      assert.equal(qwenWorkspaceCheck(value, cwd).outcome, 'invalid');
    }
  });
});
