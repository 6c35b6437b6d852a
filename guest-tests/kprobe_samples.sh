#!/bin/bash
# The kprobes samples (samples/kprobes, built as modules): kprobe_example
# logs a pre- and a post-handler line with the probe's address for every
# fork (kernel_clone); kretprobe_example logs each return's value and
# duration; after unloading, neither leaves a probe in kprobes/list.
# shellcheck source=guest-tests/lib.sh
. "$KP_LIB"
# shellcheck disable=SC2317 # called through trap
cleanup() { rmmod kprobe_example 2>/dev/null; rmmod kretprobe_example 2>/dev/null; }
trap cleanup EXIT
modinfo kprobe_example > /dev/null 2>&1 || skip "no kprobe_example module (CONFIG_SAMPLE_KPROBES)"
modinfo kretprobe_example > /dev/null 2>&1 || skip "no kretprobe_example module (CONFIG_SAMPLE_KRETPROBES)"
cleanup
before=$(list_count ' kernel_clone\+0x')

# since MARK: the kernel log after the marker line
mark() { echo "kpt-samples: $1" > /dev/kmsg; }
since() { dmesg | sed -n "/kpt-samples: $1\$/,\$p"; }

mark kprobe
modprobe kprobe_example || fail "modprobe kprobe_example failed"
[ "$(list_count ' kernel_clone\+0x')" = $((before + 1)) ] ||
	{ cat "$D/list"; fail "no kernel_clone probe in kprobes/list while kprobe_example is loaded"; }
for _ in 1 2 3 4 5; do /bin/true; done
rmmod kprobe_example || fail "rmmod kprobe_example failed"
since kprobe > kp.log
expect_match kp.log 'planted kprobe at kernel_clone \(kernel_clone\+0x[0-9a-f]+/0x[0-9a-f]+\)' "no 'planted' line"
pre=$(grep -Ec '<kernel_clone> pre_handler: p->addr=kernel_clone\+0x[0-9a-f]+/0x[0-9a-f]+ ip=0x[0-9a-f]+ ' kp.log)
post=$(grep -Ec '<kernel_clone> post_handler: p->addr=kernel_clone\+0x[0-9a-f]+/0x[0-9a-f]+ ip=0x[0-9a-f]+ ' kp.log)
[ "$pre" -ge 5 ] || { cat kp.log; fail "$pre pre_handler lines for 5 forks"; }
[ "$post" -ge 5 ] || { cat kp.log; fail "$post post_handler lines for 5 forks"; }
expect_match kp.log 'kprobe at kernel_clone unregistered, [0-9]+ hits missed' "no 'unregistered' line"
[ "$(list_count ' kernel_clone\+0x')" = "$before" ] || { cat "$D/list"; fail "kprobe_example left its probe"; }

mark kretprobe
modprobe kretprobe_example func=kernel_clone || fail "modprobe kretprobe_example failed"
grep -Eq '  r  kernel_clone\+0x' "$D/list" ||
	{ cat "$D/list"; fail "no kernel_clone return probe in kprobes/list"; }
for _ in 1 2 3; do /bin/true; done
rmmod kretprobe_example || fail "rmmod kretprobe_example failed"
since kretprobe > krp.log
expect_match krp.log 'return probe planted on kernel_clone \(kernel_clone\+0x[0-9a-f]+/0x[0-9a-f]+\)' "no 'planted' line"
ret=$(grep -Ec 'kernel_clone returned [1-9][0-9]* after [0-9]+ ns' krp.log)
[ "$ret" -ge 3 ] || { cat krp.log; fail "$ret 'returned PID after N ns' lines for 3 forks"; }
expect_match krp.log 'return probe on kernel_clone unregistered, [0-9]+ calls missed' "no 'unregistered' line"
[ "$(list_count ' kernel_clone\+0x')" = "$before" ] || { cat "$D/list"; fail "kretprobe_example left its probe"; }
pass "kprobe_example: $pre pre / $post post lines; kretprobe_example: $ret return lines; nothing left"
