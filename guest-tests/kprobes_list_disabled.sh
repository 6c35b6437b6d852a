#!/bin/bash
# debugfs kprobes/list marks a registered but disabled probe [DISABLED]: a
# kprobe event that is defined but not enabled is such a probe.
# shellcheck source=guest-tests/lib.sh
. "$KP_LIB"

trap reset_tracing EXIT
[ -r "$D/list" ] || skip "no $D/list"
[ -w "$T/kprobe_events" ] || skip "no kprobe events"
reset_tracing

echo 'p:kprobes/kpt_dis vfs_read' >> "$T/kprobe_events" || fail "cannot define p:kprobes/kpt_dis vfs_read"
line() { grep -E '  k  vfs_read\+0x[0-9a-f]+  ' "$D/list"; }
[ "$(line | wc -l)" = 1 ] || { cat "$D/list"; fail "expected one vfs_read line"; }
line | grep -q '\[DISABLED\]' || fail "defined, not enabled event: no [DISABLED] in '$(line)'"

echo 1 > "$T/events/kprobes/kpt_dis/enable" || fail "cannot enable kpt_dis"
line | grep -q '\[DISABLED\]' && fail "enabled event still [DISABLED]: '$(line)'"
echo 0 > "$T/events/kprobes/kpt_dis/enable"
line | grep -q '\[DISABLED\]' || fail "disabled again, but no [DISABLED]: '$(line)'"
pass "[DISABLED] follows the probe's own state"
