#!/bin/sh
# Runs a program of an editor root (built by scripts/editor-roots.sh) as if it were installed
# here:  in-root.sh ROOT PROGRAM [ARG...]
#
# The mounts it needs (/proc, /dev, /tmp, TMPDIR, this checkout, the Node 24 its link
# .cache/node-24 names, on which a CLI started in the editor may run, the working directory) are
# made in a mount namespace of the program's own, so they vanish with it: nothing stays
# mounted, and any number of runs can share a root. The PID namespace and the network stay
# shared, so clients on this machine find the editor through its discovery files and its PID.
# Every step execs the next: the program keeps the PID its caller spawned.
set -eu

root=$1
if [ "${TANDEM_IN_ROOT:-}" != "$root" ]; then
  TANDEM_IN_ROOT=$root exec unshare --mount --propagation private "$0" "$@"
fi
shift

# This script lives in <checkout>/packages/testkit/src/editors/.
checkout=$(cd "$(dirname "$0")/../../../.." && pwd -P)
cwd=$(pwd -P)

mount -t proc proc "$root/proc"
mount --rbind /dev "$root/dev"
for dir in /tmp "${TMPDIR:-/tmp}" "$checkout" "$checkout/.cache/node-24" "$cwd"; do
  dir=$(cd "$dir" 2>/dev/null && pwd -P) || continue
  # Already visible through a bind made before (e.g. a folder under /tmp)?
  [ "$(stat -c %d:%i "$dir")" = "$(stat -c %d:%i "$root$dir" 2>/dev/null)" ] && continue
  mkdir -p "$root$dir"
  mount --rbind "$dir" "$root$dir"
done

exec env -u TANDEM_IN_ROOT chroot "$root" /usr/bin/env -C "$cwd" "$@"
