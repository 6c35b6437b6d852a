#!/bin/bash
# kprobe_event= on the boot command line (harness/boot.sh adds
# "p:kprobes/kpt_boot_clone,kernel_clone,flags=+0(%di):x64": commas stand
# for spaces) defines the event, with its argument, and enables it at
# boot: the trace init saved before any test ran (boot-trace) already has
# its records, from the processes init started.
# shellcheck source=guest-tests/lib.sh
. "$KP_LIB"

snap=${KP_OUTDIR:-/mnt/out}/boot-trace
grep -q 'kprobe_event=.*kpt_boot_clone' /proc/cmdline ||
	skip "the boot command line defines no kpt_boot_clone event"
[ -f "$snap" ] || fail "init saved no trace at boot"
expect_match "$snap" 'kpt_boot_clone: \(kernel_clone\+0x[0-9a-f]+/0x[0-9a-f]+\) flags=0x[0-9a-f]+$' \
	"no record of the boot-time event in the trace taken at boot"
n=$(grep -c 'kpt_boot_clone:' "$snap")
# Still defined as given, unless an earlier test cleared kprobe_events.
if grep -q kpt_boot_clone "$T/kprobe_events"; then
	expect_match "$T/kprobe_events" '^p:kprobes/kpt_boot_clone kernel_clone flags=\+0\(%di\):x64$' \
		"kprobe_events does not show the boot event as defined"
	[ "$(cat "$T/events/kprobes/kpt_boot_clone/enable")" = 1 ] ||
		fail "the boot event is not enabled"
fi
pass "$n records of kpt_boot_clone from boot, with its argument"
