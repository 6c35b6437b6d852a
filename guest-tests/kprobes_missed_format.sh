#!/bin/bash
# debugfs kprobes/missed: the probes of kprobes/list, in the same order and
# named the same way, each with its skipped hits by cause:
# "ADDR  k|r  SYM+0xOFF  MOD recursion=N disabled=N no_instance=N return_busy=N".
# Two events share vfs_read and only one is enabled: the other's line
# counts the hits it saw go by as 'disabled', which are not misses
# (kprobe_profile shows 0 for it).
# shellcheck source=guest-tests/lib.sh
. "$KP_LIB"
[ -r "$D/missed" ] || skip "no $D/missed (debugfs or KPROBES missing)"
# shellcheck disable=SC2317 # called through trap
cleanup() {
	[ ! -d "$T/events/kpmiss" ] || echo 0 > "$T/events/kpmiss/enable"
	reset_tracing
}
trap cleanup EXIT
reset_tracing

echo 'p:kpmiss/on vfs_read' >> "$T/kprobe_events" || fail "cannot define kpmiss/on"
echo 'p:kpmiss/off vfs_read' >> "$T/kprobe_events" || fail "cannot define kpmiss/off"
echo 'r:kpmiss/ret vfs_read' >> "$T/kprobe_events" || fail "cannot define kpmiss/ret"
echo 1 > "$T/events/kpmiss/on/enable" || fail "cannot enable kpmiss/on"
echo 1 > "$T/events/kpmiss/ret/enable" || fail "cannot enable kpmiss/ret"
for _ in 1 2 3 4 5; do cat /etc/hostname > /dev/null; done

list=$(mktemp) missed=$(mktemp)
cat "$D/list" > "$list"
cat "$D/missed" > "$missed"
causes='recursion=[0-9]+ disabled=[0-9]+ no_instance=[0-9]+ return_busy=[0-9]+'
bad=$(grep -Evc "^[0-9a-f]+  [kr]  [^ ]+\+0x[0-9a-f]+  ([A-Za-z0-9_]+| ) $causes\$" "$missed")
[ "$bad" = 0 ] || { cat "$missed"; fail "$bad malformed line(s) in $D/missed"; }

# Same probes, same order: list's lines without their flags.
sed -E 's/(\[[A-Z]+\])*$//' "$list" > list.names
sed -E "s/$causes\$//" "$missed" > missed.names
diff list.names missed.names > /dev/null ||
	{ diff list.names missed.names; fail "missed does not name the probes of list"; }

# The disabled event's hits are counted apart; the enabled ones' are not.
dis=$(awk '$3 ~ /^vfs_read\+/ && $2 == "k" { split($(NF-2), a, "="); s += a[2] } END { print s + 0 }' "$missed")
[ "$dis" -ge 5 ] || { cat "$missed"; fail "the disabled event at vfs_read counted $dis hits, expected at least 5"; }
grep -Eq '  r  vfs_read\+0x[0-9a-f]+  .*recursion=[0-9]+ disabled=0 no_instance=0 return_busy=0$' "$missed" ||
	{ cat "$missed"; fail "no clean 'r' line for vfs_read"; }
off_missed=$(awk '$1 == "kpmiss/off" || $1 == "off" { print $3 }' "$T/kprobe_profile")
[ "${off_missed:-0}" = 0 ] || fail "kprobe_profile counts $off_missed misses for the disabled event"
cleanup
trap - EXIT
! grep -q kpmiss "$T/kprobe_events" || fail "kpmiss events left: $(cat "$T/kprobe_events")"
pass "$(grep -c . "$missed") lines named as in list; the disabled event saw $dis hits go by, not counted as misses"
