#!/bin/bash
# The guest half of `make bench` (KP_ACTION=bench in harness/guest/init.sh).
# Loads kp_bench.ko from the run directory, runs every measurement and
# appends one "BENCH ..." line per sample to /mnt/out/bench.txt.  Knobs come
# from the kernel command line (bench/run.sh sets them):
#   KPB_REPS    hit-cost repetitions in this boot (kinds interleaved per rep)
#   KPB_LOOPS   calls per hit-cost sample
#   KPB_REGN    register_kprobes sizes, comma-separated
#   KPB_EVN     kprobe_events sizes, comma-separated
#   KPB_REGREPS samples of the first (smallest) size of each list in this
#               boot; KPB_BIGREPS (default: the same) of the larger ones
#   KPB_OPTWAIT seconds to wait for the optimizer
#   KPB_SMPN    calls per thread in the SMP test; KPB_SLEEPN for the sleeper
#   KPB_PARTS   which parts to run (default "hit smp reg events"; also
#               "kretmem", memory per kretprobe, KPB_RETN of them)
set -u
# bash reads a script as it goes: run from a private copy, so that an edit
# of this file on the host cannot derail a running benchmark.
if [ -z "${KPB_COPY:-}" ]; then
	cp "$0" /tmp/kpb-guest.sh && KPB_COPY=1 exec bash /tmp/kpb-guest.sh "$@"
fi
OUT=/mnt/out/bench.txt
C=/sys/kernel/debug/kp_bench/ctl
S=/sys/kernel/debug/kp_bench/syms
D=/sys/kernel/debug/kprobes
T=/sys/kernel/tracing
OPT=/proc/sys/debug/kprobes-optimization
REPS=${KPB_REPS:-5}
LOOPS=${KPB_LOOPS:-1000000}
REGN=${KPB_REGN:-1000,10000}
EVN=${KPB_EVN:-256,2000}
OPTWAIT=${KPB_OPTWAIT:-60}
SMPN=${KPB_SMPN:-100000}
SLEEPN=${KPB_SLEEPN:-200}
REGREPS=${KPB_REGREPS:-1}
BIGREPS=${KPB_BIGREPS:-$REGREPS}
PARTS=" ${KPB_PARTS:-hit smp reg events} "
PARTS=${PARTS//,/ }
part() { [[ $PARTS == *" $1 "* ]]; }
# plan LIST: the sizes of LIST (comma-separated), the first one REGREPS
# times, the others BIGREPS times each
plan() {
	local reps=$REGREPS n i
	for n in ${1//,/ }; do
		for i in $(seq 1 "$reps"); do echo "$n"; done
		reps=$BIGREPS
	done
}
cd /tmp || exit 1

emit() { echo "BENCH $*" >> "$OUT"; echo "BENCH $*"; }
# stamp VAR: the time in ns into VAR, with no fork (a "$(date)" costs
# milliseconds under TCG, and would be part of every interval).
stamp() {
	if [ -n "$EPOCHREALTIME" ]; then
		printf -v "$1" '%s000' "${EPOCHREALTIME/[.,]/}"
	else
		printf -v "$1" '%s' "$(date +%s%N)"
	fi
}
# ctl CMD: run one module command, print its result line.
# (Builtins only where it is cheap: every fork costs under TCG.)
ctl() {
	local line
	if ! echo "$*" > "$C"; then
		echo "error=ctl '$*' failed"
		return 1
	fi
	read -r line < "$C"
	echo "$line"
}
# kv KEY LINE: the value of KEY=VALUE in LINE.
kv() { [[ " $2" =~ \ $1=([^ ]*) ]] && echo "${BASH_REMATCH[1]}"; }
# State of the probes on kpb_ symbols in kprobes/list: type and [FLAGS].
state() {
	awk '$0 ~ /kpb_/ { s = $2; for (i = 4; i <= NF; i++) if ($i ~ /^\[[A-Z]+\]$/) s = s $i; out = out (out ? "," : "") s }
	     END { print out ? out : "none" }' "$D/list"
}
meminfo() { awk '$1 == "Slab:" { s = $2 } $1 == "VmallocUsed:" { v = $2 } END { print s, v }' /proc/meminfo; }

insmod /mnt/out/kp_bench.ko || { emit "error insmod failed"; exit 1; }
[ -w "$C" ] || { emit "error no $C"; exit 1; }
echo 1 > "$D/enabled" 2>/dev/null
textsyms=$(awk '$2 ~ /^[tT]$/ && NF == 3' /proc/kallsyms | wc -l)
emit "info kernel=$(uname -r) cpus=$(nproc) textsyms=$textsyms reps=$REPS loops=$LOOPS regreps=$REGREPS bigreps=$BIGREPS"

# ---- 1. hit cost -------------------------------------------------------
# Each kind: target function, optimization on/off, how it is armed.
# tracepoint: no kprobe at all, the module's own tracepoint event enabled
# (another event producer, through the same generic reserve and commit).
# revent: a kprobe_events return event with $retval.  bpfk, bpfr: a BPF
# program (bpftrace's count(), attached through the kprobe PMU as bpftrace
# and bcc attach) on a kprobe and on a kretprobe; KPB_BPF=0 leaves them out.
kinds="int3:nb:0 boost:b:0 opt:b:1 ftrace:entry:0 kret:entry:0 both:entry:0 event:entry:0 revent:entry:0 tracepoint:tp:0"
[ "${KPB_BPF:-1}" = 0 ] || ! command -v bpftrace > /dev/null || kinds+=" bpfk:entry:0 bpfr:entry:0"
# bpf_start PROGRAM: run bpftrace in the background until its probe on
# kpb_target_entry is in kprobes/list (bpftrace's start-up takes seconds
# under TCG: it is not part of any sample).
bpf_start() {
	local i
	bpftrace -e "$1" > /tmp/kpb-bt.out 2>&1 &
	bt_pid=$!
	for i in $(seq 1 "${KPB_BPFWAIT:-600}"); do
		grep -q 'kpb_target_entry' "$D/list" && return 0
		kill -0 "$bt_pid" 2> /dev/null || return 1
		sleep 0.2
	done
	kill "$bt_pid"; wait "$bt_pid"
	return 1
}
# bpf_stop: end bpftrace and wait for it (so not from a subshell, which
# cannot wait for it); the count its program kept goes to bt_count.
bpf_stop() {
	kill -INT "$bt_pid"
	wait "$bt_pid"
	bt_count=$(awk '$1 == "@n:" { print $2 }' /tmp/kpb-bt.out)
}
# Records written to the trace buffer so far: entries kept plus overwritten.
written() { cat "$T"/per_cpu/cpu*/stats | awk '$1 == "entries:" || $1 == "overrun:" { n += $2 } END { print n + 0 }'; }
wait_opt() {
	local deadline=$(( $(date +%s) + $1 ))
	while [ "$(date +%s)" -lt "$deadline" ]; do
		grep -q 'kpb_.*\[OPTIMIZED\]' "$D/list" && return 0
		sleep 0.2
	done
	return 1
}
hit_wait=${KPB_HITOPTWAIT:-10}
part hit || REPS=0
for rep in $(seq 1 "$REPS"); do
	# Unprobed loops are cheap: 10x the calls, for a steadier per-call time.
	for t in nb b entry tp; do
		r=$(ctl loop "$t" $((LOOPS * 10)))
		st=$(kv steps "$(ctl steps "$t")")
		emit "base target=$t rep=$rep n=$((LOOPS * 10)) ns=$(kv ns "$r") steps=$st"
	done
	for k in $kinds; do
		IFS=: read -r kind target opt <<< "$k"
		echo "$opt" > "$OPT"
		if [ "$kind" = event ]; then
			echo 'p:kpbench/empty kpb_target_entry' > "$T/kprobe_events" &&
				echo 1 > "$T/events/kpbench/empty/enable" ||
				{ emit "hit kind=event rep=$rep error=define"; continue; }
		elif [ "$kind" = revent ]; then
			echo 'r:kpbench/ret kpb_target_entry ret=$retval' > "$T/kprobe_events" &&
				echo 1 > "$T/events/kpbench/ret/enable" ||
				{ emit "hit kind=revent rep=$rep error=define"; continue; }
		elif [ "$kind" = bpfk ] || [ "$kind" = bpfr ]; then
			pt=kprobe; [ "$kind" = bpfk ] || pt=kretprobe
			bpf_start "$pt:kpb_target_entry { @n = count(); }" ||
				{ emit "hit kind=$kind rep=$rep error=attach:$(tail -n 1 /tmp/kpb-bt.out | tr ' ' _)"; continue; }
		elif [ "$kind" = tracepoint ]; then
			echo 1 > "$T/events/kp_bench/kpb_tick/enable" ||
				{ emit "hit kind=tracepoint rep=$rep error=enable"; continue; }
		else
			r=$(ctl arm "$kind")
			[ "$(kv ret "$r")" = 0 ] || { emit "hit kind=$kind rep=$rep error=arm:$r"; continue; }
		fi
		if [ "$kind" = opt ]; then
			# Ours may decline to optimize: after one full wait, wait less.
			wait_opt "$hit_wait" || hit_wait=2
		fi
		st=$(state)
		[ "$kind" != tracepoint ] || st=tracepoint
		# Instructions of one hit, single-stepped: only where no probe
		# of the kind runs through a breakpoint (see kp_bench.c).
		steps=
		if [[ $st =~ ^([kr]\[(FTRACE|OPTIMIZED)\],?)+$ ]] || [ "$st" = tracepoint ]; then
			steps=$(kv steps "$(ctl steps "$target")")
			# Where those instructions were, once per boot: the path
			# to read next to the disassembly.
			[ "$rep" != 1 ] ||
				cp /sys/kernel/debug/kp_bench/steplog "/mnt/out/steplog-$kind.txt"
		fi
		[ "$kind" != event ] || h0=$(awk '$1 == "empty" { print $2 }' "$T/kprobe_profile")
		[ "$kind" != revent ] || h0=$(awk '$1 == "ret" { print $2 }' "$T/kprobe_profile")
		[ "$kind" != tracepoint ] || h0=$(written)
		r=$(ctl loop "$target" "$LOOPS")
		hits=$(kv hits "$r"); rhits=$(kv rhits "$r")
		if [ "$kind" = event ]; then
			h1=$(awk '$1 == "empty" { print $2 }' "$T/kprobe_profile")
			hits=$(( h1 - h0 ))
			echo 0 > "$T/events/kpbench/empty/enable"
			echo > "$T/kprobe_events"
		elif [ "$kind" = revent ]; then
			h1=$(awk '$1 == "ret" { print $2 }' "$T/kprobe_profile")
			hits=$(( h1 - h0 ))
			echo 0 > "$T/events/kpbench/ret/enable"
			echo > "$T/kprobe_events"
		elif [ "$kind" = bpfk ] || [ "$kind" = bpfr ]; then
			# The program counted the loop's calls and the steps' one.
			bpf_stop
			hits=${bt_count:-0}
			[ -z "$steps" ] || hits=$(( hits - 1 ))
		elif [ "$kind" = tracepoint ]; then
			echo 0 > "$T/events/kp_bench/kpb_tick/enable"
			hits=$(( $(written) - h0 ))
		else
			ctl disarm > /dev/null
		fi
		emit "hit kind=$kind target=$target rep=$rep n=$LOOPS ns=$(kv ns "$r") hits=$hits rhits=$rhits steps=$steps state=$st"
	done
done
echo 1 > "$OPT"

# ---- 4. SMP scaling ------------------------------------------------------
if part smp; then
echo 0 > "$OPT"
ctl arm boost > /dev/null
st=$(state)
for rep in $(seq 1 "${KPB_REPS:-5}"); do
	for k in 1 2 4; do
		[ "$k" -le "$(nproc)" ] || { emit "smp threads=$k error=only-$(nproc)-cpus"; continue; }
		r=$(ctl smp "$k" "$SMPN")
		emit "smp threads=$k rep=$rep n=$(kv n "$r") ns=$(kv ns "$r") hits=$(kv hits "$r") state=$st"
	done
done
ctl disarm > /dev/null
echo 1 > "$OPT"
k=$(nproc); [ "$k" -le 4 ] || k=4
for rep in $(seq 1 "${KPB_REPS:-5}"); do
	r=$(ctl sleep "$k" "$SLEEPN" 2)
	emit "sleep threads=$k rep=$rep n=$(kv n "$r") ns=$(kv ns "$r") rhits=$(kv rhits "$r") nmissed=$(kv nmissed "$r") maxactive=2"
done
fi

# ---- 1b. memory per kretprobe --------------------------------------------
# KPB_RETN return events with the default maxactive ("r:" with no count,
# as perf probe, bpftrace and libbpf's legacy path define them), on the
# first functions of the candidate list: what Slab + VmallocUsed grew by,
# per kretprobe, once they are defined (registered, disabled) and once
# enabled.  run.sh boots a kernel with many possible CPUs for it.
if part kretmem; then
	retn=${KPB_RETN:-100}
	python3 /mnt/repo/bench/pick_syms.py "$retn" 2>/dev/null |
		awk '{ printf "r:kpbret/r%d %s\n", NR, $1 }' > rets.txt
	for rep in $(seq 1 "${KPB_REGREPS:-1}"); do
		echo > "$T/kprobe_events"
		sync; sleep 1
		read -r slab0 vm0 <<< "$(meminfo)"
		while read -r line; do echo "$line" >> "$T/kprobe_events" 2>/dev/null; done < rets.txt
		ok=$(grep -c '^r' "$T/kprobe_events")
		sync; sleep 1
		read -r slab1 vm1 <<< "$(meminfo)"
		[ "$ok" -gt 0 ] && echo 1 > "$T/events/kpbret/enable"
		sync; sleep 1
		read -r slab2 vm2 <<< "$(meminfo)"
		[ "$ok" -gt 0 ] && echo 0 > "$T/events/kpbret/enable"
		echo > "$T/kprobe_events"
		emit "kretmem n=$retn ok=$ok possible=$(cat /sys/devices/system/cpu/possible) online=$(nproc) slab_kb=$((slab2 - slab0)) vmalloc_kb=$((vm2 - vm0)) bytes_defined=$(( ok ? (slab1 - slab0 + vm1 - vm0) * 1024 / ok : 0 )) bytes_per_kretprobe=$(( ok ? (slab2 - slab0 + vm2 - vm0) * 1024 / ok : 0 ))"
	done
fi

# ---- 2./3. registration throughput and memory --------------------------
maxn=0
for n in ${REGN//,/ } ${EVN//,/ }; do [ "$n" -le "$maxn" ] || maxn=$n; done
python3 /mnt/repo/bench/pick_syms.py "$maxn" > syms.all 2> syms.count
emit "syms candidates=$(cat syms.count) picked=$(wc -l < syms.all)"

# Optimized probes among all registered ones.
nopt() { grep -c '\[OPTIMIZED\]' "$D/list"; }
part reg || REGN=
for n in $(plan "$REGN"); do
	ctl clearsyms > /dev/null
	python3 /mnt/repo/bench/pick_syms.py "$n" 2>/dev/null > syms.n
	cat syms.n > "$S"
	r=$(ctl alloc "$n")
	sync; sleep 1
	read -r slab0 vm0 <<< "$(meminfo)"
	r=$(ctl reg)
	emit "reg n=$n asked=$(kv asked "$r") ok=$(kv ok "$r") failed=$(kv failed "$r") einval=$(kv einval "$r") eilseq=$(kv eilseq "$r") eopnotsupp=$(kv eopnotsupp "$r") eother=$(kv eother "$r") elast=$(kv elast "$r") ns=$(kv ns "$r") first_ns=$(kv first_ns "$r") ret=$(kv ret "$r")"
	ok=$(kv ok "$r")
	[ "${ok:-0}" -gt 0 ] || continue
	r=$(ctl enable)
	emit "arm n=$n ok=$ok ns=$(kv ns "$r") failed=$(kv failed "$r")"
	# Optimizer: time until the [OPTIMIZED] count stops growing.
	stamp t0; last=0; tlast=$t0; still=0
	deadline=$(( $(date +%s) + OPTWAIT ))
	while [ "$(date +%s)" -lt "$deadline" ]; do
		sleep 0.5
		c=$(nopt)
		if [ "$c" -gt "$last" ]; then last=$c; stamp tlast; still=0
		else still=$((still + 1)); fi
		[ "$c" -lt "$ok" ] || break
		[ "$still" -lt 6 ] || break
	done
	# A read of the list can wait out a whole optimizer pass (it takes
	# the registry mutex): count what the last wait let through.
	c=$(nopt)
	if [ "$c" -gt "$last" ]; then last=$c; stamp tlast; fi
	states=$(awk '{ f = "plain"; for (i = 4; i <= NF; i++) if ($i ~ /^\[[A-Z]+\]$/) f = $i; c[f]++ } END { for (f in c) printf "%s%s:%d", (n++ ? "," : ""), f, c[f] }' "$D/list")
	emit "opt n=$n ok=$ok optimized=$last ns=$(( tlast - t0 )) states=$states"
	# The probes and the functions they were asked on, for the report
	# to compare what each kernel optimized (the kernels' candidate
	# lists differ a little, so the picks may too).
	cp syms.n "/mnt/out/picked-n$n.txt" 2> /dev/null || true
	cp "$D/list" "/mnt/out/kprobes-list-n$n.txt" 2> /dev/null || true
	sync; sleep 1
	read -r slab1 vm1 <<< "$(meminfo)"
	emit "mem n=$n ok=$ok slab_kb=$((slab1 - slab0)) vmalloc_kb=$((vm1 - vm0)) bytes_per_probe=$(( (slab1 - slab0 + vm1 - vm0) * 1024 / ok ))"
	r=$(ctl unreg)
	emit "unreg n=$n ok=$ok ns=$(kv ns "$r")"
done

# kprobe_events: define, enable all, disable all, remove all.  The
# functions are the ones register_kprobes accepted above (read back from
# the module, with the offset past ENDBR and __fentry__).
cat "$S" > syms.ok
[ -s syms.ok ] || { cat syms.all > "$S"; cat "$S" > syms.ok; }
part events || EVN=
for opt in 1 0; do
	echo "$opt" > "$OPT"
	for n in $(plan "$EVN"); do
		head -n "$n" syms.ok | awk '{ printf "p:kpbev/e%d %s+%d\n", NR, $1, $2 }' > events.txt
		m=$(wc -l < events.txt)
		echo > "$T/kprobe_events"
		stamp t0; cat events.txt >> "$T/kprobe_events" 2> err.txt; stamp t1
		defined=$(grep -c '^p:kpbev/' "$T/kprobe_events")
		stamp t2; echo 1 > "$T/events/kpbev/enable"; stamp t3
		[ "$opt" = 0 ] || sleep 2
		st=$(awk '{ f = "plain"; for (i = 4; i <= NF; i++) if ($i ~ /^\[[A-Z]+\]$/) f = $i; c[f]++ } END { for (f in c) printf "%s%s:%d", (n++ ? "," : ""), f, c[f] }' "$D/list")
		stamp t4; echo 0 > "$T/events/kpbev/enable"; stamp t5
		stamp t6; echo > "$T/kprobe_events"; stamp t7
		emit "events n=$n opt=$opt asked=$m defined=$defined define_ns=$((t1 - t0)) enable_ns=$((t3 - t2)) disable_ns=$((t5 - t4)) remove_ns=$((t7 - t6)) states=$st err=$(head -c 80 err.txt | tr ' \n' '__')"
	done
done
# Where the time of "remove all" goes: the first size's removal once more
# (opt on), with the generic event code it calls timed by kp_bench (a
# kretprobe on each function): the removal of the event call and the reset
# of the buffers.  What is left of the total is the kprobe layers' share.
if [ -n "$EVN" ]; then
	n=${EVN%%,*}
	echo 1 > "$OPT"
	head -n "$n" syms.ok | awk '{ printf "p:kpbev/e%d %s+%d\n", NR, $1, $2 }' > events.txt
	echo > "$T/kprobe_events"
	cat events.txt >> "$T/kprobe_events" 2> /dev/null
	echo 1 > "$T/events/kpbev/enable"
	sleep 2
	# The same for "disable all": the kprobe layers are the event class's
	# ->reg callback (upstream's kprobe_register, our kpev_reg) and our
	# batch at the return to user space; the rest is generic.
	ds=ok
	ctl time kpev_reg > /dev/null 2>&1 || ctl time kprobe_register > /dev/null || ds=time_reg
	ctl time kpev_disable_task_work > /dev/null 2>&1
	stamp t0; echo 0 > "$T/events/kpbev/enable"; stamp t1
	r=$(ctl timed)
	ctl untime > /dev/null
	reg=$(kv kpev_reg_ns "$r"); reg=${reg:-$(kv kprobe_register_ns "$r")}
	calls=$(kv kpev_reg_calls "$r"); calls=${calls:-$(kv kprobe_register_calls "$r")}
	fl=$(kv kpev_disable_task_work_ns "$r")
	ours=$(( ${reg:-0} + ${fl:-0} ))
	emit "dsplit n=$n total_ns=$((t1 - t0)) reg_ns=${reg:-0} reg_calls=${calls:-0} flush_ns=${fl:-0} ours_ns=$ours generic_ns=$((t1 - t0 - ours)) status=$ds"
	split=ok
	for fn in trace_remove_event_call tracing_reset_all_online_cpus; do
		ctl time "$fn" > /dev/null || split="time_$fn"
	done
	stamp t0; echo > "$T/kprobe_events"; stamp t1
	r=$(ctl timed)
	ctl untime > /dev/null
	ev=$(kv trace_remove_event_call_ns "$r")
	rs=$(kv tracing_reset_all_online_cpus_ns "$r")
	emit "split n=$n total_ns=$((t1 - t0)) event_call_ns=${ev:-0} event_calls=$(kv trace_remove_event_call_calls "$r") reset_ns=${rs:-0} resets=$(kv tracing_reset_all_online_cpus_calls "$r") ours_ns=$((t1 - t0 - ${ev:-0} - ${rs:-0})) status=$split"
	# "perf probe -d" deletes one event per write on one open
	# kprobe_events: the same events, enabled and disabled first, removed
	# that way, timed up to the close.
	cat events.txt >> "$T/kprobe_events" 2> /dev/null
	echo 1 > "$T/events/kpbev/enable"
	echo 0 > "$T/events/kpbev/enable"
	m=$(grep -c '^p:kpbev/' "$T/kprobe_events")
	# Generic code resets the buffers once per write that deletes: timed.
	split=ok
	for fn in trace_remove_event_call tracing_reset_all_online_cpus; do
		ctl time "$fn" > /dev/null || split="time_$fn"
	done
	stamp t0
	exec 3>> "$T/kprobe_events"
	for i in $(seq 1 "$n"); do echo "-:kpbev/e$i" >&3; done
	exec 3>&-
	stamp t1
	r=$(ctl timed)
	ctl untime > /dev/null
	ev=$(kv trace_remove_event_call_ns "$r")
	rs=$(kv tracing_reset_all_online_cpus_ns "$r")
	left=$(grep -c '^p:kpbev/' "$T/kprobe_events")
	emit "pdel n=$n defined=$m left=$left ns=$((t1 - t0)) event_call_ns=${ev:-0} reset_ns=${rs:-0} resets=$(kv tracing_reset_all_online_cpus_calls "$r") ours_ns=$((t1 - t0 - ${ev:-0} - ${rs:-0})) status=$split"
fi
echo 1 > "$OPT"
rmmod kp_bench
emit "done"
