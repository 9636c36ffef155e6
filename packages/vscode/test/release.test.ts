/**
 * The release's .vsix as a user installs it: `--install-extension` into code-server 4.100.3 with
 * a fresh HOME and no checkout on the PATH. It carries the version and the changelog, and one
 * diff proposed by the real Gemini CLI client is shown, accepted, and answered.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  CodeServer,
  codeServerSkipReason,
  realClientIn,
  releaseArtifacts,
  Sandbox,
  userPath,
} from '@tandem/testkit';

const skip = codeServerSkipReason();
const release = skip ? undefined : releaseArtifacts();

describe('the release .vsix in code-server', { skip: skip || !release, timeout: 600_000 }, () => {
  const sandbox = new Sandbox('tandem-vscode-release-');
  let vscode: CodeServer;

  before(async () => {
    await writeFile(path.join(sandbox.workspace, 'notes.txt'), 'first line\n');
    const empty = path.join(sandbox.root, 'bin');
    mkdirSync(empty);
    vscode = await CodeServer.start(sandbox, {
      vsix: release!.vsix,
      env: { PATH: userPath(empty) },
    });
  });

  after(async () => {
    await vscode?.stop();
    sandbox.remove();
  });

  test('it is installed with its version and its changelog', () => {
    const installed = path.join(
      sandbox.root,
      'code-server/extensions',
      `tandem.tandem-companion-${release!.version}`,
    );
    const manifest = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8'));
    assert.equal(manifest.version, release!.version);
    const changelog = path.join(installed, 'changelog.md');
    assert.ok(existsSync(changelog));
    assert.ok(readFileSync(changelog, 'utf8').includes(`## [${release!.version}]`));
  });

  test('a diff from the real Gemini CLI client is shown and accepted', async () => {
    await vscode.waitForDiscovery();
    const client = await realClientIn(sandbox, 'gemini');
    try {
      assert.equal((await client.connect()).status, 'connected');
      const file = path.join(sandbox.workspace, 'notes.txt');
      const diff = client.openDiff(file, 'first line\nchanged\n');
      await diff.opened;
      await vscode.waitForDiff('Gemini CLI');
      await vscode.clickTitleAction('Accept the Proposed Edit');
      assert.deepEqual(await diff.result, { status: 'accepted', content: 'first line\nchanged\n' });
    } finally {
      await client.kill();
    }
  });
});
