#!/bin/bash
# bpftrace (Debian's package on the host) the way its users run it:
#  1. kprobe:vfs_*,kprobe:__x64_sys_* - hundreds of functions: attached and
#     detached timed,
#     all of them in kprobes/list while attached (bpftrace makes one perf
#     kprobe per function, through our PMU path), and for dd's reads and
#     writes of 1 byte the counts match the calls dd makes;
#  2. kprobe:/kretprobe: on a module function with a known result
#     (kp_tool_target(N) returns 2N+1): arg0 and retval, per value, exact;
#     arg2 of vfs_read (its count) for dd's reads;
#  3. printf from a probe: the lines printed plus the events bpftrace
#     reports lost add up to the calls made.
# After each run no probe is left in kprobes/list or kprobe_events.
# shellcheck source=guest-tests/lib.sh
. "$KP_LIB"
command -v bpftrace > /dev/null || fail "bpftrace is not installed (harness/deps.sh installs it)"
ver=$(bpftrace --version 2>&1 | head -n 1)
cleanup() { reset_tracing; rmmod kp_tool_target 2> /dev/null; }
trap cleanup EXIT
reset_tracing
modprobe kp_tool_target || fail "cannot load kp_tool_target"
call=/sys/module/kp_tool_target/parameters/call
base=$(wc -l < "$D/list")
now() { date +%s%N; }

# left WHAT: nothing of bpftrace's probes is left.
left() {
	[ "$(wc -l < "$D/list")" = "$base" ] ||
		{ grep -v ' kprobe_multi' "$D/list" | head; fail "$1: probes left in kprobes/list"; }
	grep -q . "$T/kprobe_events" && { cat "$T/kprobe_events"; fail "$1: kprobe_events entries left"; }
	return 0
}
# val FILE MAP KEY: the count bpftrace printed for @MAP[KEY]
val() { sed -n "s/^@$2\[$3\]: \([0-9]*\)$/\1/p" "$1"; }

# 1. kprobe:vfs_*,kprobe:__x64_sys_*  (the scripts run by sh: the test's
# folder is noexec).  A clang kernel has more of them than bpftrace's
# default limit of 512 probes and programs (519 on the clang row).
cat > inner.sh <<INNER
date +%s%N > t1
grep -Ec ' (vfs_|__x64_sys_)' $D/list > attached
/usr/bin/dd if=/dev/zero of=/dev/null bs=1 count=1000 2> /dev/null
date +%s%N > t2
INNER
# Each probe costs bpftrace a perf event and a program, two descriptors:
# 519 of them pass the usual limit of 1,024 open files.
ulimit -n 4096 2> /dev/null || ulimit -n "$(ulimit -Hn)"
t0=$(now)
BPFTRACE_MAX_PROBES=2000 BPFTRACE_MAX_BPF_PROGS=2000 timeout 900 bpftrace -e 'kprobe:vfs_*, kprobe:__x64_sys_* /comm == "dd"/ { @[probe] = count(); }' \
	-c "/bin/sh $PWD/inner.sh" > wild.out 2>&1 || { tail -n 20 wild.out; fail "bpftrace kprobe:vfs_* failed"; }
t3=$(now)
n=$(sed -n 's/^Attaching \([0-9]*\) probes.*/\1/p' wild.out)
[ -n "$n" ] && [ "$n" -ge 300 ] || { head wild.out; fail "the wildcards attached '${n}' probes, expected hundreds"; }
att=$(cat attached)
[ "$att" -ge "$n" ] || fail "bpftrace attached $n probes, kprobes/list had $att of them while it ran"
rd=$(val wild.out '' 'kprobe:vfs_read')
wr=$(val wild.out '' 'kprobe:vfs_write')
sr=$(val wild.out '' 'kprobe:__x64_sys_read')
[ -n "$rd" ] && [ "$rd" -ge 1000 ] && [ "$rd" -le 1100 ] || fail "kprobe:vfs_read counted '$rd' for dd's 1000 reads"
[ -n "$wr" ] && [ "$wr" -ge 1000 ] && [ "$wr" -le 1100 ] || fail "kprobe:vfs_write counted '$wr' for dd's 1000 writes"
[ -n "$sr" ] && [ "$sr" -ge 1000 ] && [ "$sr" -le "$rd" ] || fail "kprobe:__x64_sys_read counted '$sr' for dd's 1000 read(2)s (vfs_read: $rd)"
attach_ms=$(( ($(cat t1) - t0) / 1000000 ))
detach_ms=$(( (t3 - $(cat t2)) / 1000000 ))
left "kprobe:vfs_*,kprobe:__x64_sys_*"
echo "kprobe:vfs_*,kprobe:__x64_sys_*: $n probes, attach ${attach_ms} ms, detach and exit ${detach_ms} ms; vfs_read $rd, vfs_write $wr, __x64_sys_read $sr"

# 2. arg0/retval on a module function, arg2 of vfs_read
cat > calls.sh <<INNER
for n in 1 2 2 7 -3; do echo \$n > $call; done
/usr/bin/dd if=/dev/zero of=/dev/null bs=1 count=300 2> /dev/null
INNER
timeout 600 bpftrace -e 'kprobe:kp_tool_target { @arg[arg0] = count(); @fn[func] = count(); }
	kretprobe:kp_tool_target { @ret[retval] = count(); }
	kprobe:vfs_read /comm == "dd"/ { @len[arg2] = count(); }' \
	-c "/bin/sh $PWD/calls.sh" > args.out 2>&1 || { tail -n 20 args.out; fail "bpftrace on kp_tool_target failed"; }
grep '^@' args.out
for kv in 1:1 2:2 7:1 -3:1; do
	[ "$(val args.out arg "${kv%:*}")" = "${kv#*:}" ] || fail "@arg[${kv%:*}] is '$(val args.out arg "${kv%:*}")', expected ${kv#*:}"
done
for kv in 3:1 5:2 15:1 -5:1; do
	[ "$(val args.out ret "${kv%:*}")" = "${kv#*:}" ] || fail "@ret[${kv%:*}] is '$(val args.out ret "${kv%:*}")', expected ${kv#*:}"
done
# func is bpf_get_func_ip(): 0, printed as such, unless the probe says
# it sits on the function's entry.
[ "$(val args.out fn kp_tool_target)" = 5 ] || fail "@fn[kp_tool_target] (bpf_get_func_ip) is '$(val args.out fn kp_tool_target)', expected 5: $(grep '^@fn' args.out)"
[ "$(val args.out len 1)" = 300 ] || fail "@len[1] (vfs_read's count for dd bs=1) is '$(val args.out len 1)', expected 300"
left "kprobe/kretprobe:kp_tool_target"

# 3. printf: lines printed + events reported lost = calls
cat > many.sh <<INNER
i=0
while [ \$i -lt 500 ]; do echo \$i > $call; i=\$((i + 1)); done
INNER
timeout 600 bpftrace -e 'kprobe:kp_tool_target { printf("kpt %d\n", arg0); }' \
	-c "/bin/sh $PWD/many.sh" > print.out 2>&1 || { tail -n 20 print.out; fail "bpftrace printf run failed"; }
lines=$(grep -c '^kpt [0-9]*$' print.out)
lost=$(sed -n 's/.*Lost \([0-9]*\) events.*/\1/p' print.out | awk '{ s += $1 } END { print s + 0 }')
[ $((lines + lost)) = 500 ] || fail "printf: $lines lines + $lost reported lost, expected 500 calls"
[ "$(grep -c '^kpt 499$' print.out)" -le 1 ] || fail "printf: a line printed twice"
left "printf"
pass "$ver: kprobe:vfs_*,kprobe:__x64_sys_* $n probes (attach $attach_ms ms, detach $detach_ms ms), counts match dd's 1000 reads/writes/read(2)s; arg0/retval/func of kp_tool_target exact, vfs_read arg2 300x1; printf $lines lines + $lost lost = 500"
