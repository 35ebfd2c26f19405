#!/usr/bin/env bash
# 50 build IDs fetched from a local debuginfod server (Debian's, on 127.0.0.1): symflame's client
# with N downloads at once, one at a time, and `debuginfod-find` in a loop; each run starts from
# an empty client cache.
#   bench/run-debuginfod-bench.sh BUILD_DIR [COUNT] [PARALLEL]
set -euo pipefail
BUILD=${1:?usage: run-debuginfod-bench.sh BUILD_DIR [COUNT] [PARALLEL]}
COUNT=${2:-50}
PAR=${3:-8}
BENCH="$BUILD/bench/symflame-fetchbench"
[[ -x $BENCH ]] || { echo "build the symflame-fetchbench target first" >&2; exit 2; }
W=$(mktemp -d)
trap 'kill $SERVER 2>/dev/null || true; [[ -n ${KEEP:-} ]] || rm -rf "$W"' EXIT
mkdir -p "$W/files"
# COUNT programs with distinct code (so distinct build IDs), each split into binary + debug file.
for i in $(seq 1 "$COUNT"); do
  printf 'int f%d(int x){return x*%d+1;}\nint main(int c,char**v){(void)v;return f%d(c);}\n' "$i" "$i" "$i" > "$W/p$i.c"
  cc -O2 -g "$W/p$i.c" -o "$W/files/p$i"
  objcopy --only-keep-debug "$W/files/p$i" "$W/files/p$i.debug"
  strip --strip-debug "$W/files/p$i"
  # Padding: debug files of a realistic size (~1 MiB each), so the transfer is measured too.
  head -c 1048576 /dev/urandom > "$W/pad"
  objcopy --add-section .bench_pad="$W/pad" "$W/files/p$i.debug"
  readelf -n "$W/files/p$i" | awk '/Build ID/{print $3}' >> "$W/ids.txt"
done
PORT=$(( 20000 + RANDOM % 20000 ))
debuginfod -F -p "$PORT" -d "$W/db.sqlite" -t 0 -g 0 "$W/files" > "$W/server.log" 2>&1 &
SERVER=$!
URL="http://127.0.0.1:$PORT"
for _ in $(seq 1 200); do
  m=$(curl -s "$URL/metrics" 2>/dev/null || true)
  if grep -q 'thread_work_total{role="traverse"} 1' <<<"$m" && grep -q 'thread_work_pending{role="scan"} 0' <<<"$m" \
     && grep -q 'thread_busy{role="scan"} 0' <<<"$m"; then break; fi
  sleep 0.1
done
echo "server $URL indexing $COUNT binaries and debug files"
"$BENCH" --debuginfod "$URL" --cache "$W/c1" --parallel 1 "$W/ids.txt"
"$BENCH" --debuginfod "$URL" --cache "$W/cN" --parallel "$PAR" "$W/ids.txt"
start=$(date +%s.%N)
while read -r id; do
  DEBUGINFOD_URLS="$URL" DEBUGINFOD_CACHE_PATH="$W/cf" debuginfod-find debuginfo "$id" > /dev/null
done < "$W/ids.txt"
end=$(date +%s.%N)
awk -v s="$start" -v e="$end" -v n="$COUNT" 'BEGIN{printf "debuginfod-find loop: fetched %d wall=%.3f s\n", n, e - s}'
echo "work dir $W"; du -sh "$W/c1" "$W/cN" "$W/cf"
