#!/usr/bin/env bash
# Build bzImage and modules out of tree, then install the modules where the
# guest will find them ($KP_OUT/modroot/lib/modules/<release>).
#
# A fingerprint of everything that decides the result (the .config, the tree,
# and each owned file's content) is kept after a good build; when it still
# matches, the step does no work at all.
. "$(dirname "$0")/lib.sh"
KP_STEP=build

tree=$(kp_tree)
[ -f "$KP_OUT/.config" ] || kp_die "not configured: run 'make config' first"

fingerprint() {
	{
		echo "$tree"
		cat "$KP_OUT/.config"
		if [ "$KP_MODE" = ours ]; then
			sort "$tree/.kp-placed" | while read -r rel; do
				# A base file we removed is placed as its absence.
				if [ -e "$tree/$rel" ]; then sha256sum "$tree/$rel"; else echo "removed $rel"; fi
			done
			cat "$tree/.kp-patches-applied" 2>/dev/null || true
		fi
		cat "$tree/.kp-pristine" 2>/dev/null || true
		cat "$KP_REPO"/harness/modules/* "$KP_REPO"/guest-tests/modules/*
	} | sha256sum | cut -d' ' -f1
}

stamp=$KP_OUT/.kp-built
fp=$(fingerprint)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$fp" ] &&
   [ -f "$KP_OUT/arch/x86/boot/bzImage" ]; then
	kp_say "$KP_MODE kernel up to date, nothing to do ($KP_OUT)"
	exit 0
fi
rm -f "$stamp"

# Progress: objects compiled so far against the count of the last full build.
total=$(cat "$KP_OUT/.kp-objcount" 2>/dev/null || echo 2800)
cold=0; [ -f "$KP_OUT/vmlinux" ] || cold=1
log=$KP_OUT/build.log
kp_say "building $KP_MODE kernel (log: $log, about $total objects on a cold build)"
start=$(date +%s)
set +e
kp_make bzImage modules 2>&1 | tee "$log" | awk -v total="$total" -v mode="$KP_MODE" '
	/^  (CC|AS|LD|AR|HOSTCC|LDS)/ { n++ }
	/^  (CC|AS)/ && n % 250 == 0 {
		pct = int(100 * n / total); if (pct > 99) pct = 99
		printf "[build] %s: %d/%d objects (%d%%)\n", mode, n, total, pct > "/dev/stderr"
		fflush("/dev/stderr")
	}
	END { print n > "/dev/stdout" }' > "$KP_OUT/.kp-objcount.new"
rc=${PIPESTATUS[0]}
set -e
if [ "$rc" != 0 ]; then
	grep -E 'error|Error|warning: ' "$log" | head -n 40 >&2 || true
	tail -n 20 "$log" >&2
	kp_die "kernel build failed (exit $rc); full log: $log"
fi
# Only a cold build's count is a useful estimate for the next cold build;
# an incremental build replaces it only when it compiled more (after a
# config change that touched most of the tree).
n=$(cat "$KP_OUT/.kp-objcount.new"); rm -f "$KP_OUT/.kp-objcount.new"
n=${n:-0}
if [ "$cold" = 1 ] || [ "$n" -gt "$total" ]; then
	echo "$n" > "$KP_OUT/.kp-objcount"
fi

release=$(cat "$KP_OUT/include/config/kernel.release")
rm -rf "$KP_OUT/modroot"
kp_make -s INSTALL_MOD_PATH="$KP_OUT/modroot" modules_install >/dev/null

# The harness's and the guest tests' own modules, built against this kernel
# in a copy (M= writes next to the sources) and installed under extra/.
for m in harness/modules guest-tests/modules; do
	hm=$KP_OUT/${m//\//-}
	rm -rf "$hm"
	cp -r "$KP_REPO/$m" "$hm"
	kp_make -s M="$hm" modules >/dev/null || kp_die "$m failed to build"
	kp_make -s M="$hm" INSTALL_MOD_PATH="$KP_OUT/modroot" INSTALL_MOD_DIR=extra modules_install >/dev/null
done
echo "$fp" > "$stamp"
kp_say "built $release in $(( $(date +%s) - start )) s: $KP_OUT/arch/x86/boot/bzImage"
