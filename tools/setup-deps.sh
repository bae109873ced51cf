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
