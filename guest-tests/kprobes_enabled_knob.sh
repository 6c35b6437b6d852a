#!/bin/bash
# debugfs kprobes/enabled: reads "1\n" or "0\n"; writing 0 disarms every
# probe without changing its own state, writing 1 arms them again.  The
# observable is a kprobe event's hit count in kprobe_profile.
# shellcheck source=guest-tests/lib.sh
. "$KP_LIB"

# shellcheck disable=SC2317 # called through trap
cleanup() { echo 1 > "$D/enabled"; reset_tracing; }
trap cleanup EXIT
[ -w "$D/enabled" ] || skip "no $D/enabled"
[ -w "$T/kprobe_events" ] || skip "no kprobe events"
reset_tracing

knob() { od -c "$D/enabled" | head -n 1; }
[ "$(cat "$D/enabled")" = 1 ] || fail "enabled reads '$(cat "$D/enabled")' at start, expected 1"
[ "$(od -An -c "$D/enabled" | tr -d ' ')" = '1\n' ] || fail "enabled is not exactly '1\\n': $(knob)"

echo 'p:kprobes/kpt_knob kernel_clone' >> "$T/kprobe_events" || fail "cannot define the event"
echo 1 > "$T/events/kprobes/kpt_knob/enable" || fail "cannot enable the event"
hits() { awk '$1 == "kpt_knob" { print $2 }' "$T/kprobe_profile"; }
forks() { local _; for _ in 1 2 3 4 5; do /bin/true; done; }

forks
h1=$(hits)
[ "${h1:-0}" -ge 5 ] || fail "armed probe: $h1 hits after 5 forks"

echo 0 > "$D/enabled" || fail "cannot write 0"
[ "$(od -An -c "$D/enabled" | tr -d ' ')" = '0\n' ] || fail "enabled is not exactly '0\\n' after writing 0: $(knob)"
forks
h2=$(hits)
[ "$h2" = "$h1" ] || fail "knob 0: hits went from $h1 to $h2"
# The probe's own state is untouched: still enabled, not [DISABLED].
[ "$(cat "$T/events/kprobes/kpt_knob/enable")" = 1 ] || fail "knob 0 disabled the event itself"
grep -E '  k  kernel_clone\+' "$D/list" | grep -q '\[DISABLED\]' &&
	fail "knob 0 marked the probe [DISABLED]: $(grep kernel_clone "$D/list")"

echo 1 > "$D/enabled" || fail "cannot write 1"
[ "$(cat "$D/enabled")" = 1 ] || fail "enabled reads '$(cat "$D/enabled")' after writing 1"
forks
h3=$(hits)
[ "$h3" -ge $((h2 + 5)) ] || fail "knob 1: hits went from $h2 to $h3 after 5 forks"

# kstrtobool spellings are accepted too.
echo n > "$D/enabled" || fail "cannot write 'n'"
[ "$(cat "$D/enabled")" = 0 ] || fail "writing 'n' left '$(cat "$D/enabled")'"
echo y > "$D/enabled" || fail "cannot write 'y'"
[ "$(cat "$D/enabled")" = 1 ] || fail "writing 'y' left '$(cat "$D/enabled")'"
pass "knob 0 stops hits and keeps the probe's state, knob 1 resumes ($h1/$h2/$h3 hits)"
