#!/bin/sh
# split-debug.sh LIB DEBUGDIR: moves LIB's debug info to DEBUGDIR/.build-id/xx/rest.debug (the
# layout gdb, perf and symflame look in) and strips LIB, keeping its dynamic symbol table.
set -eu
lib=$1
dir=$2
id=$(readelf -n "$lib" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p' | head -n 1)
[ -n "$id" ] || { echo "split-debug.sh: $lib has no build ID" >&2; exit 1; }
prefix=$(printf %s "$id" | cut -c1-2)
rest=$(printf %s "$id" | cut -c3-)
mkdir -p "$dir/.build-id/$prefix"
objcopy --only-keep-debug "$lib" "$dir/.build-id/$prefix/$rest.debug"
strip --strip-all "$lib"
