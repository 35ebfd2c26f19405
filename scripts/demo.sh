#!/usr/bin/env bash
# Quick start, command 1: set up, build, and open the viewer on the bundled demo profile
# (a CPU profile that Go's runtime/pprof wrote of the program in resources/demo/src).
# Without a display it says so, and proves the main job by rendering the flame graph to a PNG
# with the same painter as the window, and printing the top functions.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${SYMFLAME_BUILD_DIR:-$ROOT/build}"
"$ROOT/scripts/setup.sh" --build-dir "$BUILD_DIR"

SYMFLAME="$BUILD_DIR/app/symflame"
DEMO="$ROOT/resources/demo/demo-cpu.pb.gz"

if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ] || [ -n "${QT_QPA_PLATFORM:-}" ]; then
  echo "demo: opening $DEMO"
  exec "$SYMFLAME" "$DEMO"
fi

OUT="$BUILD_DIR/demo-flamegraph.png"
# Qt wants a private runtime directory; headless shells often have none.
if [ -z "${XDG_RUNTIME_DIR:-}" ]; then export XDG_RUNTIME_DIR="$(mktemp -d)"; fi
echo "demo: no display found (DISPLAY and WAYLAND_DISPLAY are unset)."
echo "demo: rendering the demo's flame graph headless instead, with the window's painter."
"$SYMFLAME" info "$DEMO"
echo
"$SYMFLAME" top "$DEMO" -n 15
echo
"$SYMFLAME" render "$DEMO" -o "$OUT" --width 1600 --height 900
echo "demo: wrote $OUT"
echo "demo: for the window, run under a display, e.g.: xvfb-run -a $SYMFLAME $DEMO"
