#!/usr/bin/env bash
# make series-check: prove that the series applies and that every prefix of
# it builds.  The series (harness/series.sh) is written to a cache folder and
# applied with 'git am', one patch at a time, to a clean checkout of the base
# ($KPROBES_CACHE/series-am/work/linux-<ver>, reset to the base on every run);
# after each patch vmlinux and modules are built incrementally with the test
# configuration (config.sh, in $KPROBES_CACHE/series-am/out/ours) through
# kp_make, so under the shared build lock, and so is the arm64 row of the
# cross matrix (harness/cross.sh: Image and modules, in
# series-am/out/ours-cross-arm64).  Prints a table: patch, applied, built on
# x86_64, built on arm64.  Exit status non-zero when any patch did not apply
# or build.  Not part of 'make check': the first run is a full kernel build
# for each arch.
. "$(dirname "$0")/lib.sh"
KP_STEP=series-check

src=$(kp_src)
sc=$KPROBES_CACHE/series-am
tree=$sc/work/$(basename "$src")
patches=$sc/patches
export KP_TREE_DIR=$tree KP_OUT_DIR=$sc/out/ours
# Same layout below $sc as below $KPROBES_CACHE (work/linux-<ver>, out/ours),
# so compiler command lines relative to this base are those of the main
# build and its ccache entries are hits.
export CCACHE_BASEDIR=$sc
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_COMMITTER_NAME="kprobes maintainers" GIT_COMMITTER_EMAIL=maintainers@users.noreply.a-seed-240f6d8f.example

mkdir -p "$sc"
exec 8> "$sc/lock"
flock -n 8 || kp_die "another series-check is running"
rm -rf "$patches"
"$KP_REPO/harness/series.sh" "$patches"

# A clone sharing the objects of series.sh's repository; made again when
# that repository was (a new base).
base=$(git -C "$KPROBES_CACHE/series-git" rev-parse kp-base)
if [ "$(git -C "$tree" rev-parse -q --verify kp-base 2>/dev/null)" != "$base" ]; then
	kp_say "cloning the base into $tree (once)"
	rm -rf "$tree"
	mkdir -p "$(dirname "$tree")"
	git clone -q --shared --no-checkout "$KPROBES_CACHE/series-git" "$tree"
fi
cd "$tree"
git am --abort >/dev/null 2>&1 || true
git checkout -q -f -B am kp-base
git clean -q -f -d -x
"$KP_REPO/harness/config.sh"

mapfile -t list < <(cd "$patches" && ls [0-9][0-9][0-9][0-9]-*.patch | grep -v '^0000-')
declare -a applied built arm
stop=0
i=0
for p in "${list[@]}"; do
	applied[i]=-; built[i]=-; arm[i]=-
	if [ "$stop" = 0 ]; then
		if git am -q "$patches/$p" >"$sc/am.log" 2>&1; then
			applied[i]=yes
			log=$sc/build-${p%%-*}.log
			kp_say "$p applied; building vmlinux and modules (log: $log)"
			start=$(date +%s)
			if nice -n 10 bash -c '. "$1/harness/lib.sh"; kp_make vmlinux modules' _ "$KP_REPO" >"$log" 2>&1; then
				built[i]="yes ($(( $(date +%s) - start )) s, $(grep -c 'warning:' "$log" || true) warnings)"
			else
				built[i]="FAILED: $(grep -E '^make\[[0-9]+\]: \*\*\* \[' "$log" | head -n 3 | sed -E 's/.*\[([^]]*)\].*/\1/' | tr '\n' ' ')(log: $log)"
				stop=1
			fi
			rm -f "$sc/arm64.tsv"
			KP_CROSS_OUT=$sc/out/ours "$KP_REPO/harness/cross.sh" "$sc/arm64.tsv" arm64 ||
				true
			arm[i]=$(awk -F '\t' '$2 == "arm64" { print ($3 == "pass" ? "yes" : "FAILED: " $4) }' "$sc/arm64.tsv" 2>/dev/null)
			[ -n "${arm[i]}" ] || arm[i]="FAILED: no arm64 row"
			case ${arm[i]} in yes*) ;; *) stop=1 ;; esac
		else
			applied[i]=FAILED
			cat "$sc/am.log" >&2
			git am --abort >/dev/null 2>&1 || true
			stop=1
		fi
	fi
	i=$((i + 1))
done

w=5
for p in "${list[@]}"; do [ ${#p} -le "$w" ] || w=${#p}; done
printf '%-*s  %-8s  %-30s  %s\n' "$w" patch applied "x86_64" arm64
printf '%-*s  %-8s  %-30s  %s\n' "$w" "$(printf '%*s' "$w" '' | tr ' ' -)" -------- ------ -----
fail=0
for i in "${!list[@]}"; do
	printf '%-*s  %-8s  %-30s  %s\n' "$w" "${list[i]}" "${applied[i]}" "${built[i]}" "${arm[i]}"
	case ${built[i]} in yes*) ;; *) fail=1 ;; esac
	case ${arm[i]} in yes*) ;; *) fail=1 ;; esac
done
[ "$fail" = 0 ] && echo "every prefix of the series applies and builds" || { echo "series check FAILED"; exit 1; }
