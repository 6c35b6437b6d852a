#!/usr/bin/env bash
# Install whatever the pipeline needs that the machine lacks (Debian packages).
# python3-sphinx and python3-yaml: the kernel's make htmldocs (static.sh's
# docs:htmldocs row; yaml for its netlink pages); python3-matplotlib:
# bench/report.py's chart; trace-cmd: guest-tests/kprobe_tools_trace_cmd.sh.
. "$(dirname "$0")/lib.sh"
KP_STEP=deps

need=()
for p in gcc make flex bison bc libelf-dev libssl-dev cpio ccache kmod \
	 qemu-system-x86 rsync python3 xz-utils perl git patch diffutils \
	 procps util-linux sparse bpftrace linux-perf python3-docutils \
	 python3-sphinx python3-yaml python3-matplotlib trace-cmd \
	 gcc-aarch64-linux-gnu gcc-riscv64-linux-gnu gcc-powerpc64le-linux-gnu \
	 gcc-s390x-linux-gnu qemu-system-arm \
	 $([ "${KP_CROSS_FULL:-0}" != 1 ] || echo gcc-arm-linux-gnueabihf \
		gcc-powerpc-linux-gnu gcc-mips64el-linux-gnuabi64 \
		gcc-sparc64-linux-gnu gcc-hppa-linux-gnu gcc-sh4-linux-gnu \
		gcc-arc-linux-gnu); do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'ok installed' || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
	kp_say "installing: ${need[*]}"
	[ "$(id -u)" = 0 ] || kp_die "need root to apt-get install ${need[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >/dev/null
	apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null
fi
# The guest mounts our modules here (its / is the host's, read-only), so
# modprobe finds them; an empty directory is all the host needs to have.
[ -d /usr/lib/modules ] || mkdir -p /usr/lib/modules
kp_say "all build and boot dependencies present"
