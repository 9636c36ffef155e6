// What the release writes about its packages: the npm package's manifest and the Emacs
// package's description file, each derived from what the repository already says.

/** The name on the npm registry (docs/release.md says why this one). */
export const NPM_NAME = 'tandem-ide';

/** The `package.json` of the `tandem` command's npm package: a bin and no dependencies. */
export function npmPackageManifest(rootPackage) {
  return {
    name: NPM_NAME,
    version: rootPackage.version,
    description: `The tandem command: ${rootPackage.description.replace(/^./, (c) => c.toLowerCase())}`,
    keywords: ['gemini-cli', 'qwen-code', 'ide', 'companion', 'mcp', 'neovim', 'vim', 'emacs'],
    license: rootPackage.license,
    // The dispatcher itself, a CommonJS bundle: no ES module loader at start.
    bin: { tandem: 'dist/tandem.js' },
    engines: rootPackage.engines,
    files: ['dist', 'CHANGELOG.md'],
  };
}

/**
 * `tandem-pkg.el` for the archive, from the headers of `tandem.el`, whose `Version:` must be
 * the release's.
 */
export function emacsPackageDescription(mainSource, version) {
  const summary = /^;;; tandem\.el --- (.*?)\s*(?:-\*-.*)?$/m.exec(mainSource)?.[1];
  const header = (name) => new RegExp(`^;; ${name}: (.*)$`, 'm').exec(mainSource)?.[1]?.trim();
  if (!summary) throw new Error('emacs/tandem.el has no summary line');
  if (header('Version') !== version) {
    throw new Error(
      `emacs/tandem.el says Version: ${header('Version')}, the release is ${version}`,
    );
  }
  const keywords = (header('Keywords') ?? '').split(/[,\s]+/).filter(Boolean);
  const url = header('URL');
  return [
    ';;; tandem-pkg.el --- The description of the tandem package  -*- no-byte-compile: t -*-',
    `(define-package "tandem" ${lispString(version)} ${lispString(summary)}`,
    `  '${header('Package-Requires') ?? 'nil'}`,
    `  :keywords '(${keywords.map(lispString).join(' ')})${url ? `\n  :url ${lispString(url)}` : ''})`,
    '',
  ].join('\n');
}

function lispString(text) {
  return `"${text.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
}
