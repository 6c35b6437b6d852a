#!/bin/bash
# A probe in module text ("MOD:SYM") is shown [GONE] once the module is
# unloaded, and is armed again, at the new address, when it comes back.
# shellcheck source=guest-tests/lib.sh
. "$KP_LIB"

# shellcheck disable=SC2317 # called through trap
cleanup() { reset_tracing; rmmod trace_printk 2>/dev/null; }
trap cleanup EXIT
[ -w "$T/kprobe_events" ] || skip "no kprobe events"
modinfo trace-printk > /dev/null 2>&1 || skip "no trace-printk sample module"
reset_tracing
rmmod trace_printk 2>/dev/null

modprobe trace-printk || fail "modprobe trace-printk failed"
echo 'p:kprobes/tpk trace_printk:trace_printk_irq_work' >> "$T/kprobe_events" ||
	fail "cannot define a probe on trace_printk:trace_printk_irq_work"
line() { grep -E '  k  trace_printk_irq_work\+0x[0-9a-f]+  ' "$D/list"; }
[ "$(line | wc -l)" = 1 ] || { cat "$D/list"; fail "expected one trace_printk_irq_work line"; }
line | grep -Eq '\+0x[0-9a-f]+  trace_printk ' || fail "no module column: '$(line)'"
line | grep -q '\[GONE\]' && fail "[GONE] while loaded: '$(line)'"
addr=$(line | awk '{ print $1 }')

# Gone text has no symbol any more: find the line by its address.
rmmod trace_printk || fail "rmmod trace_printk failed"
if [ "$((16#$addr))" != 0 ]; then
	gone=$(grep -E "^$addr  k  " "$D/list")
else
	gone=$(grep -E '  k  .*\[GONE\]' "$D/list")
fi
[ -n "$gone" ] || { cat "$D/list"; fail "the probe vanished from the list on rmmod"; }
case $gone in
*'[GONE]'*) ;;
*) fail "no [GONE] after rmmod: '$gone'" ;;
esac

# Enabled while gone, so that the next module init can hit it.
enabled=0
echo 1 > "$T/events/kprobes/tpk/enable" 2>/dev/null && enabled=1
modprobe trace-printk || fail "second modprobe failed"
[ "$(line | wc -l)" = 1 ] || { cat "$D/list"; fail "no trace_printk_irq_work line after modprobe"; }
line | grep -q '\[GONE\]' && fail "still [GONE] after modprobe: '$(line)'"
addr=$(line | awk '{ print $1 }')
off=$(line | sed -E 's/.*trace_printk_irq_work\+(0x[0-9a-f]+).*/\1/')
sym=$(awk '$3 == "trace_printk_irq_work" { print $1; exit }' /proc/kallsyms)
if [ "$((16#$addr))" != 0 ] && [ -n "$sym" ] && [ "$((16#$sym))" != 0 ]; then
	[ "$((16#$addr))" = "$((16#$sym + off))" ] ||
		fail "re-armed at $addr, but trace_printk_irq_work is now at $sym (+$off)"
fi
if [ "$enabled" = 1 ]; then
	hits=$(awk '$1 == "tpk" { print $2 }' "$T/kprobe_profile")
	[ "${hits:-0}" -ge 1 ] || fail "re-armed probe missed the module's irq_work ($hits hits)"
	echo 0 > "$T/events/kprobes/tpk/enable"
fi
rmmod trace_printk || fail "final rmmod failed"
echo '-:kprobes/tpk' >> "$T/kprobe_events" || fail "cannot remove the gone probe's event"
[ "$((16#$addr))" != 0 ] && grep -q "^$addr  k  " "$D/list" &&
	fail "probe still listed after removing its event"
pass "module probe: [GONE] after rmmod, re-armed at the new address after modprobe (enabled=$enabled)"
