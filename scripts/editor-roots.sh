#!/usr/bin/env bash
# Builds the root file systems that hold the newer editors the tests run: Debian 13 (trixie)
# and Debian unstable (sid), from the Debian archive apt already uses. Their editors need a
# newer C library than this machine's, so they run chrooted (packages/testkit/src/editors/).
# Built once and kept: a root already built with the same packages is left as it is, and one
# built with fewer gets the others from its own apt, in place.
#
#   scripts/editor-roots.sh [--rebuild] [trixie|sid ...]     (default: both; needs root)
#
# Where: $TANDEM_EDITOR_ROOTS, default $XDG_CACHE_HOME/tandem/editor-roots (~/.cache/...).
# Outside the checkout on purpose: the tools that walk the checkout (eslint, the test runner)
# would otherwise walk thousands of files of each root.
set -euo pipefail

# debootstrap lays the base; apt, in the root, adds the rest: it picks among alternatives
# ("a | b"), where debootstrap takes the first (elpa-eat's elpa-compat, which trixie's Emacs
# refuses). git: package-vc clones with it (test/emacs/install.test.ts); elpa-eat: the terminal
# tandem-run-gemini prefers (test/emacs/install-eat.test.ts); hx: Helix, which Debian 12 lacks
# (test/helix/).
base=neovim,vim-nox,emacs-nox,nodejs,procps
packages="${base//,/ } git elpa-eat hx"
in_root=$(dirname "$0")/../packages/testkit/src/editors/in-root.sh
roots=${TANDEM_EDITOR_ROOTS:-${XDG_CACHE_HOME:-$HOME/.cache}/tandem/editor-roots}

rebuild=false
suites=()
for arg; do
  case $arg in
    --rebuild) rebuild=true ;;
    trixie | sid) suites+=("$arg") ;;
    *) echo "usage: $0 [--rebuild] [trixie|sid ...]" >&2 && exit 2 ;;
  esac
done
[ ${#suites[@]} -gt 0 ] || suites=(trixie sid)

# The mirror apt uses for Debian 12 (deb822 .sources or a one-line sources.list).
debian_mirror() {
  awk '/^URIs:/ { uri = $2 } /^Suites:/ && / bookworm( |$)/ { print uri; exit }' \
    /etc/apt/sources.list.d/*.sources 2>/dev/null || true
  awk '$1 == "deb" && $3 == "bookworm" { print $2; exit }' /etc/apt/sources.list 2>/dev/null || true
}
mirror=${TANDEM_DEBIAN_MIRROR:-$(debian_mirror | head -n 1)}
mirror=${mirror:-http://deb.debian.org/debian}

command -v debootstrap >/dev/null ||
  apt-get install -y -qq --no-install-recommends debootstrap debian-archive-keyring >/dev/null
mkdir -p "$roots"
# One builder at a time; test runs never write to a root once it is built.
exec 9>"$roots/.lock"
flock 9

for suite in "${suites[@]}"; do
  root=$roots/$suite
  stamp="$suite $packages"
  if ! $rebuild && [ "$(cat "$root/.tandem-root" 2>/dev/null)" = "$stamp" ]; then
    echo "$root: ready"
    continue
  fi
  started=$SECONDS
  if $rebuild || [ ! -f "$root/.tandem-root" ]; then
    target=$root.partial
    rm -rf "$target"
    debootstrap --variant=minbase --include="$base" "$suite" "$target" "$mirror" \
      >"$roots/$suite.log" 2>&1 || {
      tail -n 20 "$roots/$suite.log" >&2
      exit 1
    }
    # Loopback names for programs in the root (the clients connect to 127.0.0.1 or localhost).
    cp /etc/hosts "$target/etc/hosts"
  else
    # A root built with fewer packages gets the others in place: tests running in it go on.
    target=$root
  fi
  # A mirror that keeps a snapshot may serve a Release past its Valid-Until date.
  {
    "$in_root" "$target" apt-get update -qq -o Acquire::Check-Valid-Until=false &&
      "$in_root" "$target" env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -qq --no-install-recommends $packages
  } >>"$roots/$suite.log" 2>&1 || {
    tail -n 20 "$roots/$suite.log" >&2
    exit 1
  }
  echo "$stamp" >"$target/.tandem-root"
  if [ "$target" != "$root" ]; then
    rm -rf "$root"
    mv "$target" "$root"
  fi
  echo "$root: ready in $((SECONDS - started)) s (from $mirror)"
done
