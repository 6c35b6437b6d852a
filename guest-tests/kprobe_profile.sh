#!/bin/bash
# kprobe_profile has one line per event: two spaces, the name in 44
# columns, then hits and misses right-aligned in 15 columns each; the hit
# count follows the real number of hits.
. "$KP_LIB"
reset_tracing
echo 'p:kprobes/kpt_prof do_sys_openat2' >> "$T/kprobe_events" || fail "could not define the event"
grep -q '^  kpt_prof  *0  *0$' "$T/kprobe_profile" || fail "fresh event does not read 0 hits 0 misses: $(cat "$T/kprobe_profile")"
echo 1 > "$T/events/kprobes/kpt_prof/enable"
for i in 1 2 3 4 5; do cat /etc/hostname > /dev/null; done
echo 0 > "$T/events/kprobes/kpt_prof/enable"
line=$(grep '^  kpt_prof ' "$T/kprobe_profile")
[ ${#line} -eq $((2 + 44 + 1 + 15 + 1 + 15)) ] || fail "line is not 2+44+1+15+1+15 wide: '$line'"
hits=$(echo "$line" | awk '{print $2}')
[ "$hits" -ge 5 ] || fail "expected at least 5 hits after 5 opens, got $hits"
# Disabled: the count stays put.
cat /etc/hostname > /dev/null
hits2=$(grep '^  kpt_prof ' "$T/kprobe_profile" | awk '{print $2}')
[ "$hits2" = "$hits" ] || fail "hits moved from $hits to $hits2 while disabled"
reset_tracing
pass "$hits hits counted, format as documented"
