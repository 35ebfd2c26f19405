#!/bin/sh
# Resolving generated positions through a large source map: symflame's decoder
# (symflame-benchsourcemap) against @jridgewell/trace-mapping under node, in one run, on the same
# positions; the answers' checksums must be equal. The map: esbuild's map of a minified bundle
# of typescript@5.9.3 (lib/typescript.js, about 9 MB), made here.
#
# usage: bench/run-sourcemap-bench.sh BUILD_DIR [COUNT]
#   BUILD_DIR  a configured build with the target symflame-benchsourcemap built
#   COUNT      how many positions (default 1000000)
# npm packages (pinned) are installed into BUILD_DIR/bench/js the first time.
set -eu

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    echo "usage: $0 BUILD_DIR [COUNT]" >&2
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$1" && pwd)
count=${2:-1000000}
bench=$build/bench/symflame-benchsourcemap
if [ ! -x "$bench" ]; then
    echo "$0: $bench is missing; build it with: cmake --build $build --target symflame-benchsourcemap" >&2
    exit 1
fi
command -v node >/dev/null 2>&1 || { echo "$0: node not found" >&2; exit 1; }
js=$build/bench/js
if [ ! -f "$js/installed.stamp" ]; then
    mkdir -p "$js"
    npm install --prefix "$js" --no-audit --no-fund --no-save \
        typescript@5.9.3 esbuild@0.24.2 @jridgewell/trace-mapping@0.3.31
    touch "$js/installed.stamp"
fi
nm=$js/node_modules
work=$build/bench/sourcemap
mkdir -p "$work"
if [ ! -f "$work/typescript.min.js.map" ]; then
    "$nm/.bin/esbuild" "$nm/typescript/lib/typescript.js" --bundle --minify --sourcemap --platform=node \
        --outfile="$work/typescript.min.js" --log-level=error
fi
if [ ! -f "$work/positions-$count.txt" ]; then
    node "$here/genpositions.js" "$work/typescript.min.js" "$count" "$work/positions-$count.txt"
fi
echo "map: $work/typescript.min.js.map ($(wc -c < "$work/typescript.min.js.map") bytes), $count positions"
cat "$work/typescript.min.js.map" "$work/positions-$count.txt" > /dev/null # warm the page cache

timefmt='%e s wall, %M KB peak RSS'
/usr/bin/time -f "symflame total: $timefmt" "$bench" "$work/typescript.min.js.map" "$work/positions-$count.txt"
/usr/bin/time -f "trace-mapping total: $timefmt" node "$here/sourcemap-bench.js" "$nm" "$work/typescript.min.js.map" \
    "$work/positions-$count.txt"
