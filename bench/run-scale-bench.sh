#!/bin/sh
# Ten times the profile, in one run: a seeded 10M-sample synthetic profile (symflame-genprofile:
# 50k functions, depth 20-60; about 355 MB gzip), then
#   - the viewer benchmark on it (symflame-benchviewer: preview painted, complete tree painted,
#     search typed one character at a time; its own wall and CPU figures),
#   - `symflame top`, `go tool pprof -top` and `zcat` (inflating alone, the floor's first part):
#     wall time, CPU time (user + sys) and peak RSS of each (GNU time), and the ratios.
# The issue's targets: preview at most 4 s, complete at most 6 s, peak at most 1.5 GB; top at
# most 4 s; search within 300 ms of the last keystroke.
#
# usage: bench/run-scale-bench.sh BUILD_DIR [SAMPLES]
#   BUILD_DIR  a configured build with symflame, symflame-genprofile and symflame-benchviewer built
#   SAMPLES    default 10000000 (the profile is kept as BUILD_DIR/bench/synthetic-SAMPLES-seed7.pb.gz)
# SKIP_PPROF=1 leaves out `go tool pprof -top` (it needs about 15 GB and over two minutes).
set -eu

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    echo "usage: $0 BUILD_DIR [SAMPLES]" >&2
    exit 2
fi
build=$(cd "$1" && pwd)
samples=${2:-10000000}
gen=$build/bench/symflame-genprofile
symflame=$build/app/symflame
viewer=$build/bench/symflame-benchviewer
for exe in "$gen" "$symflame" "$viewer"; do
    [ -x "$exe" ] || { echo "$0: $exe is missing; build it with: cmake --build $build" >&2; exit 1; }
done
[ -x /usr/bin/time ] || { echo "$0: /usr/bin/time (GNU time) is missing: apt-get install time" >&2; exit 1; }
if [ -z "${SKIP_PPROF:-}" ] && ! command -v go >/dev/null 2>&1; then
    echo "$0: go is not on PATH; the comparison needs \`go tool pprof\` (apt-get install golang-go), or set SKIP_PPROF=1" >&2
    exit 1
fi

profile=$build/bench/synthetic-$samples-seed7.pb.gz
if [ ! -f "$profile" ]; then
    echo "generating $profile ..."
    "$gen" -o "$profile.tmp" --samples "$samples" --seed 7 >/dev/null
    mv "$profile.tmp" "$profile"
fi
echo "profile: $profile, $(stat -c %s "$profile") bytes"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat "$profile" > /dev/null # the page cache holds it for every run

timed() { # label, command...: "label wall cpu rss_kib" (output of the command to $work/out.label)
    label=$1; shift
    /usr/bin/time -f '%e %U %S %M' -o "$work/t" "$@" > "$work/out.$label" 2>/dev/null || true
    awk -v l="$label" '{ printf "%s %s %.2f %s\n", l, $1, $2 + $3, $4 }' "$work/t"
}

echo "viewer (symflame-benchviewer, offscreen, 1920x1080):"
QT_QPA_PLATFORM=offscreen /usr/bin/time -f '%e %U %S %M' -o "$work/tv" "$viewer" "$profile" --repaints 3 2>/dev/null \
    | sed 's/^/  /'
awk '{ printf "  whole run: %.2f s wall, %.2f s CPU, peak %.0f MB\n", $1, $2 + $3, $4 / 1024 }' "$work/tv"

z=$(timed zcat zcat "$profile")
t=$(timed top "$symflame" top "$profile" -n 20)
p="pprof 0 0 0"
if [ -z "${SKIP_PPROF:-}" ]; then
    # pprof may want more memory than the machine has (pprof #936): stopped when less than
    # 2 GB is left available, and said so.
    /usr/bin/time -f '%e %U %S %M' -o "$work/tp" go tool pprof -top -nodecount=20 "$profile" > "$work/out.pprof" 2>/dev/null &
    pid=$!
    killed=
    while kill -0 "$pid" 2>/dev/null; do
        sleep 2
        if [ "$(awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo)" -lt 2048 ]; then
            pkill -f "pprof -top -nodecount=20 $profile" || true
            killed=1
        fi
    done
    wait "$pid" 2>/dev/null || true
    if [ -n "$killed" ]; then
        tail -n 1 "$work/tp" | awk '{ printf "go tool pprof -top: stopped after %.0f s at %.0f MB resident, less than 2 GB left on the machine\n", $1, $4 / 1024 }'
    else
        p=$(awk '{ printf "pprof %s %.2f %s\n", $1, $2 + $3, $4 }' "$work/tp")
    fi
fi
echo "$z" "$t" "$p" | awk '{
    printf "zcat (inflate only)   %7.2f s wall %7.2f s CPU  %6.0f MB\n", $2, $3, $4 / 1024
    printf "symflame top          %7.2f s wall %7.2f s CPU  %6.0f MB   (target: at most 4 s)\n", $6, $7, $8 / 1024
    if ($10 > 0)
        printf "go tool pprof -top    %7.2f s wall %7.2f s CPU  %6.0f MB   %.1fx symflame top\n", $10, $11, $12 / 1024, ($6 > 0 ? $10 / $6 : 0)
}'
echo "load: $(uptime | sed 's/.*load average: //')"
