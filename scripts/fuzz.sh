#!/usr/bin/env bash
# Runs every libFuzzer harness of fuzz/ for a bounded time, seeded with the inputs the normal
# test build made (profiles, ELF files, Go tables: build/tests/fuzzinputs/seeds-<name>.txt) and
# the kept regression inputs. Builds the "fuzz" preset (clang 14, ASan + UBSan) into build-fuzz.
# Prints executions, corpus size and findings per harness; exits 1 when a harness crashed,
# leaked past its memory limit or hung, with the input saved under build-fuzz/findings/.
#
#   scripts/fuzz.sh [SECONDS_PER_HARNESS [HARNESS...]]     (default 30 s, every harness)
#   scripts/fuzz.sh --ci [HARNESS...]
#
# --ci (what .ci/run does): a fresh corpus from the seeds, a fixed random seed and a fixed number
# of runs per harness instead of a time, so that a run gives the same result on every machine.
#
# A finding is fixed, then its input is kept as fuzz/regressions/<name>/<something> so that the
# ordinary tests (fuzzinputs_<name>) run it from then on.
#
# Environment: SYMFLAME_JOBS (default: cores): how many harnesses run at once.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CI_MODE=0
if [ "${1:-}" = "--ci" ]; then
  CI_MODE=1
  shift
  SECONDS_EACH=0
else
  SECONDS_EACH="${1:-30}"
  shift || true
fi
BUILD="${SYMFLAME_BUILD_DIR:-$ROOT/build}"
FUZZ_BUILD="$ROOT/build-fuzz"
JOBS="${SYMFLAME_JOBS:-$(nproc)}"
HARNESSES=("$@")
[ ${#HARNESSES[@]} -gt 0 ] || HARNESSES=(pprof folded gzip elf gopclntab otlp otlpjson collector cpuprofile sourcemap debuglink addrnorm text jsresolve lookup labelview gperftools heapprofile legacytext perfdata)

declare -A MAX_LEN=([pprof]=1048576 [folded]=65536 [gzip]=1048576 [elf]=4194304 [gopclntab]=2097152
  [otlp]=1048576 [otlpjson]=262144 [collector]=262144 [cpuprofile]=262144 [sourcemap]=262144 [debuglink]=1024 [addrnorm]=512 [text]=4096 [jsresolve]=65536 [lookup]=4096 [labelview]=1024 [gperftools]=262144 [heapprofile]=262144 [legacytext]=262144 [perfdata]=262144)
# --ci: runs per harness (each 5-60 s on the 2-core machine; about as many as were run here
# without findings before they were set).
declare -A CI_RUNS=([pprof]=100000 [folded]=150000 [gzip]=150000 [elf]=200000 [gopclntab]=3000
  [otlp]=50000 [otlpjson]=80000 [collector]=100000 [cpuprofile]=20000 [sourcemap]=100000 [debuglink]=4000 [addrnorm]=200000 [text]=1000000 [jsresolve]=10000 [lookup]=400000 [labelview]=200000 [gperftools]=25000 [heapprofile]=1000 [legacytext]=2000 [perfdata]=20000)

cd "$ROOT"
if [ ! -f "$FUZZ_BUILD/CMakeCache.txt" ]; then
  cmake --preset fuzz > /dev/null
fi
cmake --build "$FUZZ_BUILD" --target "${HARNESSES[@]/#/fuzz_}"

# One harness: a fresh corpus in CI mode, its seeds, a bounded run; the summary line (and the
# finding's report lines) go to findings/<h>.summary, its exit status to findings/<h>.status.
run_harness() {
  local h="$1" corpus findings seeds log start rc execs found limit
  corpus="$FUZZ_BUILD/corpus/$h"
  if [ "$CI_MODE" = 1 ]; then
    corpus="$FUZZ_BUILD/corpus-ci/$h"
    rm -rf "$corpus"
  fi
  findings="$FUZZ_BUILD/findings/$h"
  mkdir -p "$corpus" "$findings"
  rm -f "$findings"/crash-* "$findings"/leak-* "$findings"/timeout-* "$findings"/oom-* # the last run's
  seeds="$BUILD/tests/fuzzinputs/seeds-$h.txt"
  if [ -f "$seeds" ]; then
    while IFS= read -r s; do
      [ -n "$s" ] || continue
      if [ -d "$s" ]; then cp -n "$s"/* "$corpus"/ 2>/dev/null || true; elif [ -f "$s" ]; then cp -n "$s" "$corpus"/; fi
    done < "$seeds"
  else
    echo "fuzz: $seeds is missing (build the tests first); $h starts from its corpus only" >&2
  fi
  log="$FUZZ_BUILD/findings/$h.log"
  if [ "$CI_MODE" = 1 ]; then
    limit=(-seed=20261203 -runs="${CI_RUNS[$h]}")
  else
    limit=(-max_total_time="$SECONDS_EACH")
  fi
  start=$(date +%s)
  set +e
  ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1" UBSAN_OPTIONS="print_stacktrace=1" \
    "$FUZZ_BUILD/fuzz/fuzz_$h" "$corpus" "${limit[@]}" -timeout=25 -rss_limit_mb=2048 \
    -max_len="${MAX_LEN[$h]}" -print_final_stats=1 -artifact_prefix="$findings/" > "$log" 2>&1
  rc=$?
  set -e
  execs=$(grep -ao 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  found=$(find "$findings" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
  {
    echo "fuzz_$h: $(( $(date +%s) - start )) s, $execs executions, corpus $(ls "$corpus" | wc -l) inputs, findings $found (exit $rc)"
    if [ "$rc" -ne 0 ] || [ "$found" -ne 0 ]; then
      grep -aE 'ERROR|SUMMARY|runtime error|Test unit written' "$log" | head -8 | sed 's/^/  /'
    fi
  } > "$FUZZ_BUILD/findings/$h.summary"
  if [ "$rc" -ne 0 ] || [ "$found" -ne 0 ]; then echo 1; else echo 0; fi > "$FUZZ_BUILD/findings/$h.status"
}

# The harnesses are single-threaded: run as many at once as there are cores (each its own
# corpus, seed and run count, so the result does not depend on the order), then report them in
# the order they were listed.
mkdir -p "$FUZZ_BUILD/findings"
running=0
for h in "${HARNESSES[@]}"; do
  rm -f "$FUZZ_BUILD/findings/$h.summary" "$FUZZ_BUILD/findings/$h.status"
  run_harness "$h" &
  running=$((running + 1))
  if [ "$running" -ge "$JOBS" ]; then
    wait -n || true
    running=$((running - 1))
  fi
done
wait
status=0
for h in "${HARNESSES[@]}"; do
  if [ -f "$FUZZ_BUILD/findings/$h.summary" ]; then
    cat "$FUZZ_BUILD/findings/$h.summary"
  else
    echo "fuzz_$h: did not report (the run script failed)"
  fi
  [ "$(cat "$FUZZ_BUILD/findings/$h.status" 2>/dev/null || echo 1)" = 0 ] || status=1
done
exit $status
