#!/bin/bash
# perf probe (Debian's linux-perf on the host) with arguments and return
# values, without debug info (the test kernel has neither DWARF nor BTF,
# so arguments are named by register): an entry probe on vfs_read that
# fetches its count (%dx), one on do_sys_openat2 with dfd (%di) and the
# user-space path, and vfs_read%return with $retval.  'perf probe -l'
# lists them with their arguments; 'perf stat -e probe:*' counts dd's
# 1000 one-byte reads on both vfs_read probes; 'perf record' with a
# filter on the fetched values keeps exactly those 1000 (count == 1,
# retval == 1) and 'perf script' prints the values; 'perf probe -d *'
# removes everything.
# shellcheck source=guest-tests/lib.sh
. "$KP_LIB"
perf=$(ls /usr/bin/perf_[0-9]* 2>/dev/null | sort -V | tail -n 1)
[ -n "$perf" ] || perf=$(command -v perf) || fail "perf is not installed (harness/deps.sh installs linux-perf)"
ver=$("$perf" --version 2>&1 | head -n 1)
reset_tracing
base=$(wc -l < "$D/list")
cleanup() { "$perf" probe -q -d '*' > /dev/null 2>&1; reset_tracing; rm -f /tmp/kpa.data; }
trap cleanup EXIT
dd1000='/usr/bin/dd if=/dev/zero of=/dev/null bs=1 count=1000'

add() {
	echo > "$T/error_log"
	"$perf" probe -a "$1" > add.out 2>&1 && return 0
	cat add.out; cat "$T/error_log"
	fail "perf probe -a '$1' refused"
}
add 'vfs_read count=%dx:u64'
add 'do_sys_openat2 dfd=%di:s32 path=+0(%si):ustring'
add 'vfs_read%return ret=$retval:s64'
cat "$T/kprobe_events"
expect_match "$T/kprobe_events" '^p:probe/vfs_read .* count=%dx:u64$' "kprobe_events lacks vfs_read's count argument"
expect_match "$T/kprobe_events" '^p:probe/do_sys_openat2 .* dfd=%di:s32 path=\+0\(%si\):ustring$' "kprobe_events lacks do_sys_openat2's arguments"
expect_match "$T/kprobe_events" '^r[0-9]*:probe/vfs_read__return .* ret=\$retval:s64$' "kprobe_events lacks the \$retval argument"
[ "$(wc -l < "$D/list")" = $((base + 3)) ] || { cat "$D/list"; fail "expected 3 more probes in kprobes/list"; }

"$perf" probe -l > list.out 2>&1
cat list.out
expect_match list.out 'probe:vfs_read .*with count' "perf probe -l does not show vfs_read with count"
expect_match list.out 'probe:do_sys_openat2 .*with dfd path' "perf probe -l does not show do_sys_openat2 with dfd path"
expect_match list.out 'probe:vfs_read__return .*with ret' "perf probe -l does not show vfs_read%return with ret"

# Counting: both vfs_read probes see dd's 1000 reads (and the loader's few).
"$perf" stat -x, -e 'probe:*' -- /bin/sh -c "$dd1000 2> /dev/null" > /dev/null 2> stat.out ||
	{ cat stat.out; fail "perf stat -e 'probe:*' failed"; }
cat stat.out
c() { awk -F, -v e="$1" '$3 == e { print $1 }' stat.out; }
for e in probe:vfs_read probe:vfs_read__return; do
	v=$(c "$e")
	[ -n "$v" ] && [ "$v" -ge 1000 ] && [ "$v" -le 1100 ] || fail "perf stat counted '$v' $e for dd's 1000 reads"
done
[ "$(c probe:vfs_read)" = "$(c probe:vfs_read__return)" ] || fail "entries and returns of vfs_read differ"
v=$(c probe:do_sys_openat2)
[ -n "$v" ] && [ "$v" -ge 1 ] || fail "perf stat counted '$v' probe:do_sys_openat2"

# Values: a filter on the fetched fields keeps exactly dd's reads.
"$perf" record -q -c 1 -o /tmp/kpa.data -e probe:vfs_read --filter 'count == 1' \
	-e probe:vfs_read__return --filter 'ret == 1' \
	-e probe:do_sys_openat2 -- /bin/sh -c "$dd1000 2> /dev/null; cat /etc/hostname" > /dev/null 2> rec.out ||
	{ cat rec.out; fail "perf record failed"; }
"$perf" script -i /tmp/kpa.data > script.out 2>&1 || { cat script.out; fail "perf script failed"; }
ne=$(grep -Ec 'probe:vfs_read: .* count=1$' script.out || true)
nr=$(grep -Ec 'probe:vfs_read__return: .* ret=1$' script.out || true)
[ "$ne" = 1000 ] || { grep -m5 'vfs_read:' script.out; fail "$ne samples of vfs_read with count=1, expected 1000"; }
[ "$nr" = 1000 ] || { grep -m5 'vfs_read__return:' script.out; fail "$nr samples of vfs_read%return with ret=1, expected 1000"; }
grep -Eq 'probe:do_sys_openat2: .* dfd=-100 path="/etc/hostname"$' script.out ||
	{ grep do_sys_openat2 script.out | head; fail "no do_sys_openat2 sample with dfd=-100 path=\"/etc/hostname\""; }

"$perf" probe -d '*' > del.out 2>&1 || { cat del.out; fail "perf probe -d '*' failed"; }
grep -q . "$T/kprobe_events" && { cat "$T/kprobe_events"; fail "kprobe_events not empty after perf probe -d '*'"; }
[ "$(wc -l < "$D/list")" = "$base" ] || { cat "$D/list"; fail "probes left in kprobes/list after perf probe -d '*'"; }
pass "$ver: count/dfd/path/\$retval by register; perf stat: $(c probe:vfs_read) vfs_read entries = returns for dd's 1000 reads; perf record filters kept exactly 1000 count=1 and 1000 ret=1; the open of /etc/hostname with dfd=-100; removed cleanly"
