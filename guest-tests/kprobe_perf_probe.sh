#!/bin/bash
# perf probe (Debian's linux-perf on the host) without debuginfo: an entry
# probe and a %return probe on vfs_read from kallsyms, listed by
# 'perf probe -l', counting the reads of a command under 'perf stat', and
# sampled by 'perf record' / 'perf script', and removed by 'perf probe -d', leaving nothing in kprobe_events or
# kprobes/list.
# shellcheck source=guest-tests/lib.sh
. "$KP_LIB"
# The real binary (a versioned perf_X.Y where the wrapper script needs one).
perf=$(ls /usr/bin/perf_[0-9]* 2>/dev/null | sort -V | tail -n 1)
[ -n "$perf" ] || perf=$(command -v perf) || skip "perf is not installed (linux-perf)"
ver=$("$perf" --version 2>&1 | head -n 1)
case $ver in "perf version"*) ;; *) skip "'$perf' does not run here: $ver" ;; esac
reset_tracing
before=$(list_count ' vfs_read\+0x')
cleanup() { "$perf" probe -q -d 'probe:*' > /dev/null 2>&1; reset_tracing; }
trap cleanup EXIT

# add SPEC: perf probe -a SPEC; on failure, show what perf wrote and
# error_log, and return 1 with the reason in $why.
add() {
	echo > "$T/error_log"
	"$perf" probe -a "$1" > add.out 2>&1 && { cat add.out; return 0; }
	cat add.out
	"$perf" probe -v -a "$1" 2>&1 | grep -Ei 'writing event|error|failed' | head -n 20
	echo "--- error_log:"; cat "$T/error_log"
	why="$1 refused: $(sed -n 's/.*error: //p' "$T/error_log" | head -n 1) ($(sed -n 's/^ *Command: //p' "$T/error_log" | head -n 1))"
	return 1
}
add vfs_read || fail "$why"
# The return probe: checked to the end even if refused, the entry one goes on.
retfail=
add 'vfs_read%return' || retfail=$why
cat "$T/kprobe_events"
grep -Eq '^p:probe/vfs_read ' "$T/kprobe_events" || fail "no p:probe/vfs_read in kprobe_events"
if [ -z "$retfail" ]; then
	grep -Eq '^r[0-9]*:probe/vfs_read__return ' "$T/kprobe_events" ||
		fail "no r:probe/vfs_read__return in kprobe_events"
fi
"$perf" probe -l > list.out 2>&1
cat list.out
grep -q 'probe:vfs_read ' list.out || fail "perf probe -l does not show probe:vfs_read"
nprobes=1 evs="-e probe:vfs_read"
if [ -z "$retfail" ]; then
	grep -q 'probe:vfs_read__return ' list.out || fail "perf probe -l does not show probe:vfs_read__return"
	nprobes=2 evs="$evs -e probe:vfs_read__return"
fi
[ "$(list_count ' vfs_read\+0x')" = $((before + nprobes)) ] ||
	{ cat "$D/list"; fail "expected $nprobes more vfs_read probes in kprobes/list"; }

# shellcheck disable=SC2086 # $evs is a list of options
"$perf" stat -x, $evs -- cat /etc/hostname > /dev/null 2> stat.out ||
	{ cat stat.out; fail "perf stat failed"; }
cat stat.out
ent=$(awk -F, '$3 == "probe:vfs_read" { print $1 }' stat.out)
ret=$(awk -F, '$3 == "probe:vfs_read__return" { print $1 }' stat.out)
[ -n "$ent" ] && [ "$ent" -gt 0 ] 2>/dev/null || fail "perf stat counted '$ent' probe:vfs_read hits"
if [ -z "$retfail" ]; then
	[ -n "$ret" ] && [ "$ret" -gt 0 ] 2>/dev/null || fail "perf stat counted '$ret' probe:vfs_read__return hits"
fi

# Sampling: every hit of the entry probe is a sample 'perf script' shows.
"$perf" record -q -e probe:vfs_read -c 1 -o /tmp/kpt-perf.data -- cat /etc/hostname > /dev/null 2> rec.out ||
	{ cat rec.out; fail "perf record failed"; }
"$perf" script -i /tmp/kpt-perf.data > script.out 2>&1 || { cat script.out; fail "perf script failed"; }
samples=$(grep -Ec 'probe:vfs_read:' script.out || true)
[ "$samples" -gt 0 ] || { head script.out; fail "perf record took no probe:vfs_read samples"; }
grep -Eq '^ *cat .*probe:vfs_read:' script.out || { head script.out; fail "no sample from the recorded cat"; }

"$perf" probe -d 'probe:*' > del.out 2>&1 || { cat del.out; fail "perf probe -d 'probe:*' failed"; }
cat del.out
grep -q . "$T/kprobe_events" && { cat "$T/kprobe_events"; fail "kprobe_events not empty after perf probe -d"; }
[ "$(list_count ' vfs_read\+0x')" = "$before" ] ||
	{ cat "$D/list"; fail "probe left in kprobes/list after perf probe -d"; }
[ -d "$T/events/probe" ] && fail "events/probe still exists after perf probe -d"
"$perf" probe -l 2>&1 | grep -q 'probe:vfs_read' && fail "perf probe -l still lists probe:vfs_read"
[ -z "$retfail" ] || fail "$retfail; entry probe fine ($ent hits, removed)"
pass "$ver: probe:vfs_read $ent hits, probe:vfs_read__return $ret hits under perf stat; $samples samples under perf record; removed cleanly"
