#!/bin/bash
# The "kprobe" perf PMU (perf_event_open with the type from sysfs): an
# entry probe by name (config1 = "vfs_read", config2 = offset 0), a return
# probe (the PMU's retprobe format bit), a probe by address (config1 = 0,
# config2 = the address from /proc/kallsyms) each count every one of N
# reads; a symbol that does not exist is refused with ENOENT; the probes are
# in debugfs kprobes/list while the events are open and gone after close.
# The C side is guest-tests/progs/kprobe_pmu.c, compiled here with the
# host's gcc.
# shellcheck source=guest-tests/lib.sh
. "$KP_LIB"
pmu=/sys/bus/event_source/devices/kprobe
[ -r "$pmu/type" ] || skip "no kprobe perf PMU ($pmu)"
[ -r "$pmu/format/retprobe" ] || fail "$pmu has no format/retprobe"
command -v gcc > /dev/null || skip "no gcc to build the helper"
prog=$PWD/kprobe_pmu
gcc -O2 -Wall -o "$prog" "$KP_REPO/guest-tests/progs/kprobe_pmu.c" 2> gcc.log ||
	{ cat gcc.log; fail "cannot compile progs/kprobe_pmu.c"; }

sym=vfs_read
n=200
addr=$(awk -v s="$sym" '$3 == s { print $1; exit }' /proc/kallsyms)
[ -n "$addr" ] && [ "$((16#$addr))" != 0 ] || fail "no address for $sym in /proc/kallsyms"
echo kprobe-pmu-data > data
"$prog" "$sym" "$n" data "$addr" kp_no_such_symbol_here > out 2>&1
rc=$?
cat out
[ "$rc" = 0 ] || fail "helper failed (exit $rc): $(grep -m1 '^error=' out)"
val() { sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p" out | head -n 1; }

before=$(val list_before)
opened=$(val opened)
[ "$(val list_open)" = $((before + opened)) ] ||
	fail "expected $((before + opened)) '$sym+0x' lines in $D/list while $opened events are open, got $(val list_open)"
for k in entry return; do
	c=$(val "$k")
	[ -n "$c" ] && [ "$c" -ge "$n" ] || fail "$k event counted ${c:-nothing} for $n reads"
done
[ "$(val list_closed)" = "$before" ] ||
	{ cat "$D/list"; fail "probe leaked: $(val list_closed) '$sym+0x' lines in $D/list after close (before: $before)"; }
[ "$(val list_end)" = "$before" ] || fail "the refused events left '$sym+0x' lines behind"
for k in bad_entry bad_return; do
	e=$(val "$k")
	[ "$e" = 2 ] || fail "$k: perf_event_open on a nonexistent symbol gave '${e}', expected errno 2 (ENOENT)"
done
grep -q 'kp_no_such_symbol_here' "$D/list" && fail "the nonexistent symbol is in $D/list"
# By address: config1 = 0 and config2 = the address (config2 is both
# kprobe_addr and probe_offset in perf_event_attr: no separate offset).
[ "$opened" = 3 ] ||
	fail "event by address (config1=0, config2=0x$addr) refused with $(python3 -c "import errno; print(errno.errorcode[$(val addr_errno)])")"
c=$(val addr)
[ -n "$c" ] && [ "$c" -ge "$n" ] || fail "the event by address counted ${c:-nothing} for $n reads"
pass "type $(val type), retprobe bit $(val retprobe_bit): $n reads counted entry=$(val entry) return=$(val return) addr=$(val addr); unknown symbol -> ENOENT; no probe left"
