#!/bin/sh
# cxx_check.sh: ito's public headers compile as C++17 and C++ programs run on libito.
#   cxx_check.sh WORKDIR INCLUDE_DIR LIBITO_DIR RUN_CXX SAN_FLAGS PROGRAM CXX...
# For every C++ compiler CXX (g++, clang++-19): tests/cxx/PROGRAM.cpp, compiled with
# -std=c++17 -Wall -Wextra -Wshadow -Werror (g++ warned that ito_stats and four other
# functions hide their struct tags' constructors: those tags are <name>_s now), linked
# and run; for PROGRAM "headers" also each header alone first (so that it includes what
# it needs).
# The program is linked against the tree's shared libito. A sanitizer tree's libito needs
# its compiler's runtime (SAN_FLAGS, e.g. -fsanitize=thread): there RUN_CXX (the tree's
# compiler) instruments its own object and links every object; the other compilers'
# objects stay uninstrumented.
set -eu
work=$1 inc=$2 libdir=$3 run_cxx=$4 san=$5 prog=$6
shift 6
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"
flags="-std=c++17 -Wall -Wextra -Wshadow -Werror -pedantic-errors -I$inc"
status=0
for cxx in "$@"; do
  name=$(basename "$cxx")
  # each header alone, as C++17 (the promise) and C++20 (where volatile compound
  # assignments and other constructs became deprecated: users of C++20 include them too)
  if [ "$prog" = headers ]; then for h in "$inc"/ito/*.h; do
    hn=$(basename "$h")
    for std in c++17 c++20; do
      # shellcheck disable=SC2086
      if ! echo "#include <ito/$hn>" | "$cxx" $flags -std=$std -x c++ -fsyntax-only -; then
        echo "FAIL $name: <ito/$hn> alone, -std=$std"; status=1
      fi
    done
  done; fi
  obj=$work/$prog-$name.o exe=$work/$prog-$name
  csan=""
  [ "$cxx" = "$run_cxx" ] && csan=$san
  # shellcheck disable=SC2086
  if ! "$cxx" $flags $csan -O2 -c "$here/cxx/$prog.cpp" -o "$obj"; then
    echo "FAIL $name: cxx/$prog.cpp"; status=1; continue
  fi
  link=$cxx
  [ -n "$san" ] && link=$run_cxx
  # shellcheck disable=SC2086
  if ! "$link" $san "$obj" -L"$libdir" -Wl,-rpath,"$libdir" -lito -o "$exe"; then
    echo "FAIL $name: linking"; status=1; continue
  fi
  if ! "$exe"; then echo "FAIL $name: cxx/$prog.cpp, the program"; status=1; fi
done
exit $status
