#!/bin/bash
# BPF kprobe programs on our kprobe events (guest-tests/progs/kprobe_bpf.c,
# raw bpf() and perf_event_open()), on the getppid system call so that
# only the helper hits the probe:
#  - a program returning 1 lets every hit through to perf (samples = calls);
#    one returning 0 drops them all (samples = 0) although it ran each time;
#  - bpf_override_return(-EMLINK) on the function's entry, through a
#    tracefs event and through the kprobe PMU, makes every getppid() fail
#    with EMLINK (the function is skipped), and getppid() is itself again
#    once the program is gone;
#  - the override is refused (EINVAL) on a function that is not on the
#    error-injection list and on a probe past the function's entry.
# shellcheck source=guest-tests/lib.sh
. "$KP_LIB"
command -v gcc > /dev/null || skip "no gcc to build the helper"
[ -r /sys/bus/event_source/devices/kprobe/type ] || skip "no kprobe perf PMU"
grep -qx 'CONFIG_BPF_KPROBE_OVERRIDE=y' "$KP_REPO/harness/config/kprobes-test.config" ||
	skip "the test config has no BPF_KPROBE_OVERRIDE"
prog=$PWD/kprobe_bpf
gcc -O2 -Wall -o "$prog" "$KP_REPO/guest-tests/progs/kprobe_bpf.c" 2> gcc.log ||
	{ cat gcc.log; fail "cannot compile progs/kprobe_bpf.c"; }

sym=__x64_sys_getppid
grep -q " $sym\$" /proc/kallsyms || fail "no $sym in /proc/kallsyms"
n=100
emlink=31
reset_tracing
echo "p:kprobes/kpt_bpf_ppid $sym" >> "$T/kprobe_events" || fail "could not define the event"
id=$(cat "$T/events/kprobes/kpt_bpf_ppid/id")

# run NAME ARGS...: run the helper, keep its output in NAME.out
run() {
	local name=$1
	shift
	"$prog" "$@" > "$name.out" 2>&1 || { cat "$name.out"; fail "$name: helper failed"; }
	cat "$name.out"
}
val() { sed -n "s/.*\\b$2=\\([^ ]*\\).*/\\1/p" "$1.out" | head -n 1; }

run keep1 keep "$id" 1 "$n"
[ "$(val keep1 attach_errno)" = 0 ] || fail "attaching a kprobe program to the event failed: errno $(val keep1 attach_errno)"
[ "$(val keep1 samples)" = "$n" ] || fail "program returning 1: $(val keep1 samples) samples for $n calls"
[ "$(val keep1 runs)" -ge "$n" ] || fail "program returning 1 ran $(val keep1 runs) times for $n calls"
[ "$(val keep1 real)" = "$n" ] || fail "getppid() changed under a counting program"

run keep0 keep "$id" 0 "$n"
[ "$(val keep0 samples)" = 0 ] || fail "program returning 0: $(val keep0 samples) samples reached perf, expected none"
[ "$(val keep0 runs)" -ge "$n" ] || fail "program returning 0 ran $(val keep0 runs) times for $n calls"

run ovr_ev override "$id" "$emlink" "$n"
[ "$(val ovr_ev attach_errno)" = 0 ] ||
	fail "override program refused on the entry of $sym (errno $(val ovr_ev attach_errno))"
[ "$(val ovr_ev failed)/$(val ovr_ev errno)" = "$n/$emlink" ] ||
	fail "override through the event: $(val ovr_ev failed) of $n calls failed, errno $(val ovr_ev errno), expected all with $emlink"

run ovr_pmu override-pmu "$sym" 0 "$emlink" "$n"
[ "$(val ovr_pmu open_errno)" = 0 ] || fail "kprobe PMU event on $sym: errno $(val ovr_pmu open_errno)"
[ "$(val ovr_pmu failed)/$(val ovr_pmu errno)" = "$n/$emlink" ] ||
	fail "override through the PMU: $(val ovr_pmu failed) of $n calls failed, errno $(val ovr_pmu errno), expected all with $emlink"

# Gone with the programs: the function runs again, the count is exact.
run after keep "$id" 1 "$n"
[ "$(val after real)" = "$n" ] || fail "getppid() still overridden after the programs went: $(val after failed) failures"

run ovr_vfs override-pmu vfs_read 0 "$emlink" 1
[ "$(val ovr_vfs attach_errno)" = 22 ] ||
	fail "override on vfs_read (not error-injectable): attach errno $(val ovr_vfs attach_errno), expected 22"

# Past the entry: the first offset the PMU takes as an instruction
# boundary beyond the entry's endbr64/fentry call must refuse the override.
inner=
for off in $(seq 5 24); do
	"$prog" override-pmu "$sym" "$off" "$emlink" 1 > inner.out 2>&1 || continue
	[ "$(val inner open_errno)" = 0 ] || continue
	e=$(val inner attach_errno)
	if [ "$e" = 22 ]; then
		inner=$off
		break
	fi
	[ "$(val inner failed)" = 0 ] || fail "override at $sym+$off (attach errno $e) made getppid() fail"
done
[ -n "$inner" ] || fail "no probe inside $sym (offsets 5..24) refused the override"

# The list names the function by its first symbol (__do_sys_getppid on
# x86_64, an alias of the wrapper's address): match either.
pat=" __[a-z0-9]+_sys_getppid\\+0x"
pmu_left=$(list_count "$pat")
[ "$pmu_left" = 1 ] || { cat "$D/list"; fail "$pmu_left probes on $sym in $D/list, expected only the event's"; }
reset_tracing
[ "$(list_count "$pat")" = 0 ] || fail "a probe on $sym outlived its event"
pass "return 1: $n samples, return 0: none (ran $(val keep0 runs)x); override -> EMLINK via event and PMU; refused on vfs_read and at +$inner"
