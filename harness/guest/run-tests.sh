#!/bin/bash
# Guest test runner.  Runs the suites, writes one line per test to
# $KP_OUTDIR/results.tsv:  suite <TAB> test <TAB> pass|fail|skip <TAB> detail
#
# Suites:
#   ftrace  upstream's ftracetest cases test.d/kprobe and test.d/dynevent
#           (KP_FTRACE_ALL=1: all of test.d),
#           run unmodified from the base tree, one invocation per case
#   guest   our own scripts in guest-tests/*.sh (exit 0 pass, 77 skip)
#   peer    the tools' own suites, TOOL/CASE (bpf, perf, bcc): only where
#           the host built them (KP_PEER; harness/peer.sh, the btf row)
# (kunit runs at boot; the host reads its KTAP from the console.)
#
# FILTER: all, SUITE, or SUITE:GLOB on test names (e.g. ftrace:kprobe_args*),
# or several of those separated by commas.
filter=${1:-all}
out=$KP_OUTDIR
results=$out/results.tsv
: > "$results"

wanted() {	# wanted SUITE NAME
	local f
	local IFS=,
	for f in ${filter:-all}; do
		case $f in
		all) return 0 ;;
		"$1") return 0 ;;
		# shellcheck disable=SC2254 # a glob on purpose
		"$1":*) case $2 in ${f#*:}) return 0 ;; esac ;;
		esac
	done
	return 1
}

record() {	# record SUITE NAME STATUS DETAIL
	printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >> "$results"
	printf 'KP-RESULT %s:%s %s %s\n' "$1" "$2" "$3" "$4"
}

# ftcount WHAT: ftracetest's "# of WHAT:" total in $log (0 if none).
ftcount() {
	local n
	n=$(sed -n "s/^# of $1: *\([0-9]*\)$/\1/p" "$log" | head -n 1)
	echo "${n:-0}"
}

run_ftrace() {
	local ft=$KP_SRC/tools/testing/selftests/ftrace
	local tc name log st detail bad
	mkdir -p "$out/ftrace"
	local cases=("$ft"/test.d/kprobe/*.tc "$ft"/test.d/dynevent/*.tc)
	# KP_FTRACE_ALL=1 on the command line (the ftrace-all row): every
	# directory, as the series patches the tracing core (patches/).
	[ "${KP_FTRACE_ALL:-0}" != 1 ] || cases=("$ft"/test.d/*/*.tc)
	for tc in "${cases[@]}"; do
		# Names by expansion, not basename: on the debug kernel under
		# TCG an exec over the 9p root costs seconds, and this loop
		# runs 43 times even when no case is wanted.
		name=${tc%/*}
		name=${name##*/}/${tc##*/}
		name=${name%.tc}
		wanted ftrace "$name" || continue
		log=$out/ftrace/${name//\//_}.log
		timeout 600 "$ft/ftracetest" -l "$out/ftrace/${name//\//_}.d" "$tc" > "$log" 2>&1
		detail=$(grep -o '\[[A-Z]*\]$' "$log" | sort -u | tr -d '[]' | paste -sd/)
		# A case may run more than once (an instance flag: also in an
		# instance); any failure fails it.
		bad=$(( $(ftcount failed) + $(ftcount unresolved) + $(ftcount 'undefined(test bug)') ))
		if [ "$bad" -gt 0 ]; then
			st=fail
		elif [ $(( $(ftcount passed) + $(ftcount xfailed) )) -gt 0 ]; then
			st=pass
		elif [ $(( $(ftcount unsupported) + $(ftcount untested) )) -gt 0 ]; then
			st=skip
		else
			st=fail
		fi
		[ -n "$detail" ] || detail="no result line (see ftrace/${name//\//_}.log)"
		record ftrace "$name" "$st" "$detail"
	done
}

# Each guest test's limit; the debug kernel's make check-full raises it
# (KP_TEST_TIMEOUT on the command line) for its 100,000-line fuzz.
test_timeout=${KP_TEST_TIMEOUT:-600}

# run_guest first|last: a test whose second line is "# kp: last" changes
# the machine for good (raises lockdown); it runs after everything else,
# the kmemleak scan included.
run_guest() {
	local t name log rc reason when line2
	mkdir -p "$out/guest"
	for t in "$KP_REPO"/guest-tests/*.sh; do
		# Builtins only until a test is known wanted (see run_ftrace).
		name=${t##*/}
		name=${name%.sh}
		[ "$name" != lib ] || continue
		wanted guest "$name" || continue
		when=first
		line2=
		{ read -r _; IFS= read -r line2; } < "$t" || :
		[ "$line2" != "# kp: last" ] || when=last
		[ "$when" = "$1" ] || continue
		log=$out/guest/$name.log
		(cd "$(mktemp -d)" && KP_LIB=$KP_REPO/guest-tests/lib.sh timeout "$test_timeout" bash "$t") > "$log" 2>&1
		rc=$?
		reason=$(grep -E '^(FAIL|SKIP|PASS):' "$log" | tail -n 1 | cut -c1-160)
		case $rc in
		0)	record guest "$name" pass "${reason:-ok}" ;;
		77)	record guest "$name" skip "${reason:-skipped}" ;;
		124)	record guest "$name" fail "timed out after $test_timeout s" ;;
		*)	record guest "$name" fail "${reason:-exit $rc}" ;;
		esac
	done
}

# KP_CANARY=fail|warn|leak proves the harness catches failures: 'fail'
# records a test whose assertion cannot hold, 'warn' fires a WARN_ON in a
# module, 'leak' loses an object allocated in a kprobe handler (the debug
# kernel's kmemleak row must fail).
run_canary() {
	case $KP_CANARY in
	fail)
		if grep -q 'a line that is not there' /proc/version; then
			record canary assertion pass "impossible line found?"
		else
			record canary assertion fail "deliberate: grep for a line that is not there"
		fi ;;
	warn)
		modprobe kp_canary warn=1
		record canary warn pass "kp_canary loaded with warn=1 (the console check must fail)" ;;
	leak)
		modprobe kp_canary leak=1
		record canary leak pass "kp_canary loaded with leak=1 (the kmemleak row must fail)" ;;
	esac
}

# On a kernel with kmemleak (the debug kernel), a scan after everything
# else: the host keeps the objects whose allocation went through our code.
# Objects younger than kmemleak's minimum age (5 s) are never reported.
run_kmemleak() {
	local k=/sys/kernel/debug/kmemleak
	[ -w "$k" ] || return 0
	sleep 6
	echo scan > "$k"
	echo scan > "$k"
	cat "$k" > "$out/kmemleak.txt"
}

# shellcheck source=harness/guest/peer.sh
. "$KP_REPO/harness/guest/peer.sh"

echo "KP-TESTS-BEGIN $(uname -r)"
run_canary
case $filter in kunit|kunit:*) ;; *)
	run_ftrace
	run_guest first
	run_peer
	;;
esac
run_kmemleak
case $filter in kunit|kunit:*) ;; *) run_guest last ;; esac
echo "KP-TESTS-END"
