#!/bin/sh
# Triage against symbolization on profiles of a big binary with DWARF (the symflame viewer's own,
# built with -g), in one run: `symflame info` (binaries located, their debug info checked, frames
# named from symbol tables), `symflame info --symbolize` (the table from a full symbolization, as
# before) and `symflame symbolize`: median wall and CPU time of 5 runs each, the last run's peak
# RSS, and info's share of symbolize's time (the target: at most a third). Two profiles of
# `symflame-viewer render` painting the synthetic 1M-sample profile: gperftools' (converted by
# `go tool pprof -proto`, few locations, so the binaries dominate) and `perf record -g` (many
# locations and a 30-odd MB perf.data, so reading the file weighs too). Also checks that info's
# binaries table equals info --symbolize's.
#
# usage: bench/run-info-bench.sh BUILD_DIR
#   BUILD_DIR  a configured build with symflame, symflame-viewer and symflame-genprofile built
set -eu

if [ $# -ne 1 ]; then
    echo "usage: $0 BUILD_DIR" >&2
    exit 2
fi
build=$(cd "$1" && pwd)
symflame=$build/app/symflame
viewer=$build/app/symflame-viewer
gen=$build/bench/symflame-genprofile
profiler=$(ls /usr/lib/x86_64-linux-gnu/libprofiler.so.0 2>/dev/null || true)
for exe in "$symflame" "$viewer" "$gen"; do
    [ -x "$exe" ] || { echo "$0: $exe is missing; build it with: cmake --build $build" >&2; exit 1; }
done
[ -n "$profiler" ] || { echo "$0: gperftools' libprofiler is missing (apt-get install libgoogle-perftools-dev)" >&2; exit 1; }
command -v perf >/dev/null || { echo "$0: perf is missing (apt-get install linux-perf)" >&2; exit 1; }

work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
input=$build/bench/synthetic-1m-seed1.pb.gz
[ -f "$input" ] || "$gen" -o "$input" --seed 1 >/dev/null

for i in 1 2 3; do
    QT_QPA_PLATFORM=offscreen LD_PRELOAD=$profiler CPUPROFILE=$work/viewer.$i.prof CPUPROFILE_FREQUENCY=4000 \
        "$viewer" render "$input" -o "$work/out.png" >/dev/null 2>&1
done
go tool pprof -proto -symbolize=none -output="$work/viewer.pb.gz" "$viewer" "$work"/viewer.*.prof >/dev/null 2>&1
QT_QPA_PLATFORM=offscreen perf record -q -e cpu-clock -F 20000 -g -o "$work/viewer.perf.data" \
    "$viewer" render "$input" -o "$work/out.png" >/dev/null 2>&1
echo "binary: $viewer ($(du -m "$viewer" | cut -f1) MB)"

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
measure() { # label, command...: median wall and CPU (user+sys) seconds of 5 runs, the last one's peak RSS (KiB)
    label=$1; shift
    : > "$work/times"
    for run in 1 2 3 4 5; do
        /usr/bin/time -f '%e %U %S %M' -o "$work/t" "$@" > "$work/out.$label" 2>/dev/null
        cat "$work/t" >> "$work/times"
    done
    wall=$(cut -d' ' -f1 < "$work/times" | median)
    cpu=$(awk '{ print $2 + $3 }' < "$work/times" | median)
    rss=$(tail -n 1 "$work/times" | cut -d' ' -f4)
    echo "$label $wall $cpu $rss"
}
for profile in viewer.pb.gz viewer.perf.data; do
    in=$work/$profile
    echo "$profile: $(ls -la "$in" | awk '{print $5}') bytes, $("$symflame" info "$in" | awk '/^Locations:/ { print $2 }') locations"
    s=$(measure symbolize "$symflame" symbolize "$in" -o "$work/sym.pb.gz" --offline)
    f=$(measure full "$symflame" info "$in" --symbolize --json)
    t=$(measure triage "$symflame" info "$in" --json)
    echo "$s" "$f" "$t" | awk '{
        printf "  symflame symbolize        %6.3f s wall %6.3f s CPU  %7d KiB\n", $2, $3, $4
        printf "  symflame info --symbolize %6.3f s wall %6.3f s CPU  %7d KiB\n", $6, $7, $8
        printf "  symflame info             %6.3f s wall %6.3f s CPU  %7d KiB   %.2f of symbolize (target: at most 0.33)\n", $10, $11, $12, ($2 > 0 ? $10 / $2 : 0)
    }'
    binaries() { python3 -c 'import json, sys; [print(b) for b in json.load(open(sys.argv[1]))["binaries"]]' "$1"; }
    if [ "$(binaries "$work/out.triage")" = "$(binaries "$work/out.full")" ]; then
        echo "  info's binaries table equals info --symbolize's"
    else
        echo "  info's binaries table differs from info --symbolize's:"
        binaries "$work/out.triage" > "$work/a"; binaries "$work/out.full" > "$work/b"; diff "$work/a" "$work/b" | head -10
    fi
done
uptime
