#!/bin/bash
# The kernel's kprobe_event_gen_test module (CONFIG_KPROBE_EVENT_GEN_TEST)
# builds kprobes/gen_kprobe_test and kprobes/gen_kretprobe_test on
# do_sys_open through the in-kernel dynevent API and enables them: both
# must exist, be listed in kprobe_events, fire on an open, and go when the
# module is unloaded.
# shellcheck source=guest-tests/lib.sh
. "$KP_LIB"
# shellcheck disable=SC2317 # called through trap
cleanup() { rmmod kprobe_event_gen_test 2>/dev/null; reset_tracing; }
trap cleanup EXIT
modinfo kprobe_event_gen_test > /dev/null 2>&1 || skip "no kprobe_event_gen_test module (CONFIG_KPROBE_EVENT_GEN_TEST=m)"
cleanup
modprobe kprobe_event_gen_test || fail "modprobe kprobe_event_gen_test failed"
for ev in gen_kprobe_test gen_kretprobe_test; do
	[ -d "$T/events/kprobes/$ev" ] || fail "no events/kprobes/$ev"
	[ "$(cat "$T/events/kprobes/$ev/enable")" = 1 ] || fail "$ev is not enabled"
done
cat "$T/kprobe_events"
grep -Eq '^p:kprobes/gen_kprobe_test do_sys_open dfd=%ax filename=%dx flags=%cx mode=\+4\(\$stack\)$' "$T/kprobe_events" ||
	fail "kprobe_events lacks the generated entry event"
grep -Eq '^r[0-9]*:kprobes/gen_kretprobe_test do_sys_open [a-z0-9_]+=\$retval$' "$T/kprobe_events" ||
	fail "kprobe_events lacks the generated return event"
# A control event of our own on do_sys_open: if it never fires either, the
# function is not called in this build (the compiler may inline it into
# every open syscall) and firing cannot be checked.
echo 'p:kprobes/kpt_gen_ctl do_sys_open' >> "$T/kprobe_events" || fail "cannot define the control event"
echo 1 > "$T/events/kprobes/kpt_gen_ctl/enable"
cat /etc/hostname > /dev/null
/usr/bin/python3 -c 'import os; os.close(os.open("/etc/hostname", os.O_RDONLY))'
echo 0 > "$T/events/kprobes/kpt_gen_ctl/enable"
echo '-:kprobes/kpt_gen_ctl' >> "$T/kprobe_events" || fail "cannot remove the control event"
ctl=$(grep -c ' kpt_gen_ctl: ' "$T/trace")
grep -E ' gen_k(ret)?probe_test: ' "$T/trace" | head -n 4
e=$(grep -Ec ' gen_kprobe_test: \(do_sys_open\+0x[0-9a-f]+/0x[0-9a-f]+\) dfd=0x[0-9a-f]+ filename=0x[0-9a-f]+ flags=0x[0-9a-f]+ mode=0x[0-9a-f]+$' "$T/trace")
r=$(grep -Ec ' gen_kretprobe_test: \([a-z0-9_.]+\+0x[0-9a-f]+/0x[0-9a-f]+ <- do_sys_open\) [a-z0-9_]+=0x[0-9a-f]+$' "$T/trace")
if [ "$ctl" -gt 0 ]; then
	[ "$e" -ge "$ctl" ] || fail "gen_kprobe_test: $e well-formed lines, the control event on do_sys_open $ctl"
	[ "$r" -ge 1 ] || fail "gen_kretprobe_test did not fire on an open (or its line is malformed)"
	fired="gen_kprobe_test $e lines, gen_kretprobe_test $r lines (control $ctl)"
else
	[ "$e$r" = 00 ] || fail "the gen events fired ($e/$r lines) where our control event on do_sys_open did not"
	fired="firing not checked: do_sys_open is never called in this build (inlined into the open syscalls; control event 0 hits)"
fi
rmmod kprobe_event_gen_test || fail "rmmod kprobe_event_gen_test failed"
[ -d "$T/events/kprobes/gen_kprobe_test" ] && fail "events/kprobes/gen_kprobe_test left after rmmod"
[ -d "$T/events/kprobes/gen_kretprobe_test" ] && fail "events/kprobes/gen_kretprobe_test left after rmmod"
grep -q gen_k "$T/kprobe_events" && fail "kprobe_events still lists a gen_* event after rmmod"
[ "$(list_count ' do_sys_open\+0x')" = 0 ] || { cat "$D/list"; fail "do_sys_open probe left in kprobes/list"; }
pass "both events created, listed and enabled by the module, removed on rmmod; $fired"
