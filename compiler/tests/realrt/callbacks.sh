#!/bin/sh
# callbacks.sh BIN_DIR: callbacks.c built with the plugin (stub, bound, min, budget; -O0,
# -O2) keeps every line of its streams whole and does not hang in 8 ULTs on 2 workers under
# FLAG preemption (callbacks_main.c): no yield point inside callbacks glibc runs under a
# lock (a printf conversion, a fopencookie writer, a dl_iterate_phdr callback).
set -eu
bin=$1 suite=callbacks
. "$(dirname "$0")/each_build.sh"
check() {
  [ "$2" = ok ] && [ "$4" = 320 ] || fail "$1: bad output: $*"
}
each_build 30 check
