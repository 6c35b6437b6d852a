#!/bin/bash
# fprobe events and our probes on one function at once: an entry and an
# exit of each kind on vfs_read, where the fprobe and our ftrace-based
# kprobe are two callbacks of the one ftrace site, and the fprobe's rethook
# and our kretprobe both take over the same return.  Every call is seen
# by all four, both exits report the same return value, and either kind
# goes on alone when the other leaves.  With BTF, the entry events name
# their argument as the source does.
# shellcheck source=guest-tests/lib.sh
. "$KP_LIB"
fn=vfs_read
grep -q '^[[:space:]]*f\[:\[<group>/\]\[<event>\]\]' "$T/README" 2> /dev/null ||
	skip "no fprobe events in this kernel (CONFIG_FPROBE_EVENTS)"
reset_tracing
# shellcheck disable=SC2016 # tracefs's syntax, not the shell's
arg='count=$arg3:u64'
[ -r /sys/kernel/btf/vmlinux ] && arg='count'
define() { echo "$1" >> "$T/dynamic_events" || fail "could not define '$1'"; }
set_enable() {
	local v=$1 e
	shift
	for e in "$@"; do
		echo "$v" > "$T/events/kpcoex/$e/enable" || fail "cannot set $e's enable to $v"
	done
}
define_fprobes() {
	define "f:kpcoex/fpt_in $fn $arg"
	define "f:kpcoex/fpt_out $fn%return ret=\$retval:s64"
}
define_kprobes() {
	define "p:kpcoex/kpt_in $fn $arg"
	define "r:kpcoex/kpt_out $fn ret=\$retval:s64"
}
# shellcheck disable=SC2317 # called through trap
cleanup() {
	echo 0 > "$T/events/kpcoex/enable" 2> /dev/null
	for e in fpt_in fpt_out kpt_in kpt_out; do
		grep -q ":kpcoex/$e " "$T/dynamic_events" && echo "-:kpcoex/$e" >> "$T/dynamic_events"
	done
	reset_tracing
}
trap cleanup EXIT

# dd reads /dev/zero 4,093 bytes at a time: each of those vfs_read calls
# asks for 4093 and returns 4093, which no other read in dd's life does.
# counts: "fpt_in fpt_out kpt_in kpt_out", the lines of those 5 calls.
counts() {
	local e out=()
	echo > "$T/trace"
	dd if=/dev/zero of=/dev/null bs=4093 count=5 2> /dev/null
	echo 0 > "$T/tracing_on"
	cp "$T/trace" last.trace
	echo 1 > "$T/tracing_on"
	for e in fpt_in:count fpt_out:ret kpt_in:count kpt_out:ret; do
		out+=("$(grep -Ec " dd-[0-9]+ .* ${e%:*}: \(.*$fn.*\) ${e#*:}=(4093|0xffd)\$" last.trace)")
	done
	echo "${out[*]}"
}

# users: how many ftrace callbacks enabled_functions shows on $fn
users() { sed -n "s/^$fn (\([0-9]*\)).*/\1/p" "$T/enabled_functions"; }

define_fprobes
define_kprobes
set_enable 1 fpt_in fpt_out
fusers=$(users)
set_enable 1 kpt_in kpt_out
grep -Eq " $fn\+0x[0-9a-f]+ +\[FTRACE\]" "$D/list" || {
	grep " $fn+" "$D/list"; fail "our probe on $fn is not ftrace-based"; }
[ "$(users)" -gt "${fusers:-0}" ] || {
	grep "^$fn " "$T/enabled_functions"
	fail "$fn shows $(users) ftrace users with our probes, ${fusers:-none} without: ours are not attached beside the fprobes"; }
both=$(counts)
[ "$both" = "5 5 5 5" ] || {
	grep ' dd-' last.trace | tail -n 20
	fail "all four on $fn: fpt_in fpt_out kpt_in kpt_out saw $both of dd's 5 reads, want 5 5 5 5"; }

# Our probes leave; the fprobes go on.
set_enable 0 kpt_in kpt_out
echo "-:kpcoex/kpt_in" >> "$T/dynamic_events" || fail "could not remove kpt_in"
echo "-:kpcoex/kpt_out" >> "$T/dynamic_events" || fail "could not remove kpt_out"
grep -q " $fn+" "$D/list" && fail "our probe on $fn is still listed after removal"
alone=$(counts)
[ "$alone" = "5 5 0 0" ] || fail "fprobes alone on $fn saw $alone, want 5 5 0 0"

# Ours come back, then the fprobes leave.
define_kprobes
set_enable 1 kpt_in kpt_out
again=$(counts)
[ "$again" = "5 5 5 5" ] || fail "all four again on $fn saw $again, want 5 5 5 5"
set_enable 0 fpt_in fpt_out
echo "-:kpcoex/fpt_in" >> "$T/dynamic_events" || fail "could not remove fpt_in"
echo "-:kpcoex/fpt_out" >> "$T/dynamic_events" || fail "could not remove fpt_out"
ours=$(counts)
[ "$ours" = "0 0 5 5" ] || fail "our probes alone on $fn saw $ours, want 0 0 5 5"
pass "fprobe and kprobe events on $fn (argument '$arg'): $both together, $alone fprobes alone, $again again, $ours ours alone"
