#!/usr/bin/env bash
# make series: our kernel files as a numbered git format-patch series with a
# cover letter, against the pristine base, in series/ (SERIES_DIR=DIR or the
# first argument writes it elsewhere).
#
# The pristine base is committed once into a git repository of its own,
# $KPROBES_CACHE/series-git (tag kp-base).  Every run resets that repository
# to the base and makes one commit per step of the plan, harness/series/
# NN-name.msg, in file-name order.  A plan file starts with a header, up to
# the first blank line, that is not part of the commit message:
#   files: PATH...   what the step takes from this repository: an entry of
#                    harness/owned-files (a directory entry takes the whole
#                    directory and deletes the base files we do not ship), a
#                    file under an owned directory, MAINTAINERS.patch, or a
#                    patch to another subsystem, patches/NAME.patch
#   why: LINE        the step's one line in the cover letter
#   rename: OLD NEW  git mv OLD NEW first (both under an owned directory):
#                    a base file moved aside, so that its replacement can
#                    be added beside it and the switch made in a later step
#   delete: PATH...  git rm PATH (under an owned directory, and not a file
#                    of ours): what an earlier step moved aside
#   head: PATH N     take only the first N lines of the repository's PATH
#                    (PATH in 'files:'): a document that comes in halves
#   # ...            comment
# The rest is the commit message: subject, body, Signed-off-by.  A step
# shipping one patches/NAME.patch may leave it out: the patch's own
# Subject and body are the message.
# A step may ship an interim version of a file, so that a large change can
# be split and every step still builds: NN-name.stage/PATH, when present,
# is taken for PATH instead of the repository's file (PATH must be in the
# step's 'files:'); a later step takes the final one.
# Every owned entry and every patch (kp_patches) must be taken by some step, and the
# final tree is compared with what overlay.sh would build, so the series can
# never silently drop or alter a file.  The cover letter is made from
# harness/series/cover.tmpl (see the placeholders there).
#
# Author, committer and dates are fixed (dates from the repository's HEAD
# commit), so the same repository state gives byte-identical patches.
. "$(dirname "$0")/lib.sh"
KP_STEP=series

KP_SERIES_NAME="kprobes maintainers"
KP_SERIES_EMAIL="maintainers@users.noreply.a-seed-240f6d8f.example"

out=${1:-${SERIES_DIR:-$KP_REPO/series}}
plan=$KP_REPO/harness/series
src=$(kp_src)
gitrepo=$KPROBES_CACHE/series-git
upver=$(basename "$src"); upver=${upver#linux-}

# Git sees neither the user's nor the system's configuration.
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME=$KP_SERIES_NAME GIT_AUTHOR_EMAIL=$KP_SERIES_EMAIL
export GIT_COMMITTER_NAME=$KP_SERIES_NAME GIT_COMMITTER_EMAIL=$KP_SERIES_EMAIL
export TZ=UTC LC_ALL=C

# --- the plan: read and check it before touching anything ---
shopt -s nullglob
steps=("$plan"/[0-9][0-9]-*.msg)
shopt -u nullglob
[ ${#steps[@]} -gt 0 ] || kp_die "no plan files $plan/NN-name.msg"
[ -f "$plan/cover.tmpl" ] || kp_die "no cover letter template $plan/cover.tmpl"

# step_files FILE / step_why FILE / step_msg FILE
step_header() { sed -n '1,/^$/p' "$1"; }
step_files() { step_header "$1" | sed -n 's/^files:[[:space:]]*//p' | tr -s ' \t' '\n\n' | grep -v '^$' || true; }
step_head() { step_header "$1" | awk -v p="$2" '$1 == "head:" && $2 == p { print $3 }'; }
step_renames() { step_header "$1" | sed -n 's/^rename:[[:space:]]*//p'; }
step_deletes() { step_header "$1" | sed -n 's/^delete:[[:space:]]*//p' | tr -s ' \t' '\n\n' | grep -v '^$' || true; }
# in_owned_dir PATH: PATH lies under a directory entry of owned-files.
in_owned_dir() {
	local o
	for o in "${owned[@]}"; do
		[ "${o%/}" != "$o" ] && [ "${1#"$o"}" != "$1" ] && return 0
	done
	return 1
}
step_why() { step_header "$1" | sed -n 's/^why:[[:space:]]*//p' | head -n 1; }
# A step whose file has no message after its header takes it from the
# patch it ships (patches/NAME.patch: its Subject, less "[PATCH] ", and
# its body up to "---"), so that message is written once.
step_msg() {
	local own p
	own=$(sed '1,/^$/d' "$1")
	if [ -n "$own" ]; then
		printf '%s\n' "$own"
		return
	fi
	p=$(step_files "$1")
	case $p in patches/*.patch) ;; *) return 0 ;; esac
	sed -n 's/^Subject: \[PATCH\] //p' "$KP_REPO/$p" | head -n 1
	echo
	sed -n '/^$/,/^---$/p' "$KP_REPO/$p" | sed '1d;$d'
}

mapfile -t owned < <(kp_owned | sed 's/^!//')
mapfile -t removed < <(kp_owned | sed -n 's/^!//p')
is_removed() { printf '%s\n' "${removed[@]}" | grep -qxF "$1"; }
patches=()
while read -r p; do patches+=("${p#"$KP_REPO"/}"); done < <(kp_patches)
is_patch() { printf '%s\n' "${patches[@]}" | grep -qxF "$1"; }
bad=0
declare -A taken=()
for s in "${steps[@]}"; do
	name=$(basename "$s")
	[ -n "$(step_files "$s")$(step_renames "$s")$(step_deletes "$s")" ] ||
		{ kp_say "$name: no 'files:', 'rename:' or 'delete:' line"; bad=1; }
	while read -r a b extra; do
		[ -n "$a" ] || continue
		{ [ -n "$b" ] && [ -z "$extra" ] && in_owned_dir "$a" && in_owned_dir "$b"; } ||
			{ kp_say "$name: 'rename: $a $b $extra' needs OLD NEW under an owned directory"; bad=1; }
		# A directory entry of the same step would git rm what was moved.
		while read -r p; do
			[ "${p%/}" = "$p" ] || [ "${b#"$p"}" = "$b" ] ||
				{ kp_say "$name: 'rename: ... $b' and 'files: $p' in one step"; bad=1; }
		done < <(step_files "$s")
	done < <(step_renames "$s")
	while read -r p n; do
		{ step_files "$s" | grep -qxF "$p" && [[ $n =~ ^[1-9][0-9]*$ ]]; } ||
			{ kp_say "$name: 'head: $p $n' needs PATH in 'files:' and a line count"; bad=1; }
	done < <(step_header "$s" | sed -n 's/^head:[[:space:]]*//p')
	while read -r p; do
		{ in_owned_dir "$p" && [ ! -e "$KP_REPO/$p" ]; } ||
			{ kp_say "$name: 'delete: $p' must be under an owned directory and not a file of ours"; bad=1; }
	done < <(step_deletes "$s")
	[ -n "$(step_why "$s")" ] || { kp_say "$name: no 'why:' line"; bad=1; }
	[ -n "$(step_msg "$s" | head -n 1)" ] || { kp_say "$name: no subject after the header"; bad=1; }
	# In the message's trailer block (after a blank line), as git and
	# b4 read it, not anywhere in the text.
	step_msg "$s" | git interpret-trailers --parse | grep -qxF "Signed-off-by: $KP_SERIES_NAME <$KP_SERIES_EMAIL>" ||
		{ kp_say "$name: no 'Signed-off-by: $KP_SERIES_NAME <$KP_SERIES_EMAIL>' trailer"; bad=1; }
	while read -r p; do
		ok=0
		if is_patch "$p"; then
			ok=1
		else
			for o in "${owned[@]}"; do
				if [ "$p" = "$o" ] || { [ "${o%/}" != "$o" ] && [ "${p#"$o"}" != "$p" ]; }; then
					ok=1
				fi
			done
		fi
		[ "$ok" = 1 ] || { kp_say "$name: $p is not ours (not in harness/owned-files)"; bad=1; }
		if [ ! -e "$KP_REPO/$p" ] && [ ! -e "${s%.msg}.stage/$p" ] && ! is_removed "$p"; then
			kp_say "$name: $p does not exist in the repository"; bad=1
		fi
		taken[$p]=$name
	done < <(step_files "$s")
	if [ -d "${s%.msg}.stage" ]; then
		while read -r f; do
			step_files "$s" | grep -qxF "$f" ||
				{ kp_say "$name: stage file $f is not in its 'files:'"; bad=1; }
		done < <(cd "${s%.msg}.stage" && find . -type f | sed 's|^\./||')
	fi
done
# A directory entry is taken whole, or file by file.
for o in "${owned[@]}" "${patches[@]}"; do
	[ -z "${taken[$o]:-}" ] || continue
	if [ "${o%/}" != "$o" ] && [ -d "$KP_REPO/$o" ]; then
		while read -r f; do
			[ -n "${taken[$o$f]:-}" ] ||
				{ kp_say "$o$f is in no step of the series (add it or $o to a 'files:' line in $plan/)"; bad=1; }
		done < <(cd "$KP_REPO/$o" && find . -type f | sed 's|^\./||')
		continue
	fi
	kp_say "$o is in no step of the series (add it to a 'files:' line in $plan/)"; bad=1
done
[ "$bad" = 0 ] || kp_die "the series plan is incomplete or wrong (see above)"

# --- the base repository, made once ---
exec 9> "$KPROBES_CACHE/series-git.lock"
flock 9
base_msg="Linux $upver (Debian $(cut -d' ' -f1,2 "$src/.kp-pristine"))"
if [ ! -f "$gitrepo/.git/kp-base" ] || ! cmp -s "$gitrepo/.git/kp-base" "$src/.kp-pristine"; then
	kp_say "committing the pristine base into $gitrepo (once; a few minutes)"
	rm -rf "$gitrepo" "$gitrepo.tmp"
	cp -a "$src" "$gitrepo.tmp"
	rm -f "$gitrepo.tmp/.kp-pristine"
	(
		cd "$gitrepo.tmp"
		git init -q -b base
		# No automatic gc in the background of a later run.
		git config gc.auto 0
		git add -f -A .
		d="@$(stat -c %Y "$src/Makefile") +0000"
		GIT_AUTHOR_DATE=$d GIT_COMMITTER_DATE=$d git commit -q -m "$base_msg"
		git tag kp-base
		git repack -a -d -q
	)
	cp "$src/.kp-pristine" "$gitrepo.tmp/.git/kp-base"
	mv "$gitrepo.tmp" "$gitrepo"
fi
cd "$gitrepo"
git checkout -q -f -B series kp-base
git reset -q --hard kp-base
git clean -q -f -d -x

# --- one commit per step ---
head_ts=$(git -C "$KP_REPO" log -1 --format=%ct HEAD 2>/dev/null || stat -c %Y "$src/Makefile")
n=0
for s in "${steps[@]}"; do
	n=$((n + 1))
	paths=()
	while read -r a b; do
		[ -n "$a" ] || continue
		mkdir -p "$(dirname "$b")"
		git mv -- "$a" "$b" || kp_die "$(basename "$s"): cannot move $a to $b"
	done < <(step_renames "$s")
	while read -r p; do
		git rm -q -- "$p" || kp_die "$(basename "$s"): cannot delete $p"
	done < <(step_deletes "$s")
	while read -r p; do
		case $p in
		*.patch)
			patch -s -p1 --no-backup-if-mismatch < "$KP_REPO/$p" ||
				kp_die "$p does not apply to the tree of the steps before it"
			mapfile -t -O "${#paths[@]}" paths < <(kp_patch_paths "$KP_REPO/$p")
			[ ${#paths[@]} -gt 0 ] || kp_die "$p names no file"
			;;
		*/)
			d=${p%/}
			while read -r f; do
				[ -e "$KP_REPO/$d/$f" ] || git rm -q -- "$d/$f"
			done < <(git ls-files -- "$d" | sed "s|^$d/||")
			while read -r f; do
				f=${f#./}
				mkdir -p "$(dirname "$d/$f")"
				cp "$KP_REPO/$d/$f" "$d/$f"
			done < <(cd "$KP_REPO/$d" && find . -type f | sort)
			paths+=("$d")
			;;
		*)
			if is_removed "$p"; then
				[ ! -e "${s%.msg}.stage/$p" ] ||
					kp_die "$(basename "$s"): $p is removed ('!' in harness/owned-files) and cannot be staged"
				# Staged by git rm itself: not for the add below.
				git rm -q -- "$p" 2> /dev/null ||
					kp_die "$(basename "$s"): cannot remove $p (not in the tree: no such base file, or an earlier step removed it)"
				continue
			fi
			mkdir -p "$(dirname "$p")"
			if [ -f "${s%.msg}.stage/$p" ]; then
				cp "${s%.msg}.stage/$p" "$p"
			elif [ -n "$(step_head "$s" "$p")" ]; then
				head -n "$(step_head "$s" "$p")" "$KP_REPO/$p" > "$p"
			else
				cp "$KP_REPO/$p" "$p"
			fi
			paths+=("$p")
			;;
		esac
	done < <(step_files "$s")
	[ ${#paths[@]} -eq 0 ] || git add -f -A -- "${paths[@]}"
	git diff --cached --quiet && kp_die "$(basename "$s") changes nothing against the base"
	d="@$((head_ts + n * 60)) +0000"
	step_msg "$s" | GIT_AUTHOR_DATE=$d GIT_COMMITTER_DATE=$d git commit -q --cleanup=whitespace -F -
done

# --- the result must be exactly the overlay's tree ---
bad=0
for o in "${owned[@]}"; do
	if [ "${o%/}" != "$o" ]; then
		d=${o%/}
		while read -r f; do
			cmp -s "$KP_REPO/$d/$f" "$d/$f" || { kp_say "differs from the repository: $d/$f"; bad=1; }
		done < <(cd "$KP_REPO/$d" && find . -type f | sed 's|^\./||')
		while read -r f; do
			[ -e "$KP_REPO/$d/$f" ] || { kp_say "base file left in our directory: $d/$f"; bad=1; }
		done < <(git ls-files -- "$d" | sed "s|^$d/||")
	elif is_removed "$o"; then
		[ ! -e "$o" ] || { kp_say "should have been removed: $o"; bad=1; }
	else
		cmp -s "$KP_REPO/$o" "$o" || { kp_say "differs from the repository: $o"; bad=1; }
	fi
done
if [ ${#patches[@]} -gt 0 ]; then
	tmp=$(mktemp -d)
	for p in "${patches[@]}"; do
		while read -r f; do
			[ -e "$tmp/$f" ] || [ ! -e "$src/$f" ] ||
				{ mkdir -p "$(dirname "$tmp/$f")"; cp "$src/$f" "$tmp/$f"; }
		done < <(kp_patch_paths "$KP_REPO/$p")
		patch -s -p1 -d "$tmp" --no-backup-if-mismatch < "$KP_REPO/$p" ||
			kp_die "$p does not apply to the base"
	done
	while read -r f; do
		if [ -e "$tmp/$f" ]; then
			cmp -s "$tmp/$f" "$f" || { kp_say "$f differs from the base with our patches applied"; bad=1; }
		else
			[ ! -e "$f" ] || { kp_say "$f should have been deleted by our patches"; bad=1; }
		fi
	done < <(for p in "${patches[@]}"; do kp_patch_paths "$KP_REPO/$p"; done | sort -u)
	rm -rf "$tmp"
fi
[ -z "$(git status --porcelain)" ] || { kp_say "files outside the plan changed"; bad=1; }
[ "$bad" = 0 ] || kp_die "the series does not reproduce our tree (see above)"

# --- format-patch and the cover letter ---
tmpout=$(mktemp -d "$KPROBES_CACHE/series-out.XXXXXX")
trap 'rm -rf "$tmpout"' EXIT
git -c core.abbrev=12 format-patch -q -B -M --cover-letter --zero-commit --no-signature --stat=72 \
	-o "$tmpout" kp-base..series
cover=("$tmpout"/0000-cover-letter.patch)
[ -f "${cover[0]}" ] || kp_die "format-patch wrote no cover letter"

# Subject and why line of each patch, for the cover letter.
for s in "${steps[@]}"; do
	printf '%s\t%s\n' "$(step_msg "$s" | head -n 1)" "$(step_why "$s")"
done > "$tmpout/.patches"
python3 - "${cover[0]}" "$plan/cover.tmpl" "$KP_REPO/README.md" "$tmpout/.patches" "$base_msg" "$head_ts" <<'PY' || kp_die "could not write the cover letter"
import re, sys, textwrap, time
cover, tmpl, readme, patches, base, head_ts = sys.argv[1:7]
text = open(cover).read()
t = open(tmpl).read()
readme = open(readme).read()

def fail(msg):
    sys.stderr.write("[series] error: %s\n" % msg)
    sys.exit(1)

m = re.search(r"<!-- bench:begin -->\n(.*?)<!-- bench:end -->", readme, re.S)
if not m:
    fail("README.md has no <!-- bench:begin --> ... <!-- bench:end --> block")
bench = m.group(1).strip()
# The test results: the paragraphs of README's timings section that start
# with "Our kernel on this config" and "Baseline".
paras = re.split(r"\n\s*\n", readme)
res = [p for p in paras if p.startswith("Our kernel on this config") or p.startswith("Baseline (")]
if not res:
    fail("README.md has no results paragraph ('Our kernel on this config ...')")
results = "\n\n".join(textwrap.fill(" ".join(p.split()), 72) for p in res)

steps = [l.split("\t", 1) for l in open(patches).read().splitlines()]
lines = []
for i, (subj, why) in enumerate(steps, 1):
    lines.append("%d/%d %s" % (i, len(steps), subj))
    lines.append(textwrap.fill(why, 72, initial_indent="    ", subsequent_indent="    "))
patch_list = "\n".join(lines)

subject, _, body = t.partition("\n")
body = body.lstrip("\n")
body = (body.replace("@BASE@", base)
            .replace("@PATCHES@", patch_list)
            .replace("@RESULTS@", results)
            .replace("@BENCH@", bench)).rstrip("\n")
left = re.findall(r"@[A-Z]+@", body)
if left:
    fail("unknown placeholder(s) in cover.tmpl: %s" % " ".join(left))
for ph in ("*** SUBJECT HERE ***", "*** BLURB HERE ***"):
    if ph not in text:
        fail("format-patch cover letter has no %s" % ph)
# format-patch dates the cover letter now; it gets the series' fixed date.
date = time.strftime("%a, %d %b %Y %H:%M:%S +0000", time.gmtime(int(head_ts)))
text = re.sub(r"^Date: .*$", "Date: " + date, text, count=1, flags=re.M)
text = text.replace("*** SUBJECT HERE ***", subject.strip()).replace("*** BLURB HERE ***", body)
open(cover, "w").write(text)
PY
rm -f "$tmpout/.patches"

# Replace the output folder's patches only (anything else in it is kept).
mkdir -p "$out"
rm -f "$out"/[0-9][0-9][0-9][0-9]-*.patch
mv "$tmpout"/*.patch "$out"/
kp_say "$(ls "$out"/[0-9][0-9][0-9][0-9]-*.patch | wc -l) files in $out:"
(cd "$out" && ls [0-9][0-9][0-9][0-9]-*.patch) | sed 's/^/  /' >&2
