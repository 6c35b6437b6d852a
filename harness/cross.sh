#!/usr/bin/env bash
# Cross rows of the config matrix: our generic files must build for every
# other kprobes architecture, against that arch's own, unmodified backend.
# Each harness/config/cross/NAME.config names its arch, compiler prefix
# and what to build, in header lines:
#   # arch: ARCH        # cross: PREFIX-
#   # build: kernel TARGET ...        (a whole kernel: vmlinux, then these)
#   # build: objects PATH.o DIR/ ...  (our objects, the samples, and these)
#   # check: objects ...   what make check builds instead (all rows, no
#                          KP_CROSS_FULL), when a whole kernel is worth its
#                          time only in make check-full or the row alone
# and is applied, with common.config, on top of the arch's tinyconfig, in
# out/<mode>-cross-NAME.  With BASELINE=1 the pristine tree builds the same
# rows, so a failure can be told apart from the arch's own.  A warning or
# error in our files or in the listed arch files fails the row.
# KP_CROSS_FULL=1 (make check-full) adds harness/config/cross-full/: the
# remaining architectures Debian has a cross compiler for.  KP_CROSS_OUT
# replaces out/<mode> in the build directories (series-check's own tree).
# Usage: cross.sh OUTFILE [GLOB]
. "$(dirname "$0")/lib.sh"
KP_STEP=cross
out=$1
glob=${2:-*}
row() { printf 'matrix\t%s\t%s\t%s\n' "$1" "$2" "$3" >> "$out"; }

dir=$KP_REPO/harness/config/cross
tree=$(kp_tree)
ours=$(kp_owned | sed 's:/$::; s:^!::')
hdr() { sed -n "s/^# $1: *//p" "$2" | head -n 1; }

frags=("$dir"/*.config)
[ "${KP_CROSS_FULL:-0}" != 1 ] || frags+=("$KP_REPO"/harness/config/cross-full/*.config)
for frag in "${frags[@]}"; do
	name=$(basename "$frag" .config)
	[ "$name" != common ] || continue
	# shellcheck disable=SC2254 # GLOB is a pattern on purpose
	case $name in $glob) ;; *) continue ;; esac
	arch=$(hdr arch "$frag")
	cross=$(hdr cross "$frag")
	build=$(hdr build "$frag")
	if [ "${KP_CROSS_FULL:-0}" != 1 ] && [ "$glob" = '*' ] && [ -n "$(hdr check "$frag")" ]; then
		build=$(hdr check "$frag")
	fi
	if ! command -v "${cross}gcc" > /dev/null; then
		row "$name" fail "no ${cross}gcc (make deps installs it)"
		continue
	fi
	o=${KP_CROSS_OUT:-$KPROBES_CACHE/out/$KP_MODE}-cross-$name
	mkdir -p "$o"
	xmake() {
		flock "$KPROBES_CACHE/build.lock" make -C "$tree" O="$o" ARCH="$arch" \
			CROSS_COMPILE="$cross" CC="ccache ${cross}gcc" \
			HOSTCC="ccache gcc" LOCALVERSION= -j"$(nproc)" "$@"
	}
	start=$(date +%s)
	want=$o/.kp-allconfig
	{
		grep -hv -e OPTIMIZE_FOR_SIZE -e KERNEL_XZ -e SLUB_TINY \
			"$tree/kernel/configs/tiny-base.config"
		cat "$dir/common.config" "$frag"
	} > "$want.new"
	if ! [ -f "$o/.config" ] || ! cmp -s "$want.new" "$want"; then
		if ! xmake -s KCONFIG_ALLCONFIG="$want.new" allnoconfig > "$o/config.log" 2>&1; then
			row "$name" fail "configure: $(grep -m1 -i error "$o/config.log" | cut -c1-100)"
			continue
		fi
		mv "$want.new" "$want"
	else
		rm -f "$want.new"
	fi
	bad=$(grep -h '^CONFIG_.*=' "$dir/common.config" "$frag" | while read -r l; do
		grep -qxF "$l" "$o/.config" || echo "${l%%=*}"; done | sort -u | tr '\n' ' ')
	# Only the arch's own lines must hold; common ones it lacks are named.
	need=$(grep -h '^CONFIG_.*=' "$frag" | while read -r l; do
		grep -qxF "$l" "$o/.config" || echo "${l%%=*}"; done | tr '\n' ' ')
	if [ -n "$need" ]; then
		row "$name" fail "Kconfig refused: $need"
		continue
	fi
	set -- $build
	mode=$1; shift
	rc=0
	if [ "$mode" = kernel ]; then
		xmake vmlinux "$@" > "$o/build.log" 2>&1 || rc=$?
		what="vmlinux $*"
		set --
	else
		files="kernel/kprobes/ kernel/trace/trace_kprobe.o lib/test_kprobes/"
		files="$files samples/kprobes/kprobe_example.o samples/kprobes/kretprobe_example.o $*"
		{ xmake prepare && xmake $files; } > "$o/build.log" 2>&1 || rc=$?
		what="$(echo "$files" | wc -w) targets"
	fi
	# Warnings that point into our files, or into the arch's kprobes files.
	pat=$(printf '%s\n' $ours $* "arch/$arch/kernel/probes" "arch/$arch/kernel/kprobes" \
		"arch/$arch/probes" | sed 's:[.]o$:.c:; s:/$::' | sort -u | paste -sd'|')
	warn=$(grep -E '(warning|error):' "$o/build.log" | grep -E "$pat" || true)
	other=$(grep -cE '(warning|error):' "$o/build.log" || true)
	secs=$(( $(date +%s) - start ))
	if [ "$rc" != 0 ]; then
		row "$name" fail "build failed ($arch): $(grep -m1 -E 'error:|Error' "$o/build.log" | sed "s:$tree/::" | cut -c1-110)"
	elif [ -n "$warn" ]; then
		row "$name" fail "$(echo "$warn" | wc -l) warnings: $(echo "$warn" | head -n 1 | sed "s:$tree/::" | cut -c1-100)"
	else
		row "$name" pass "$arch: $what built in $secs s${bad:+ (not offered: $bad)}, $other warnings elsewhere"
	fi
done
