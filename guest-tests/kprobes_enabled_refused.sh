#!/bin/bash
# debugfs kprobes/enabled when a site cannot be attached again.  A probe
# with a post_handler on a function's ftrace call site needs ftrace's
# IPMODIFY, which ftrace grants one owner per function.  While every probe
# is disarmed, a livepatch-like owner (guest-tests/modules/kp_steer.c)
# takes the function; writing 1 must then fail with EBUSY, arm every other
# probe, and disable the refused site's probe, so that kprobes/list says
# [DISABLED] and never claims a probe that cannot fire.  It stays off when
# the owner lets go, and unregisters cleanly.
# shellcheck source=guest-tests/lib.sh
. "$KP_LIB"

fn=kp_steer_target
steer=/sys/module/kp_steer/parameters/steer
call=/sys/module/kp_steer/parameters/call
# shellcheck disable=SC2317 # called through trap
cleanup() {
	[ ! -w "$steer" ] || echo 0 > "$steer"
	echo 1 > "$D/enabled" 2> /dev/null
	rmmod kprobe_example 2> /dev/null
	rmmod kp_steer 2> /dev/null
	reset_tracing
}
trap cleanup EXIT
[ -w "$D/enabled" ] || skip "no $D/enabled"
[ -w "$T/kprobe_events" ] || skip "no kprobe events"
modinfo kprobe_example > /dev/null 2>&1 || skip "no kprobe_example module (CONFIG_SAMPLE_KPROBES)"
cleanup
modprobe kp_steer || fail "cannot load kp_steer"
modprobe kprobe_example symbol=$fn || fail "kprobe_example cannot probe $fn"
line() { grep -E "  k  $fn\+0x[0-9a-f]+ " "$D/list"; }
line | grep -q '\[FTRACE\]' || skip "the probe on $fn is not ftrace-based: $(line)"
pre() { dmesg | grep -c "<$fn> pre_handler"; }
p0=$(pre)
echo 1 > "$call"
p1=$(pre)
[ "$p1" = $((p0 + 1)) ] || fail "$((p1 - p0)) pre_handler lines for one call of $fn"

echo 'p:kprobes/kpt_refused kernel_clone' >> "$T/kprobe_events" || fail "cannot define the event"
echo 1 > "$T/events/kprobes/kpt_refused/enable" || fail "cannot enable the event"
hits() { awk '$1 == "kpt_refused" { print $2 }' "$T/kprobe_profile"; }
forks() { local _; for _ in 1 2 3 4 5; do /bin/true; done; }

echo 0 > "$D/enabled" || fail "cannot write 0"
echo 1 > "$steer" || fail "disarmed, kprobes still hold $fn's entry: the owner could not take it"
expect_errno EBUSY bash -c "echo 1 > $D/enabled"
[ "$(cat "$D/enabled")" = 1 ] || fail "enabled reads '$(cat "$D/enabled")' after the refused write"
h1=$(hits)
forks
h2=$(hits)
[ "$h2" -ge $((h1 + 5)) ] || fail "the other probe was not armed again: $h1 -> $h2 hits after 5 forks"
line | grep -q '\[DISABLED\]' || fail "the refused site is not [DISABLED] in the list: $(line)"
echo 2 > "$call"
[ "$(pre)" = "$p1" ] || fail "the refused probe fired ($(pre) pre_handler lines)"

echo 0 > "$steer" || fail "the owner cannot let go"
echo 3 > "$call"
[ "$(pre)" = "$p1" ] || fail "the refused probe fired once the owner let go ($(pre) lines)"
rmmod kprobe_example || fail "cannot unload kprobe_example"
[ -z "$(line)" ] || fail "the refused probe is still listed: $(line)"
pass "enabled=1 with $fn owned elsewhere: EBUSY, the other probe armed ($h1 -> $h2 hits), $fn's probe [DISABLED] and silent, then unregistered"
