#!/usr/bin/env bash
# Host-side static checks of our kernel files, one result row per check, in
# the same format as the guest's results (suite, test, status, detail):
#   checkpatch  scripts/checkpatch.pl --strict on every owned source file
#   W=1         the owned .c files compiled with W=1
#   sparse      the owned .c files run through sparse (C=2)
#   series:checkpatch  the patch series (make series) made in a scratch
#               folder, checkpatch.pl --strict on every patch
#               (harness/series-checkpatch.sh)
#   docs        the owned .rst files run through docutils (harness/rstcheck.py:
#               any warning fails; Sphinx-only markup is accepted unchecked)
#   kernel-doc  scripts/kernel-doc -none -Wall on every owned .c/.h file
#               (run in the base tree); any output fails
# All check our files; with BASELINE=1 they are reported skipped.
# Usage: static.sh OUTFILE
. "$(dirname "$0")/lib.sh"
KP_STEP=static
out=$1
: > "$out"
row() { printf 'static\t%s\t%s\t%s\n' "$1" "$2" "$3" >> "$out"; }

if [ "$KP_MODE" = base ]; then
	row checkpatch skip "baseline mode: our files are not part of this kernel"
	row W=1 skip "baseline mode: our files are not part of this kernel"
	row sparse skip "baseline mode: our files are not part of this kernel"
	row series:checkpatch skip "baseline mode: our files are not part of this kernel"
	row docs skip "baseline mode: our files are not part of this kernel"
	row kernel-doc skip "baseline mode: our files are not part of this kernel"
	exit 0
fi

src=$(kp_src)
files=()
while read -r entry; do
	if [ -d "$KP_REPO/$entry" ]; then
		while read -r f; do files+=("$entry${f#./}"); done < <(cd "$KP_REPO/$entry" && find . -type f | sort)
	elif [ -f "$KP_REPO/$entry" ]; then
		files+=("$entry")
	fi
done < <(kp_owned)

if [ ${#files[@]} -eq 0 ]; then
	row checkpatch skip "no owned kernel files in the repository yet"
fi
for f in "${files[@]}"; do
	case $f in *.c|*.h|*/Makefile|*/Kconfig) ;; *) continue ;; esac
	# GIT_DIR names no repository: checkpatch would otherwise run
	# spdxcheck.py, which insists that the base tree be a git checkout.
	res=$(cd "$KP_REPO" && GIT_DIR=/nonexistent perl "$src/scripts/checkpatch.pl" --root="$src" --strict \
		--no-summary --terse --show-types -f "$f" 2>&1 || true)
	if [ -z "$res" ]; then
		row "checkpatch:$f" pass "0 errors, 0 warnings, 0 checks"
	else
		echo "$res" > "$KP_OUT/checkpatch-${f//\//_}.log" 2>/dev/null || true
		row "checkpatch:$f" fail "$(echo "$res" | wc -l) findings: $(echo "$res" | head -n 1 | cut -c1-100)"
	fi
done

# The documentation: docutils from whichever python3 has it (deps.sh installs
# python3-docutils for the system one).
docpy=
for py in python3 /usr/bin/python3; do
	if command -v "$py" >/dev/null 2>&1 && "$py" -c 'import docutils' 2>/dev/null; then
		docpy=$py
		break
	fi
done
for f in "${files[@]}"; do
	case $f in *.rst) ;; *) continue ;; esac
	if [ -z "$docpy" ]; then
		row "docs:$f" skip "no python3 with docutils (harness/deps.sh installs python3-docutils)"
		continue
	fi
	res=$(cd "$KP_REPO" && "$docpy" "$KP_REPO/harness/rstcheck.py" "$f" 2>&1) && rc=0 || rc=$?
	if [ "$rc" = 0 ]; then
		row "docs:$f" pass "docutils: no warnings"
	else
		echo "$res" > "$KP_OUT/docs-${f//\//_}.log" 2>/dev/null || true
		row "docs:$f" fail "$(echo "$res" | head -n 1 | cut -c1-120)"
	fi
done

# kernel-doc comments, checked by the base tree's script on our copies.
for f in "${files[@]}"; do
	case $f in *.c|*.h) ;; *) continue ;; esac
	res=$(cd "$src" && perl scripts/kernel-doc -none -Wall "$KP_REPO/$f" 2>&1 || true)
	if [ -z "$res" ]; then
		row "kernel-doc:$f" pass "no warnings"
	else
		echo "$res" > "$KP_OUT/kernel-doc-${f//\//_}.log" 2>/dev/null || true
		row "kernel-doc:$f" fail "$(echo "$res" | wc -l) warnings: $(echo "$res" | head -n 1 | sed "s|^$KP_REPO/||" | cut -c1-100)"
	fi
done

"$KP_REPO/harness/series-checkpatch.sh" "$out"

# compile_check LABEL MAKE-ARG: one row per owned object this config builds,
# failing on any compiler (W=1) or checker (C=2: sparse, run whether or not
# the object needs recompiling) warning.
compile_check() {
	local label=$1 arg=$2 f obj log warn
	for f in "${files[@]}"; do
		case $f in *.c) ;; *) continue ;; esac
		obj=${f%.c}.o
		[ -f "$KP_OUT/$obj" ] || { row "$label:$obj" skip "not built in this config"; continue; }
		log=$(kp_make "$arg" "$obj" 2>&1 || echo "BUILD FAILED")
		warn=$(echo "$log" | grep -E 'warning:|error:|BUILD FAILED' || true)
		if [ -z "$warn" ]; then
			row "$label:$obj" pass "no warnings"
		else
			row "$label:$obj" fail "$(echo "$warn" | wc -l) warnings: $(echo "$warn" | head -n 1 | cut -c1-100)"
		fi
	done
}
compile_check W=1 W=1
compile_check sparse C=2
