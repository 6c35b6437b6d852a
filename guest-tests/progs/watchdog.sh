# shellcheck shell=bash
# Sourced by guest tests that may meet a kernel hang: "wd SECS CMD..." runs
# CMD in the background and waits at most SECS for it; if it is still
# running then, its kernel stack and the blocked tasks (sysrq w) go to the
# log and console, and the test fails (the stuck process is left behind, so
# that the rest of the run can still go on).  KP_HUNG is set then: cleanup
# traps should not touch the kernel again.
wd() {
	local secs=$1 pid i
	shift
	"$@" &
	pid=$!
	for ((i = 0; i < secs * 5; i++)); do
		kill -0 "$pid" 2>/dev/null || { wait "$pid"; return; }
		sleep 0.2
	done
	echo "--- hung after ${secs}s: $* (pid $pid); its stack:"
	cat "/proc/$pid/stack" 2>/dev/null
	for c in /proc/"$pid"/task/*/children; do
		for k in $(cat "$c" 2>/dev/null); do
			echo "--- child $k ($(cat /proc/"$k"/comm 2>/dev/null)):"
			cat "/proc/$k/stack" 2>/dev/null
		done
	done
	echo w > /proc/sysrq-trigger 2>/dev/null
	KP_HUNG=1
	fail "hung for ${secs}s: $*"
}
