#!/usr/bin/env bash
# Quick start, command 1: set up, build, and open the viewer on the demo profile: the native
# demo the build makes (resources/demo/native: a C++ program, its two libraries and libc/libm,
# profiled by gperftools and left unsymbolized, one library stripped), or, when the build
# could not make it, the bundled Go profile (resources/demo/demo-cpu.pb.gz).
# Without a display it says so, and proves the main job headless: the binaries and what each
# lacks, the profile symbolized, its top functions, and the flame graph colored by binary
# rendered to a PNG with the same painter as the window.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${SYMFLAME_BUILD_DIR:-$ROOT/build}"
"$ROOT/scripts/setup.sh" --build-dir "$BUILD_DIR"

SYMFLAME="$BUILD_DIR/app/symflame"
DEMO="$BUILD_DIR/demo/demo-native.pb.gz"
[ -f "$DEMO" ] || DEMO="$ROOT/resources/demo/demo-cpu.pb.gz"

if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ] || [ -n "${QT_QPA_PLATFORM:-}" ]; then
  echo "demo: opening $DEMO"
  exec "$SYMFLAME" "$DEMO"
fi

OUT="$BUILD_DIR/demo-flamegraph.png"
# Qt wants a private runtime directory; headless shells often have none.
if [ -z "${XDG_RUNTIME_DIR:-}" ]; then export XDG_RUNTIME_DIR="$(mktemp -d)"; fi
echo "demo: no display found (DISPLAY and WAYLAND_DISPLAY are unset)."
echo "demo: rendering the demo's flame graph headless instead, with the window's painter."
SYMBOLIZED="$BUILD_DIR/demo/demo-symbolized.pb.gz"
mkdir -p "$(dirname "$SYMBOLIZED")"
"$SYMFLAME" info "$DEMO"
echo
"$SYMFLAME" symbolize "$DEMO" -o "$SYMBOLIZED"
echo
"$SYMFLAME" top "$SYMBOLIZED" -n 15
echo
"$SYMFLAME" render "$SYMBOLIZED" -o "$OUT" --width 1600 --height 900 --color-by binary
echo "demo: wrote $OUT"
echo "demo: for the window, run under a display, e.g.: xvfb-run -a $SYMFLAME $DEMO"
