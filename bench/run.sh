#!/usr/bin/env bash
# make bench [QUICK=1]: our kprobes against the unmodified base kernel's.
#
# Both kernels must be built (the Makefile target builds them first).  The
# benchmark module is built against each, then the two kernels are booted
# in turn, same QEMU settings (single-threaded TCG unless ACCEL says
# otherwise, 4 vCPUs so the SMP test can use 1, 2 and 4 CPUs), alternating
# which goes first in each round: base, ours | ours, base | base, ours ...
# (QUICK=1: one round; full: two, then four that measure hit costs only,
# see BENCH_HIT_ROUNDS below).  Inside a boot the hit-cost kinds are
# interleaved too (each repetition measures every kind once).  Every
# number in the table is the median of all samples of all rounds and
# repetitions; the table says how many samples each median has.
# bench/report.py writes bench/results/latest.{md,png} (QUICK=1:
# quick.{md,png}) and prints the table.  Raw logs:
# $KPROBES_CACHE/runs/bench-<stamp>/.
#
# Knobs (environment): QUICK=1, BENCH_ROUNDS, BENCH_HIT_ROUNDS and
# BENCH_LARGE_ONCE (below),
# BENCH_TIMEOUT (seconds a boot may take), and the guest's KPB_* (see
# bench/guest.sh) to override the chosen sizes.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../harness/lib.sh"
KP_STEP=bench

if [ "${QUICK:-0}" = 1 ]; then
	rounds=${BENCH_ROUNDS:-1} hitrounds=${BENCH_HIT_ROUNDS:-0}
	: "${KPB_REPS:=5}" "${KPB_LOOPS:=50000}" "${KPB_REGN:=500}" "${KPB_EVN:=128}"
	: "${KPB_OPTWAIT:=15}" "${KPB_SMPN:=10000}" "${KPB_SLEEPN:=30}" "${KPB_REGREPS:=1}"
	timeout=${BENCH_TIMEOUT:-1800}
else
	rounds=${BENCH_ROUNDS:-2} hitrounds=${BENCH_HIT_ROUNDS:-4}
	: "${KPB_REPS:=3}" "${KPB_LOOPS:=1000000}" "${KPB_REGN:=1000,10000}" "${KPB_EVN:=256,2000}"
	: "${KPB_OPTWAIT:=90}" "${KPB_SMPN:=200000}" "${KPB_SLEEPN:=200}" "${KPB_REGREPS:=3}"
	# upstream alone needs about 25 minutes a boot for the registration part
	timeout=${BENCH_TIMEOUT:-3600}
fi
# BENCH_HIT_ROUNDS more rounds follow that measure the hit costs only
# (about 90 s a boot).  Under TCG one path's cost moves by up to a third
# from one boot of the same kernel to the next, with where that boot put
# the ftrace trampoline and the instruction slots (QEMU's caches of
# translated code are hashed by guest address): two boots per kernel are
# too few draws of that layout for a median.
#
# The test config builds each kernel's KUnit kprobes suite in, and it runs
# at boot unless told not to.  Ours registers many more probes there than
# upstream's: what either leaves behind (the ftrace trampoline
# placed wherever that boot's churn left room, the slots) would be part of
# what is measured.
nokunit=kunit.enable=0
#
# knobs ROUND: the guest's settings.  Every registration and kprobe_events
# size is measured KPB_REGREPS times in every round, so that each median
# is over at least 5 samples (well over an hour on two host cores, most
# of it at 10,000 probes).  BENCH_LARGE_ONCE=1 measures the large sizes
# (all but the first of each list) once, in round 1 only: 35 minutes.
knobs() {
	local regn=$KPB_REGN evn=$KPB_EVN bigreps=$KPB_REGREPS
	if [ -n "${BENCH_LARGE_ONCE:-}" ]; then
		bigreps=1
		[ "$1" = 1 ] || regn=${regn%%,*} evn=${evn%%,*}
	fi
	echo "$nokunit KPB_REPS=$KPB_REPS KPB_LOOPS=$KPB_LOOPS KPB_REGN=$regn KPB_EVN=$evn" \
		"KPB_OPTWAIT=$KPB_OPTWAIT KPB_SMPN=$KPB_SMPN KPB_SLEEPN=$KPB_SLEEPN" \
		"KPB_REGREPS=$KPB_REGREPS KPB_BIGREPS=$bigreps" \
		"${KPB_PARTS:+KPB_PARTS=${KPB_PARTS// /,}}"
}
# hitknobs: the same for a hit-only round.
hitknobs() {
	echo "$nokunit KPB_REPS=$KPB_REPS KPB_LOOPS=$KPB_LOOPS KPB_PARTS=hit"
}

suffix=; [ "${QUICK:-0}" != 1 ] || suffix=-quick
runs=$KPROBES_CACHE/runs/bench-$(date +%Y%m%d-%H%M%S)$suffix
mkdir -p "$runs"
start=$(date +%s)

# The module, against each kernel (in a copy: M= writes next to the sources).
for mode in base ours; do
	(
		BASELINE=$([ "$mode" = base ] && echo 1 || echo 0)
		. "$here/../harness/lib.sh"
		d=$KP_OUT/bench-module
		# Up to date: same sources, built after the kernel's last build.
		if [ "$d/kp_bench.ko" -nt "$KP_OUT/Module.symvers" ] &&
		   diff -q "$here/module/kp_bench.c" "$d/kp_bench.c" >/dev/null 2>&1 &&
		   diff -q "$here/module/Makefile" "$d/Makefile" >/dev/null 2>&1 &&
		   diff -q "$here/module/kp_bench_trace.h" "$d/kp_bench_trace.h" >/dev/null 2>&1; then
			kp_say "kp_bench.ko for $mode up to date"
		else
			rm -rf "$d"
			cp -r "$here/module" "$d"
			kp_make -s M="$d" modules > "$runs/module-$mode.log" 2>&1 ||
				{ cat "$runs/module-$mode.log" >&2; kp_die "kp_bench.ko failed to build against $mode"; }
		fi
		cp "$d/kp_bench.ko" "$runs/kp_bench-$mode.ko"
	)
done

kp_say "$rounds round(s) and $hitrounds hit-only round(s), $(knobs 1); raw logs in $runs"
echo "$hitrounds" > "$runs/hit-rounds"
for r in $(seq 1 $((rounds + hitrounds))); do
	cmdline=$(knobs "$r")
	[ "$r" -le "$rounds" ] || cmdline=$(hitknobs)
	if [ $((r % 2)) = 1 ]; then order="base ours"; else order="ours base"; fi
	for mode in $order; do
		dir=$runs/r$r-$mode
		mkdir -p "$dir"
		cp "$runs/kp_bench-$mode.ko" "$dir/kp_bench.ko"
		kp_say "round $r/$((rounds + hitrounds)): $mode"
		BASELINE=$([ "$mode" = base ] && echo 1 || echo 0) \
		KP_RUN_DIR=$dir KP_SMP=${KP_SMP:-4} KP_LOGLEVEL=4 \
		KP_TIMEOUT=$timeout KP_CMDLINE="$cmdline" \
			"$here/../harness/boot.sh" bench || kp_say "boot of $mode failed; see $dir"
		grep -q '^BENCH done' "$dir/bench.txt" 2>/dev/null ||
			kp_say "$mode round $r did not finish; its partial results are used (see $dir/console.log)"
	done
done
# Memory per kretprobe where it costs most: many possible CPUs (pools
# keep a ring per possible CPU), two of them online.  One boot per kernel
# (BENCH_KRETMEM=0: none); the test config's NR_CPUS allows the 64.  The
# 64 are present in QEMU and the kernel brings up two (maxcpus=2): QEMU's
# -smp 2,maxcpus=64 gives the kernel no more than the two, as its tables
# do not mark the others online-capable.
if [ "${BENCH_KRETMEM:-1}" = 1 ]; then
	r=$((rounds + hitrounds + 1))
	for mode in base ours; do
		dir=$runs/r$r-$mode
		mkdir -p "$dir"
		cp "$runs/kp_bench-$mode.ko" "$dir/kp_bench.ko"
		kp_say "memory round: $mode, 2 of 64 possible CPUs"
		BASELINE=$([ "$mode" = base ] && echo 1 || echo 0) \
		KP_RUN_DIR=$dir KP_SMP=64 KP_LOGLEVEL=4 \
		KP_TIMEOUT=$timeout \
		KP_CMDLINE="$nokunit maxcpus=2 KPB_PARTS=kretmem KPB_REGREPS=3 KPB_RETN=100" \
			"$here/../harness/boot.sh" bench || kp_say "boot of $mode failed; see $dir"
	done
fi
echo $(( $(date +%s) - start )) > "$runs/seconds"
python3 "$here/report.py" "$runs" "$here/results" $([ "${QUICK:-0}" = 1 ] && echo --quick)
