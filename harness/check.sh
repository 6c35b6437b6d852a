#!/usr/bin/env bash
# make check: boot the kernel of the current mode, run the guest suites
# (KUnit, ftracetest kprobe/dynevent, ours), the host-side static checks
# the config matrix (builds only, x86 variants and the other kprobes
# architectures), our KUnit suite booted on arm64 and the debug kernel
# (harness/debug.sh; DEBUG=0 leaves it out), and print one table ending in
# 'N passed, N failed, N skipped'.
# Usage: check.sh [FILTER]   (all, SUITE, SUITE:GLOB, or debug)
. "$(dirname "$0")/lib.sh"
KP_STEP=check
filter=${1:-all}

run=$KPROBES_CACHE/runs/$KP_RUN_NAME-$(date +%Y%m%d-%H%M%S)-check
mkdir -p "$run"
case $filter in
all|static|static:*) "$KP_REPO/harness/static.sh" "$run/static.tsv" ;;
esac
case $filter in
static|static:*|matrix|matrix:*|kunit-arm64|debug) ;;
*) KP_RUN_DIR=$run "$KP_REPO/harness/boot.sh" test "$filter" ;;
esac
case $filter in
all|matrix) "$KP_REPO/harness/matrix.sh" "$run/matrix.tsv" ;;
matrix:*) "$KP_REPO/harness/matrix.sh" "$run/matrix.tsv" "${filter#matrix:}" ;;
kunit-arm64) "$KP_REPO/harness/cross.sh" "$run/matrix.tsv" arm64 ;;
esac
# The arm64 kernel the matrix built, booted: our KUnit suite on arm64.
case $filter in
all|kunit-arm64) KP_RUN_DIR=$run "$KP_REPO/harness/arm64-kunit.sh" "$run/arm64.tsv" ;;
esac
case $filter in
all|debug) [ "${DEBUG:-1}" = 0 ] || "$KP_REPO/harness/debug.sh" "$run" ;;
esac
kp_say "results of $run"
KP_MODE=$KP_MODE python3 "$KP_REPO/harness/report.py" "$run" "$filter"
