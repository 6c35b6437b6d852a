#!/bin/bash
# An unprivileged user cannot define, enable or attach kprobes: as uid
# 65534 with no capabilities, writing kprobe_events or dynamic_events and
# enabling an event root defined all fail with EACCES and change nothing,
# and opening the "kprobe" perf PMU (guest-tests/progs/kprobe_pmu_open.c,
# the path perf and BPF loaders take) fails with EACCES.  The same PMU
# open as root succeeds, so the refusal is the privilege check and not a
# broken helper.
# shellcheck source=guest-tests/lib.sh
. "$KP_LIB"
[ -w "$T/kprobe_events" ] || skip "no kprobe events"
command -v setpriv > /dev/null || skip "no setpriv"
command -v gcc > /dev/null || skip "no gcc to build the helper"
reset_tracing
trap reset_tracing EXIT

# A directory the unprivileged user can run the helper from.
bin=$(mktemp -d)
chmod 755 "$bin"
gcc -O2 -Wall -o "$bin/kprobe_pmu_open" "$KP_REPO/guest-tests/progs/kprobe_pmu_open.c" 2> gcc.log ||
	{ cat gcc.log; fail "cannot compile progs/kprobe_pmu_open.c"; }
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$@"; }
[ "$(nobody id -u)" = 65534 ] || fail "setpriv did not drop to uid 65534"

expect_errno EACCES nobody sh -c "echo 'p:kpsec/a vfs_read' >> $T/kprobe_events"
expect_errno EACCES nobody sh -c "echo 'p:kpsec/b vfs_read' >> $T/dynamic_events"
grep -q kpsec "$T/kprobe_events" && fail "an unprivileged write defined: $(cat "$T/kprobe_events")"

echo 'p:kpsec/root vfs_read' >> "$T/kprobe_events" || fail "root cannot define an event"
expect_errno EACCES nobody sh -c "echo 1 > $T/events/kpsec/root/enable"
[ "$(cat "$T/events/kpsec/root/enable")" = 0 ] || fail "an unprivileged write enabled kpsec/root"
grep -Eq ' vfs_read\+0x[0-9a-f]+ .*\[DISABLED\]' "$D/list" ||
	fail "kpsec/root's probe is not listed disabled: $(grep vfs_read "$D/list")"
echo '-:kpsec/root' >> "$T/kprobe_events" || fail "cannot remove kpsec/root"

pmu=/sys/bus/event_source/devices/kprobe
if [ -r "$pmu/type" ]; then
	before=$(list_count ' vfs_read\+0x')
	for kind in entry return; do
		out=$(nobody "$bin/kprobe_pmu_open" vfs_read "$kind") || fail "helper failed: $out"
		[ "$out" = errno=13 ] || fail "unprivileged kprobe PMU open ($kind): '$out', expected errno=13 (EACCES)"
		out=$("$bin/kprobe_pmu_open" vfs_read "$kind") || fail "helper failed: $out"
		[ "$out" = errno=0 ] || fail "root's kprobe PMU open ($kind) refused: '$out'"
	done
	[ "$(list_count ' vfs_read\+0x')" = "$before" ] || fail "probes left on vfs_read: $(grep vfs_read "$D/list")"
	pmu_note="; kprobe PMU: EACCES for uid 65534, opens for root"
fi
pass "uid 65534: kprobe_events, dynamic_events and a per-event enable refused with EACCES, nothing defined or enabled${pmu_note:-}"
