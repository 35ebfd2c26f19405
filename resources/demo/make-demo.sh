#!/usr/bin/env bash
# Rebuilds the demo profile: builds the workload in resources/demo/src with Debian's Go
# (offline: no module proxy, a throw-away build cache) and runs it under runtime/pprof, which
# writes resources/demo/demo-cpu.pb.gz. The workload stops after a budget of CPU time (not wall
# time), so a busy machine gives as many samples. The profile differs from run to run (it is
# sampled); the committed one is one such run.
#
#   resources/demo/make-demo.sh [--cpu 4s]
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CPU=4s
while [ $# -gt 0 ]; do
  case "$1" in
    --cpu) CPU="$2"; shift ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "make-demo.sh: unknown option $1" >&2; exit 64 ;;
  esac
  shift
done

command -v go >/dev/null || { echo "make-demo.sh: needs Go (apt-get install golang-go)" >&2; exit 1; }
# A fixed scratch directory, because the binary's path is recorded in the profile's mapping.
WORK="${TMPDIR:-/tmp}/symflame-demo"
rm -rf "$WORK"
mkdir -p "$WORK"
trap 'rm -rf "$WORK"' EXIT

# A fixed GNU build ID, so the profile's mapping names its binary the way native ones do.
BUILD_ID=de30de30de30de30de30de30de30de30de30de30
(
  cd "$HERE/src"
  env GOCACHE="$WORK/gocache" GOPATH="$WORK/gopath" GOPROXY=off GOFLAGS=-mod=mod GOWORK=off \
      CGO_ENABLED=0 GO111MODULE=on GOTOOLCHAIN=local \
      go build -buildvcs=false -trimpath -ldflags="-B 0x$BUILD_ID" -o "$WORK/workload" .
)
# Go 1.19 preempts long-running goroutines with a signal; a SIGPROF that arrives right behind
# one is charged to runtime.asyncPreempt (a fifth of all samples on a busy machine), which says
# nothing about the workload. asyncpreemptoff=1 turns that preemption off for the run.
GODEBUG=asyncpreemptoff=1 "$WORK/workload" -cpuprofile "$HERE/demo-cpu.pb.gz" -cpu "$CPU"
echo "make-demo.sh: wrote $HERE/demo-cpu.pb.gz ($(stat -c %s "$HERE/demo-cpu.pb.gz") bytes, $(go version | cut -d' ' -f3))"
