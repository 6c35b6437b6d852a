#!/usr/bin/env bash
# make check: boot the kernel of the current mode, run the guest suites
# (KUnit, ftracetest kprobe/dynevent, ours), the host-side static checks
# the config matrix (builds only, x86 variants and the other kprobes
# architectures), the booted configuration rows (rows.sh: preempt=full;
# make check-full adds clang/kCFI, RT, KCSAN and BTF, and our KUnit suite
# booted on arm64) and the debug kernel
# (harness/debug.sh; DEBUG=0 leaves it out), and print one table ending in
# 'N passed, N failed, N skipped'.
# Usage: check.sh [FILTER]   (all, SUITE, SUITE:GLOB, debug, config[:NAME],
#                            peer[:TOOL]: the peer suites on the btf row)
. "$(dirname "$0")/lib.sh"
KP_STEP=check
filter=${1:-all}

run=$KPROBES_CACHE/runs/$KP_RUN_NAME-$(date +%Y%m%d-%H%M%S)-check
mkdir -p "$run"
case $filter in
static|static:*) "$KP_REPO/harness/static.sh" "$run/static.tsv" ;;
esac
# With everything asked for, the work runs on three tracks, one core's
# worth each at most, ordered so that the longest chain starts first:
#   the guests    the main guest, then the configuration rows (this script);
#   the debug kernel  its build (nice 10), then its guest (harness/debug.sh),
#                 which may run beside the main guest or a row's;
#   the builds    the static checks, then the config matrix with the cross
#                 rows (nice 19: they take what the other two leave).
# Their output goes to RUN/debug-build.log and RUN/builds.log.  The debug
# kernel is in every full check; DEBUG=0 leaves it out for a quicker loop.
debug_on=1
[ "${DEBUG:-1}" != 0 ] || debug_on=0
bg=
dbg=
if [ "$filter" = all ]; then
	if [ "$debug_on" = 1 ]; then
		(
			nice -n 10 "$KP_REPO/harness/debug.sh" "$run" build
			"$KP_REPO/harness/debug.sh" "$run" test
		) > "$run/debug-build.log" 2>&1 &
		dbg=$!
	fi
	(
		# One failing step must not keep the next from writing its rows.
		nice -n 19 "$KP_REPO/harness/static.sh" "$run/static.tsv" ||
			printf 'static\tharness\tfail\tstatic.sh exited %s\n' "$?" >> "$run/static.tsv"
		nice -n 19 "$KP_REPO/harness/matrix.sh" "$run/matrix.tsv" ||
			printf 'matrix\tharness\tfail\tmatrix.sh exited %s\n' "$?" >> "$run/matrix.tsv"
	) > "$run/builds.log" 2>&1 &
	bg=$!
	kp_say "the debug kernel (build, then guest), the static checks and the matrix run beside the guests (logs: $run/debug-build.log, $run/builds.log)"
fi
case $filter in
static|static:*|matrix|matrix:*|kunit-arm64|debug|config|config:*|peer|peer:*) ;;
# The main guest took 2,278 s alone on a 2-core host of 2026-11-28 before
# the root's cache=loose, and ran past 2,400 s beside the builds.
*) KP_TIMEOUT=${KP_TIMEOUT:-3000} KP_RUN_DIR=$run "$KP_REPO/harness/boot.sh" test "$filter" ;;
esac
# The booted configuration rows (harness/rows.sh): make check boots those
# without a build of their own (preempt=full, one CPU); make check-full
# builds and boots them all.
case $filter in
all) "$KP_REPO/harness/rows.sh" "$run" ;;
config) KP_FULL=1 "$KP_REPO/harness/rows.sh" "$run" ;;
config:*) "$KP_REPO/harness/rows.sh" "$run" "${filter#config:}" ;;
peer|peer:*) KP_ROW_TESTS=$filter "$KP_REPO/harness/rows.sh" "$run" btf ;;
esac
# Waits for background job $1 (named $2), then shows its log's step lines.
wait_for() {
	local start
	start=$(date +%s)
	wait "$1" || kp_say "$2 exited $?"
	kp_say "waited $(( $(date +%s) - start )) s for $2"
	grep -E '^\[' "$3" | grep -v '^\[build\] [a-z-]*: [0-9]*/' >&2 || true
}
[ -z "$dbg" ] || wait_for "$dbg" "the debug kernel" "$run/debug-build.log"
[ -z "$bg" ] || wait_for "$bg" "the static checks and the matrix" "$run/builds.log"
case $filter in
matrix) "$KP_REPO/harness/matrix.sh" "$run/matrix.tsv" ;;
matrix:*) "$KP_REPO/harness/matrix.sh" "$run/matrix.tsv" "${filter#matrix:}" ;;
kunit-arm64) "$KP_REPO/harness/cross.sh" "$run/matrix.tsv" arm64 ;;
esac
# The arm64 kernel the matrix built, booted: our KUnit suite on arm64
# (make check-full; make check builds arm64's objects only).
case $filter in
all) [ "${KP_CROSS_FULL:-0}" != 1 ] || KP_RUN_DIR=$run "$KP_REPO/harness/arm64-kunit.sh" "$run/arm64.tsv" ;;
kunit-arm64) KP_RUN_DIR=$run "$KP_REPO/harness/arm64-kunit.sh" "$run/arm64.tsv" ;;
esac
case $filter in
debug) "$KP_REPO/harness/debug.sh" "$run" ;;
esac
kp_say "results of $run"
KP_MODE=$KP_MODE python3 "$KP_REPO/harness/report.py" "$run" "$filter"
