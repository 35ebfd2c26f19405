#!/bin/sh
# What isolation costs (symbolize/isolation/isolatedengine.h): the same work in process (--isolate=none) and in
# worker processes (--isolate=all), and whether the answers are the same.
#   1. `symflame lookup` of COUNT addresses of a large -O2 -g binary (default
#      BUILD_DIR/app/symflame-viewer), drawn as bench/run-lookup-bench.sh draws them;
#   2. `symflame symbolize --offline` of a synthetic profile whose main mapping is that binary
#      (bench/genprofile.cpp --binary), the output files compared byte for byte.
# Each run is timed with GNU time ('%e %U %S %M': wall, user, system CPU and peak RSS of the
# parent; the workers' CPU is included in user/system, their memory is not in the peak RSS); the
# fastest wall time of RUNS runs (default 3) is kept.
#
# usage: bench/run-isolation-bench.sh BUILD_DIR [BINARY [COUNT [RUNS]]]
#   BUILD_DIR  a configured build with the targets symflame and symflame-genprofile built
set -eu

if [ $# -lt 1 ] || [ $# -gt 4 ]; then
    echo "usage: $0 BUILD_DIR [BINARY [COUNT [RUNS]]]" >&2
    exit 2
fi
build=$(cd "$1" && pwd)
symflame=$build/app/symflame
genprofile=$build/bench/symflame-genprofile
binary=${2:-$build/app/symflame-viewer}
count=${3:-100000}
runs=${4:-3}
for tool in "$symflame" "$genprofile"; do
    if [ ! -x "$tool" ]; then
        echo "$0: $tool is missing; build it with: cmake --build $build --target symflame symflame-genprofile" >&2
        exit 1
    fi
done
if [ ! -x /usr/bin/time ]; then
    echo "$0: /usr/bin/time (GNU time) is missing; install it with: apt-get install time" >&2
    exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

readelf --debug-dump=aranges "$binary" 2>/dev/null | awk 'NF == 2 && $1 ~ /^[0-9a-f]+$/ { print $1, $2 }' > "$work/aranges"
nm -S --defined-only "$binary" | python3 -c '
import bisect, random, sys
count = int(sys.argv[1])
ranges = sorted((a, a + n) for a, n in ((int(x, 16) for x in l.split()) for l in open(sys.argv[2])) if n)
starts = [r[0] for r in ranges]
def covered(a):
    i = bisect.bisect_right(starts, a) - 1
    return not ranges or (i >= 0 and a < ranges[i][1])
funcs = []
for line in sys.stdin:
    f = line.split()
    if len(f) >= 4 and f[2] in ("t", "T", "w", "W") and int(f[1], 16) > 0 and covered(int(f[0], 16)):
        funcs.append((int(f[0], 16), int(f[1], 16)))
cum, total = [], 0
for _, size in funcs:
    total += size
    cum.append(total)
rng = random.Random(20261202)
for _ in range(count):
    addr, size = funcs[bisect.bisect_right(cum, rng.randrange(total))]
    print("0x%x" % (addr + rng.randrange(size)))
' "$count" "$work/aranges" > "$work/addresses"
echo "binary: $binary ($(stat -c %s "$binary") bytes), $count addresses ($(sort -u "$work/addresses" | wc -l) distinct)"
cat "$binary" > /dev/null

# best NAME OUT CMD...: runs CMD (stdin from $work/in) RUNS times, keeps the fastest line.
best() {
    name=$1 out=$2
    shift 2
    : > "$work/$name.times"
    i=0
    while [ "$i" -lt "$runs" ]; do
        /usr/bin/time -f '%e %U %S %M' -o "$work/$name.t" "$@" < "$work/in" > "$out"
        cat "$work/$name.t" >> "$work/$name.times"
        i=$((i + 1))
    done
    sort -n "$work/$name.times" | head -1 | awk -v n="$name" '{ printf "%-28s wall %s s, CPU %.2f s, peak RSS %d MB\n", n, $1, $2 + $3, $4 / 1024 }'
    sort -n "$work/$name.times" | head -1 | cut -d' ' -f1 > "$work/$name.best"
}

cp "$work/addresses" "$work/in"
best "lookup in process" "$work/lookup-none.out" "$symflame" lookup --obj "$binary" --isolate=none
best "lookup isolated" "$work/lookup-all.out" "$symflame" lookup --obj "$binary" --isolate=all
if cmp -s "$work/lookup-none.out" "$work/lookup-all.out"; then same=identical; else same=DIFFERENT; fi
awk -v a="$(cat "$work/lookup in process.best")" -v b="$(cat "$work/lookup isolated.best")" -v s="$same" \
    'BEGIN { printf "lookup: isolated/in process %.2fx wall, answers %s\n", (a > 0 ? b / a : 0), s }'

"$genprofile" -o "$work/profile.pb.gz" --binary "$binary" > /dev/null
: > "$work/in"
best "symbolize in process" "$work/sym-none.txt" "$symflame" symbolize "$work/profile.pb.gz" -o "$work/none.pb.gz" --offline --isolate=none
best "symbolize isolated" "$work/sym-all.txt" "$symflame" symbolize "$work/profile.pb.gz" -o "$work/all.pb.gz" --offline --isolate=all
if cmp -s "$work/none.pb.gz" "$work/all.pb.gz" && cmp -s "$work/sym-none.txt" "$work/sym-all.txt"; then same=identical; else same=DIFFERENT; fi
awk -v a="$(cat "$work/symbolize in process.best")" -v b="$(cat "$work/symbolize isolated.best")" -v s="$same" \
    'BEGIN { printf "symbolize: isolated/in process %.2fx wall, output files and reports %s\n", (a > 0 ? b / a : 0), s }'
