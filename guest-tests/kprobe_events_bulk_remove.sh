#!/bin/bash
# Deleting many kprobe events at once (one truncation, one write of many
# "-:" lines, one "-:GROUP/" line through dynamic_events, one line per
# write on one open file) shares one wait for all their probes; when the
# system call (for kprobe_events writes: the close) returns, nothing of
# them is left: no event, no events/ directory, no line in debugfs
# kprobes/list.
# Each round runs with the events enabled under load on every CPU first,
# so handlers are running until the events are disabled.  A batch that hits
# an enabled event fails with EBUSY at that line: the lines before it are
# done, the busy event and the lines after it stay; a truncation with an
# enabled event removes nothing.
# shellcheck source=guest-tests/lib.sh
. "$KP_LIB"
[ -w "$T/kprobe_events" ] || skip "no kprobe events"
load=()
trap 'kill "${load[@]}" 2>/dev/null; reset_tracing' EXIT
reset_tracing
base=$(wc -l < "$D/list")
dmesg_lines=$(dmesg | wc -l)

# Functions the load below calls, then others to make the batch large.
hot="vfs_read vfs_write ksys_read ksys_write do_sys_openat2 vfs_statx"
grep -E '^(vfs|do_sys|ksys|filp|path|d_|dput|iput|inode|generic_file)_[a-z_]+$' \
	"$T/available_filter_functions" | sort -u | grep -vw -e vfs_read -e vfs_write \
	-e ksys_read -e ksys_write -e do_sys_openat2 -e vfs_statx | head -n 300 > cold.txt

# define N PREFIX VIA: one event per line, p on even, r on odd lines
define() {
	local i=0 f
	for f in $hot $(cat cold.txt); do
		if (( i % 2 )); then
			echo "r:kpbr/$2$i $f" >> "$T/$3" 2>/dev/null && i=$((i + 1))
		else
			echo "p:kpbr/$2$i $f" >> "$T/$3" 2>/dev/null && i=$((i + 1))
		fi
		[ "$i" -lt "$1" ] || break
	done
	echo "$i"
}

# run_hot: enable, run the load on every CPU for a second, disable.
run_hot() {
	echo 1 > "$T/events/kpbr/enable" || fail "cannot enable kpbr"
	sleep 1
	echo 0 > "$T/events/kpbr/enable"
}

# gone WHAT: nothing of kpbr is left.
gone() {
	grep -q 'kpbr' "$T/kprobe_events" && fail "$1: kprobe_events still lists kpbr events"
	[ -d "$T/events/kpbr" ] && fail "$1: events/kpbr is still there"
	now=$(wc -l < "$D/list")
	[ "$now" = "$base" ] || fail "$1: kprobes/list has $now lines, $base before"
}

for _ in $(seq "$(nproc)"); do
	( while :; do cat /proc/self/status > /dev/null; ls / > /dev/null; done ) &
	load+=("$!")
done

# 1. truncation of kprobe_events
n=$(define 200 e kprobe_events)
[ "$n" -ge 100 ] || fail "only $n events defined"
run_hot
python3 - "$T" "$D" "$base" <<'EOF' || fail "truncation"
import os, sys
t, d, base = sys.argv[1], sys.argv[2], int(sys.argv[3])
fd = os.open(t + "/kprobe_events", os.O_WRONLY | os.O_TRUNC)
# The flush ran before open() returned: check before anything else runs.
lines = sum(1 for _ in open(d + "/list"))
os.close(fd)
if lines != base:
    sys.exit(f"FAIL: right after the truncation kprobes/list has {lines} lines, {base} before")
EOF
gone "truncation of $n events"
echo "truncated $n events"

# 2. one write(2) of many "-:" lines
n=$(define 200 w kprobe_events)
run_hot
python3 - "$T" "$n" <<'EOF' || fail "one write of -: lines"
import os, sys
t, n = sys.argv[1], int(sys.argv[2])
cmds = "".join(f"-:kpbr/w{i}\n" for i in range(n)).encode()
fd = os.open(t + "/kprobe_events", os.O_WRONLY | os.O_APPEND)
w = os.write(fd, cmds)
os.close(fd)
if w != len(cmds):
    sys.exit(f"FAIL: short write {w} of {len(cmds)}")
EOF
gone "one write of $n '-:' lines"
echo "removed $n events in one write"

# 3. one "-:GROUP/" line through dynamic_events
n=$(define 200 d dynamic_events)
run_hot
echo '-:kpbr/' >> "$T/dynamic_events" || fail "-:kpbr/ through dynamic_events"
gone "-:kpbr/ of $n events through dynamic_events"
echo "removed $n events with -:kpbr/"

# 4. one "-:" line per write on one open kprobe_events, as "perf probe -d"
# deletes: each event is gone from kprobe_events and events/ when its write
# returns, its probe from kprobes/list when the file is closed, or a second
# after the last deletion if the file stays open.
for how in close open; do
	n=$(define 100 "l$how" kprobe_events)
	run_hot
	python3 - "$T" "$D" "$n" "$base" "$how" <<'EOF' || fail "one line per write, then $how"
import os, sys, time
t, d, n, base, how = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
fd = os.open(t + "/kprobe_events", os.O_WRONLY | os.O_APPEND)
for i in range(n):
    os.write(fd, f"-:kpbr/l{how}{i}".encode())
    if i == 0:
        if f"kpbr/l{how}0 " in open(t + "/kprobe_events").read():
            sys.exit("FAIL: kprobe_events lists the event its write deleted")
        if os.path.exists(f"{t}/events/kpbr/l{how}0"):
            sys.exit("FAIL: the events/ directory of a deleted event is still there")
if how == "open":
    time.sleep(3)
    lines = sum(1 for _ in open(d + "/list"))
    if lines != base:
        sys.exit(f"FAIL: 3 s after the last deletion, the file still open, kprobes/list has {lines} lines, {base} before")
os.close(fd)
EOF
	gone "$n one-line writes on one file, then $how"
	echo "removed $n events one write each, file left $how"
done

# 5. a batch that meets an enabled event
for e in a b c; do echo "p:kpbr/$e vfs_read" >> "$T/kprobe_events"; done
echo 1 > "$T/events/kpbr/b/enable"
expect_errno EBUSY python3 -c "
import os
fd = os.open('$T/kprobe_events', os.O_WRONLY | os.O_APPEND)
os.write(fd, b'-:kpbr/a\n-:kpbr/b\n-:kpbr/c\n')"
grep -q '^p:kpbr/a ' "$T/kprobe_events" &&
	fail "the line before the busy event was not done"
for e in b c; do
	grep -q "^p:kpbr/$e " "$T/kprobe_events" || fail "kpbr/$e was removed with the batch"
done
expect_errno EBUSY bash -c "echo > $T/kprobe_events"
grep -q '^p:kpbr/c ' "$T/kprobe_events" || fail "a truncation with an enabled event removed kpbr/c"
[ "$(list_count 'vfs_read')" -ge 1 ] || fail "the busy event's probe is gone from kprobes/list"
echo 0 > "$T/events/kpbr/b/enable"
echo > "$T/kprobe_events" || fail "truncation after disabling"
gone "the busy batch"

kill "${load[@]}" 2>/dev/null
wait 2>/dev/null
dmesg | tail -n +$((dmesg_lines + 1)) > dmesg.new
grep -Ei 'BUG|WARNING|Oops|Call Trace' dmesg.new && fail "kernel log reports a problem"
pass "truncation, one write of -: lines and -:GROUP/ each removed their events whole before returning, one line per write on one file by its close (or within a second); a busy event stops its batch with EBUSY, lines before it done"
