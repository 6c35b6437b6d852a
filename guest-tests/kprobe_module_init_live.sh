#!/bin/bash
# A module's __init text is probe-able while the module is COMING and
# refused with ENOENT once it is LIVE, although it is still mapped and
# named until it is freed just after (kp_live, guest-tests/modules/
# kp_live.c, probes its own init function from it and from its LIVE
# notification).  Neither probe is left behind.
# shellcheck source=guest-tests/lib.sh
. "$KP_LIB"
modinfo kp_live > /dev/null 2>&1 || skip "no kp_live module"
# shellcheck disable=SC2317 # called through trap
cleanup() { rmmod kp_live 2> /dev/null; }
trap cleanup EXIT
cleanup

modprobe kp_live || fail "cannot load kp_live"
P=/sys/module/kp_live/parameters
[ "$(cat $P/init_ret)" = 0 ] || fail "a probe on kp_live's init while COMING: $(cat $P/init_ret), expected 0"
[ "$(cat $P/live_ret)" = -2 ] ||
	fail "a probe on kp_live's init text once LIVE: $(cat $P/live_ret), expected -2 (ENOENT)"
[ "$(cat $P/core_ret)" = 0 ] || fail "a probe on kp_live's core text once LIVE: $(cat $P/core_ret), expected 0"
grep -q kp_live "$D/list" && fail "probes left on kp_live: $(grep kp_live "$D/list")"
rmmod kp_live || fail "cannot unload kp_live"
pass "kp_live's init text: accepted while COMING, ENOENT once LIVE (its core text accepted then), nothing left"
