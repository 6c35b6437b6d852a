#!/usr/bin/env bash
# make check: boot the kernel of the current mode, run the guest suites
# (KUnit, ftracetest kprobe/dynevent, ours), the host-side static checks
# the config matrix (builds only, x86 variants and the other kprobes
# architectures), our KUnit suite booted on arm64 and the debug kernel
# (harness/debug.sh; with DEBUG=1, or T=debug), and print one table ending in
# 'N passed, N failed, N skipped'.
# Usage: check.sh [FILTER]   (all, SUITE, SUITE:GLOB, or debug)
. "$(dirname "$0")/lib.sh"
KP_STEP=check
filter=${1:-all}

run=$KPROBES_CACHE/runs/$KP_RUN_NAME-$(date +%Y%m%d-%H%M%S)-check
mkdir -p "$run"
case $filter in
static|static:*) "$KP_REPO/harness/static.sh" "$run/static.tsv" ;;
esac
# With everything asked for, the host-side work that needs no boot (the
# static checks, the config matrix with the cross rows, the debug kernel's
# build) runs beside the main guest, which uses one core (single-threaded
# TCG), at a lower priority so that the guest keeps its core.  Its output
# goes to RUN/builds.log.
# The debug kernel is in a full check with DEBUG=1 (make check-full sets
# it): its guest has not yet been seen green from end to end, and a run
# that does not land helps nobody.
debug_on=0
[ "${DEBUG:-0}" != 1 ] || debug_on=1
bg=
if [ "$filter" = all ]; then
	(
		# One failing step must not keep the next from writing its rows.
		nice -n 10 "$KP_REPO/harness/static.sh" "$run/static.tsv" ||
			printf 'static\tharness\tfail\tstatic.sh exited %s\n' "$?" >> "$run/static.tsv"
		nice -n 10 "$KP_REPO/harness/matrix.sh" "$run/matrix.tsv" ||
			printf 'matrix\tharness\tfail\tmatrix.sh exited %s\n' "$?" >> "$run/matrix.tsv"
		[ "$debug_on" = 0 ] || nice -n 10 "$KP_REPO/harness/debug.sh" "$run" build
	) > "$run/builds.log" 2>&1 &
	bg=$!
	kp_say "static checks, matrix, cross rows and the debug kernel's build run beside the guest (log: $run/builds.log)"
fi
case $filter in
static|static:*|matrix|matrix:*|kunit-arm64|debug) ;;
*) KP_RUN_DIR=$run "$KP_REPO/harness/boot.sh" test "$filter" ;;
esac
if [ -n "$bg" ]; then
	start=$(date +%s)
	wait "$bg" || kp_say "background builds exited $?"
	kp_say "waited $(( $(date +%s) - start )) s for the background builds"
	grep -E '^\[' "$run/builds.log" | grep -v '^\[build\] [a-z]*: [0-9]*/' >&2 || true
fi
case $filter in
matrix) "$KP_REPO/harness/matrix.sh" "$run/matrix.tsv" ;;
matrix:*) "$KP_REPO/harness/matrix.sh" "$run/matrix.tsv" "${filter#matrix:}" ;;
kunit-arm64) "$KP_REPO/harness/cross.sh" "$run/matrix.tsv" arm64 ;;
esac
# The arm64 kernel the matrix built, booted: our KUnit suite on arm64.
case $filter in
all|kunit-arm64) KP_RUN_DIR=$run "$KP_REPO/harness/arm64-kunit.sh" "$run/arm64.tsv" ;;
esac
case $filter in
all) [ "$debug_on" = 0 ] || "$KP_REPO/harness/debug.sh" "$run" test ;;
debug) "$KP_REPO/harness/debug.sh" "$run" ;;
esac
kp_say "results of $run"
KP_MODE=$KP_MODE python3 "$KP_REPO/harness/report.py" "$run" "$filter"
