#!/bin/bash
# Differential instruction fuzzing (guest-tests/modules/kp_fuzz_*): random
# x86-64 instruction sequences, generated from a seed at build time, each
# run unprobed and then with a probe at every instruction boundary, in
# each mode: int3 with a post_handler (stepped or emulated), boosted
# (optimization off), optimized (on, the optimizer given time), and a
# kretprobe on every sequence.  Registers, arithmetic flags (but after a
# kretprobe's return), a stack area and two scratch areas must come out as
# unprobed, every time.  Prints one
# line per mode with the seed and the counts; KP_FUZZ_SEQS sequences
# (default all that were built: 2,000), KP_FUZZ_MODES modes (default all).
# shellcheck source=guest-tests/lib.sh
. "$KP_LIB"

S=/proc/sys/debug/kprobes-optimization
# shellcheck disable=SC2317 # called through trap
cleanup() { rmmod kp_fuzz 2>/dev/null; echo 1 > "$S"; }
trap cleanup EXIT
[ -w "$S" ] || skip "no $S"
modinfo kp_fuzz > /dev/null 2>&1 || fail "no kp_fuzz module"
[ "$(uname -m)" = x86_64 ] || skip "the sequences are x86-64"

val() { sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p" <<< "$res"; }
# The same sequences take the same paths whatever the mode: as many
# pre_handler runs in each probe mode, each followed by its post_handler
# when there is one.
hits=
# KP_FUZZ_MODES (kernel command line) runs some of the modes only.
for mode in ${KP_FUZZ_MODES:-step boost opt kret}; do
	case $mode in opt) echo 1 > "$S" ;; *) echo 0 > "$S" ;; esac
	t0=$(date +%s)
	modprobe kp_fuzz mode=$mode nseqs="${KP_FUZZ_SEQS:-0}" || fail "modprobe kp_fuzz mode=$mode failed"
	echo 1 > /sys/module/kp_fuzz/parameters/run || fail "$mode: the run failed"
	res=$(cat /sys/module/kp_fuzz/parameters/result)
	rmmod kp_fuzz || fail "rmmod kp_fuzz failed"
	echo "$mode ($(( $(date +%s) - t0 )) s): $res"
	[ "$(val nondeterministic)" = 0 ] ||
		fail "$mode: $(val nondeterministic) sequences differ from one unprobed run to the next"
	[ "$(val divergences)" = 0 ] ||
		fail "$mode: $(val divergences) probed runs differ from the unprobed one, first $(val first) (seed $(val seed))"
	[ "$(val registered)" -gt 0 ] || fail "$mode: no probe registered (last error $(val last_err))"
	# Every boundary is an instruction of the safe subset: none refused.
	[ "$(val refused)" = 0 ] ||
		fail "$mode: $(val refused) of $(val boundaries) probes refused (last error $(val last_err))"
	case $mode in step | boost | opt)
		[ "$(val pre_hits)" -gt 0 ] || fail "$mode: no pre_handler ran"
		[ -z "$hits" ] || [ "$(val pre_hits)" = "$hits" ] ||
			fail "$mode: $(val pre_hits) pre_handler runs, step mode had $hits"
		hits=$(val pre_hits) ;;
	esac
	case $mode in
	step) [ "$(val post_hits)" = "$(val pre_hits)" ] ||
		fail "step: $(val post_hits) post_handler runs for $(val pre_hits) pre_handler runs" ;;
	opt) [ "$(val optimized)" -gt 0 ] || fail "opt: no probe was optimized" ;;
	kret) [ "$(val ret_hits)" = "$(val seqs)" ] ||
		fail "kret: $(val ret_hits) returns seen for $(val seqs) calls" ;;
	esac
done
pass "no divergence in any mode (seed $(val seed), $(val seqs) sequences)"
