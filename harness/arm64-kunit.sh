#!/usr/bin/env bash
# Boot the arm64 cross kernel (cross row "arm64", built by cross.sh) in
# QEMU's virt machine under TCG, let the built-in KUnit suites run, and
# turn their KTAP into kunit-arm64 rows.  No root file system: KUnit runs
# before init, and kunit_shutdown=poweroff ends the boot through PSCI.
# Usage: arm64-kunit.sh OUTFILE
. "$(dirname "$0")/lib.sh"
KP_STEP=arm64
out=$1
row() { printf 'kunit-arm64\t%s\t%s\t%s\n' "$1" "$2" "$3" >> "$out"; }

o=${KP_ARM64_OUT:-$KPROBES_CACHE/out/$KP_MODE-cross-arm64}
img=$o/arch/arm64/boot/Image
if ! [ -f "$img" ]; then
	row boot fail "no $img (the matrix:arm64 row builds it)"
	exit 0
fi
if ! command -v qemu-system-aarch64 > /dev/null; then
	row boot fail "no qemu-system-aarch64 (make deps installs qemu-system-arm)"
	exit 0
fi
run=${KP_RUN_DIR:-$KPROBES_CACHE/runs/$KP_MODE-arm64-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$run"
con=$run/console-arm64.log
timeout=${KP_ARM64_TIMEOUT:-600}
kp_say "booting $img (TCG, 2 vCPUs, ${timeout}s at most); console: $con"
start=$(date +%s)
rc=0
timeout "$timeout" qemu-system-aarch64 -M virt -cpu max -accel tcg,thread=single \
	-smp 2 -m 1024 -nographic -no-reboot -kernel "$img" \
	-append "console=ttyAMA0 panic=-1 kunit.enable=1 kunit_shutdown=poweroff" \
	< /dev/null > "$con" 2>&1 || rc=$?
secs=$(( $(date +%s) - start ))
KP_HARNESS=$KP_REPO/harness python3 - "$con" "$out" "$rc" "$secs" <<'PY'
import os
import sys
sys.path.insert(0, os.environ["KP_HARNESS"])
from report import console_excerpt, kunit_results, read  # noqa: E402

con, out, rc, secs = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
console = read(con) or ""
rows = kunit_results(console, lambda suite, name: True)
first, _ = console_excerpt(console)
with open(out, "a") as f:
    for _, name, status, detail in rows:
        f.write("kunit-arm64\t%s\t%s\t%s\n" % (name, status, detail))
    if not rows:
        f.write("kunit-arm64\tresults\tfail\tno KTAP output (qemu exit %d)\n" % rc)
    f.write("kunit-arm64\tboot\t%s\t%s\n" % (
        ("pass", "%s s, powered off" % secs) if rc == 0
        else ("fail", "qemu exit %d after %s s" % (rc, secs))))
    f.write("kunit-arm64\tconsole clean\t%s\t%s\n" % (
        ("fail", first[:100]) if first else ("pass", "no oops/BUG/WARN/panic")))
PY
