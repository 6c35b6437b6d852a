#!/bin/bash
# An ftrace-based kprobe and the function tracer share one function: both
# record every call, in either order of attaching, and each keeps working
# when the other one leaves.
. "$KP_LIB"
fn=vfs_read
reset_tracing
echo nop > "$T/current_tracer"
echo > "$T/set_ftrace_filter"

# trace_counts: "<function tracer lines> <kprobe event lines>" in the buffer.
# Tracing is paused while reading: each read() of the buffer is itself a
# call of vfs_read that both tracers would record, without end.
trace_counts() {
	local f k
	echo 0 > "$T/tracing_on"
	f=$(grep -Ec " $fn <-" "$T/trace" || true)
	k=$(grep -Ec "kpt_coex: \\($fn\\+0x[0-9a-f]+/" "$T/trace" || true)
	echo > "$T/trace"
	echo 1 > "$T/tracing_on"
	echo "$f $k"
}
hit() { for _ in 1 2 3; do cat /etc/hostname > /dev/null; done; }
cleanup() {
	echo nop > "$T/current_tracer"
	echo > "$T/set_ftrace_filter"
	reset_tracing
}

echo "$fn" > "$T/set_ftrace_filter" || fail "cannot filter the function tracer on $fn"
echo function > "$T/current_tracer" || fail "no function tracer"
echo "p:kprobes/kpt_coex $fn" >> "$T/kprobe_events" || fail "could not define the event"
echo 1 > "$T/events/kprobes/kpt_coex/enable"
grep -Eq " $fn\+0x[0-9a-f]+ +\[FTRACE\]" "$D/list" || {
	cat "$D/list"; fail "the probe on $fn is not ftrace-based"; }
# Both callbacks are attached to the one ftrace site.
grep -Eq "^$fn \(2\)" "$T/enabled_functions" || {
	cat "$T/enabled_functions"; fail "enabled_functions does not show two users of $fn"; }
hit
counts=$(trace_counts); f=${counts% *} k=${counts#* }
[ "$f" -ge 3 ] || fail "function tracer recorded $f calls of $fn with the kprobe on (want >= 3)"
[ "$k" -ge 3 ] || fail "kprobe event recorded $k calls of $fn with the function tracer on (want >= 3)"

# The function tracer leaves; the kprobe goes on.
echo nop > "$T/current_tracer"
echo > "$T/trace"
hit
counts=$(trace_counts); f2=${counts% *} k2=${counts#* }
[ "$k2" -ge 3 ] || fail "kprobe event stopped ($k2 lines) when the function tracer left"
[ "$f2" -eq 0 ] || fail "function tracer lines ($f2) after it was turned off"

# Other order: the kprobe first, then the function tracer; then the kprobe leaves.
echo function > "$T/current_tracer"
hit
counts=$(trace_counts); f3=${counts% *} k3=${counts#* }
[ "$f3" -ge 3 ] && [ "$k3" -ge 3 ] || fail "after re-attaching the tracer: $f3 function lines, $k3 kprobe lines"
echo 0 > "$T/events/kprobes/kpt_coex/enable"
echo "-:kprobes/kpt_coex" >> "$T/kprobe_events" || fail "could not remove the event"
echo > "$T/trace"
hit
counts=$(trace_counts); f4=${counts% *} k4=${counts#* }
[ "$f4" -ge 3 ] || fail "function tracer stopped ($f4 lines) when the kprobe left"
[ "$k4" -eq 0 ] || fail "kprobe lines ($k4) after the event was removed"
grep -q " $fn+" "$D/list" && fail "the probe on $fn is still listed after removal"
cleanup
pass "function tracer and [FTRACE] kprobe on $fn: $f/$k, $f2/$k2, $f3/$k3, $f4/$k4 lines (function/kprobe)"
