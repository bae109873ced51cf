#!/bin/sh
# cxx_check.sh: ito's public headers compile as C++17 and a C++ program runs on libito.
#   cxx_check.sh WORKDIR INCLUDE_DIR LIBITO_DIR RUN_CXX SAN_FLAGS CXX...
# For every C++ compiler CXX (g++, clang++-19): each header alone (so that it includes
# what it needs), then tests/cxx/headers.cpp, all with -std=c++17 -Wall -Wextra -Werror.
# The program is linked against the tree's shared libito. A sanitizer tree's libito needs
# its compiler's runtime (SAN_FLAGS, e.g. -fsanitize=thread): there RUN_CXX (the tree's
# compiler) instruments its own object and links every object; the other compilers'
# objects stay uninstrumented.
set -eu
work=$1 inc=$2 libdir=$3 run_cxx=$4 san=$5
shift 5
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"
flags="-std=c++17 -Wall -Wextra -Werror -pedantic-errors -I$inc"
status=0
for cxx in "$@"; do
  name=$(basename "$cxx")
  for h in "$inc"/ito/*.h; do
    hn=$(basename "$h")
    # shellcheck disable=SC2086
    if ! echo "#include <ito/$hn>" | "$cxx" $flags -x c++ -fsyntax-only -; then
      echo "FAIL $name: <ito/$hn> alone"; status=1
    fi
  done
  obj=$work/headers-$name.o exe=$work/headers-$name
  csan=""
  [ "$cxx" = "$run_cxx" ] && csan=$san
  # shellcheck disable=SC2086
  if ! "$cxx" $flags $csan -O2 -c "$here/cxx/headers.cpp" -o "$obj"; then
    echo "FAIL $name: cxx/headers.cpp"; status=1; continue
  fi
  link=$cxx
  [ -n "$san" ] && link=$run_cxx
  # shellcheck disable=SC2086
  if ! "$link" $san "$obj" -L"$libdir" -Wl,-rpath,"$libdir" -lito -o "$exe"; then
    echo "FAIL $name: linking"; status=1; continue
  fi
  if ! "$exe"; then echo "FAIL $name: the program"; status=1; fi
done
exit $status
