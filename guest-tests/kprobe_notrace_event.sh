#!/bin/bash
# Without CONFIG_KPROBE_EVENTS_ON_NOTRACE, a kprobe event in a function the
# tracer cannot trace (notrace: lib/ is built that way) is refused with
# EINVAL and an error_log entry, and leaves nothing behind.  And a uprobe
# line written to dynamic_events goes to uprobes, not to kprobes.
# shellcheck source=guest-tests/lib.sh
. "$KP_LIB"

trap reset_tracing EXIT
[ -w "$T/kprobe_events" ] || skip "no kprobe events"
reset_tracing

sym=kstrtoull
grep -Eq " $sym\$" /proc/kallsyms || skip "no $sym in kallsyms"
grep -q "^$sym\b" "$T/available_filter_functions" && skip "$sym is traceable in this kernel"
if zcat /proc/config.gz 2>/dev/null | grep -q '^CONFIG_KPROBE_EVENTS_ON_NOTRACE=y'; then
	skip "CONFIG_KPROBE_EVENTS_ON_NOTRACE=y allows notrace functions"
fi
expect_errno EINVAL bash -c "echo 'p:kprobes/kpt_nt $sym' >> $T/kprobe_events"
grep -q kpt_nt "$T/kprobe_events" && fail "the refused event is defined"
grep -Eq "  k  $sym\+" "$D/list" && fail "a probe on $sym is registered"
expect_match "$T/error_log" "Command: p:kprobes/kpt_nt $sym" "no error_log entry for the refused definition"

# A traceable function is fine.
echo 'p:kprobes/kpt_nt_ok vfs_read' >> "$T/kprobe_events" || fail "a probe on vfs_read is refused"
echo '-:kprobes/kpt_nt_ok' >> "$T/kprobe_events"

up=skipped
if [ -w "$T/uprobe_events" ]; then
	echo "p:uprobes/kpt_up /bin/true:0x0" >> "$T/dynamic_events" ||
		fail "dynamic_events refused a uprobe line"
	grep -q '^p:uprobes/kpt_up /bin/true:' "$T/uprobe_events" ||
		fail "the uprobe line did not become a uprobe: $(cat "$T/dynamic_events")"
	grep -q kpt_up "$T/kprobe_events" && fail "the uprobe line became a kprobe event"
	echo '-:uprobes/kpt_up' >> "$T/dynamic_events" || fail "cannot remove the uprobe"
	up=ok
fi
pass "$sym refused with EINVAL and an error_log entry; uprobe line via dynamic_events: $up"
