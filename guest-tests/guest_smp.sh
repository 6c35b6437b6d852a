#!/bin/bash
# The guest must really have the vCPUs QEMU was given: cross-CPU text
# patching, per-CPU kprobe state and the "hit on another CPU while
# unregistering" paths are only exercised with more than one CPU online.
# shellcheck source=guest-tests/lib.sh
. "$KP_LIB"

want=${KP_SMP:-2}
online=$(nproc)
[ "$online" = "$want" ] || fail "$online CPU(s) online, QEMU was given $want"
grep -q "^0-$((want - 1))\$" /sys/devices/system/cpu/online ||
	fail "cpu/online reads '$(cat /sys/devices/system/cpu/online)'"
pass "$online CPUs online"
