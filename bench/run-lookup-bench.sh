#!/bin/sh
# `symflame lookup` against `llvm-symbolizer-19 --obj` on the same 100k addresses of a large -O2 -g
# C++ binary (default: the symflame executable of BUILD_DIR, which a RelWithDebInfo build makes
# with -O2 -g), in one run: wall time and peak RSS of each (GNU time's '%e %M'), their ratios, and
# how many of the answers (one block per address, LLVM layout) are identical.
#
# usage: bench/run-lookup-bench.sh BUILD_DIR [BINARY [COUNT]]
#   BUILD_DIR  a configured build with the target symflame built
#   BINARY     the binary whose addresses are looked up (default BUILD_DIR/app/symflame-viewer)
#   COUNT      how many addresses (default 100000), drawn with a fixed seed inside the functions
#              nm lists, in proportion to their sizes, in random order (with repeats, as a
#              profile's addresses come)
set -eu

if [ $# -lt 1 ] || [ $# -gt 3 ]; then
    echo "usage: $0 BUILD_DIR [BINARY [COUNT]]" >&2
    exit 2
fi
build=$(cd "$1" && pwd)
symflame=$build/app/symflame
# symflame-viewer (the viewer and every command) is the larger of the two executables.
binary=${2:-$build/app/symflame-viewer}
count=${3:-100000}
llvm=${LLVM_SYMBOLIZER:-llvm-symbolizer-19}

if [ ! -x "$symflame" ]; then
    echo "$0: $symflame is missing; build it with: cmake --build $build --target symflame" >&2
    exit 1
fi
if [ ! -x /usr/bin/time ]; then
    echo "$0: /usr/bin/time (GNU time) is missing; install it with: apt-get install time" >&2
    exit 1
fi
command -v "$llvm" >/dev/null 2>&1 || { echo "$0: $llvm not found" >&2; exit 1; }
command -v python3 >/dev/null 2>&1 || { echo "$0: python3 (draws the addresses) not found" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Addresses: function i of size s gets about count*s/total of them, at random offsets.
# Only functions that have DWARF (inside a range of .debug_aranges): the static LLVM libraries
# linked into symflame have none, and an address without DWARF is no lookup worth timing.
readelf --debug-dump=aranges "$binary" 2>/dev/null | awk 'NF == 2 && $1 ~ /^[0-9a-f]+$/ { print $1, $2 }' > "$work/aranges"
nm -S --defined-only "$binary" | python3 -c '
import bisect, random, sys
count = int(sys.argv[1])
ranges = []
for line in open(sys.argv[2]):
    a, n = (int(x, 16) for x in line.split())
    if n:
        ranges.append((a, a + n))
ranges.sort()
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
out = []
for _ in range(count):
    i = bisect.bisect_right(cum, rng.randrange(total))
    addr, size = funcs[i]
    out.append("0x%x" % (addr + rng.randrange(size)))
print("\n".join(out))
' "$count" "$work/aranges" > "$work/addresses"
distinct=$(sort -u "$work/addresses" | wc -l)
echo "binary: $binary ($(stat -c %s "$binary") bytes), $count addresses ($distinct distinct)"
cat "$binary" > /dev/null # warm the page cache for both

/usr/bin/time -f '%e %M' -o "$work/llvm.time" "$llvm" --obj="$binary" < "$work/addresses" > "$work/llvm.out"
/usr/bin/time -f '%e %M' -o "$work/symflame.time" "$symflame" lookup --obj "$binary" < "$work/addresses" > "$work/symflame.out"

read -r llvm_s llvm_kb < "$work/llvm.time"
read -r sf_s sf_kb < "$work/symflame.time"
# One answer per address: the blocks between blank lines, compared in order.
identical=$(awk 'BEGIN { RS = ""; } FNR == NR { want[FNR] = $0; next } { if (want[FNR] == $0) same++; total++ }
                 END { printf "%d of %d", same, total }' "$work/llvm.out" "$work/symflame.out")
echo "llvm-symbolizer: ${llvm_s} s, peak RSS ${llvm_kb} KB"
echo "symflame lookup: ${sf_s} s, peak RSS ${sf_kb} KB"
awk -v a="$llvm_s" -v b="$sf_s" -v c="$llvm_kb" -v d="$sf_kb" 'BEGIN {
    printf "wall time llvm/symflame: %.2fx; peak RSS llvm/symflame: %.2fx\n", (b > 0 ? a / b : 0), (d > 0 ? c / d : 0) }'
echo "identical answers: $identical"
