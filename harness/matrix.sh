#!/usr/bin/env bash
# The config matrix: our kernel must build in every configuration the rest
# of the kernel may use our headers in, not only in the test config.  Each
# variant in harness/config/matrix/NAME.config goes on top of the test
# fragment and is built (no boot, no link) in out/ours-NAME, one result row
# per variant.  Only the directories that hold users of our headers are
# compiled (KP_MATRIX_DIRS; in the test config every one of the ~60 objects
# that include <linux/kprobes.h> lies there): a variant's config change
# recompiles all it builds, and drivers/, fs/ and net/ were half of that.
# The variants share the compiler cache with the main build, so a warm
# rerun only compiles what a change touched.
# The cross rows (every other kprobes architecture) follow; see cross.sh.
# Usage: matrix.sh OUTFILE [GLOB]
. "$(dirname "$0")/lib.sh"
KP_STEP=matrix
out=$1
glob=${2:-*}
dirs=${KP_MATRIX_DIRS:-arch/x86/ kernel/ init/ lib/ mm/ samples/}
: > "$out"
row() { printf 'matrix\t%s\t%s\t%s\n' "$1" "$2" "$3" >> "$out"; }

for frag in "$KP_REPO"/harness/config/matrix/*.config; do
	name=$(basename "$frag" .config)
	# shellcheck disable=SC2254 # GLOB is a pattern on purpose
	case $name in $glob) ;; *) continue ;; esac
	if [ "$KP_MODE" = base ]; then
		row "$name" skip "baseline mode: the matrix checks our files"
		continue
	fi
	start=$(date +%s)
	if ! KP_VARIANT=$name "$KP_REPO/harness/config.sh" 2> "$KPROBES_CACHE/out/matrix-$name-config.log"; then
		row "$name" fail "configure: $(grep -m1 -e 'not set as asked' -e 'still set' -e error \
			"$KPROBES_CACHE/out/matrix-$name-config.log" | cut -c1-100)"
		continue
	fi
	rc=0
	(
		KP_VARIANT=$name
		. "$KP_REPO/harness/lib.sh"
		kp_say "building variant $name in $KP_OUT ($dirs)"
		# shellcheck disable=SC2086 # a list of directories
		{ kp_make prepare && kp_make $dirs; } > "$KP_OUT/build.log" 2>&1
	) || rc=$?
	log=$KPROBES_CACHE/out/ours-$name/build.log
	warn=$(grep -E '(warning|error):' "$log" | grep -v '^make' || true)
	if [ "$rc" != 0 ]; then
		row "$name" fail "build failed: $(grep -m1 -E 'error:|Error' "$log" | cut -c1-100)"
	elif [ -n "$warn" ]; then
		row "$name" fail "$(echo "$warn" | wc -l) warnings: $(echo "$warn" | head -n 1 | cut -c1-100)"
	else
		row "$name" pass "$dirs built in $(( $(date +%s) - start )) s"
	fi
done

# The other kprobes architectures (harness/config/cross/), in both modes.
"$KP_REPO/harness/cross.sh" "$out" "$glob"
