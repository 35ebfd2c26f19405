#!/bin/sh
# The gopclntab engine against `go tool addr2line` on the same 100k PCs of a large Go binary:
# the `go` command built from the toolchain's own sources and stripped (-ldflags="-s -w"), in one
# run: wall time and peak RSS of each (GNU time's '%e %M', the fastest of RUNS runs), the ratio, how many answers agree
# (physical function and innermost file:line, what addr2line prints) and how many addresses
# symflame gives inlined frames for, which addr2line does not print.
#
# usage: bench/run-go-lookup-bench.sh BUILD_DIR [COUNT]
#   BUILD_DIR  a configured build with the target symflame built
#   COUNT      how many PCs (default 100000), drawn with a fixed seed inside the functions
#              `go tool nm -size` lists, in proportion to their sizes, in random order
set -eu

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    echo "usage: $0 BUILD_DIR [COUNT]" >&2
    exit 2
fi
build=$(cd "$1" && pwd)
symflame=$build/app/symflame
count=${2:-100000}
[ -x "$symflame" ] || { echo "$0: $symflame is missing; build it with: cmake --build $build --target symflame" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "$0: /usr/bin/time (GNU time) is missing: apt-get install time" >&2; exit 1; }
command -v go >/dev/null 2>&1 || { echo "$0: go not found" >&2; exit 1; }
addr2line=$(go env GOTOOLDIR)/addr2line

work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT

# The go command from GOROOT's sources, with its symbol table (for the PCs) and stripped (read).
export GOCACHE="$build/bench/gocache" GOPROXY=off GOFLAGS= GOTOOLCHAIN=local CGO_ENABLED=0
go build -o "$work/go-symbols" cmd/go
go build -ldflags="-s -w" -o "$work/go-stripped" cmd/go
echo "binary: go command of $(go version | cut -d' ' -f3), $(stat -c %s "$work/go-stripped") bytes stripped"

go tool nm -size -sort address "$work/go-symbols" | python3 -c '
import bisect, random, sys
count = int(sys.argv[1])
funcs = []
for line in sys.stdin:
    f = line.split()
    if len(f) >= 4 and f[2] in ("T", "t") and int(f[1]) > 0:
        funcs.append((int(f[0], 16), int(f[1])))
cum, total = [], 0
for _, size in funcs:
    total += size
    cum.append(total)
rng = random.Random(20261203)
out = []
for _ in range(count):
    i = bisect.bisect_right(cum, rng.randrange(total))
    addr, size = funcs[i]
    out.append("0x%x" % (addr + rng.randrange(size)))
print("\n".join(out))
' "$count" > "$work/pcs"
echo "PCs: $(wc -l < "$work/pcs") ($(sort -u "$work/pcs" | wc -l) distinct)"

cat "$work/go-stripped" "$work/go-symbols" > /dev/null # warm the page cache for both
# Each tool RUNS times (default 5), alternating; the fastest run of each is reported.
runs=${RUNS:-5}
best() { # FILE: keeps the line with the smallest wall time of FILE.all in FILE
    sort -n "$1.all" | head -1 > "$1"
}
for _ in $(seq "$runs"); do
    /usr/bin/time -a -f '%e %M' -o "$work/t-go.all" go tool addr2line "$work/go-stripped" < "$work/pcs" > "$work/out-go"
    /usr/bin/time -a -f '%e %M' -o "$work/t-tool.all" "$addr2line" "$work/go-stripped" < "$work/pcs" > "$work/out-tool"
    /usr/bin/time -a -f '%e %M' -o "$work/t-sf.all" "$symflame" lookup --obj "$work/go-stripped" --output-style=LLVM < "$work/pcs" > "$work/out-sf"
done
best "$work/t-go"; best "$work/t-tool"; best "$work/t-sf"

python3 - "$work" <<'PY'
import sys
w = sys.argv[1]
go = open(w + "/out-go").read().split("\n")
sf = open(w + "/out-sf").read().split("\n\n")
n = len(open(w + "/pcs").read().split())
same = inlined = 0
diff = []
for i in range(n):
    name, pos = go[2 * i], go[2 * i + 1]
    lines = sf[i].strip("\n").split("\n")
    frames = [(lines[k], lines[k + 1]) for k in range(0, len(lines) - 1, 2)]
    inner = frames[0][1].rsplit(":", 1)[0]  # drop the column
    if frames[-1][0] == name and inner == pos:
        same += 1
    elif len(diff) < 5:
        diff.append((name, pos, frames))
    inlined += len(frames) > 1
print("answers: %d of %d identical (physical function, innermost file:line); %d with inlined frames addr2line does not print" % (same, n, inlined))
for d in diff:
    print("  differs:", d)
PY
read gt gm < "$work/t-go"
read tt tm < "$work/t-tool"
read st sm < "$work/t-sf"
echo "go tool addr2line:            ${gt} s, ${gm} KB"
echo "addr2line (tool binary only): ${tt} s, ${tm} KB"
echo "symflame lookup:              ${st} s, ${sm} KB"
python3 -c "import sys; g,t,s=map(float,sys.argv[1:]); print('speed-up: %.2fx over go tool addr2line, %.2fx over the addr2line binary' % (g/max(s,0.005), t/max(s,0.005)))" "$gt" "$tt" "$st"
