#!/bin/bash
# A kprobe event on a function's entry records a trace line of the
# documented form "EVENT: (sym+0xOFF/0xSIZE) NAME=VALUE ..." on every hit.
. "$KP_LIB"
reset_tracing
echo 'p:kprobes/kpt_open do_sys_openat2 dfd=$arg1 path=+0($arg2):string' >> "$T/kprobe_events" ||
	fail "could not define the event"
echo 1 > "$T/events/kprobes/kpt_open/enable"
cat /etc/hostname > /dev/null
echo 0 > "$T/events/kprobes/kpt_open/enable"
grep 'kpt_open:' "$T/trace" > lines || true
[ -s lines ] || fail "no trace line for kpt_open"
expect_match lines 'kpt_open: \(do_sys_openat2\+0x[0-9a-f]+/0x[0-9a-f]+\) dfd=0x[0-9a-f]+ path="/etc/hostname"' \
	"no line for the open of /etc/hostname in the documented format"
reset_tracing
pass "$(wc -l < lines) trace lines, /etc/hostname among them"
