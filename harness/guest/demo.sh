#!/bin/bash
# What 'make run' shows a newcomer: kprobes working in the booted kernel.
T=/sys/kernel/tracing
D=/sys/kernel/debug/kprobes
step() { printf '\n=== %s\n' "$*"; }

echo "KP-DEMO-BEGIN"
step "kernel $(uname -r) ($KP_MODE build), $(nproc) CPUs"

step "modprobe kprobe_example symbol=kernel_clone, then fork three times"
dmesg -C
modprobe kprobe_example symbol=kernel_clone
for i in 1 2 3; do /bin/true; done
dmesg | grep -E 'kernel_clone|kprobe' | head -n 8

step "modprobe kretprobe_example func=kernel_clone, then fork twice"
dmesg -C
modprobe kretprobe_example func=kernel_clone
for i in 1 2; do /bin/true; done
dmesg | grep -E 'returned|kretprobe' | head -n 6

step "cat $D/list"
cat "$D/list"

step "rmmod both samples"
rmmod kretprobe_example kprobe_example
dmesg | tail -n 3

step "a kprobe event: p:kprobes/openat do_sys_openat2 dfd=\$arg1 path=+0(\$arg2):string"
echo 'p:kprobes/openat do_sys_openat2 dfd=$arg1 path=+0($arg2):string' >> "$T/kprobe_events"
echo 'r:kprobes/openat_ret do_sys_openat2 ret=$retval' >> "$T/kprobe_events"
cat "$T/kprobe_events"
echo > "$T/trace"
echo 1 > "$T/events/kprobes/enable"
cat /etc/hostname /etc/os-release > /dev/null 2>&1
echo 0 > "$T/events/kprobes/enable"
step "trace lines"
grep -E 'openat(_ret)?:' "$T/trace" | head -n 8
step "cat $T/kprobe_profile"
cat "$T/kprobe_profile"
step "cat $D/list (the event's probes)"
cat "$D/list"
echo > "$T/kprobe_events"
echo "KP-DEMO-END"
