#!/usr/bin/env bash
# Builds the official Qwen Code Companion 0.0.11, and unpacks Anthropic's Claude Code extension,
# for the tests of the choice between them and Tandem, reaching nothing but the npm registry,
# once per machine (scripts/machine-cache.sh), linked as .cache/official-companions
# (git-ignored). The Qwen companion's published package holds the sources, not the built
# extension: this bundles them as its own esbuild.js does and packages the .vsix with vsce.
# Safe to run again.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
. "$root/scripts/machine-cache.sh"
dir=$(machine_cache official-companions "$0")
vsix=$dir/qwen-code-vscode-ide-companion-0.0.11.vsix
# Anthropic's own Claude Code extension, as its CLI's npm package shipped it (vendor/).
claude_vsix=$dir/anthropic-claude-code-1.0.100.vsix
if [ -f "$vsix" ] && [ -f "$claude_vsix" ]; then
  link_into_checkout "$dir" "$root/.cache/official-companions"
  exit 0
fi

mkdir -p "$dir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TMPDIR=$tmp npm_config_yes=true
(cd "$tmp" && npm pack --silent qwen-code-vscode-ide-companion@0.0.11 \
  @qwen-code/qwen-code-core@0.0.14 @anthropic-ai/claude-code@1.0.100 >/dev/null)
tar -xzf "$tmp/anthropic-ai-claude-code-1.0.100.tgz" -C "$tmp" package/vendor/claude-code.vsix
mv "$tmp/package/vendor/claude-code.vsix" "$claude_vsix"
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
