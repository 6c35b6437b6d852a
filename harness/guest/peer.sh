#!/bin/bash
# The peer suites' guest half (harness/peer.sh builds them on the host).
# Sourced by run-tests.sh, which defines record and wanted; each tool
# records one row per case, "peer TOOL/CASE", with the case's own verdict.
# KP_PEER (the kernel command line) is where the host built them.
# Usage (from run-tests.sh): run_peer
# shellcheck disable=SC2154 # out, record and wanted are run-tests.sh's

peer=${KP_PEER:-}
# The kernel's mode, as lib.sh names its release (-kpbase-btf, -kpours-btf).
case $(uname -r) in *-kpbase*) peer_mode=base ;; *) peer_mode=ours ;; esac

# test_progs holds the tests of harness/peer-bpf-tests (their files; one
# file may hold more than one test); those only built are denied.
peer_bpf_deny=$(sed -n 's/ build-only$//p' "$KP_REPO/harness/peer-bpf-tests" | paste -sd,)

peer_missing() {	# peer_missing TOOL WHAT
	record peer "$1/setup" fail "$2"
}

run_peer_bpf() {
	local st=$peer/src/tools/testing/selftests/bpf w f rc log=$out/peer/bpf.log
	[ -x "$st/test_progs" ] || { peer_missing bpf "no test_progs in $st (harness/peer.sh build)"; return; }
	# test_progs runs from its own directory (it loads bpf_testmod.ko and
	# the programs' objects from there); the modules built for this kernel.
	w=$(mktemp -d /tmp/test_progs.XXXX)
	for f in "$st"/*; do ln -s "$f" "$w/"; done
	rm -f "$w"/*.ko
	cp "$peer/bpf-mods-$peer_mode"/*.ko "$w/" ||
		{ peer_missing bpf "no test modules for the $peer_mode kernel"; return; }
	mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf
	(cd "$w" && timeout 1800 ./test_progs -b "$peer_bpf_deny") > "$log" 2>&1
	rc=$?
	if [ "$rc" = 124 ]; then
		record peer bpf/test_progs fail "timed out after 1800 s (see peer/bpf.log)"
	elif ! grep -q '^Summary:' "$log"; then
		record peer bpf/test_progs fail "exit $rc without its summary (see peer/bpf.log)"
	fi
	# "#12/3    attach_probe/uprobe-ref_ctr:OK": a subtest; "#12 attach_probe:OK"
	# a whole test, recorded only when it has no subtests.
	python3 - "$log" <<'EOF' | while IFS=$'\t' read -r name st detail; do record peer "bpf/$name" "$st" "$detail"; done
import re, sys
subtests, tests, with_subtests, failing = [], [], set(), set()
for line in open(sys.argv[1], errors="replace"):
    # After its summary test_progs prints each failure's log again.
    if line.startswith("All error logs:"):
        break
    m = re.match(r"#\d+(/\d+)?\s+(\S+?):(OK|SKIP|FAIL)\b", line)
    if not m:
        continue
    name, res = m.group(2), m.group(3)
    if m.group(1):
        subtests.append((name, res))
        with_subtests.add(name.split("/")[0])
        if res == "FAIL":
            failing.add(name.split("/")[0])
    else:
        tests.append((name, res))
# A test with subtests is its subtests, unless it failed outside them.
rows = subtests + [(n, r) for n, r in tests
                   if n not in with_subtests or (r == "FAIL" and n not in failing)]
if not rows:
    rows = [("test_progs", "no result line (see peer/bpf.log)")]
for name, res in rows:
    st = {"OK": "pass", "SKIP": "skip", "FAIL": "fail"}.get(res, "fail")
    print("%s\t%s\ttest_progs: %s" % (name, st, res))
EOF
}

# perf's own probe cases, through 'perf test' as perf's CI runs them, with
# perf from the base tree (its shell tests call the perf in PATH).
peer_perf_tests=("Add vfs_getname probe" "Use vfs_getname probe"
	"perf trace + vfs_getname" "probe libc's inet_pton"
	"perf probe of function from different CU")

run_peer_perf() {
	local pdir=$peer/perf t log=$out/peer/perf.log line res name
	[ -x "$pdir/perf" ] || { peer_missing perf "no perf in $pdir (harness/peer.sh build)"; return; }
	: > "$log"
	for t in "${peer_perf_tests[@]}"; do
		line=$(cd "$peer/src/tools/perf" && PATH=$pdir:$PATH timeout 900 \
			perf test -v "$t" 2>&1 | tee -a "$log" | grep -E '^ *[0-9]+: .*: (Ok|FAILED!|Skip)' | tail -n 1)
		res=$(sed -E 's/.*: (Ok|FAILED!|Skip).*/\1/' <<< "$line")
		name=$(tr ' ' '_' <<< "$t" | tr -cd 'A-Za-z0-9_+-')
		case $res in
		Ok) record peer "perf/$name" pass "perf test: Ok" ;;
		Skip) record peer "perf/$name" skip "perf test: ${line##*: }" ;;
		FAILED!) record peer "perf/$name" fail "perf test: FAILED! (see peer/perf.log)" ;;
		*) record peer "perf/$name" fail "perf test printed no verdict (see peer/perf.log)" ;;
		esac
	done
	peer_perf_suite "$pdir"
	peer_perf_dwarf "$pdir/perf"
}

# perf test's perftool-testsuite_probe runs base_probe/test_*.sh in turn;
# here each script is a case of its own, with a limit of its own (each
# perf probe reads the DWARF of a 130 MB vmlinux, minutes under TCG).
peer_perf_suite() {
	local pdir=$1 t name log rc checks
	for t in "$peer/src/tools/perf/tests/shell/base_probe"/test_*.sh; do
		name=$(basename "$t" .sh)
		log=$out/peer/perf-$name.log
		(cd "$(dirname "$t")" && PERFSUITE_RUN_DIR=$(mktemp -d /tmp/perfsuite.XXX) \
			PATH=$pdir:$PATH timeout 1500 "./$name.sh") > "$log" 2>&1
		rc=$?
		checks="$(grep -c -- '-- \[ PASS \] --' "$log") checks passed, $(grep -c -- '-- \[ FAIL \] --' "$log") failed"
		if [ "$rc" = 124 ]; then
			record peer "perf/perftool-testsuite_probe/$name" fail "timed out after 1500 s; $checks"
		elif [ "$rc" != 0 ]; then
			record peer "perf/perftool-testsuite_probe/$name" fail "$checks (see peer/${log##*/})"
		elif grep -q -- '## \[ SKIP \] ##' "$log"; then
			record peer "perf/perftool-testsuite_probe/$name" skip "$(grep -m1 -- '## \[ SKIP \] ##' "$log" | cut -c1-120)"
		else
			record peer "perf/perftool-testsuite_probe/$name" pass "$checks"
		fi
	done
}

# perf probe by a local variable's name and by a source line, which only
# the DWARF kernel allows, each hit by a known number of reads.
peer_perf_dwarf() {
	local perf=$1 log=$out/peer/perf-dwarf.log line n
	timeout 600 "$perf" probe -q -d 'probe:*' > /dev/null 2>&1
	# The variable's value is fetched: a filter on it keeps dd's reads.
	if timeout 600 "$perf" probe -a 'vfs_read count' >> "$log" 2>&1; then
		cat /sys/kernel/tracing/kprobe_events >> "$log"
		(cd /tmp && timeout 600 "$perf" record -q -o /tmp/peer-perf.data -e probe:vfs_read --filter 'count == 1' \
			-- dd if=/dev/zero of=/dev/null bs=1 count=500) >> "$log" 2>&1
		n=$(timeout 600 "$perf" script -i /tmp/peer-perf.data 2>> "$log" | grep -cE 'count=(0x)?1\b')
		rm -f /tmp/peer-perf.data
		if [ "$n" -ge 500 ]; then
			record peer perf/probe_by_variable pass "vfs_read count: $n samples with count 1 for 500 one-byte reads"
		else
			record peer perf/probe_by_variable fail "vfs_read count: $n samples with count 1 for 500 one-byte reads"
		fi
	else
		record peer perf/probe_by_variable fail "perf probe -a 'vfs_read count' refused (see peer/perf-dwarf.log)"
	fi
	timeout 600 "$perf" probe -q -d 'probe:*' > /dev/null 2>&1
	# The line of vfs_read's body that 'perf probe -L' numbers for its
	# call of rw_verify_area(), run by every read.
	timeout 600 "$perf" probe -L vfs_read > "$out/peer/perf-lines.log" 2>&1
	line=$(awk '/^ +[0-9]+ .*rw_verify_area\(READ/ { print $1; exit }' "$out/peer/perf-lines.log")
	if [ -n "$line" ] && timeout 600 "$perf" probe -a "vfs_read:$line" >> "$log" 2>&1; then
		n=$(timeout 600 "$perf" stat -x, -e 'probe:vfs_read*' -- dd if=/dev/zero of=/dev/null bs=1 count=500 2>&1 |
			tee -a "$log" | awk -F, '/probe:vfs_read/ { s += $1 } END { print s + 0 }')
		if [ "$n" -ge 500 ]; then
			record peer perf/probe_by_line pass "vfs_read:$line: $n hits for 500 reads"
		else
			record peer perf/probe_by_line fail "vfs_read:$line: $n hits for 500 reads"
		fi
	else
		record peer perf/probe_by_line fail "no line of vfs_read to probe (see peer/perf-dwarf.log)"
	fi
	timeout 600 "$perf" probe -q -d 'probe:*' > /dev/null 2>&1
}

# bcc_start LOG TOOL ARGS...: starts a bcc tool and waits until it has
# compiled and attached its program (it prints its header then; Python
# buffers a file's output unless told not to).  A background job of a
# script starts with SIGINT ignored, and Python then never turns Ctrl-C
# into the KeyboardInterrupt on which the tools print their tables: the
# signal is given back its default before the tool starts.
bcc_start() {
	local log=$1 _
	shift
	PYTHONUNBUFFERED=1 python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])' "$@" > "$log" 2>&1 &
	bcc_pid=$!
	for _ in $(seq 600); do
		grep -qE 'Tracing|Hit Ctrl-C|PID +TID|^\[' "$log" && return 0
		kill -0 "$bcc_pid" 2> /dev/null || return 1
		sleep 1
	done
	return 1
}

bcc_stop() {
	kill -INT "$bcc_pid" 2> /dev/null
	timeout 120 tail --pid="$bcc_pid" -f /dev/null
	kill -KILL "$bcc_pid" 2> /dev/null
	wait "$bcc_pid" 2> /dev/null
}

tool_call() {	# tool_call N...: kp_tool_target(N) once for each N
	local n
	for n; do echo "$n" > /sys/module/kp_tool_target/parameters/call; done
}

bcc_case() {	# bcc_case NAME STATUS DETAIL
	record peer "bcc/$1" "$2" "$3"
}

# bcc_run NAME SECONDS WORKLOAD TOOL ARGS...: TOOL around WORKLOAD (a
# command line), then SECONDS for its last events; its output goes to
# $bcc_log.  Fails, with the case recorded, when the tool never attached.
bcc_run() {
	local name=$1 settle=$2 work=$3
	shift 3
	bcc_log=$d/$name.log
	if ! bcc_start "$bcc_log" "$@"; then
		bcc_stop
		bcc_case "$name" fail "did not start (see peer/bcc/$name.log)"
		return 1
	fi
	eval "$work"
	sleep "$settle"
	# trace exits non-zero on Ctrl-C; its output is what is judged.
	bcc_stop || true
}

# bcc_verdict NAME STATUS PASS_DETAIL FAIL_DETAIL: STATUS 0 passes.
bcc_verdict() {
	if [ "$2" = 0 ]; then
		bcc_case "$1" pass "$3"
	else
		bcc_case "$1" fail "$4 (see peer/bcc/$1.log)"
	fi
}

run_peer_bcc() {
	local d=$out/peer/bcc bcc_log n
	mkdir -p "$d"
	command -v funccount-bpfcc > /dev/null || { peer_missing bcc "Debian's bpfcc-tools are not installed"; return; }
	modprobe kp_tool_target || { peer_missing bcc "kp_tool_target did not load"; return; }

	# funccount: a module function called 100 times, a kernel one by 300 reads.
	if bcc_run funccount_module 2 'tool_call $(seq 100)' funccount-bpfcc kp_tool_target; then
		n=$(awk '$1 == "kp_tool_target" { print $2 }' "$bcc_log")
		[ "$n" = 100 ]
		bcc_verdict funccount_module $? "kp_tool_target: 100 calls counted" \
			"kp_tool_target: ${n:-no} count for 100 calls"
	fi
	if bcc_run funccount_kernel 2 'dd if=/dev/zero of=/dev/null bs=1 count=300 2> /dev/null' \
		funccount-bpfcc vfs_read; then
		n=$(awk '$1 == "vfs_read" { print $2 }' "$bcc_log")
		[ "${n:-0}" -ge 300 ]
		bcc_verdict funccount_kernel $? "vfs_read: $n calls for 300 reads" \
			"vfs_read: ${n:-no} count for 300 reads"
	fi

	# trace: an argument at entry and the return value (2 * n + 1).
	if bcc_run trace 3 'tool_call 21 35' \
		trace-bpfcc 'kp_tool_target "n=%ld", arg1' 'r::kp_tool_target "ret=%ld", retval'; then
		grep -q 'n=21' "$bcc_log" && grep -q 'n=35' "$bcc_log" &&
			grep -q 'ret=43' "$bcc_log" && grep -q 'ret=71' "$bcc_log"
		bcc_verdict trace $? "n=21, n=35 at entry, ret=43, ret=71 at return" \
			"the arguments or return values are missing"
	fi

	# argdist: the frequency of each argument value, cumulative.
	if bcc_run argdist 5 'tool_call 7 7 7 9 9' \
		argdist-bpfcc -c -i 2 -C 'p::kp_tool_target(long n):long:n'; then
		awk '/n = 7$/ && $1 == 3 { a = 1 } /n = 9$/ && $1 == 2 { b = 1 } END { exit !(a && b) }' "$bcc_log"
		bcc_verdict argdist $? "n = 7 three times, n = 9 twice" "wrong counts"
	fi

	# stackcount: the stack names the module parameter's setter.
	if bcc_run stackcount 2 'tool_call 1 2 3 4' stackcount-bpfcc kp_tool_target; then
		grep -q 'kp_tool_call_set' "$bcc_log" && grep -qE '^ +4$' "$bcc_log"
		bcc_verdict stackcount $? "4 calls from kp_tool_call_set" \
			"no stack from kp_tool_call_set counted 4"
	fi

	# funclatency: five 50 ms sleeps land at 32 ms or more (a busy TCG
	# host may wake them late) and under a second.
	if bcc_run funclatency 2 'for n in 1 2 3 4 5; do sleep 0.05; done' \
		funclatency-bpfcc -m hrtimer_nanosleep; then
		n=$(awk '$2 == "->" && $1 >= 32 && $3 < 1024 { s += $5 } END { print s + 0 }' "$bcc_log")
		[ "$n" -ge 5 ]
		bcc_verdict funclatency $? "$n sleeps of 50 ms measured at 32-1023 ms" \
			"$n of 5 sleeps of 50 ms measured at 32-1023 ms"
	fi
	rmmod kp_tool_target 2> /dev/null
}

run_peer() {
	local t start
	[ -n "$peer" ] || return 0
	mkdir -p "$out/peer"
	for t in bpf perf bcc; do
		wanted peer "$t" || continue
		start=$(date +%s)
		"run_peer_$t"
		echo "$t $(( $(date +%s) - start ))" >> "$out/peer/seconds"
	done
}
