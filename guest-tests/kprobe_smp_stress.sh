#!/bin/bash
# SMP churn stress.  For KP_STRESS_SECONDS (default 60; make check-full:
# 300) the kp_stress module (guest-tests/modules/kp_stress.c) runs a hitter
# thread per CPU that checks every result of its probed functions, and
# churner threads that register, toggle and unregister kprobes on every
# instruction of those functions (grouped, with and without post_handler,
# in batches) and kretprobes with maxactive 1-2 whose handler checks the
# return value against the argument seen at entry.  Meanwhile this script
# churns kprobe_events: entry and return events on kernel functions,
# MOD:SYM events on a module loaded and unloaded under them, the
# optimization sysctl flipping, and readers of debugfs kprobes/list and
# kprobe_profile.  Pass: no wrong result, no wrong return value, the module
# loaded (so every round ended), no probe or event left behind.  The
# console scan (and kmemleak on the debug kernel) does the rest.
# shellcheck source=guest-tests/lib.sh
. "$KP_LIB"
[ -w "$T/kprobe_events" ] || skip "no kprobe events"
modinfo kp_stress > /dev/null 2>&1 || skip "no kp_stress module"
modinfo kp_canary > /dev/null 2>&1 || skip "no kp_canary module"
S=/proc/sys/debug/kprobes-optimization
secs=${KP_STRESS_SECONDS:-60}
# shellcheck disable=SC2317 # called through trap
cleanup() {
	echo 1 > "$S"
	rmmod kp_canary 2> /dev/null
	reset_tracing
}
trap cleanup EXIT
reset_tracing
grep -v kp_ "$D/list" > list.before

modprobe kp_stress seconds="$secs" &
pid=$!
events=0 loads=0 flips=0 reads=0
end=$((SECONDS + secs))
while kill -0 "$pid" 2> /dev/null && [ "$SECONDS" -lt "$end" ]; do
	# Kernel functions: entry and return, enabled around some calls.
	# shellcheck disable=SC2016 # $retval is kprobe_events syntax
	echo 'p:kpss/k vfs_read' >> "$T/kprobe_events" &&
		echo 'r:kpss/r vfs_read ret=$retval' >> "$T/kprobe_events" &&
		echo 1 > "$T/events/kpss/enable" && cat /etc/hostname > /dev/null &&
		echo 0 > "$T/events/kpss/enable" &&
		echo '-:kpss/k' >> "$T/kprobe_events" && echo '-:kpss/r' >> "$T/kprobe_events" &&
		events=$((events + 2))
	# A module loaded and unloaded under a live MOD:SYM event.
	echo 'p:kpss/m kp_canary:kp_canary_poke' >> "$T/kprobe_events" &&
		echo 1 > "$T/events/kpss/m/enable" && events=$((events + 1))
	if modprobe kp_canary; then
		echo 5 > /sys/module/kp_canary/parameters/poke
		rmmod kp_canary && loads=$((loads + 1))
	fi
	echo 0 > "$T/events/kpss/m/enable" 2> /dev/null
	echo '-:kpss/m' >> "$T/kprobe_events"
	# The optimizer turned off and on under the module's probes.
	echo $((flips % 2)) > "$S" && flips=$((flips + 1))
	cat "$D/list" "$T/kprobe_profile" > /dev/null && reads=$((reads + 2))
done
wait "$pid"
rc=$?
echo 1 > "$S"
P=/sys/module/kp_stress/parameters
[ "$rc" = 0 ] || fail "modprobe kp_stress failed ($rc): $(dmesg | grep kp_stress | tail -n 2)"
sum=$(dmesg | grep 'kp_stress:' | tail -n 1)
echo "$sum"
v() { cat "$P/$1"; }
[ "$(v calls)" -gt 0 ] || fail "the hitters made no call"
[ "$(v regs_ok)" -gt 0 ] || fail "the churners registered nothing"
[ "$(v wrong)" = 0 ] || fail "$(v wrong) wrong results out of $(v calls) calls"
[ "$(v ret_wrong)" = 0 ] || fail "$(v ret_wrong) wrong return values out of $(v ret_checked)"
[ "$(v pre_hits)" -gt 0 ] || fail "no pre_handler ran"
rmmod kp_stress || fail "cannot remove kp_stress"

# Nothing left: no probe of ours in the list, no event of ours.
grep -v kp_ "$D/list" > list.after
grep -q 'kp_stress\|kp_canary' "$D/list" && { cat "$D/list"; fail "probes left in the modules"; }
diff list.before list.after > /dev/null || { diff list.before list.after; fail "kprobes/list changed"; }
grep -q kpss "$T/kprobe_events" && fail "kpss events left: $(cat "$T/kprobe_events")"
pass "${sum#*kp_stress: }; shell: $events events, $loads module loads, $flips sysctl flips, $reads reads"
