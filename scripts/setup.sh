#!/usr/bin/env bash
# Installs what symflame needs on Debian 12 (only what is missing), then configures and builds.
# Idempotent: with everything present it only runs an incremental build.
#
#   scripts/setup.sh [--no-build] [--build-dir DIR]
#
# Environment: SYMFLAME_BUILD_DIR (default: build), SYMFLAME_BUILD_TYPE (default: RelWithDebInfo),
# SYMFLAME_JOBS (default: number of cores).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${SYMFLAME_BUILD_DIR:-$ROOT/build}"
BUILD_TYPE="${SYMFLAME_BUILD_TYPE:-RelWithDebInfo}"
JOBS="${SYMFLAME_JOBS:-$(nproc)}"
DO_BUILD=1

while [ $# -gt 0 ]; do
  case "$1" in
    --no-build) DO_BUILD=0 ;;
    --build-dir) BUILD_DIR="$2"; shift ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "setup.sh: unknown option $1" >&2; exit 64 ;;
  esac
  shift
done

# Debian 12 packages: build tools, libraries, and the real peers and producers the tests use.
PACKAGES=(
  build-essential cmake ninja-build pkg-config git dpkg-dev file time
  qt6-base-dev qt6-base-dev-tools qt6-svg-dev libgl-dev
  llvm-19-dev llvm-19 libelf-dev libdw-dev libdebuginfod-dev
  libprotobuf-dev protobuf-compiler zlib1g-dev libdeflate-dev libisal-dev libzstd-dev liblzma-dev libre2-dev
  xvfb xauth imagemagick zstd
  debuginfod elfutils binutils dwz xz-utils clang lld libclang-rt-14-dev
  golang-go golang-github-google-pprof-dev google-perftools libgoogle-perftools-dev
  nlohmann-json3-dev nettle-dev libc6-dbg linux-perf
)

# From Debian 12's backports (bookworm-backports, the same archive): Go 1.23, whose
# `go tool addr2line` is the oracle for the gopclntab layout of Go 1.20 and later (Debian 12's
# own Go, 1.19, predates it).
BACKPORTS_PACKAGES=(golang-1.23-go)

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
missing=()
for p in "${PACKAGES[@]}"; do
  installed "$p" || missing+=("$p")
done
missing_backports=()
for p in "${BACKPORTS_PACKAGES[@]}"; do
  installed "$p" || missing_backports+=("$p")
done

# Toolchains that may come from elsewhere (rustup): the Debian package only when the command is missing.
command -v rustc >/dev/null || missing+=(rustc)
# Node and npm: a machine may have them from another Node distribution whose nodejs bundles npm
# (and conflicts with Debian's npm package); install Debian's only when the command is missing.
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)

if [ $((${#missing[@]} + ${#missing_backports[@]})) -gt 0 ]; then
  echo "setup: installing $((${#missing[@]} + ${#missing_backports[@]})) missing Debian packages: ${missing[*]} ${missing_backports[*]}"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null; then SUDO="sudo"; else
      echo "setup: need root (or sudo) to install: ${missing[*]} ${missing_backports[*]}" >&2; exit 1
    fi
  fi
  export DEBIAN_FRONTEND=noninteractive
  # Backports are listed once (apt installs nothing from them unless asked by name).
  if [ ${#missing_backports[@]} -gt 0 ] \
      && ! grep -rqs "bookworm-backports" /etc/apt/sources.list /etc/apt/sources.list.d/; then
    echo "setup: adding Debian 12's backports to apt's sources (for ${missing_backports[*]})"
    printf 'Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm-backports\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
      | $SUDO tee /etc/apt/sources.list.d/symflame-bookworm-backports.sources > /dev/null
  fi
  $SUDO apt-get update -qq
  [ ${#missing[@]} -eq 0 ] || $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
  [ ${#missing_backports[@]} -eq 0 ] \
    || $SUDO apt-get install -y -qq --no-install-recommends -t bookworm-backports "${missing_backports[@]}"
else
  echo "setup: all $((${#PACKAGES[@]} + ${#BACKPORTS_PACKAGES[@]})) Debian packages present"
fi

[ "$DO_BUILD" = 1 ] || exit 0

if [ ! -f "$BUILD_DIR/CMakeCache.txt" ]; then
  cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE="$BUILD_TYPE"
fi
cmake --build "$BUILD_DIR" -j "$JOBS"
echo "setup: built in $BUILD_DIR"
