#!/bin/sh
# install_check.sh: ito installs into any prefix and keeps working when that prefix moves.
#   install_check.sh BUILD_DIR LIBDIR BINDIR VERSION CC CXX GENERATOR SAN_FLAGS CMAKE URING
# 1. `cmake --install BUILD_DIR --prefix T/first` into a fresh temporary folder T (the
#    build tree is only read; cmake writes its install_manifest.txt there);
# 2. with that prefix, outside ito's tree: hello.c and hello.cpp (this folder) built
#    with pkg-config and with find_package(ito) (CMakeLists.txt here), each against the
#    shared and the static libito, and run; hello.c also built by the installed ito-cc
#    (and hello.cpp by ito-c++)
#    (plugin found relative to it, ITO_YIELD_PLUGIN unset) when the compiler part is
#    installed;
# 3. the prefix is moved to T/moved/elsewhere and step 2 runs again there: every path
#    in ito.pc, the CMake package and ito-cc is relative. No installed text file may
#    name the first prefix or the build tree.
# 4. staged as a package build does (DESTDIR) under a prefix whose path has a space, the
#    staged tree then moved to another folder with a space, and step 2 runs there as well:
#    find_package(ito) takes such a prefix as it is, and pkg-config's flags work through
#    `eval` (README; step 2 always takes them so).
# SAN_FLAGS: a sanitizer tree's libito needs its runtime in every program (else empty):
#    the installed package must hand it over (ito.pc's Libs, ito::ito's link options), so
#    the programs here are built with what pkg-config and find_package give, nothing more
#    (an outside tester's program failed to link against an installed ASan libito, h71b).
# URING: 1 when libito uses liburing (then `pkg-config --static` must give -luring).
set -u
build=$1 libdir=$2 bindir=$3 version=$4 cc=$5 cxx=$6 gen=$7 san=$8 cmake=$9 uring=${10}
src=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ito-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
unset ITO_YIELD_PLUGIN
fail() { echo "FAIL: $*"; exit 1; }
# run CMD...: quiet unless it fails
run() { "$@" > "$tmp/log" 2>&1 || { cat "$tmp/log"; fail "$*"; }; }
needs_libito() { readelf -d "$1" | grep NEEDED | grep -q 'libito\.so'; }

# check_prefix PREFIX TAG [NOTE]: step 2 against the ito installed in PREFIX (its programs in
# $tmp/use-TAG). pkgconf writes a space in a path as '\ ': its flags and --variable values
# are words for eval, as the README says (for a path without a space eval changes nothing).
check_prefix() {
    p=$1 out=$tmp/use-$2
    mkdir -p "$out"
    echo "== prefix $p${3:+ ($3)}"
    PKG_CONFIG_LIBDIR=$p/$libdir/pkgconfig
    PKG_CONFIG_PATH=
    export PKG_CONFIG_LIBDIR PKG_CONFIG_PATH
    [ "$(pkg-config --modversion ito)" = "$version" ] || fail "pkg-config --modversion ito"
    cflags=$(pkg-config --cflags ito) libs=$(pkg-config --libs ito) slibs=$(pkg-config --static --libs ito)
    eval "pcdir=$(pkg-config --variable=libdir ito) incdir=$(pkg-config --variable=includedir ito)"
    echo "pkg-config: $cflags | $libs | --static $slibs"
    [ -f "$incdir/ito/ito.h" ] || fail "includedir has no ito/ito.h"
    # ito.pc's own part of its paths (after the prefix): no empty component ("lib/..//lib")
    case "${pcdir#"$p"} ${incdir#"$p"}" in *//*) fail "ito.pc's paths have an empty component: $pcdir $incdir" ;; esac
    echo "$cflags" | grep -q -- '-fstack-clash-protection' || fail "pkg-config --cflags ito lacks -fstack-clash-protection"
    [ -f "$p/share/ito/gdb/ito.py" ] || fail "no gdb extension in share/ito/gdb"
    [ -f "$p/share/doc/ito/ito-cc.md" ] || fail "no ito-cc guide in share/doc/ito (README.md points to it)"
    # the CMake package names the include directory once (each target carries it)
    inc_n=$(grep -o 'INTERFACE_INCLUDE_DIRECTORIES "[^"]*"' "$p/$libdir/cmake/ito/itoTargets.cmake" | grep -c 'include;.*include"' || true)
    [ "$inc_n" = 0 ] || fail "itoTargets.cmake lists the include directory twice for a target"
    if [ -n "$san" ]; then
        echo " $libs " | grep -q -- " $san " || fail "pkg-config --libs ito lacks $san (a sanitizer build's runtime)"
    fi
    if [ "$uring" = 1 ]; then
        echo "$slibs" | grep -q -- '-luring' || fail "pkg-config --static --libs ito lacks -luring"
    fi
    # the static libito by file name, its private dependencies from Libs.private
    static_libs=$(echo "$slibs" | sed 's/-lito\( \|$\)/-l:libito.a\1/')
    run eval "\"\$cc\" $cflags \"\$src/hello.c\" $libs -Wl,-rpath,\"\$pcdir\" -o \"\$out/pc_c_shared\""
    run eval "\"\$cxx\" -std=c++17 $cflags \"\$src/hello.cpp\" $libs -Wl,-rpath,\"\$pcdir\" -o \"\$out/pc_cxx_shared\""
    run eval "\"\$cc\" $cflags \"\$src/hello.c\" $static_libs -o \"\$out/pc_c_static\""
    run eval "\"\$cxx\" -std=c++17 $cflags \"\$src/hello.cpp\" $static_libs -o \"\$out/pc_cxx_static\""
    run "$cmake" -S "$src" -B "$out/cm" -G "$gen" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_PREFIX_PATH="$p" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF \
        -DITO_EXPECT_PREFIX="$p" -DITO_EXPECT_VERSION="$version" \
        -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx"
    run "$cmake" --build "$out/cm"
    for exe in pc_c_shared pc_cxx_shared pc_c_static pc_cxx_static \
               cm/hello_c_shared cm/hello_cxx_shared cm/hello_c_static cm/hello_cxx_static; do
        case $exe in
            *shared) needs_libito "$out/$exe" || fail "$exe does not link the shared libito" ;;
            *static) needs_libito "$out/$exe" && fail "$exe links the shared libito" ;;
        esac
        "$out/$exe" || fail "$exe exited $?"
    done
    if [ -x "$p/$bindir/ito-cc" ]; then # the driver finds its plugin relative to itself
        run eval "\"\$p/\$bindir/ito-cc\" -O2 $cflags -c \"\$src/hello.c\" -o \"\$out/itocc.o\""
        nm "$out/itocc.o" | grep -q ito_coop_yield || fail "ito-cc inserted no yield (plugin not loaded?)"
        "$p/$bindir/ito-cc" -### -O2 -c "$src/hello.c" -o "$out/probe.o" 2>&1 | grep -q -- 'stack-clash-protection' \
            || fail "ito-cc does not compile with -fstack-clash-protection"
        run eval "\"\$p/\$bindir/ito-cc\" \"\$out/itocc.o\" $libs -Wl,-rpath,\"\$pcdir\" -o \"\$out/itocc\""
        "$out/itocc" || fail "the ito-cc program exited $?"
        # ito-c++: the same driver for C++, linking the C++ standard library by itself
        [ -x "$p/$bindir/ito-c++" ] || fail "ito-c++ is not installed beside ito-cc"
        run eval "\"\$p/\$bindir/ito-c++\" -O2 -std=c++17 $cflags \"\$src/hello.cpp\" $libs -Wl,-rpath,\"\$pcdir\" -o \"\$out/itocxx\""
        nm "$out/itocxx" | grep -q ito_coop_yield || fail "ito-c++ inserted no yield (plugin not loaded?)"
        "$out/itocxx" || fail "the ito-c++ program exited $?"
    else
        echo "(no ito-cc installed: the compiler part is not built in this tree)"
    fi
}

first=$tmp/first
run "$cmake" --install "$build" --prefix "$first"
check_prefix "$first" first

moved=$tmp/moved/elsewhere
mkdir -p "$tmp/moved"
mv "$first" "$moved"
check_prefix "$moved" moved
stale=$(grep -rIl -e "$first" -e "$build" "$moved")
[ -z "$stale" ] || fail "installed files name the first prefix or the build tree: $stale"

# 4. DESTDIR staging under a prefix with a space, moved to another folder with a space
staged="$tmp/stage dir"
run env DESTDIR="$staged" "$cmake" --install "$build" --prefix "/ito prefix"
[ -f "$staged/ito prefix/$libdir/pkgconfig/ito.pc" ] || fail "DESTDIR staging: no ito.pc under $staged/ito prefix"
sp="$tmp/with space/ito"
mkdir -p "$tmp/with space"
mv "$staged/ito prefix" "$sp"
check_prefix "$sp" "with space" "staged with DESTDIR, moved"
stale=$(grep -rIl -e "$staged" -e "/ito prefix" -e "$build" "$sp")
[ -z "$stale" ] || fail "installed files name the staging folder, the staged prefix or the build tree: $stale"
echo "ok install into a prefix, moved; staged with DESTDIR under a prefix with a space, moved"
