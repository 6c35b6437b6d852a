#!/usr/bin/env bash
# Boot the built kernel in QEMU and run one guest action:
#   boot.sh demo            show kprobes working (make run)
#   boot.sh shell           interactive shell on the serial console (make shell)
#   boot.sh test [FILTER]   run the guest test suites (make check)
#
# The guest's root is the host's / over virtio-9p, read-only (as virtme-ng
# does), so every host tool is there.  More 9p shares: our installed
# modules, mounted on /usr/lib/modules, and a writable run directory that
# carries results out.  The repository and the base tree are shared too,
# because the guest puts tmpfs on /tmp and friends, which may hide them (a
# CI clone under /tmp, say).  The serial console goes to $run/console.log.
#
# Accelerator (ACCEL=): tcg (default) is single-threaded TCG with 2 vCPUs;
# multi-threaded TCG has oopsed even upstream's kernel on cross-CPU code
# patching here, and nested KVM fails on these machines.  kvm forces KVM;
# auto uses KVM only if a short probe boot with it reaches userspace.
. "$(dirname "$0")/lib.sh"
KP_STEP=boot

action=${1:-demo}
filter=${2:-}
# Tests want every message on the console (KUnit's KTAP is KERN_INFO); the
# demo wants only warnings there, so its own output stays readable.
[ "$action" != demo ] || KP_LOGLEVEL=${KP_LOGLEVEL:-4}
image=$KP_OUT/arch/x86/boot/bzImage
[ -f "$image" ] || kp_die "no kernel image ($image): run 'make build' first"
release=$(cat "$KP_OUT/include/config/kernel.release")
modroot=$KP_OUT/modroot/lib/modules
[ -d "$modroot/$release" ] || kp_die "modules of $release not installed: run 'make build'"

run=${KP_RUN_DIR:-$KPROBES_CACHE/runs/$KP_RUN_NAME-$(date +%Y%m%d-%H%M%S)-$action}
mkdir -p "$run"
ln -sfn "$run" "$KPROBES_CACHE/runs/latest-$KP_RUN_NAME"
src=$(kp_src)
timeout_s=${KP_TIMEOUT:-2400}

# qemu_cmd ACCEL_ARGS... : the common QEMU command line.
qemu_cmd() {
	# cache=loose: the guest keeps what it read of the root, which must
	# not change under it (make shell, where one may edit host files
	# while the guest runs, goes without).  Without it every exec reads
	# its binary and libraries over 9p again: /bin/true took 86 ms
	# against 54 ms, a short ftracetest case 12.6 s against 6.5 s (TCG,
	# 2026-11-28).
	# init.sh mounts the base tree the same way (KP_9P_CACHE).
	local cache=loose
	[ "$action" != shell ] || cache=none
	local cmdline="root=/dev/root rootfstype=9p rootflags=trans=virtio,version=9p2000.L,msize=262144,cache=$cache ro"
	cmdline+=" console=ttyS0 loglevel=${KP_LOGLEVEL:-8} panic=-1 nokaslr"
	cmdline+=" init=$KP_REPO/harness/guest/init.sh"
	cmdline+=" KP_ACTION=$action KP_FILTER=${filter:-all} KP_REPO=$KP_REPO KP_SRC=$src KP_9P_CACHE=$cache"
	cmdline+=" KP_MODE=$KP_MODE KP_CANARY=${KP_CANARY:-none} KP_SMP=${KP_SMP:-2}"
	# Events defined at boot: one on __init text, which
	# guest-tests/kprobe_init_gone.sh checks went [GONE] when that text was
	# freed, and one that records from boot on (kprobe_boot_event.sh).
	[ "$action" != test ] ||
		cmdline+=" kprobe_event=p:kprobes/kpt_boot_init,kernel_init_freeable;p:kprobes/kpt_boot_clone,kernel_clone,flags=+0(%di):x64"
	cmdline+=" ${KP_CMDLINE:-}"
	# KP_QEMU_ARGS: more QEMU options (the debug kernel's machine type);
	# KP_QEMU_CPU: the CPU model (a configuration row's, rows.sh).
	echo qemu-system-x86_64 "$@" ${KP_QEMU_ARGS:-} -m "${KP_MEM:-2G}" -smp "${KP_SMP:-2}" \
		-cpu "${KP_QEMU_CPU:-max}" -nographic -no-reboot -nodefaults -serial SERIAL \
		-kernel "$image" -append "\"$cmdline\"" \
		-fsdev local,id=root,path=/,readonly=on,security_model=none,multidevs=remap \
		-device virtio-9p-pci,fsdev=root,mount_tag=/dev/root \
		-fsdev local,id=mods,path="$modroot",readonly=on,security_model=none \
		-device virtio-9p-pci,fsdev=mods,mount_tag=kpmods \
		-fsdev local,id=repo,path="$KP_REPO",readonly=on,security_model=none \
		-device virtio-9p-pci,fsdev=repo,mount_tag=kprepo \
		-fsdev local,id=src,path="$src",readonly=on,security_model=none \
		-device virtio-9p-pci,fsdev=src,mount_tag=kpsrc \
		-fsdev local,id=out,path="$run",security_model=none \
		-device virtio-9p-pci,fsdev=out,mount_tag=kpout
}

accel_args() {
	case ${ACCEL:-tcg} in
	tcg) echo "-accel tcg,thread=single" ;;
	kvm) echo "-accel kvm" ;;
	auto)
		if [ -w /dev/kvm ] && probe_kvm; then echo "-accel kvm"; else echo "-accel tcg,thread=single"; fi ;;
	*) kp_die "ACCEL must be tcg, kvm or auto" ;;
	esac
}

# A KVM boot that reaches init within 60 s proves KVM usable here.
probe_kvm() {
	local saved=$action p=$run/kvm-probe
	mkdir -p "$p"
	action=probe
	local cmd; cmd=$(qemu_cmd -accel kvm)
	action=$saved
	cmd=${cmd//-serial SERIAL/-serial file:$p/console.log}
	cmd=${cmd//path=$run,/path=$p,}
	timeout 60 bash -c "$cmd" > "$p/qemu.log" 2>&1 || true
	if [ -f "$p/probe-ok" ]; then
		kp_say "KVM probe boot reached userspace: using KVM"
		return 0
	fi
	kp_say "KVM probe boot failed ($(tail -n 1 "$p/qemu.log" | cut -c1-80)): using TCG"
	return 1
}

accel=$(accel_args)
kp_say "booting $release ($KP_MODE) with ${accel#-accel }, ${KP_SMP:-2} vCPUs; console: $run/console.log"
echo "${accel#-accel }" > "$run/accel"
cmd=$(qemu_cmd $accel)
start=$(date +%s)
if [ "$action" = shell ]; then
	cmd=${cmd//-serial SERIAL/-serial mon:stdio}
	eval "$cmd"
	exit 0
fi
cmd=${cmd//-serial SERIAL/-serial file:$run/console.log}
set +e
timeout --kill-after=10 "$timeout_s" bash -c "$cmd" < /dev/null > "$run/qemu.log" 2>&1
rc=$?
set -e
echo $(( $(date +%s) - start )) > "$run/seconds"
if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
	echo "guest timed out after ${timeout_s}s" > "$run/timeout"
	kp_say "guest timed out after ${timeout_s}s"
elif [ "$rc" != 0 ]; then
	kp_say "qemu exited with $rc: $(tail -n 3 "$run/qemu.log")"
fi
kp_say "guest ran for $(cat "$run/seconds") s"
if [ "$action" = demo ]; then
	# The firmware's terminal escapes share the first line with the marker.
	tr -d '\r' < "$run/console.log" | sed -n '/KP-DEMO-BEGIN/,/^KP-DEMO-END/p' |
		grep -av 'KP-DEMO' ||
		kp_die "the demo printed nothing; see $run/console.log"
fi
