#!/usr/bin/env bash
# Installs code-server 4.100.3 (VS Code 1.100.3) for the extension's tests and benchmarks,
# reaching nothing but the npm registry, once per machine (scripts/machine-cache.sh), linked as
# .cache/code-server (git-ignored). Needs ripgrep, a C++ tool chain and libkrb5-dev (see
# .ci/run). Safe to run again.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
. "$root/scripts/machine-cache.sh"
dir=$(machine_cache code-server-4.100.3 "$0")
vscode=$dir/node_modules/code-server/lib/vscode
native=(@vscode/spdlog kerberos native-watchdog node-pty @vscode/deviceid)
built() { [ -f "$dir/.built" ]; }
if built; then
  link_into_checkout "$dir" "$root/.cache/code-server"
  exit 0
fi

mkdir -p "$dir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# @vscode/ripgrep would download its binary: hand it Debian's from its cache instead.
mkdir -p "$tmp/vscode-ripgrep-cache-1.15.11"
tar -C "$(dirname "$(command -v rg)")" -czf \
  "$tmp/vscode-ripgrep-cache-1.15.11/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" rg
cat >"$dir/package.json" <<'JSON'
{
  "name": "code-server-testbed",
  "private": true,
  "dependencies": { "code-server": "4.100.3" },
  "allowScripts": { "code-server": true, "argon2": true }
}
JSON
export TMPDIR=$tmp npm_config_unsafe_perm=true npm_config_yes=true
# Native modules build against the installed Node's headers, not downloaded ones.
if [ -f /usr/include/node/node.h ]; then export npm_config_nodedir=/usr; fi
(cd "$dir" && npm install --no-audit --no-fund --ignore-scripts=false)
# npm 11 runs no dependency's install script unless approved, also in code-server's own install
# of VS Code's modules: approve and build them there.
pty=$vscode/node_modules/node-pty/build/Release/pty.node
if [ ! -f "$pty" ]; then
  (cd "$vscode" && npm install-scripts approve @vscode/ripgrep "${native[@]}" &&
    npm rebuild @vscode/ripgrep "${native[@]}" --ignore-scripts=false) || true
fi
[ -f "$pty" ] || { echo "code-server's native modules did not build" >&2; exit 1; }
touch "$dir/.built"
link_into_checkout "$dir" "$root/.cache/code-server"
