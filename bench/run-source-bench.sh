#!/bin/sh
# Source and disassembly of the hottest function of the symflame viewer's own binary, in one run:
# a CPU profile of `symflame-viewer render` painting a synthetic 1M-sample profile (gperftools,
# converted by `go tool pprof -proto`, symbolized by `symflame symbolize`), then
# `symflame source` against `pprof -list` and `symflame disasm` against `pprof -disasm` (upstream
# pprof built by the tests, which uses binutils' objdump) on that function: median wall time of 5
# runs each, peak RSS, the ratios (the target: disasm at least 5 times faster), and whether the
# per-line and per-instruction costs agree.
#
# usage: bench/run-source-bench.sh BUILD_DIR
#   BUILD_DIR  a configured build with symflame, symflame-viewer, symflame-genprofile and the test
#              fixtures (tests/fixtures/tools/pprof) built
set -eu

if [ $# -ne 1 ]; then
    echo "usage: $0 BUILD_DIR" >&2
    exit 2
fi
build=$(cd "$1" && pwd)
symflame=$build/app/symflame
viewer=$build/app/symflame-viewer
gen=$build/bench/symflame-genprofile
pprof=$build/tests/fixtures/tools/pprof
profiler=$(ls /usr/lib/x86_64-linux-gnu/libprofiler.so.0 2>/dev/null || true)
for exe in "$symflame" "$viewer" "$gen" "$pprof"; do
    [ -x "$exe" ] || { echo "$0: $exe is missing; build it with: cmake --build $build" >&2; exit 1; }
done
[ -n "$profiler" ] || { echo "$0: gperftools' libprofiler is missing (apt-get install libgoogle-perftools-dev)" >&2; exit 1; }

work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
input=$build/bench/synthetic-1m-seed1.pb.gz
[ -f "$input" ] || "$gen" -o "$input" --seed 1 >/dev/null

# The viewer's own profile: render paints the 1M-sample profile three times over.
for i in 1 2 3; do
    QT_QPA_PLATFORM=offscreen LD_PRELOAD=$profiler CPUPROFILE=$work/viewer.$i.prof CPUPROFILE_FREQUENCY=1000 \
        "$viewer" render "$input" -o "$work/out.png" >/dev/null 2>&1
done
go tool pprof -proto -symbolize=none -output="$work/viewer-raw.pb.gz" "$viewer" "$work"/viewer.*.prof >/dev/null 2>&1
"$symflame" symbolize "$work/viewer-raw.pb.gz" -o "$work/viewer.pb.gz" --offline >/dev/null
# The hottest function with code of its own (a function inlined everywhere has no symbol to
# disassemble).
# The pattern is the function's own name (the identifier before its parameters), which Go's
# regexp and RE2 read alike and which matches pprof's mangled symbol names as well.
"$symflame" top "$work/viewer.pb.gz" -n 50 --json | python3 -c '
import json, re, sys
for f in json.load(sys.stdin)["functions"]:
    m = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(", f["name"])
    if m and len(m.group(1)) >= 6:
        print(m.group(1))' > "$work/candidates"
pattern=
while IFS= read -r candidate; do
    if "$symflame" disasm "$work/viewer.pb.gz" "$candidate" >/dev/null 2>&1; then
        pattern=$candidate
        break
    fi
done < "$work/candidates"
[ -n "$pattern" ] || { echo "$0: none of the 50 hottest functions has code to disassemble" >&2; exit 1; }
echo "profile: $(ls -la "$work/viewer.pb.gz" | awk '{print $5}') bytes; function: $pattern"

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
measure() { # label, command...: median wall seconds of 5 runs that answered, the last one's peak RSS (KiB)
    label=$1; shift
    : > "$work/times"
    tries=0
    # pprof -disasm answers "no matches found" in some runs (its choice of binaries changes from
    # run to run): only runs that printed a ROUTINE count, up to 40 tries.
    while [ "$(wc -l < "$work/times")" -lt 5 ] && [ $tries -lt 40 ]; do
        tries=$((tries + 1))
        if /usr/bin/time -f '%e %M' -o "$work/t" "$@" > "$work/run.$label" 2>/dev/null && grep -q ROUTINE "$work/run.$label"; then
            cat "$work/t" >> "$work/times"
            cp "$work/run.$label" "$work/out.$label"
        fi
    done
    [ -s "$work/times" ] || echo "0 0" > "$work/times"
    wall=$(cut -d' ' -f1 < "$work/times" | median)
    rss=$(tail -n 1 "$work/times" | cut -d' ' -f2)
    echo "$label $wall $rss $tries"
}
s=$(measure source "$symflame" source "$work/viewer.pb.gz" "$pattern")
l=$(measure list "$pprof" -list="$pattern" "$work/viewer.pb.gz")
d=$(measure disasm "$symflame" disasm "$work/viewer.pb.gz" "$pattern")
p=$(measure pdisasm "$pprof" -disasm="$pattern" "$work/viewer.pb.gz")
echo "$s" "$l" "$d" "$p" | awk '{
    printf "symflame source   %6.3f s  %7d KiB\n", $2, $3
    printf "pprof -list       %6.3f s  %7d KiB   ratio %.1fx\n", $6, $7, ($2 > 0 ? $6 / $2 : 0)
    printf "symflame disasm   %6.3f s  %7d KiB\n", $10, $11
    printf "pprof -disasm     %6.3f s  %7d KiB   ratio %.1fx (target: at least 5; %d runs for 5 answers)\n", $14, $15, ($10 > 0 ? $14 / $10 : 0), $16
}'
# Do the costs agree? The per-line and per-instruction flat/cum pairs, as sets.
costs() { awk '$3 ~ /^[0-9a-f]+:/ || $3 ~ /^[0-9]+:/ { if ($1 != "." || $2 != ".") print $3, $1, $2 }' "$1" | sort; }
for kind in "source list" "disasm pdisasm"; do
    set -- $kind
    if [ -z "$(costs "$work/out.$1")" ]; then
        echo "$1: printed no costs"
    elif [ "$(costs "$work/out.$1")" = "$(costs "$work/out.$2")" ]; then
        echo "$1: the costs of every line or instruction equal pprof's"
    else
        echo "$1: costs differ from pprof's:"
        costs "$work/out.$1" > "$work/a"; costs "$work/out.$2" > "$work/b"; diff "$work/a" "$work/b" | head -10
    fi
done
uptime
