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
#   docs:htmldocs  the kernel's own Sphinx build of Documentation/trace
#               (make htmldocs SPHINXDIRS=trace, on the work tree): fails on
#               a warning naming one of our files, or HTML of our .rst that
#               is missing, has no table or code block, or a broken reference
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
	row docs:htmldocs skip "baseline mode: our files are not part of this kernel"
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

# The documentation again, through the kernel's own Sphinx build: make
# htmldocs SPHINXDIRS=trace on the work tree (the kernel's conf.py and its
# extensions, so the kernel-doc directives pull in our sources' comments),
# output in $KP_OUT-htmldocs (the make log is htmldocs.log there).  One row,
# docs:htmldocs.  It fails on any warning or error that names one of our
# files (Sphinx's own, or kernel-doc's on the comments those directives
# include); warnings that only name other files are counted in its detail.
# It also fails when the HTML of an owned Documentation/trace/*.rst is
# missing, has no table or no code block, or shows a reference Sphinx could
# not resolve: a cross-reference left outside a link (<span class="xref
# std std-ref"> for a :ref:, std-doc for a :doc:, a C one likewise) or
# docutils' "problematic" and "system-message" markers.  Sphinx reports a
# file's warnings only when it reads it, so the trace output is rebuilt
# from scratch each time (the media headers htmldocs parses first stay in
# the output directory; the netlink pages it generates go, as the kernel's
# Makefile has it, into the work tree's Documentation/networking/
# netlink_spec/: new files, never written through a hard link).  A missing
# sphinx-build is a failure: harness/deps.sh installs it.
htmldocs_row() {
	local f tree stale= docout log start rc secs ver inc res
	local docs=()
	for f in "${files[@]}"; do
		case $f in Documentation/trace/*.rst) docs+=("$f") ;; esac
	done
	[ ${#docs[@]} -gt 0 ] || return 0
	if ! command -v sphinx-build >/dev/null 2>&1; then
		row docs:htmldocs fail "sphinx-build not found (harness/deps.sh installs python3-sphinx)"
		return 0
	fi
	ver=$(sphinx-build --version 2>&1 | sed -n 's/^sphinx-build //p' | head -n 1)
	if ! tree=$(kp_tree 2>/dev/null); then
		row docs:htmldocs fail "no work tree yet (make overlay makes it)"
		return 0
	fi
	# Whatever the tree holds is what gets built: it must be our files.
	for f in "${files[@]}"; do
		cmp -s "$KP_REPO/$f" "$tree/$f" || { stale=$f; break; }
	done
	if [ -n "$stale" ]; then
		row docs:htmldocs fail "$tree/$stale is not the repository's copy (make overlay puts it there)"
		return 0
	fi
	docout=$KP_OUT-htmldocs
	log=$docout/htmldocs.log
	mkdir -p "$docout"
	rm -rf "$docout/Documentation/output/trace" "$docout/Documentation/output/.doctrees/trace"
	# At niceness 10 at least (make check runs the static checks at 19).
	inc=$(( 10 - $(nice) )); [ "$inc" -ge 0 ] || inc=0
	start=$(date +%s)
	nice -n "$inc" make -C "$tree" O="$docout" -j"$(nproc)" htmldocs SPHINXDIRS=trace \
		> "$log" 2>&1 && rc=0 || rc=$?
	secs=$(( $(date +%s) - start ))
	res=$(python3 - "$log" "$docout/Documentation/output" "$tree" "$rc" \
		"Sphinx $ver, $secs s" "${docs[@]}" -- "${files[@]}" <<'EOF'
import os
import re
import sys

log, outdir, tree, rc, head = sys.argv[1:6]
rest = sys.argv[6:]
docs, owned = rest[:rest.index("--")], rest[rest.index("--") + 1:]

# A file is named by its path (the log has the tree's absolute paths) or,
# for a document, by its Sphinx name (trace/kprobes) as in "also defined at".
names = []
for f in owned:
    names.append(re.escape(f))
    if f.startswith("Documentation/") and f.endswith(".rst"):
        names.append(re.escape(f[len("Documentation/"):-len(".rst")]))
ours_re = re.compile(r"(?:^|[\s/'\"(])(?:%s)(?![\w.-])" % "|".join(names))
warn_re = re.compile(r"\b(?:WARNING|ERROR|SEVERE|CRITICAL)\b|\b(?:warning|error):")

ours, other = [], []
with open(log, errors="replace") as fh:
    for line in fh:
        line = line.rstrip("\n").replace(tree + "/", "")
        if warn_re.search(line):
            (ours if ours_re.search(line) else other).append(line.strip())

problems = []
if rc != "0":
    problems.append(f"make htmldocs exited {rc}")
if ours:
    problems.append(f"{len(ours)} warnings/errors in our files, first: {ours[0][:150]}")

# Markers of a reference Sphinx or docutils could not resolve.
xref_re = re.compile(r'<(?:span|code)\b[^>]*\bclass="xref\b[^"]*"[^>]*>')
link_end_re = re.compile(r"<a\s[^>]*>\s*$")
tag_re = re.compile(r"<[^>]+>")
good = []
for f in docs:
    rel = f[len("Documentation/"):-len(".rst")] + ".html"
    path = os.path.join(outdir, rel)
    try:
        html = open(path, errors="replace").read()
    except OSError:
        problems.append(f"no {rel}")
        continue
    bad = []
    for m in xref_re.finditer(html):
        if not link_end_re.search(html[max(0, m.start() - 500):m.start()]):
            bad.append(m.end())
    for cls in ("problematic", "system-message"):
        bad += [m.end() for m in re.finditer(r'class="%s"[^>]*>' % cls, html)]
    tables, pres = len(re.findall(r"<table\b", html)), len(re.findall(r"<pre\b", html))
    if bad:
        # The marked text: up to the first closing tag, tags dropped.
        first = tag_re.sub("", html[min(bad):].split("</", 1)[0]).strip()[:60]
        problems.append(f"{rel}: {len(bad)} unresolved references, first: {first}")
    if not tables or not pres:
        problems.append(f"{rel}: {tables} tables, {pres} code blocks")
    good.append(f"{os.path.basename(rel)} {tables} tables, {pres} code blocks")

elsewhere = ""
if other:
    elsewhere = f"; {len(other)} warnings in other files (first: {other[0][:100]})"
if problems:
    print(f"{head}: " + "; ".join(problems) + elsewhere)
    sys.exit(1)
print(f"{head}: " + "; ".join(good) + elsewhere)
EOF
	) && rc=0 || rc=$?
	if [ "$rc" = 0 ]; then
		row docs:htmldocs pass "$res"
	else
		row docs:htmldocs fail "${res:-the check of $log failed ($rc)}"
	fi
}
htmldocs_row

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
