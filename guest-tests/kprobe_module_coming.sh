#!/bin/bash
# A kprobe registered on a module while it is COMING, before the kprobes
# core's own module notifier has run (kp_coming, guest-tests/modules/
# kp_coming.c: a notifier of the highest priority), already sees the
# module's kprobe blacklist: a probe on kp_canary_blocked(), a
# NOKPROBE_SYMBOL of kp_canary, is refused with EINVAL, one on
# kp_canary_poke() registers.  The blacklist names the module's function
# once, not once per adder, and drops it when the module goes.
# shellcheck source=guest-tests/lib.sh
. "$KP_LIB"
B=$D/blacklist
[ -r "$B" ] || skip "no debugfs kprobes/blacklist"
modinfo kp_coming > /dev/null 2>&1 || skip "no kp_coming module"
modinfo kp_canary > /dev/null 2>&1 || skip "no kp_canary module"
# shellcheck disable=SC2317 # called through trap
cleanup() { rmmod kp_canary 2> /dev/null; rmmod kp_coming 2> /dev/null; }
trap cleanup EXIT
cleanup

modprobe kp_coming || fail "cannot load kp_coming"
modprobe kp_canary || fail "cannot load kp_canary"
P=/sys/module/kp_coming/parameters
[ "$(cat $P/coming)" = 1 ] || fail "kp_coming saw kp_canary come $(cat $P/coming) times"
[ "$(cat $P/poke_ret)" = 0 ] || fail "a probe on kp_canary_poke while COMING: $(cat $P/poke_ret), expected 0"
[ "$(cat $P/blocked_ret)" = -22 ] ||
	fail "a probe on the blacklisted kp_canary_blocked while COMING: $(cat $P/blocked_ret), expected -22 (EINVAL)"
n=$(grep -c 'kp_canary_blocked' "$B")
[ "$n" = 1 ] || { grep kp_canary "$B"; fail "kp_canary_blocked is $n times in $B, expected once"; }
echo 5 > /sys/module/kp_canary/parameters/poke || fail "cannot poke kp_canary"
grep -q kp_canary "$D/list" && fail "probes left on kp_canary: $(grep kp_canary "$D/list")"
rmmod kp_canary || fail "cannot remove kp_canary"
grep -q 'kp_canary_blocked' "$B" && fail "kp_canary_blocked still blacklisted after rmmod"
pass "while COMING, before the kprobes notifier: kp_canary_poke registers, kp_canary_blocked -> EINVAL; blacklisted once, gone after rmmod"
