#!/bin/bash
# A "MOD:SYM+OFF" kprobe event enabled before MOD is loaded is registered
# while the module is COMING, when its jump table may still be being sorted
# and the optimizer must not read it.  That is "not yet", not "never": once
# the module is live the probe is jump-optimized like one registered then.
# The offset is one that is optimized when registered on the live module
# (found first); the probed function is kp_canary_poke() of the harness
# module kp_canary (harness/modules/kp_canary.c).
# shellcheck source=guest-tests/lib.sh
. "$KP_LIB"
S=/proc/sys/debug/kprobes-optimization
# shellcheck disable=SC2317 # called through trap
cleanup() { reset_tracing; rmmod kp_canary 2>/dev/null; }
trap cleanup EXIT
[ -w "$T/kprobe_events" ] || skip "no kprobe events"
[ -r "$S" ] || skip "no $S (no jump optimization)"
[ "$(cat "$S")" = 1 ] || fail "$S reads $(cat "$S"), expected 1"
modinfo kp_canary > /dev/null 2>&1 || skip "no kp_canary module"
rmmod kp_canary 2>/dev/null
reset_tracing

site=' kp_canary_poke\+0x[0-9a-f]+ +kp_canary '
define() {
	echo "p:kprobes/kpt_comopt kp_canary:kp_canary_poke+$1" > "$T/kprobe_events" 2>/dev/null &&
		echo 1 > "$T/events/kprobes/kpt_comopt/enable"
}
undefine() {
	echo 0 > "$T/events/kprobes/kpt_comopt/enable" 2>/dev/null
	echo > "$T/kprobe_events"
}

modprobe kp_canary || fail "cannot load kp_canary"
found=
for off in $(seq 1 31); do
	define "$off" || { undefine; continue; }
	if wait_optimized "$site" 2; then
		found=$off
		break
	fi
	undefine
done
undefine
[ -n "$found" ] || fail "no probe in kp_canary_poke+1..31 is optimized on the live module"
rmmod kp_canary || fail "cannot remove kp_canary"

define "$found" || fail "cannot define and enable kp_canary:kp_canary_poke+$found before load"
modprobe kp_canary || fail "cannot load kp_canary with the event enabled"
grep -qE ' kp_canary_poke\+0x[0-9a-f]+ +kp_canary ' "$D/list" ||
	{ cat "$D/list"; fail "no kp_canary_poke probe in kprobes/list after modprobe"; }
wait_optimized "$site" 5 ||
	{ grep kp_canary "$D/list"; fail "kp_canary_poke+$found registered while COMING is never optimized"; }
echo 4 > /sys/module/kp_canary/parameters/poke || fail "cannot poke kp_canary"
hits=$(awk '$1 == "kpt_comopt" { print $2 }' "$T/kprobe_profile")
[ "$hits" = 1 ] || fail "the optimized probe counted $hits hits for one call"
pass "kp_canary_poke+$found: registered while COMING, optimized once live, 1 hit per call"
