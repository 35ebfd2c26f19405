#!/usr/bin/env bash
# The whole test suite under AddressSanitizer + UndefinedBehaviorSanitizer (LeakSanitizer on):
# configures the "asan" preset (gcc, -O1 -g1, asserts and libstdc++'s bounds checks on) into
# build-asan, builds everything, runs every ctest. Each sanitizer report is fatal and written to
# build-asan/sanitizer-reports/ (children the tests start included); this script prints them and
# exits 1 when there is one, even if the test that caused it passed.
#
#   scripts/sanitize.sh [CTEST_ARGS...]        e.g. scripts/sanitize.sh -R tst_pprof
#
# Environment: SYMFLAME_ASAN_BUILD_DIR (default: build-asan), SYMFLAME_JOBS (default: cores).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${SYMFLAME_ASAN_BUILD_DIR:-$ROOT/build-asan}"
JOBS="${SYMFLAME_JOBS:-$(nproc)}"
REPORTS="$BUILD/sanitizer-reports"

"$ROOT/scripts/setup.sh" --no-build > /dev/null
cd "$ROOT"
start=$(date +%s)
if [ ! -f "$BUILD/CMakeCache.txt" ]; then
  cmake --preset asan -B "$BUILD" > /dev/null
fi
cmake --build "$BUILD" -j "$JOBS"
built=$(date +%s)

rm -rf "$REPORTS"
mkdir -p "$REPORTS"
set +e
ctest --test-dir "$BUILD" --output-on-failure -j "$JOBS" "$@"
rc=$?
set -e
done_at=$(date +%s)

# UBSan's reports (gcc 12: its runtime writes them to stderr, not to log_path) and those of a
# process started without the test environment are in the tests' output.
if grep -a -E "runtime error:|ERROR: (AddressSanitizer|LeakSanitizer)" "$BUILD/Testing/Temporary/LastTest.log" \
    > "$REPORTS/from-test-output.txt" 2>/dev/null; then
  mv "$REPORTS/from-test-output.txt" "$REPORTS/report.from-test-output"
else
  rm -f "$REPORTS/from-test-output.txt"
fi
reports=("$REPORTS"/report.*)
if [ -e "${reports[0]}" ]; then
  echo "sanitize: ${#reports[@]} sanitizer report(s):" >&2
  for r in "${reports[@]}"; do
    echo "--- $r" >&2
    head -n 60 "$r" >&2
  done
  rc=1
fi
echo "sanitize: build $((built - start)) s, tests $((done_at - built)) s, $([ $rc = 0 ] && echo "no reports, every test passed" || echo "FAILED")"
exit "$rc"
