#!/bin/bash
# A "MOD:SYM" kprobe event defined before MOD is loaded is accepted, can be
# enabled, is armed when the module comes and traces its hits; after rmmod
# the event stays defined, and when the module is loaded again it traces
# again.  The probed function is kp_canary_poke() of the harness module
# kp_canary (harness/modules/kp_canary.c): one call per write to its "poke"
# parameter.
# shellcheck source=guest-tests/lib.sh
. "$KP_LIB"
# shellcheck source=guest-tests/progs/watchdog.sh
. "$KP_REPO/guest-tests/progs/watchdog.sh"
# shellcheck disable=SC2317 # called through trap
cleanup() { [ -z "${KP_HUNG:-}" ] || return; reset_tracing; rmmod kp_canary 2>/dev/null; }
trap cleanup EXIT
[ -w "$T/kprobe_events" ] || skip "no kprobe events"
modinfo kp_canary > /dev/null 2>&1 || skip "no kp_canary module"
modinfo -p kp_canary | grep -q '^poke:' || skip "kp_canary has no poke parameter (old harness build)"
rmmod kp_canary 2>/dev/null
reset_tracing
# A tracer left on by an earlier test is not what this one is about.
echo nop > "$T/current_tracer"
grep -q '^kp_canary ' /proc/modules && fail "kp_canary still loaded"

echo 'p:kprobes/kpt_modpre kp_canary:kp_canary_poke' >> "$T/kprobe_events" ||
	fail "a probe on kp_canary:kp_canary_poke was refused before the module is loaded"
grep -Eq '^p:kprobes/kpt_modpre kp_canary:kp_canary_poke$' "$T/kprobe_events" ||
	fail "kprobe_events shows '$(grep kpt_modpre "$T/kprobe_events")'"
[ "$(list_count 'kp_canary_poke')" = 0 ] ||
	fail "a probe on an unloaded module is in kprobes/list: $(grep kp_canary_poke "$D/list")"
echo "step: enable before load"
wd 60 sh -c "echo 1 > $T/events/kprobes/kpt_modpre/enable" || fail "cannot enable the event before the module is loaded"

poke() { local i; for i in $(seq "$1"); do echo "$i" > /sys/module/kp_canary/parameters/poke; done; }
lines() { grep -c ' kpt_modpre: (kp_canary_poke+0x' "$T/trace"; }

echo "step: modprobe"
wd 60 modprobe kp_canary || fail "modprobe kp_canary failed"
[ "$(list_count '  kp_canary_poke\+0x[0-9a-f]+ +kp_canary ')" = 1 ] ||
	{ cat "$D/list"; fail "no kp_canary_poke probe in kprobes/list after modprobe"; }
grep kp_canary_poke "$D/list" | grep -q '\[GONE\]' && fail "probe [GONE] while the module is loaded"
echo "step: poke 3"
wd 60 poke 3
n1=$(lines)
[ "$n1" = 3 ] || { grep kpt_modpre "$T/trace"; fail "3 calls of kp_canary_poke traced as $n1 lines"; }

echo "step: rmmod"
wd 60 rmmod kp_canary || fail "rmmod kp_canary failed"
grep -Eq '^p:kprobes/kpt_modpre kp_canary:kp_canary_poke$' "$T/kprobe_events" ||
	fail "the event went with the module: kprobe_events '$(cat "$T/kprobe_events")'"
[ -d "$T/events/kprobes/kpt_modpre" ] || fail "events/kprobes/kpt_modpre went with the module"

echo "step: modprobe again"
wd 60 modprobe kp_canary || fail "second modprobe kp_canary failed"
grep kp_canary_poke "$D/list" | grep -q '\[GONE\]' && fail "probe still [GONE] after the module came back"
echo "step: poke 2"
wd 60 poke 2
n2=$(lines)
[ "$n2" = 5 ] || { grep kpt_modpre "$T/trace"; fail "after the reload, 2 more calls gave $((n2 - n1)) more lines"; }
hits=$(awk '$1 == "kpt_modpre" { print $2 }' "$T/kprobe_profile")
[ "$hits" = 5 ] || fail "kprobe_profile counts $hits hits, the trace 5 lines"

echo 0 > "$T/events/kprobes/kpt_modpre/enable"
echo '-:kprobes/kpt_modpre' >> "$T/kprobe_events" || fail "cannot remove the event"
[ "$(list_count 'kp_canary_poke')" = 0 ] || fail "probe still listed after its event was removed"
rmmod kp_canary || fail "final rmmod failed"
pass "defined and enabled before load; $n1 lines, then after rmmod + modprobe $((n2 - n1)) more; profile $hits"
