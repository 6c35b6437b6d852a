#!/usr/bin/env bash
# The checkpatch half of the series check, called by static.sh: make the
# patch series (harness/series.sh) in a scratch folder and run
# scripts/checkpatch.pl --strict on every patch but the cover letter.  One
# row per patch, series:checkpatch:NNNN-subject, appended to OUTFILE; it
# passes only with 0 errors, 0 warnings and 0 checks.  A series that cannot
# be made is one failed row, series:generate.
# Usage: series-checkpatch.sh OUTFILE
. "$(dirname "$0")/lib.sh"
KP_STEP=series-checkpatch
out=$1
row() { printf 'static\t%s\t%s\t%s\n' "$1" "$2" "$3" >> "$out"; }

# where PATCH N: line N of PATCH as FILE:LINE of the patched file, or
# "commit message".
where() {
	awk -v n="$2" '
		/^diff --git / { infile = 1 }
		/^\+\+\+ b\// { file = substr($0, 7) }
		/^@@ / { split($3, a, /[+,]/); line = a[2] - 1; inhunk = 1; if (NR == n) { print file; exit } ; next }
		NR == n {
			if (!infile) print "commit message"
			else if (inhunk && /^[+ ]/) print file ":" line + 1
			else print file
			exit
		}
		inhunk && /^[+ ]/ { line++ }
	' "$1"
}

src=$(kp_src)
mkdir -p "$KPROBES_CACHE"
dir=$(mktemp -d "$KPROBES_CACHE/series-checkpatch.XXXXXX")
trap 'rm -rf "$dir"' EXIT
if ! log=$("$KP_REPO/harness/series.sh" "$dir" 2>&1); then
	echo "$log" >&2
	row series:generate fail "$(echo "$log" | grep -m 1 'error' | cut -c1-100)"
	exit 0
fi
# covered PATCH N: checkpatch's FILE_PATH_CHANGES asks whether MAINTAINERS
# needs updating for the files PATCH adds, moves or deletes.  The answer is
# no when, in the tree after patch N (the series' own git repository),
# every file it adds or moves in lies under an F: pattern of a MAINTAINERS
# entry (not THE REST's catch-all);
# a removed file needs no maintainer.  Prints the patterns, or nothing.
covered() {
	local commit
	commit=$(git -C "$KPROBES_CACHE/series-git" rev-list --reverse kp-base..series | sed -n "$2p")
	[ -n "$commit" ] || return 0
	git -C "$KPROBES_CACHE/series-git" show "$commit:MAINTAINERS" > "$dir/MAINTAINERS.$2" || return 0
	python3 - "$1" "$dir/MAINTAINERS.$2" <<'PY'
import fnmatch, re, sys
# F: patterns of every entry but THE REST, whose "F: *" takes any path.
pats, title = [], ""
for l in open(sys.argv[2]):
    if l.strip() and not re.match(r"^[A-Z]:\t", l):
        title = l.strip()
    elif l.startswith("F:\t") and title != "THE REST":
        pats.append(l[3:].strip())
text = open(sys.argv[1]).read()
new = re.findall(r"^--- /dev/null\n\+\+\+ b/(\S+)", text, re.M)
new += re.findall(r"^rename to (\S+)", text, re.M)
def match(path):
    for p in pats:
        if p.endswith("/") and path.startswith(p):
            return p
        if path == p or fnmatch.fnmatchcase(path, p):
            return p
    return None
found = [match(f) for f in new]
if all(found):
    print(" ".join(sorted(set(found))) or "(files removed only)")
PY
}

for p in "$dir"/[0-9][0-9][0-9][0-9]-*.patch; do
	name=$(basename "$p" .patch)
	case $name in 0000-*) continue ;; esac
	# GIT_DIR names no repository, as in static.sh (no spdxcheck.py).
	res=$(cd "$dir" && GIT_DIR=/nonexistent perl "$src/scripts/checkpatch.pl" --root="$src" --strict \
		--no-summary --terse --show-types "$name.patch" 2>&1 || true)
	if echo "$res" | grep -q 'WARNING:FILE_PATH_CHANGES:'; then
		f=$(covered "$p" "$((10#${name%%-*}))")
		if [ -n "$f" ]; then
			res=$(echo "$res" | grep -v 'WARNING:FILE_PATH_CHANGES:' || true)
			[ -n "$res" ] || {
				row "series:checkpatch:$name" pass "0 errors, 0 warnings, 0 checks (FILE_PATH_CHANGES: MAINTAINERS covers it: $f)"
				continue
			}
		fi
	fi
	if [ -z "$res" ]; then
		row "series:checkpatch:$name" pass "0 errors, 0 warnings, 0 checks"
	else
		mkdir -p "$KP_OUT"
		echo "$res" > "$KP_OUT/checkpatch-series-$name.log"
		first=$(echo "$res" | head -n 1)
		row "series:checkpatch:$name" fail "$(echo "$res" | wc -l) findings: $(where "$p" "$(echo "$first" | cut -d: -f2)"):$(echo "$first" | cut -d: -f3- | cut -c1-100)"
	fi
done
