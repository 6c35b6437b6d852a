#!/usr/bin/env bash
# make series-check: prove that the series applies and that every prefix of
# it builds.  The series (harness/series.sh) is written to a cache folder and
# applied with 'git am', one patch at a time, to a clean checkout of the base
# ($KPROBES_CACHE/series-am/work/linux-<ver>, reset to the base on every run);
# after each patch vmlinux and modules are built incrementally with the test
# configuration (config.sh, in $KPROBES_CACHE/series-am/out/ours) through
# kp_make, so under the shared build lock, and so is the arm64 row of the
# cross matrix (harness/cross.sh: Image and modules, in
# series-am/out/ours-cross-arm64).  After each patch that changed what was
# built, both kernels boot: x86_64 with the built-in KUnit suite and the
# guest tests that define, hit and read back a kprobe and a kretprobe event
# (SERIES_BOOT_TESTS), arm64 with its built-in KUnit suite (arm64-kunit.sh),
# so that no prefix of the series leaves probing broken.  A patch that
# changed no built file (one that adds files a later patch builds, or
# documentation) is not booted again.  Prints a table: patch, applied,
# x86_64 built and booted, arm64 built and booted.  Exit status non-zero
# when any patch did not apply, build or pass its boot.  SERIES_BOOT=0
# builds only; SERIES_BOOT_FROM=NNNN boots from patch NNNN on.  Not part
# of 'make check': the first run is a full kernel build for each arch, and
# the boots take 1-2 min per patch (35 min for the 30 patches, warm).
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

mkdir -p "$sc" "$sc/runs"
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

# What a boot would run: the image and the installed modules, by content.
# (This shell sourced lib.sh before KP_OUT_DIR was set: $KP_OUT is the
# main build's, so the series' output directory is named here.)
x86_print() {
	{ sha1sum < "$sc/out/ours/arch/x86/boot/bzImage"
	  find "$sc/out/ours/modroot" -name '*.ko' -type f -print0 | sort -z | xargs -0 cat | sha1sum
	} 2>/dev/null
}
arm64_print() { sha1sum < "$sc/out/ours-cross-arm64/arch/arm64/boot/Image" 2>/dev/null; }
x86_last= arm64_last=
SERIES_BOOT_TESTS=${SERIES_BOOT_TESTS:-kunit,guest:kprobe_event_trace,guest:kretprobe_event_trace}

# x86_boot NNNN: boot this prefix's x86_64 kernel unless it is the one
# booted last; appends to built[i].  The KUnit suite is the one this prefix
# has (upstream's until the test patch).
x86_boot() {
	local run=$sc/runs/$1-x86 fp res
	[ "${SERIES_BOOT:-1}" = 1 ] || return 0
	[ "$((10#$1))" -ge "$((10#${SERIES_BOOT_FROM:-0}))" ] || return 0
	fp=$(x86_print)
	if [ "$fp" = "$x86_last" ]; then
		built[i]+=", boot as before"
		return 0
	fi
	rm -rf "$run"
	KP_RUN_DIR=$run KP_TIMEOUT=${SERIES_BOOT_TIMEOUT:-900} \
		"$KP_REPO/harness/boot.sh" test "$SERIES_BOOT_TESTS" >"$run.log" 2>&1 || true
	res=$(python3 "$KP_REPO/harness/report.py" "$run" 2>/dev/null | tail -n 1)
	# Which KUnit suites ran, and how many cases: a suite the prefix
	# should have and did not run shows here.
	res+=" ($(python3 "$KP_REPO/harness/report.py" "$run" 2>/dev/null |
		awk '$1 ~ /^kunit:/ { split(substr($1, 7), a, "."); n++; s[a[1]] = 1 }
		     END { for (k in s) l = l (l ? " " : "") k; printf "KUnit %d: %s", n, l }'))"
	case $res in
	*" passed, 0 failed"*)
		case $res in 0\ passed*) ;; *)
			built[i]+=", booted: $res"
			x86_last=$fp
			return 0 ;;
		esac ;;
	esac
	built[i]+=", BOOT FAILED: ${res:-no report} (run: $run)"
	return 1
}

# arm64_boot NNNN: the same for the arm64 kernel; appends to arm[i].
arm64_boot() {
	local run=$sc/runs/$1-arm64 fp t
	[ "${SERIES_BOOT:-1}" = 1 ] || return 0
	[ "$((10#$1))" -ge "$((10#${SERIES_BOOT_FROM:-0}))" ] || return 0
	fp=$(arm64_print)
	if [ "$fp" = "$arm64_last" ]; then
		arm[i]+=", boot as before"
		return 0
	fi
	rm -rf "$run" && mkdir -p "$run"
	KP_RUN_DIR=$run KP_ARM64_OUT=$sc/out/ours-cross-arm64 \
		"$KP_REPO/harness/arm64-kunit.sh" "$run/rows.tsv" >"$run.log" 2>&1 || true
	t=$(awk -F '\t' '$3 == "pass" { p++ } $3 == "fail" { f++ } END { printf "%d passed, %d failed", p, f }' "$run/rows.tsv" 2>/dev/null)
	case $t in
	*" 0 failed") case $t in 0\ passed*) ;; *) arm[i]+=", booted: $t"; arm64_last=$fp; return 0 ;; esac ;;
	esac
	arm[i]+=", BOOT FAILED: ${t:-no rows} (run: $run)"
	stop=1
}
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
			if nice -n 10 bash -c '. "$1/harness/lib.sh"; kp_make bzImage modules &&
				rm -rf "$KP_OUT/modroot" &&
				kp_make -s INSTALL_MOD_PATH="$KP_OUT/modroot" modules_install >/dev/null' _ "$KP_REPO" >"$log" 2>&1; then
				nw=$(grep -c 'warning:' "$log" || true)
				built[i]="yes ($(( $(date +%s) - start )) s, $nw warnings)"
				# A warning fails the patch, as it fails the main build's row.
				[ "$nw" = 0 ] || { built[i]="FAILED: $nw warnings (log: $log)"; stop=1; }
				[ "$stop" = 1 ] || x86_boot "${p%%-*}" || stop=1
			else
				built[i]="FAILED: $(grep -E '^make\[[0-9]+\]: \*\*\* \[' "$log" | head -n 3 | sed -E 's/.*\[([^]]*)\].*/\1/' | tr '\n' ' ')(log: $log)"
				stop=1
			fi
			rm -f "$sc/arm64.tsv"
			KP_CROSS_OUT=$sc/out/ours "$KP_REPO/harness/cross.sh" "$sc/arm64.tsv" arm64 ||
				true
			arm[i]=$(awk -F '\t' '$2 == "arm64" { print ($3 == "pass" ? "yes" : "FAILED: " $4) }' "$sc/arm64.tsv" 2>/dev/null)
			[ -n "${arm[i]}" ] || arm[i]="FAILED: no arm64 row"
			case ${arm[i]} in yes*) arm64_boot "${p%%-*}" ;; esac
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
for i in "${!list[@]}"; do
	case ${built[i]} in *FAILED*) fail=1 ;; esac
	case ${arm[i]} in *FAILED*) fail=1 ;; esac
done
if [ "$fail" = 0 ]; then
	if [ "${SERIES_BOOT:-1}" != 1 ]; then
		echo "every prefix of the series applies and builds"
	elif [ -n "${SERIES_BOOT_FROM:-}" ]; then
		echo "every prefix of the series applies and builds; those from $SERIES_BOOT_FROM on boot"
	else
		echo "every prefix of the series applies, builds and boots"
	fi
else
	echo "series check FAILED"
	exit 1
fi
