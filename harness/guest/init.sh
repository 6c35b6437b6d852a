#!/bin/bash
# PID 1 of the test guest.  The root filesystem is the host's, read-only;
# this script gives it the few writable and virtual filesystems a Linux
# userspace expects, mounts our modules and the results share, runs the
# requested action, and reboots (QEMU runs with -no-reboot, so it exits).
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp TERM=${TERM:-linux} LANG=C.UTF-8

mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts -o gid=5,mode=620 devpts /dev/pts
mount -t tmpfs -o mode=1777 tmp /dev/shm
for d in /tmp /run /var/tmp /var/log /mnt; do
	mount -t tmpfs -o mode=1777 tmp "$d"
done
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null || true
mount -t 9p -o trans=virtio,version=9p2000.L,ro kpmods /usr/lib/modules
mkdir -p /mnt/out /mnt/repo /mnt/src
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 kpout /mnt/out
# The tmpfs mounts above may have hidden the host paths of the repository
# and the base tree; from here on they are reached through their shares.
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,ro kprepo /mnt/repo
# The base tree does not change under a guest either: cached as the root is.
mount -t 9p -o "trans=virtio,version=9p2000.L,msize=262144,ro,cache=${KP_9P_CACHE:-none}" kpsrc /mnt/src
export KP_REPO=/mnt/repo KP_SRC=/mnt/src
hostname kprobes-guest 2>/dev/null || true
ip link set lo up 2>/dev/null || true

export KP_OUTDIR=/mnt/out
finish() {
	sync
	echo "KP-GUEST-DONE"
	# The reset does not wait for the serial line to drain: without a
	# pause the last line could be lost (seen after the lockdown test).
	sleep 1
	echo b > /proc/sysrq-trigger
	sleep 5
}

case $KP_ACTION in
probe)
	touch /mnt/out/probe-ok
	;;
demo)
	bash "$KP_REPO/harness/guest/demo.sh" 2>&1
	;;
test)
	# What the boot left in the registry, before any test changes it.
	cp /sys/kernel/debug/kprobes/list /mnt/out/boot-kprobes-list 2>/dev/null
	grep kpt_boot /sys/kernel/tracing/trace > /mnt/out/boot-trace 2>/dev/null
	bash "$KP_REPO/harness/guest/run-tests.sh" "$KP_FILTER" 2>&1 | tee /mnt/out/guest-output.log
	;;
bench)
	# make bench: the benchmark's guest half (bench/guest.sh).
	bash "$KP_REPO/bench/guest.sh" 2>&1 | tee /mnt/out/bench-guest.log
	;;
shell)
	echo "kprobes guest: $(uname -r).  Exit the shell to power off."
	setsid bash -c 'exec bash -i </dev/ttyS0 >/dev/ttyS0 2>&1'
	;;
*)
	echo "unknown KP_ACTION '$KP_ACTION'"
	;;
esac
finish
