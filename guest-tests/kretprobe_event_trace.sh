#!/bin/bash
# A return probe event records "EVENT: (caller+0xOFF/0xSIZE <- func) ..."
# with $retval holding the function's return value.
. "$KP_LIB"
reset_tracing
echo 'r:kprobes/kpt_ret do_sys_openat2 ret=$retval:s32' >> "$T/kprobe_events" ||
	fail "could not define the return event"
echo 1 > "$T/events/kprobes/kpt_ret/enable"
cat /nonexistent-kp-file 2>/dev/null
cat /etc/hostname > /dev/null
echo 0 > "$T/events/kprobes/kpt_ret/enable"
grep 'kpt_ret:' "$T/trace" > lines || true
[ -s lines ] || fail "no trace line for kpt_ret"
expect_match lines 'kpt_ret: \([a-z0-9_.]+\+0x[0-9a-f]+/0x[0-9a-f]+ <- do_sys_openat2\) ret=-2$' \
	"no return line with ret=-2 (ENOENT) in the documented format"
expect_match lines 'kpt_ret: \([a-z0-9_.]+\+0x[0-9a-f]+/0x[0-9a-f]+ <- do_sys_openat2\) ret=[0-9]+$' \
	"no return line with a file descriptor"
reset_tracing
pass "$(wc -l < lines) return lines, -2 and a descriptor among them"
