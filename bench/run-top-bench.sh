#!/bin/sh
# `symflame top` against `go tool pprof -top` on the same large profile, in one run: wall time
# and peak RSS of each (GNU time's '%e %M'), then the ratios. Generates the synthetic profile
# with symflame-genprofile when it is not there yet.
#
# usage: bench/run-top-bench.sh BUILD_DIR [PROFILE]
#   BUILD_DIR  a configured build with the targets symflame and symflame-genprofile built
#   PROFILE    default BUILD_DIR/bench/synthetic-1m.pb.gz (generated: 1M samples, seed fixed)
set -eu

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    echo "usage: $0 BUILD_DIR [PROFILE]" >&2
    exit 2
fi
build=$(cd "$1" && pwd)
profile=${2:-$build/bench/synthetic-1m.pb.gz}
gen=$build/bench/symflame-genprofile
symflame=$build/app/symflame

for exe in "$gen" "$symflame"; do
    if [ ! -x "$exe" ]; then
        echo "$0: $exe is missing; build it with: cmake --build $build --target symflame symflame-genprofile" >&2
        exit 1
    fi
done
if [ ! -x /usr/bin/time ]; then
    echo "$0: /usr/bin/time (GNU time) is missing; install it with: apt-get install time" >&2
    exit 1
fi
if ! command -v go >/dev/null 2>&1; then
    echo "$0: go is not on PATH; the comparison needs \`go tool pprof\` (apt-get install golang-go)" >&2
    exit 1
fi

if [ ! -f "$profile" ]; then
    echo "generating $profile ..."
    "$gen" -o "$profile"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
# pprof keeps state in HOME; keep it out of the user's. Both tools read the profile's default
# sample type (the last one, cpu) and neither symbolizes.
mkdir -p "$work/home"

measure() { # name, command...: runs it once, output to $work/<name>.out, "%e %M" to $work/<name>.time
    name=$1
    shift
    /usr/bin/time -f '%e %M' -o "$work/$name.time" "$@" >"$work/$name.out" 2>"$work/$name.err" || {
        echo "$0: $name failed:" >&2
        cat "$work/$name.err" >&2
        exit 1
    }
}

# Read the file once first so that neither tool pays for a cold page cache.
cat "$profile" >/dev/null
measure symflame "$symflame" top "$profile" -n 20
measure pprof env HOME="$work/home" PPROF_TMPDIR="$work/home" go tool pprof -symbolize=none -top -nodecount=20 "$profile"

echo "== symflame top $profile -n 20"
cat "$work/symflame.out"
echo
echo "== go tool pprof -top -nodecount=20 $profile"
cat "$work/pprof.out"
echo

read -r s_wall s_rss <"$work/symflame.time"
read -r p_wall p_rss <"$work/pprof.time"
echo "== $(basename "$profile"): $(stat -c %s "$profile") bytes, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
awk -v sw="$s_wall" -v sr="$s_rss" -v pw="$p_wall" -v pr="$p_rss" 'BEGIN {
    printf "%-16s %10s %14s\n", "", "wall (s)", "peak RSS (MB)"
    printf "%-16s %10.2f %14.1f\n", "symflame top", sw, sr / 1024
    printf "%-16s %10.2f %14.1f\n", "go tool pprof", pw, pr / 1024
    printf "%-16s %9.2fx %13.2fx\n", "pprof/symflame", (sw > 0 ? pw / sw : 0), (sr > 0 ? pr / sr : 0)
}'
