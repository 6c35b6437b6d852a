#!/bin/bash
# A probe on the kernel's __init text, defined at boot with kprobe_event=
# (harness/boot.sh adds it to the test command line), must be listed [GONE]
# once that text has been freed, and removing it afterwards must be safe.
# The list was captured by init before any test ran (boot-kprobes-list).
# shellcheck source=guest-tests/lib.sh
. "$KP_LIB"

snap=${KP_OUTDIR:-/mnt/out}/boot-kprobes-list
[ -f "$snap" ] || skip "no snapshot of kprobes/list taken at boot"
grep -q 'kprobe_event=p:kprobes/kpt_boot_init' /proc/cmdline ||
	skip "the boot command line defines no __init probe"
expect_match "$snap" '^[0-9a-f]+ +k +kernel_init_freeable\+0x[0-9a-f]+ .*\[GONE\]' \
	"the probe on kernel_init_freeable is not [GONE] after free_initmem"

# Later tests clear kprobe_events; if the boot event (enabled, as
# kprobe_event= leaves it) is still there, disabling and removing it must
# work and take the gone probe out of the list.
if grep -q kpt_boot_init "$T/kprobe_events"; then
	echo 0 > "$T/events/kprobes/kpt_boot_init/enable" ||
		fail "cannot disable the gone boot event"
	echo '-:kprobes/kpt_boot_init' >> "$T/kprobe_events" ||
		fail "cannot remove the gone boot event"
fi
[ "$(list_count 'kernel_init_freeable')" = 0 ] ||
	fail "kernel_init_freeable still in kprobes/list after its event went"
pass "__init probe listed [GONE] after boot; removed cleanly"
