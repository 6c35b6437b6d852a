#!/bin/bash
# A kprobe event on a blacklisted function is refused with EINVAL, leaves no
# event or probe behind, and kprobes keep working afterwards.  The targets
# are blacklisted functions that ftrace can trace, so that the refusal comes
# from the kprobes blacklist, not from the tracer's notrace check.
# shellcheck source=guest-tests/lib.sh
. "$KP_LIB"

trap reset_tracing EXIT
[ -w "$T/kprobe_events" ] || skip "no kprobe events"
[ -r "$D/blacklist" ] || skip "no $D/blacklist"
reset_tracing

cut -f 2 "$D/blacklist" | grep -v ' ' | sort -u > blacklisted
sed 's/ .*//' "$T/available_filter_functions" | sort -u > traceable
syms=$(comm -12 blacklisted traceable | head -n 3)
[ -n "$syms" ] || skip "no blacklisted function is traceable in this kernel"

for sym in $syms; do
	# bash's echo reports the write's errno (dash's says "I/O error").
	expect_errno EINVAL bash -c "echo 'p:kprobes/kpt_bl $sym' >> $T/kprobe_events"
	grep -q kpt_bl "$T/kprobe_events" && fail "refused probe on $sym left an event"
	grep -Eq "  k  $sym\+" "$D/list" && fail "a probe on $sym is registered"
done
cat "$T/error_log"

echo 'p:kprobes/kpt_ok kernel_clone' >> "$T/kprobe_events" || fail "a valid probe is refused"
echo 1 > "$T/events/kprobes/kpt_ok/enable" || fail "cannot enable kpt_ok"
/bin/true
hits=$(awk '$1 == "kpt_ok" { print $2 }' "$T/kprobe_profile")
[ "${hits:-0}" -ge 1 ] || fail "the valid probe does not hit"
pass "probes on $(echo "$syms" | tr '\n' ' ')refused with EINVAL; kernel_clone probe still hits"
