#!/usr/bin/env bash
# The config matrix: our kernel must build in every configuration the rest
# of the kernel may use our headers in, not only in the test config.  Each
# variant in harness/config/matrix/NAME.config goes on top of the test
# fragment and is built (no boot, no link) in out/ours-NAME, one result row
# per variant.  Only the objects that include <linux/kprobes.h> or
# <asm/kprobes.h> are compiled, about 60 of the 650 in the directories
# that hold them: a variant's config change recompiles all it builds, and
# compiling whole directories took 6 to 10 minutes a variant on a cold
# cache.  The list is what the main build's dependency files say includes
# our headers (out/<mode>; the directories instead when there is no main
# build yet), plus the variant's own "# also:" line (files the main config
# does not build, e.g. the i386 halves), less what the variant's config
# does not build (make -n names what it builds).
# The cross rows (every other kprobes architecture) follow; see cross.sh.
# Usage: matrix.sh OUTFILE [GLOB]
. "$(dirname "$0")/lib.sh"
KP_STEP=matrix
out=$1
glob=${2:-*}
dirs=${KP_MATRIX_DIRS:-arch/x86/ kernel/ init/ lib/ mm/ samples/}
: > "$out"
row() { printf 'matrix\t%s\t%s\t%s\n' "$1" "$2" "$3" >> "$out"; }

# Objects of the main build that include our headers (their .cmd files
# list every header they read), in the directories above.
main=$KPROBES_CACHE/out/$KP_MODE
users=""
if [ -f "$main/vmlinux" ]; then
	# shellcheck disable=SC2086 # a list of directories
	users=$(cd "$main" && find $dirs -name '.*.o.cmd' -exec \
		grep -lE '/include/(linux|asm)/kprobes[.]h' {} + 2> /dev/null |
		sed 's:/[.]\([^/]*\)[.]cmd$:/\1:' | sort -u | tr '\n' ' ')
fi

for frag in "$KP_REPO"/harness/config/matrix/*.config; do
	name=$(basename "$frag" .config)
	# shellcheck disable=SC2254 # GLOB is a pattern on purpose
	case $name in $glob) ;; *) continue ;; esac
	# "# full: only" variants run in make check-full, or when named.
	if [ "$glob" = '*' ] && [ "${KP_FULL:-0}" != 1 ] && grep -q '^# full: only' "$frag"; then
		continue
	fi
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
	also=$(sed -n 's/^# also: *//p' "$frag")
	rc=0
	(
		KP_VARIANT=$name
		. "$KP_REPO/harness/lib.sh"
		log=$KP_OUT/build.log
		# shellcheck disable=SC2086 # lists of objects
		if [ -n "$users" ]; then
			kp_say "building variant $name in $KP_OUT (the users of our headers)"
			kp_make prepare > "$log" 2>&1
			# A compiler flag no object was built with makes make -n name
			# every object the config builds (-W would not reach kbuild's
			# sub-makes); nothing is written.
			kp_make -n KCFLAGS=-DKP_MATRIX_LIST $dirs 2>> "$log" |
				grep -oE -- '-c -o [^ ]+[.]o' | awk '{ print $3 }' |
				sort -u > "$KP_OUT/.kp-built-here"
			objs=$(printf '%s\n' $users $also | sort -u | comm -12 - "$KP_OUT/.kp-built-here")
			echo "$objs" | wc -w > "$KP_OUT/.kp-nobjs"
			[ -n "$objs" ] || { echo "error: no user of our headers in this config" >> "$log"; exit 1; }
			kp_make $objs >> "$log" 2>&1
		else
			kp_say "building variant $name in $KP_OUT ($dirs)"
			{ kp_make prepare && kp_make $dirs; } > "$log" 2>&1
		fi
	) || rc=$?
	log=$KPROBES_CACHE/out/ours-$name/build.log
	what=$dirs
	[ -z "$users" ] || what="$(cat "$KPROBES_CACHE/out/ours-$name/.kp-nobjs" 2>/dev/null) objects"
	warn=$(grep -E '(warning|error):' "$log" | grep -v '^make' || true)
	if [ "$rc" != 0 ]; then
		row "$name" fail "build failed: $(grep -m1 -E 'error:|Error' "$log" | cut -c1-100)"
	elif [ -n "$warn" ]; then
		row "$name" fail "$(echo "$warn" | wc -l) warnings: $(echo "$warn" | head -n 1 | cut -c1-100)"
	else
		row "$name" pass "$what built in $(( $(date +%s) - start )) s"
	fi
done

# The other kprobes architectures (harness/config/cross/), in both modes.
"$KP_REPO/harness/cross.sh" "$out" "$glob"
