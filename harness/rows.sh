#!/usr/bin/env bash
# The booted configuration rows: kernels users run that the test kernel is
# not (clang with kCFI, full and RT preemption, KCSAN, BTF with fprobe
# events).  Each harness/config/rows/NAME.config goes on top of the test
# fragment, is built in out/<mode>-NAME and booted like the test kernel,
# into RUN/row-NAME; report.py names its rows "NAME-SUITE".  Its header
# lines say how:
#   # make: LLVM=-19        the toolchain (lib.sh's kp_make)
#   # deps: PKG...          Debian packages the row needs (installed here)
#   # build: none           no kernel of its own: the test kernel, booted
#                           with the row's command line
#   # cmdline: ARGS         more kernel command line
#   # cmdline-full: ARGS    the same in make check-full or the row alone
#   # cpu: MODEL            QEMU's CPU model (default max)
#   # tests: FILTER         what the guest runs (run-tests.sh's filter)
#   # timeout: SECONDS      the whole guest's limit (boot.sh's KP_TIMEOUT)
#   # tests-full: FILTER    the same in make check-full
#   # expect: ERE           the boot console must match it (what shows
#                           the configuration took: "Dynamic Preempt: full");
#                           one line each
#   # kcsan: ours           KCSAN reports are counted, not console failures;
#                           one that names our functions fails the row
#   # full: only            only in make check-full or when named
#   # peer: yes             the peer suites (harness/peer.sh) are built
#                           for this row's kernel when its tests name
#                           them ("peer" or "peer:TOOL")
# One row per configuration in RUN/rows.tsv: the build (with its time), and
# for KCSAN the reports.  Both modes run every row (BASELINE=1: the base
# kernel in the same configuration), so a failure can be told apart from
# the base kernel's own.
# KP_ROW_TESTS=FILTER replaces the row's tests (check.sh's T=peer:TOOL);
# KP_ROWS_DEPS_ONLY=1 installs the rows' packages and does nothing else.
# Usage: rows.sh RUN [GLOB]
. "$(dirname "$0")/lib.sh"
KP_STEP=rows
run=$1
glob=${2:-*}
row() { printf 'row\t%s\t%s\t%s\n' "$1" "$2" "$3" >> "$run/rows.tsv"; }
header() { sed -n "s/^# $1: *//p" "$2" | head -n 1; }

for frag in "$KP_REPO"/harness/config/rows/*.config; do
	name=$(basename "$frag" .config)
	# shellcheck disable=SC2254 # GLOB is a pattern on purpose
	case $name in $glob) ;; *) continue ;; esac
	full=${KP_FULL:-0}
	if [ "$glob" = '*' ] && [ "$full" != 1 ] && grep -q '^# full: only' "$frag"; then
		continue
	fi
	[ "$glob" = '*' ] || full=1
	deps=$(header deps "$frag")
	missing=()
	for p in $deps; do
		dpkg-query -W -f='${Status}\n' "$p" 2> /dev/null | grep -q 'ok installed' || missing+=("$p")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		kp_say "$name: installing ${missing[*]}"
		if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
			"${missing[@]}" > "$run/row-$name-deps.log" 2>&1; then
			row "$name" fail "could not install ${missing[*]} (see $run/row-$name-deps.log)"
			continue
		fi
	fi
	[ "${KP_ROWS_DEPS_ONLY:-0}" != 1 ] || continue
	tests=$(header tests "$frag")
	[ "$full" != 1 ] || [ -z "$(header tests-full "$frag")" ] || tests=$(header tests-full "$frag")
	tests=${KP_ROW_TESTS:-$tests}
	cmdline=$(header cmdline "$frag")
	[ "$full" != 1 ] || [ -z "$(header cmdline-full "$frag")" ] || cmdline=$(header cmdline-full "$frag")
	if ! grep -q '^# build: none' "$frag"; then
		start=$(date +%s)
		if ! KP_ROW=$name "$KP_REPO/harness/config.sh" > "$run/row-$name-build.log" 2>&1 ||
		   ! KP_ROW=$name "$KP_REPO/harness/build.sh" >> "$run/row-$name-build.log" 2>&1; then
			row "$name" fail "build: $(grep -m1 -E 'error|not set as asked|still set' \
				"$run/row-$name-build.log" | cut -c1-100) (see $run/row-$name-build.log)"
			continue
		fi
		row "$name" pass "built in $(( $(date +%s) - start )) s ($(grep -o 'nothing to do' \
			"$run/row-$name-build.log" || echo "$(cat "$KPROBES_CACHE/out/$KP_MODE-$name/.kp-objcount" \
			2> /dev/null || echo '?') objects on its last cold build"))"
	fi
	mkdir -p "$run/row-$name"
	peer_cmdline=
	if [ "$(header peer "$frag")" = yes ]; then
		# The tools the tests name: "all" or "peer" is every one, and
		# "peer:GLOB" those it matches (the guest reads it the same way).
		peer_tools=
		IFS=, read -r -a filters <<< "${tests:-all}"
		for t in bpf perf bcc; do
			for f in "${filters[@]}"; do
				# shellcheck disable=SC2254 # a glob on purpose
				case $f in all|peer) ;; peer:*) case $t in ${f#peer:}) ;; *) continue ;; esac ;; *) continue ;; esac
				peer_tools+=" $t"
				break
			done
		done
		if [ -n "$peer_tools" ]; then
			start=$(date +%s)
			# shellcheck disable=SC2086 # a list of tools
			if KP_ROW=$name "$KP_REPO/harness/peer.sh" build $peer_tools > "$run/row-$name-peer.log" 2>&1; then
				row "$name-peer" pass "built$peer_tools in $(( $(date +%s) - start )) s"
			else
				row "$name-peer" fail "$(grep 'error' "$run/row-$name-peer.log" | cut -c1-100 | paste -sd';') (see $run/row-$name-peer.log)"
			fi
			# The guest runs what built; a tool that did not fails there too.
			ready=$(sed -n 's/^\[peer\] peer suites ready: //p' "$run/row-$name-peer.log")
			[ "${ready:-none}" = none ] || peer_cmdline="KP_PEER=$KPROBES_CACHE/peer"
		fi
	fi
	KP_QEMU_CPU=$(header cpu "$frag")
	KP_TIMEOUT=$(header timeout "$frag")
	KP_TIMEOUT=${KP_TIMEOUT:-2400} \
	KP_QEMU_CPU=${KP_QEMU_CPU:-max} KP_ROW=$name KP_RUN_DIR=$run/row-$name KP_CMDLINE="$cmdline $peer_cmdline ${KP_CMDLINE:-}" \
		"$KP_REPO/harness/boot.sh" test "${tests:-all}" || true
	sed -n 's/^# expect: *//p' "$frag" | while IFS= read -r expect; do
		if grep -qaE -- "$expect" "$run/row-$name/console.log" 2> /dev/null; then
			row "$name" pass "the console shows /$expect/"
		else
			row "$name" fail "the console never shows /$expect/: not the configuration asked for"
		fi
	done
	if [ "$(header kcsan "$frag")" = ours ]; then
		"$KP_REPO/harness/kcsan.sh" "$run/row-$name" "$KPROBES_CACHE/out/$KP_MODE-$name" |
			while IFS=$'\t' read -r st detail; do row "$name-kcsan" "$st" "$detail"; done
	fi
done
