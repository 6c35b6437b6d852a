#!/usr/bin/env bash
# The debug kernel of 'make check': the test configuration plus
# harness/config/debug.config (KASAN, lockdep, kmemleak, ...), built in
# out/<mode>-debug and booted in the same harness, into RUN/debug.  The
# guest runs the boot-time KUnit suites and the guest tests named in
# KP_DEBUG_TESTS (a run-tests.sh filter), then a kmemleak scan.  Here, one
# row in RUN/debug.tsv for that scan: no unreferenced object may have our
# code in its allocation backtrace.  report.py reads the rest of RUN/debug
# (console, KTAP, results) like the main run, with "debug-" suites.
# Usage: debug.sh RUN [build|test]   (build: configure and build only;
# test: boot the kernel built before; default both)
export KP_DEBUG=1
. "$(dirname "$0")/lib.sh"
KP_STEP=debug
run=$1
phase=${2:-all}
row() { printf 'debug\t%s\t%s\t%s\n' "$1" "$2" "$3" >> "$run/debug.tsv"; }

if [ "$phase" != test ]; then
	if ! { "$KP_REPO/harness/config.sh" && "$KP_REPO/harness/build.sh"; }; then
		row build fail "the debug kernel did not configure or build (see $KP_OUT/build.log)"
		exit 0
	fi
	[ "$phase" != build ] || exit 0
fi
if ! [ -f "$KP_OUT/.kp-built" ]; then
	grep -q "^debug	build	" "$run/debug.tsv" 2> /dev/null ||
		row build fail "no debug kernel built in $KP_OUT"
	exit 0
fi
# What the debug kernel runs besides KUnit: the SMP churn stress (60 s;
# 300 s in make check-full), the fuzz (4,000 lines; 100,000 in
# make check-full), the optimizer at every offset and __init text.  Every
# test costs several times its main-kernel time here (a module load alone
# is about a minute), so make check-full adds the tests that churn modules,
# the sysctl, the PMU and two ftracetest cases (about 25 min more).
tests=guest:kprobe_smp_stress,guest:kprobe_events_fuzz,guest:kprobe_many_offsets,guest:kprobe_init_gone
fuzz=4000 stress=60 timeout=3600
if [ "${KP_FULL:-0}" = 1 ]; then
	fuzz=100000 stress=300 timeout=7200
	tests=$tests,guest:kprobe_module_gone,guest:kprobe_module_before_load,guest:kprobe_module_coming,guest:kprobe_samples,guest:kprobe_optimization_sysctl,guest:kprobe_perf_pmu,guest:kprobe_profile_trace,guest:kprobes_enabled_knob,ftrace:kprobe/kprobe_opt_types,ftrace:kprobe/multiple_kprobes
fi
tests=${KP_DEBUG_TESTS:-$tests}
# The q35 machine: on this kernel, under TCG, ACPI's interpreter runs the
# default machine's _PRT method (a loop that builds the routing table) past
# its 30-second limit for each virtio device, gives up, and leaves them
# with no interrupt, so the 9p root never mounts.  q35's _PRT returns a
# table as it stands.  (pci=noacpi routes through the BIOS table but takes
# the IO-APIC, and with it the second CPU, away.)
# Its guest takes several times the main one's (ftracetest alone 13 min).
# It boots with preempt=full (the kernel has PREEMPT_DYNAMIC, as Debian's
# and Fedora's have): sleeping-in-atomic and lockdep checks see most when
# any task can be preempted wherever we have not disabled preemption.
KP_TIMEOUT=${KP_DEBUG_TIMEOUT:-$timeout} KP_QEMU_ARGS="-M q35 ${KP_QEMU_ARGS:-}" \
KP_CMDLINE="preempt=full KP_FUZZ_COUNT=$fuzz KP_STRESS_SECONDS=$stress KP_TEST_TIMEOUT=$((timeout / 2)) ${KP_CMDLINE:-}" KP_RUN_DIR=$run/debug \
	"$KP_REPO/harness/boot.sh" test "$tests"

# Functions defined by our files, as kmemleak's backtraces name them.
ours=$run/debug/our-functions
kp_our_functions "$KP_OUT" > "$ours"
leaks=$run/debug/kmemleak.txt
if [ ! -f "$leaks" ]; then
	row kmemleak fail "no kmemleak report from the guest"
elif [ ! -s "$ours" ]; then
	row kmemleak fail "found none of our functions in $KP_OUT"
else
	read -r total mine first < <(awk -v ours="$ours" '
		BEGIN { while ((getline l < ours) > 0) f[l] = 1 }
		/^unreferenced object/ { n++; cur = 0 }
		# "    fn+0x1/0x2 [mod]", older kernels "    [<addr>] fn+0x1/0x2"
		/^ +(\[<[0-9a-f]+>\] )?[A-Za-z_][A-Za-z0-9_.]*\+0x/ {
			fn = $1 ~ /^\[</ ? $2 : $1; sub(/\+.*/, "", fn)
			if ((fn in f) && !cur) { cur = 1; m++; if (!hit) hit = fn }
		}
		END { printf "%d %d %s\n", n, m, hit ? hit : "-" }' "$leaks")
	if [ "$mine" != 0 ]; then
		row kmemleak fail "$mine of $total unreferenced objects allocated through our code (first: $first; see $leaks)"
	else
		row kmemleak pass "$total unreferenced objects, none allocated through our code"
	fi
fi
