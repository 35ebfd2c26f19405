#!/bin/sh
# Comparing two profiles against opening one, in one run: `symflame diff render BASE NEW` (both
# read, merged, both sides' call trees, painted colored by change) against `symflame render NEW`
# (one read, one tree, painted), on two synthetic 1M-sample profiles of different seeds. Median
# wall time of 3 runs each, peak RSS, and the ratio (the target: at most 2.5).
#
# usage: bench/run-diff-bench.sh BUILD_DIR
#   BUILD_DIR  a configured build with symflame, symflame-viewer and symflame-genprofile built
set -eu

if [ $# -ne 1 ]; then
    echo "usage: $0 BUILD_DIR" >&2
    exit 2
fi
build=$(cd "$1" && pwd)
gen=$build/bench/symflame-genprofile
symflame=$build/app/symflame
for exe in "$gen" "$symflame"; do
    if [ ! -x "$exe" ]; then
        echo "$0: $exe is missing; build it with: cmake --build $build" >&2
        exit 1
    fi
done
if [ ! -x /usr/bin/time ]; then
    echo "$0: /usr/bin/time (GNU time) is missing; install it with: apt-get install time" >&2
    exit 1
fi
base=$build/bench/synthetic-1m-seed1.pb.gz
new=$build/bench/synthetic-1m-seed2.pb.gz
[ -f "$base" ] || "$gen" -o "$base" --seed 1 >/dev/null
[ -f "$new" ] || "$gen" -o "$new" --seed 2 >/dev/null

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export QT_QPA_PLATFORM=offscreen

# median of three "seconds kilobytes" lines, by seconds
median() {
    sort -n "$1" | sed -n 2p
}
for i in 1 2 3; do
    /usr/bin/time -f '%e %M' -o "$work/t" "$symflame" render "$new" -o "$work/one.png" >/dev/null 2>&1
    cat "$work/t" >>"$work/one"
    /usr/bin/time -f '%e %M' -o "$work/t" "$symflame" diff render "$base" "$new" -o "$work/diff.png" >/dev/null 2>&1
    cat "$work/t" >>"$work/diff"
done
one=$(median "$work/one")
diff=$(median "$work/diff")
echo "render NEW (one profile):        $(echo "$one" | awk '{printf "%.2f s, %.0f MB peak", $1, $2 / 1024}')"
echo "diff render BASE NEW (compared): $(echo "$diff" | awk '{printf "%.2f s, %.0f MB peak", $1, $2 / 1024}')"
echo "ratio: $(echo "$one $diff" | awk '{printf "%.2f", $3 / $1}') (target: at most 2.5)"
