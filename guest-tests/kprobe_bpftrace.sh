#!/bin/bash
# bpftrace (the host's Debian package) attaches BPF programs to a kprobe and
# a kretprobe on vfs_read: both count the reads of a short command, and
# once bpftrace has exited no probe is left in kprobes/list or
# kprobe_events.
# shellcheck source=guest-tests/lib.sh
. "$KP_LIB"
command -v bpftrace > /dev/null || skip "bpftrace is not installed (harness/deps.sh installs it)"
ver=$(bpftrace --version 2>&1 | head -n 1)
reset_tracing
before=$(list_count ' vfs_read\+0x')

# bt NAME PROGRAM: run PROGRAM around 'cat /etc/hostname', output in NAME.out
# (-c wants a path: with a merged /usr, 'cat' matches /bin/cat and /usr/bin/cat)
bt() {
	timeout 300 bpftrace -e "$2" -c '/usr/bin/cat /etc/hostname' > "$1.out" 2>&1
	local rc=$?
	cat "$1.out"
	[ "$rc" = 0 ] || {
		grep -qi 'BTF\|kernel headers' "$1.out" &&
			echo "note: bpftrace mentions BTF/kernel headers"
		fail "bpftrace ($1) exited with $rc: $(grep -m1 -Ei 'error|fail|cannot|could not' "$1.out" | cut -c1-120)"
	}
}

bt entry 'kprobe:vfs_read { @ = count(); }'
n=$(sed -n 's/^@: \([0-9][0-9]*\)$/\1/p' entry.out)
[ -n "$n" ] && [ "$n" -gt 0 ] || fail "kprobe:vfs_read counted '${n}' reads"
[ "$(list_count ' vfs_read\+0x')" = "$before" ] ||
	{ cat "$D/list"; fail "kprobe left in kprobes/list after bpftrace exited"; }

bt ret 'kretprobe:vfs_read { @n = count(); @r = hist(retval); }'
m=$(sed -n 's/^@n: \([0-9][0-9]*\)$/\1/p' ret.out)
[ -n "$m" ] && [ "$m" -gt 0 ] || fail "kretprobe:vfs_read counted '${m}' returns"
grep -q '^@r:' ret.out || fail "no @r histogram of vfs_read's return values"
grep -Eq '^\[[^]]*\) +[1-9][0-9]* \|' ret.out || grep -Eq '^\[[^]]*\] +[1-9][0-9]* \|' ret.out ||
	fail "the @r histogram has no non-empty bucket"
[ "$(list_count ' vfs_read\+0x')" = "$before" ] ||
	{ cat "$D/list"; fail "kretprobe left in kprobes/list after bpftrace exited"; }
grep -q . "$T/kprobe_events" && { cat "$T/kprobe_events"; fail "bpftrace left kprobe_events entries"; }
pass "$ver: kprobe:vfs_read count $n, kretprobe:vfs_read count $m with a retval histogram; no probe left"
