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
# With everything asked for, the work runs on three tracks, ordered so
# that the longest chain starts first:
#   the guests    the main guest, then the configuration rows (this script);
#   the debug kernel  its build (nice 10, holding the build lock from start
#                 to end), then its guest (harness/debug.sh), beside the
#                 main guest or a row's;
#   the builds    the static checks, then the config matrix with the cross
#                 rows (nice 19, and waiting for the build lock: they take
#                 what the other two leave).
# Their output goes to RUN/debug.log and RUN/builds.log; a track that
# exits non-zero leaves a failing row.  The debug kernel is in every full
# check; DEBUG=0 leaves it out for a quicker loop.
debug_on=1
[ "${DEBUG:-1}" != 0 ] || debug_on=0
bg=
dbg=
# A background track left running when this script stops early is killed,
# its QEMU included.
kill_tree() {
	local c
	for c in $(pgrep -P "$1"); do kill_tree "$c"; done
	kill "$1" 2> /dev/null || true
}
kill_tracks() {
	[ -z "$dbg" ] || kill_tree "$dbg"
	[ -z "$bg" ] || kill_tree "$bg"
}
trap kill_tracks EXIT
# track_failed TSV SUITE WHAT RC: the failing row a track leaves behind.
track_failed() {
	printf '%s\tharness\tfail\t%s exited %s\n' "$2" "$3" "$4" >> "$1"
}
if [ "$filter" = all ]; then
	# make check-full's rows and peer suites install packages: all of
	# them now, as a guest keeps what it read of the host's root
	# (boot.sh's cache=loose) and the root must not change under it.
	if [ "${KP_FULL:-0}" = 1 ]; then
		KP_ROWS_DEPS_ONLY=1 "$KP_REPO/harness/rows.sh" "$run"
		"$KP_REPO/harness/peer.sh" deps
	fi
	if [ "$debug_on" = 1 ]; then
		(
			# Its own makes take a private lock under the shared one,
			# so that no build of the third track slips in between
			# its steps.
			if KP_BUILD_LOCK=$run/debug-build.lock flock "$KPROBES_CACHE/build.lock" \
				nice -n 10 "$KP_REPO/harness/debug.sh" "$run" build; then
				"$KP_REPO/harness/debug.sh" "$run" test ||
					track_failed "$run/debug.tsv" debug "debug.sh test" "$?"
			else
				track_failed "$run/debug.tsv" debug "debug.sh build" "$?"
			fi
		) > "$run/debug.log" 2>&1 &
		dbg=$!
	fi
	(
		# One failing step must not keep the next from writing its rows.
		nice -n 19 "$KP_REPO/harness/static.sh" "$run/static.tsv" ||
			track_failed "$run/static.tsv" static static.sh "$?"
		nice -n 19 "$KP_REPO/harness/matrix.sh" "$run/matrix.tsv" ||
			track_failed "$run/matrix.tsv" matrix matrix.sh "$?"
	) > "$run/builds.log" 2>&1 &
	bg=$!
	kp_say "the debug kernel (build, then guest), the static checks and the matrix run beside the guests (logs: $run/debug.log, $run/builds.log)"
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
# wait_for PID NAME LOG TSV SUITE: waits for a background track, shows
# its log's step lines, and leaves a failing row if it exited non-zero.
wait_for() {
	local start rc=0
	start=$(date +%s)
	wait "$1" || rc=$?
	if [ "$rc" != 0 ]; then
		kp_say "$2 exited $rc"
		track_failed "$4" "$5" "$2 (see $3)" "$rc"
	fi
	kp_say "waited $(( $(date +%s) - start )) s for $2"
	grep -E '^\[' "$3" | grep -v '^\[build\] [a-z-]*: [0-9]*/' >&2 || true
}
[ -z "$dbg" ] || wait_for "$dbg" "the debug kernel" "$run/debug.log" "$run/debug.tsv" debug
dbg=
[ -z "$bg" ] || wait_for "$bg" "the static checks and the matrix" "$run/builds.log" "$run/static.tsv" static
bg=
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
