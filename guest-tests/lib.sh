# shellcheck shell=bash
# Helpers for guest tests.  A guest test is a bash script in guest-tests/
# that asserts something observable in the booted kernel.  It exits 0 when
# every assertion held, 77 to skip (with a reason), anything else on failure.
# The last "PASS:", "SKIP:" or "FAIL:" line it prints is its summary.
set -u
T=/sys/kernel/tracing
D=/sys/kernel/debug/kprobes

fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
pass() { echo "PASS: $*"; exit 0; }

# expect_match FILE ERE WHAT: FILE must have a line matching ERE.
expect_match() {
	grep -Eq -- "$2" "$1" || { echo "--- $1:"; head -n 40 "$1"; fail "$3"; }
}

# expect_errno ERRNO CMD...: CMD (run in a subshell) must fail with ERRNO's
# message, e.g. expect_errno EINVAL sh -c 'echo x > file'.
expect_errno() {
	local want=$1 out msg
	shift
	if out=$("$@" 2>&1); then
		fail "'$*' succeeded, expected $want"
	fi
	msg=$(python3 -c "import errno,os; print(os.strerror(errno.$want))")
	case $out in
	*"$msg"*) ;;
	*) fail "'$*' failed with '$out', expected $want ($msg)" ;;
	esac
}

# Leave tracing as a fresh boot has it: no kprobe events, empty buffer.
reset_tracing() {
	echo 0 > "$T/tracing_on"
	[ ! -d "$T/events/kprobes" ] || echo 0 > "$T/events/kprobes/enable"
	echo > "$T/kprobe_events"
	echo > "$T/trace"
	echo > "$T/error_log" 2>/dev/null || true
	echo 1 > "$T/tracing_on"
}

# The number in debugfs kprobes/list matching ERE (lines).
list_count() { grep -Ec -- "$1" "$D/list" || true; }

# optimized ERE: a kprobes/list line matching ERE is [OPTIMIZED].
optimized() { grep -E -- "$1" "$D/list" | grep -q '\[OPTIMIZED\]'; }

# wait_optimized ERE SECONDS: poll kprobes/list until optimized ERE holds.
wait_optimized() {
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		optimized "$1" && return 0
		sleep 0.1
	done
	return 1
}
