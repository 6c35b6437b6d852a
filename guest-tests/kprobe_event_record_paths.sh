#!/bin/bash
# A kprobe event's record takes a short path to the ring buffer when the
# event has no pid filter, no event filter, no soft-disable and no
# conditional trigger, and the generic reserve otherwise.  Each of those
# keeps its documented effect on a kprobe event: only the opens they let
# through are counted, by path, in the trace or in a hist trigger.
. "$KP_LIB"
E=$T/events/kprobes/kpr_open

cleanup() {
	[ -d "$E" ] || return 0
	echo 0 > "$E/enable"
	echo 0 > "$E/filter"
	echo '!hist:keys=path' >> "$E/trigger" 2>/dev/null
	echo '!traceoff if path == "/tmp/kpr_off"' >> "$E/trigger" 2>/dev/null
	echo '!enable_event:kprobes:kpr_open' > "$T/events/kprobes/kpr_sync/trigger" 2>/dev/null
	echo > "$T/set_event_pid"
	reset_tracing
}
trap cleanup EXIT

# opens PATH N: open PATH N times from this shell (no child process)
opens() {
	local i
	for ((i = 0; i < $2; i++)); do
		: < "$1"
	done
}
# lines PATH: the trace lines for opens of PATH
lines() { grep -c "kpr_open: .* path=\"$1\"" "$T/trace" || true; }

reset_tracing
for f in a b c off; do echo > "/tmp/kpr_$f"; done
echo 'p:kprobes/kpr_open do_sys_openat2 path=+0($arg2):string' >> "$T/kprobe_events" ||
	fail "could not define kpr_open"
echo 'p:kprobes/kpr_sync __x64_sys_sync' >> "$T/kprobe_events" ||
	fail "could not define kpr_sync"

# 1. The short path: every open recorded.
echo 1 > "$E/enable"
opens /tmp/kpr_a 5
echo 0 > "$E/enable"
[ "$(lines /tmp/kpr_a)" = 5 ] || fail "plain event: $(lines /tmp/kpr_a) records of 5 opens"
echo > "$T/trace"

# 2. An event filter: only the matching opens.
echo 'path == "/tmp/kpr_b"' > "$E/filter" || fail "could not set the filter"
echo 1 > "$E/enable"
opens /tmp/kpr_a 4
opens /tmp/kpr_b 3
echo 0 > "$E/enable"
echo 0 > "$E/filter"
[ "$(lines /tmp/kpr_b)" = 3 ] && [ "$(lines /tmp/kpr_a)" = 0 ] ||
	fail "filter: $(lines /tmp/kpr_b) of 3 kept, $(lines /tmp/kpr_a) of 4 dropped opens recorded"
echo > "$T/trace"

# 3. A pid filter: this shell's opens only, not its child's.
echo $$ > "$T/set_event_pid"
echo 1 > "$E/enable"
opens /tmp/kpr_a 2
cat /tmp/kpr_c > /dev/null
echo 0 > "$E/enable"
echo > "$T/set_event_pid"
[ "$(lines /tmp/kpr_a)" = 2 ] && [ "$(lines /tmp/kpr_c)" = 0 ] ||
	fail "set_event_pid: $(lines /tmp/kpr_a) of 2 own opens, $(lines /tmp/kpr_c) of the child's recorded"
echo > "$T/trace"

# 4. Soft-disabled until kpr_sync fires its enable_event trigger.
echo 'enable_event:kprobes:kpr_open' > "$T/events/kprobes/kpr_sync/trigger" ||
	fail "could not set the enable_event trigger"
echo 1 > "$T/events/kprobes/kpr_sync/enable"
opens /tmp/kpr_b 2
sync
opens /tmp/kpr_a 3
echo 0 > "$T/events/kprobes/kpr_sync/enable"
echo '!enable_event:kprobes:kpr_open' > "$T/events/kprobes/kpr_sync/trigger"
echo 0 > "$E/enable"
[ "$(lines /tmp/kpr_a)" = 3 ] && [ "$(lines /tmp/kpr_b)" = 0 ] ||
	fail "soft disable: $(lines /tmp/kpr_b) opens recorded while soft-disabled (0 expected), $(lines /tmp/kpr_a) of 3 after"
echo > "$T/trace"

# 5. Triggers that read the record: a hist count and a conditional traceoff
# (">>": a truncating open of the trigger file removes the triggers).
echo 'hist:keys=path' > "$E/trigger" || fail "could not set the hist trigger"
echo 'traceoff if path == "/tmp/kpr_off"' >> "$E/trigger" ||
	fail "could not set the traceoff trigger"
echo 1 > "$E/enable"
opens /tmp/kpr_c 6
[ "$(cat "$T/tracing_on")" = 1 ] || fail "traceoff fired before its path was opened"
opens /tmp/kpr_off 1
on=$(cat "$T/tracing_on")
echo 0 > "$E/enable"
grep -E 'path: */tmp/kpr_c[[:space:]].*hitcount: *6$' "$E/hist" > hist || true
[ -s hist ] || { cat "$E/trigger" "$E/hist"; fail "hist trigger: no hitcount 6 for /tmp/kpr_c"; }
[ "$on" = 0 ] || fail "conditional traceoff did not fire on /tmp/kpr_off"
[ "$(lines /tmp/kpr_c)" = 6 ] ||
	fail "with triggers: $(lines /tmp/kpr_c) of 6 opens recorded"

pass "plain 5/5, filter 3 kept 4 dropped, pid 2 own 0 child, soft-disable 0 then 3/3, hist 6, conditional traceoff fired"
