#!/usr/bin/env node
// `npm run release`: the artifacts users install, from what `npm run build` made, into one
// folder (dist/ of the repository, or --out DIR) with their SHA256SUMS:
//   tandem-ide-VERSION.tgz        the `tandem` command (npm install -g)
//   tandem-VERSION.tar            the Emacs package (M-x package-install-file)
//   tandem-companion-VERSION.vsix the VS Code extension
// Nothing here builds: a missing build is an error that names the command that makes it.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { emacsPackageDescription, npmPackageManifest } from './manifests.js';

const repository = fileURLToPath(new URL('../..', import.meta.url));
const from = (...parts) => join(repository, ...parts);

const { values } = parseArgs({ options: { out: { type: 'string' } } });
const out = resolve(values.out ?? from('dist'));
const rootPackage = JSON.parse(readFileSync(from('package.json'), 'utf8'));
const version = rootPackage.version;

const needed = {
  [from('packages/cli/dist/tandem.js')]: 'npm run build',
  [from('packages/web/dist/index.html')]: 'npm run build',
  [from('packages/vscode/dist/tandem-companion.vsix')]: 'npm run build',
};
for (const [file, command] of Object.entries(needed)) {
  if (!existsSync(file)) fail(`${file} is not built: run \`${command}\` first`);
}

const staging = mkdtempSync(join(tmpdir(), 'tandem-release-'));
try {
  mkdirSync(out, { recursive: true });
  const artifacts = [npmPackage(), emacsArchive(), vsix()];
  writeFileSync(
    join(out, 'SHA256SUMS'),
    artifacts.map((file) => `${sha256(file)}  ${basename(file)}\n`).join(''),
  );
  for (const file of artifacts) {
    process.stdout.write(
      `${join(out, basename(file))}  ${(statSync(file).size / 1e6).toFixed(1)} MB\n`,
    );
  }
  process.stdout.write(`${join(out, 'SHA256SUMS')}\n`);
} finally {
  rmSync(staging, { recursive: true, force: true });
}

/** The `tandem` command as an npm package: the bundle, the review page, no dependencies. */
function npmPackage() {
  const dir = join(staging, 'npm');
  const withoutMaps = (source) => !source.endsWith('.map');
  cpSync(from('packages/cli/dist'), join(dir, 'dist'), { recursive: true, filter: withoutMaps });
  // serve finds the page beside its bundle (packages/serve/src/serve-command.ts).
  cpSync(from('packages/web/dist'), join(dir, 'dist/commands/review-page'), {
    recursive: true,
    filter: withoutMaps,
  });
  cpSync(from('packages/cli/README.md'), join(dir, 'README.md'));
  cpSync(from('LICENSE'), join(dir, 'LICENSE'));
  cpSync(from('CHANGELOG.md'), join(dir, 'CHANGELOG.md'));
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify(npmPackageManifest(rootPackage), null, 2)}\n`,
  );
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--pack-destination', out], {
      cwd: dir,
      encoding: 'utf8',
    }),
  );
  return join(out, packed.filename);
}

/** The Emacs package as a tar archive that `package-install-file` takes. */
function emacsArchive() {
  const name = `tandem-${version}`;
  const dir = join(staging, name);
  mkdirSync(dir);
  for (const file of readdirSync(from('emacs')).filter((file) => file.endsWith('.el'))) {
    if (file === 'tandem-pkg.el' || file === 'tandem-autoloads.el') continue; // package-vc's
    cpSync(from('emacs', file), join(dir, file));
  }
  const main = readFileSync(from('emacs/tandem.el'), 'utf8');
  writeFileSync(join(dir, 'tandem-pkg.el'), emacsPackageDescription(main, version));
  const archive = join(out, `${name}.tar`);
  // ustar, sorted, without this machine's owners and times: the same sources give the same bytes.
  execFileSync('tar', [
    ...['--create', '--format=ustar', '--sort=name', '--owner=0', '--group=0', '--numeric-owner'],
    ...['--mtime=@0', `--file=${archive}`, `--directory=${staging}`, name],
  ]);
  return archive;
}

/** The extension that `npm run build` packaged, named with its version. */
function vsix() {
  const file = join(out, `tandem-companion-${version}.vsix`);
  cpSync(from('packages/vscode/dist/tandem-companion.vsix'), file);
  return file;
}

function sha256(file) {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

function fail(message) {
  process.stderr.write(`npm run release: ${message}\n`);
  process.exit(1);
}
