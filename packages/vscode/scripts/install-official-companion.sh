#!/usr/bin/env bash
# Builds the official Qwen Code Companion 0.0.11 for the test of the choice between it and
# Tandem, reaching nothing but the npm registry, once per machine (scripts/machine-cache.sh),
# linked as .cache/official-companions (git-ignored). Its published package holds the sources,
# not the built extension: this bundles them as its own esbuild.js does and packages the .vsix
# with vsce. Safe to run again.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
. "$root/scripts/machine-cache.sh"
dir=$(machine_cache official-companions "$0")
vsix=$dir/qwen-code-vscode-ide-companion-0.0.11.vsix
if [ -f "$vsix" ]; then
  link_into_checkout "$dir" "$root/.cache/official-companions"
  exit 0
fi

mkdir -p "$dir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TMPDIR=$tmp npm_config_yes=true
(cd "$tmp" && npm pack --silent qwen-code-vscode-ide-companion@0.0.11 \
  @qwen-code/qwen-code-core@0.0.14 >/dev/null)
src=$tmp/companion
mkdir -p "$src"
tar -xzf "$tmp/qwen-code-vscode-ide-companion-0.0.11.tgz" -C "$src" --strip-components=1
cd "$src"
npm install --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error
# The sources import schemas from Qwen Code's core package of the same release, which its
# monorepo provides and the package does not list. Only its schema module is needed (it imports
# zod alone): the whole package would pull in the CLI's dependencies.
core=node_modules/@qwen-code/qwen-code-core
mkdir -p "$core"
tar -xzf "$tmp/qwen-code-qwen-code-core-0.0.14.tgz" -C "$core" --strip-components=1
# Its esbuild.js, with --production, but with that alias, which the script cannot take.
"$root/node_modules/.bin/esbuild" src/extension.ts --bundle --format=cjs --minify \
  --platform=node --outfile=dist/extension.cjs --external:vscode \
  --loader:.node=file --log-level=warning \
  --alias:@qwen-code/qwen-code-core=./$core/dist/src/ide/ideContext.js
# Its prepublish step type-checks and lints with tools the built extension does not need.
npm pkg delete 'scripts.vscode:prepublish'
"$root/node_modules/.bin/vsce" package --no-dependencies --out "$vsix"
link_into_checkout "$dir" "$root/.cache/official-companions"
