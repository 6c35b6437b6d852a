#!/bin/bash
# kprobe_profile's hit count is the number of times the event fired: with a
# trace buffer big enough for every record, the hits of an entry and of a
# return event equal the number of their lines in the trace.  The probed
# function is the sync syscall, which nothing but the trigger calls: a call
# still in flight when the event is disabled may count a hit but leave no
# line, so no other task may be hitting it then.
# shellcheck source=guest-tests/lib.sh
. "$KP_LIB"
# shellcheck source=guest-tests/progs/watchdog.sh
. "$KP_REPO/guest-tests/progs/watchdog.sh"
# "7 (expanded: 1408)" until first used: restore the expanded size.
old_kb=$(sed -n 's/.*expanded: \([0-9]*\).*/\1/p; t; p' "$T/buffer_size_kb")
# shellcheck disable=SC2317 # called through trap
cleanup() { [ -z "${KP_HUNG:-}" ] || return; reset_tracing; echo "$old_kb" > "$T/buffer_size_kb"; }
trap cleanup EXIT
reset_tracing
# A tracer left on by an earlier test is not what this one is about.
echo nop > "$T/current_tracer"
echo "step: buffer_size_kb"
wd 60 sh -c "echo 4096 > $T/buffer_size_kb" || fail "cannot grow the trace buffer"
echo 'p:kprobes/kpt_pt_p __x64_sys_sync' >> "$T/kprobe_events" || fail "could not define the entry event"
echo 'r:kprobes/kpt_pt_r __x64_sys_sync' >> "$T/kprobe_events" || fail "could not define the return event"
echo > "$T/trace"
echo "step: enable"
wd 60 sh -c "echo 1 > $T/events/kprobes/enable" || fail "cannot enable the events"
calls() { local _; for _ in $(seq 20); do sync; done; }
echo "step: sync x20"
wd 120 calls
echo "step: disable"
wd 60 sh -c "echo 0 > $T/events/kprobes/enable" || fail "cannot disable the events"
# Nothing may have been lost: a full buffer would explain a difference.
ov=$(awk '/^overrun:/ { s += $2 } END { print s + 0 }' "$T"/per_cpu/cpu*/stats 2>/dev/null)
[ "${ov:-0}" = 0 ] || fail "the trace buffer overran ($ov events lost); cannot compare"
out=
for ev in kpt_pt_p kpt_pt_r; do
	hits=$(awk -v e="$ev" '$1 == e { print $2 }' "$T/kprobe_profile")
	lines=$(grep -c " $ev: (" "$T/trace")
	[ "$hits" -ge 20 ] || fail "$ev: $hits hits for 20 sync calls"
	[ "$hits" = "$lines" ] ||
		fail "$ev: kprobe_profile says $hits hits, the trace has $lines lines"
	out+=" $ev=$hits"
done
pass "profile hits equal trace lines:$out"
