#!/usr/bin/env bash
# Installs what ito needs to build, test and run its lab, idempotently:
# Debian packages (only the missing ones; `apt-get update` once, only if something is missing)
# and a Python venv in .venv with the lab and the simulators installed in editable mode.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PKGS=(
  build-essential cmake ninja-build pkg-config git
  gcc-12 clang-19 llvm-19-dev llvm-19-tools libclang-rt-19-dev
  libboost-context-dev libboost-fiber-dev libtbb-dev liburing-dev
  python3 python3-venv valgrind gdb doxygen
  libstb-dev wamerican sox vorbis-tools linux-perf
  tcl8.6
)
need_go=0
command -v go >/dev/null 2>&1 || need_go=1
[ "$need_go" = 1 ] && APT_PKGS+=(golang-go)

missing=()
for p in "${APT_PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  echo "setup-deps: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Source packages (workloads/zlib fetches Debian's zlib source with `apt-get source`): the
# distribution's own binary entries are copied once as deb-src entries (same mirror, suites).
SRC_LIST=/etc/apt/sources.list.d/ito-deb-src.sources
if [ ! -f "$SRC_LIST" ] && ! grep -rqs '^Types:.*deb-src\|^deb-src ' /etc/apt/sources.list /etc/apt/sources.list.d/; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  src=$(ls /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
  if [ -n "$src" ]; then
    sed 's/^Types: deb$/Types: deb-src/' "$src" | $SUDO tee "$SRC_LIST" >/dev/null
  elif [ -f /etc/apt/sources.list ]; then
    sed -n 's/^deb \(.*\)$/deb-src \1/p' /etc/apt/sources.list |
      $SUDO tee /etc/apt/sources.list.d/ito-deb-src.list >/dev/null
    $SUDO touch "$SRC_LIST"
  fi
  $SUDO apt-get update -qq || echo "setup-deps: apt-get update failed (deb-src)" >&2
fi

# Python venv: created with Debian's python3 so a fresh machine needs nothing else.
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
# Reinstall only when the list of Python projects or their metadata changed.
projects=(lab)
for d in sim/*/; do [ -f "$d/pyproject.toml" ] && projects+=("${d%/}"); done
stamp=.venv/.ito-stamp
want=$(cat requirements.txt "${projects[@]/%//pyproject.toml}" | sha256sum | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  .venv/bin/pip install -q --upgrade pip >/dev/null
  .venv/bin/pip install -q -r requirements.txt
  for d in "${projects[@]}"; do .venv/bin/pip install -q --no-deps -e "$d"; done
  echo "$want" > "$stamp"
fi
echo "setup-deps: ok"
