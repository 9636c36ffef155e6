# Sourced by the install scripts of test tools (code-server, the official companion): what they
# build is kept once per machine, outside the checkout, so that a later clone on the same
# machine (a CI run on a kept machine) links to it instead of building again. The folder's name
# carries the checksum of the script that builds it: a changed script builds anew.
#
#   cache=$(machine_cache NAME "$0")    the folder for NAME built by the script "$0"
#   link_into_checkout "$cache" LINK    LINK (in the checkout's .cache) points to it

machine_cache() {
  local key
  key=$(sha256sum "$2" | cut -c1-16)
  echo "${XDG_CACHE_HOME:-$HOME/.cache}/tandem/$1-$key"
}

link_into_checkout() {
  mkdir -p "$(dirname "$2")"
  # A folder left there by an install from before the cache moved out of the checkout.
  if [ -d "$2" ] && [ ! -L "$2" ]; then rm -rf "$2"; fi
  ln -sfn "$1" "$2"
}
