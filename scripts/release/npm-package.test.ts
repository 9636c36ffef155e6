/**
 * The `tandem` command from its npm tarball, installed as a user installs it: `npm install -g`
 * into an empty prefix, a fresh HOME, no checkout on the PATH.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  childOutput,
  installTandem,
  releaseArtifacts,
  REPO_ROOT,
  Sandbox,
  waitFor,
} from '@tandem/testkit';

const release = releaseArtifacts();

test('the npm package, installed globally from its tarball', { skip: !release }, async (t) => {
  const sandbox = new Sandbox('tandem-npm-package-');
  t.after(() => sandbox.remove());
  const tandem = installTandem(sandbox, release!);
  const run = (...args: string[]) =>
    spawnSync('tandem', args, { cwd: sandbox.workspace, env: tandem.env, encoding: 'utf8' });

  await t.test('holds the bundled command and no dependencies', () => {
    const manifest = JSON.parse(readFileSync(join(tandem.packageDir, 'package.json'), 'utf8'));
    assert.deepEqual(manifest.bin, { tandem: 'dist/tandem.js' });
    assert.equal(manifest.dependencies, undefined);
    assert.equal(manifest.engines.node, '>=20');
    assert.equal(existsSync(join(tandem.packageDir, 'node_modules')), false);
    for (const file of [
      'README.md',
      'LICENSE',
      'CHANGELOG.md',
      'dist/tandem.js',
      'dist/package.json',
    ]) {
      assert.ok(existsSync(join(tandem.packageDir, file)), file);
    }
    const onPath = spawnSync('sh', ['-c', 'command -v tandem'], {
      env: tandem.env,
      encoding: 'utf8',
    });
    assert.equal(onPath.stdout.trim(), join(tandem.prefix, 'bin/tandem'));
  });

  await t.test(
    'the size the README and the help files give is the tarball npm packs, within a tenth',
    () => {
      const read = (file: string) => readFileSync(join(REPO_ROOT, file), 'utf8');
      const figures = {
        'README.md': /\| `tandem-ide-VERSION\.tgz` \|[^|]*\| ([\d.]+) MB/,
        'doc/tandem.txt': /`npm install -g tandem-ide` \(([\d.]+) MB\)/,
        'doc/tandem-vim.txt': /`npm install -g tandem-ide` \(([\d.]+) MB\)/,
        'emacs/README.md': /`npm install -g tandem-ide` \(a ([\d.]+) MB download/,
      };
      // npm's own unit: its "package size" is in units of 1,000,000 bytes.
      const megabytes = statSync(release!.npmTarball).size / 1e6;
      const stated = Object.entries(figures).map(([file, pattern]) => {
        const figure = pattern.exec(read(file))?.[1];
        assert.ok(figure, `${file} gives no size of the npm package`);
        return [file, Number(figure)] as const;
      });
      assert.equal(new Set(stated.map(([, figure]) => figure)).size, 1, JSON.stringify(stated));
      const [, figure] = stated[0]!;
      assert.ok(Math.abs(figure - megabytes) <= 0.1, `${figure} MB stated, ${megabytes} MB packed`);
    },
  );

  await t.test('tandem --version prints the release version', () => {
    const { stdout, status } = run('--version');
    assert.equal(status, 0);
    assert.equal(stdout, `${release!.version}\n`);
  });

  await t.test('every command loads from the package', () => {
    for (const command of ['serve', 'bridge', 'lsp', 'env', 'doctor', 'check']) {
      const { stdout, stderr, status } = run(command, '--help');
      assert.equal(status, 0, `tandem ${command} --help: ${stderr}`);
      assert.match(stdout, new RegExp(`tandem ${command}`), command);
    }
  });

  await t.test('tandem doctor explains an empty folder, naming the command as `tandem`', () => {
    const { stdout, status } = run('doctor');
    assert.equal(status, 1, stdout); // nothing connects: no editor has the folder
    assert.match(stdout, /Gemini CLI does not connect; Qwen Code does not connect/);
    assert.ok(stdout.includes(`tandem serve ${sandbox.workspace}`), stdout);
  });

  await t.test('tandem serve serves its review page, and doctor finds it', async () => {
    const serve = spawn('tandem', ['serve', sandbox.workspace], {
      env: tandem.env,
      detached: true,
    });
    const { text: output, exited } = childOutput(serve);
    try {
      const url = await waitFor(
        'the review page URL',
        () => /Review page: (\S+)/.exec(output())?.[1],
      );
      // The installed command runs on the user's `node`, the run's (Node 20, and Node 24 in the
      // suite's second run of this file): the first on the PATH.
      assert.equal(readlinkSync(`/proc/${serve.pid}/exe`), realpathSync(process.execPath));
      const page = await fetch(url);
      assert.equal(page.status, 200);
      assert.match(await page.text(), /<script[^>]+assets\/app\.js/);

      const doctor = JSON.parse(run('doctor', '--json').stdout);
      const probes = doctor.files.map(
        (file: { probe?: { server?: unknown } }) => file.probe?.server,
      );
      assert.deepEqual(probes[0], { name: 'tandem', version: release!.version });
    } finally {
      process.kill(-serve.pid!, 'SIGTERM');
      assert.equal(await exited, 0, output());
    }
  });
});
