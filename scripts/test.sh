#!/usr/bin/env bash
# Quick start, command 2: set up, build, and run every test with ctest.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${SYMFLAME_BUILD_DIR:-$ROOT/build}"
"$ROOT/scripts/setup.sh" --build-dir "$BUILD_DIR"
cd "$BUILD_DIR"
ctest --output-on-failure -j "${SYMFLAME_JOBS:-$(nproc)}" "$@"
