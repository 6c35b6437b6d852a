#!/bin/bash
# kp: last
# Lockdown.  Raising the lockdown level cannot be undone, so the runner
# keeps this test for the end of the guest run (the "kp: last" line).
#
# At "integrity" kprobe events are still allowed: upstream gates them at
# the confidentiality level (LOCKDOWN_KPROBES, LOCKDOWN_TRACEFS).  At
# "confidentiality":
#  - opening kprobe_events or dynamic_events fails with EPERM;
#  - a definition written through a kprobe_events descriptor opened before
#    the switch reaches the parser and is refused when its probe would be
#    registered: EPERM, and an error_log entry (read through a descriptor
#    opened before, too);
#  - the perf "kprobe" PMU, the way perf and BPF loaders attach, is refused
#    with EPERM even for root;
#  - no probe was added, and an event defined and enabled before the
#    switch keeps counting hits (lockdown stops new probes, it does not
#    tear down the ones that are there).
# shellcheck source=guest-tests/lib.sh
. "$KP_LIB"
lk=/sys/kernel/security/lockdown
[ -e "$lk" ] || mount -t securityfs securityfs /sys/kernel/security 2> /dev/null
[ -w "$lk" ] || skip "no lockdown LSM (CONFIG_SECURITY_LOCKDOWN_LSM)"
grep -q '\[none\]' "$lk" || skip "already locked down: $(cat "$lk")"
[ -w "$T/kprobe_events" ] || skip "no kprobe events"
reset_tracing

pmu=/sys/bus/event_source/devices/kprobe
helper=
if [ -r "$pmu/type" ] && command -v gcc > /dev/null; then
	helper=$(mktemp -d)/kprobe_pmu_open
	gcc -O2 -Wall -o "$helper" "$KP_REPO/guest-tests/progs/kprobe_pmu_open.c" 2> gcc.log ||
		{ cat gcc.log; fail "cannot compile progs/kprobe_pmu_open.c"; }
	out=$("$helper" vfs_read) || fail "helper failed: $out"
	[ "$out" = errno=0 ] || fail "root's kprobe PMU open refused before lockdown: '$out'"
fi

echo integrity > "$lk" || fail "cannot raise lockdown to integrity"
echo 'p:kplock/integ vfs_read' >> "$T/kprobe_events" ||
	fail "lockdown=integrity refused a kprobe event (upstream allows it)"
echo '-:kplock/integ' >> "$T/kprobe_events" || fail "cannot remove kplock/integ"

# What must stay usable once tracefs is locked: descriptors opened now.
echo 'p:kplock/kept vfs_read' >> "$T/kprobe_events" || fail "cannot define kplock/kept"
echo 1 > "$T/events/kplock/kept/enable" || fail "cannot enable kplock/kept"
exec 3>> "$T/kprobe_events" 4< "$T/error_log" 5< "$T/kprobe_profile" \
	6> "$T/events/kplock/kept/enable"
before=$(list_count ' vfs_read\+0x')

echo confidentiality > "$lk" || fail "cannot raise lockdown to confidentiality"
grep -q '\[confidentiality\]' "$lk" || fail "lockdown reads '$(cat "$lk")'"

expect_errno EPERM bash -c "echo 'p:kplock/a vfs_read' >> $T/kprobe_events"
expect_errno EPERM bash -c "echo 'p:kplock/a vfs_read' >> $T/dynamic_events"
expect_errno EPERM bash -c "echo 'p:kplock/b vfs_read' >&3"
cat <&4 > error_log
expect_match error_log 'trace_kprobe: error: Failed to register probe event' \
	"no error_log entry for the refused definition"
expect_match error_log 'Command: p:kplock/b vfs_read' \
	"the error_log entry does not quote the refused definition"
pmu_note=
if [ -n "$helper" ]; then
	for kind in entry return; do
		out=$("$helper" vfs_read "$kind") || fail "helper failed: $out"
		[ "$out" = errno=1 ] ||
			fail "root's kprobe PMU open ($kind) under lockdown: '$out', expected errno=1 (EPERM)"
	done
	pmu_note=", the kprobe PMU EPERM for root"
fi
after=$(list_count ' vfs_read\+0x')
[ "$after" = "$before" ] ||
	fail "$((after - before)) probes added on vfs_read under lockdown: $(grep vfs_read "$D/list")"

cat /proc/version > /dev/null
cat <&5 > profile
hits=$(awk '$1 == "kept" { print $2 }' profile)
[ "${hits:-0}" -gt 0 ] || { cat profile; fail "kplock/kept stopped counting hits under lockdown"; }
echo 0 >&6 || fail "cannot disable kplock/kept through its open enable file"
pass "integrity: events allowed; confidentiality: kprobe_events, dynamic_events EPERM, a pre-opened writer's definition EPERM with its error_log entry$pmu_note; kplock/kept still hit ($hits)"
