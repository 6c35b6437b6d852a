#!/bin/bash
# trace-cmd (Debian's package on the host) on kprobe events we define: an
# entry and a return event on a module function with a known result
# (kp_tool_target(N) returns 2N+1) and an entry event on do_sys_openat2
# with its dfd and user-space path.  'trace-cmd list -e' lists them,
# 'trace-cmd record -e kptc:*' records one command, and 'trace-cmd report'
# shows each call once with the right field values, read through the
# events' format files by libtraceevent.
# shellcheck source=guest-tests/lib.sh
. "$KP_LIB"
command -v trace-cmd > /dev/null || fail "trace-cmd is not installed (harness/deps.sh installs it)"
ver=$(trace-cmd --version 2>&1 | grep -m1 -o 'trace-cmd version [^ ]*')
cleanup() {
	[ ! -d "$T/events/kptc" ] || echo 0 > "$T/events/kptc/enable"
	reset_tracing
	rmmod kp_tool_target 2> /dev/null
	rm -f /tmp/kptc.dat
}
trap cleanup EXIT
reset_tracing
modprobe kp_tool_target || fail "cannot load kp_tool_target"

cat >> "$T/kprobe_events" <<'DEFS' || fail "cannot define the kptc events"
p:kptc/entry kp_tool_target n=%di:s64
r:kptc/exit kp_tool_target ret=$retval:s64
p:kptc/open do_sys_openat2 dfd=%di:s32 path=+0(%si):ustring
DEFS

trace-cmd list -e kptc > list.out 2>&1 || { cat list.out; fail "trace-cmd list -e kptc failed"; }
cat list.out
for e in entry exit open; do
	grep -qx "kptc:$e" list.out || fail "trace-cmd list -e does not list kptc:$e"
done

call=/sys/module/kp_tool_target/parameters/call
trace-cmd record -q -e 'kptc:*' -o /tmp/kptc.dat -- /bin/sh -c \
	"for n in 1 2 -4 100 2; do echo \$n > $call; done; cat /etc/hostname > /dev/null" \
	> record.out 2>&1 || { cat record.out; fail "trace-cmd record failed"; }
trace-cmd report -i /tmp/kptc.dat > report.out 2>&1 || { cat report.out; fail "trace-cmd report failed"; }
grep -E 'entry:|exit:|open:' report.out | grep -v 'open:.*path="[^/]' | head -n 20

# count EVENT FIELDS: report lines of EVENT that end in FIELDS
count() { grep -Ec -- " $1: .* $2\$" report.out || true; }
for n in 1 -4 100; do
	[ "$(count entry "n=$n")" = 1 ] || fail "kptc:entry with n=$n: $(count entry "n=$n") lines, expected 1"
	r=$((2 * n + 1))
	[ "$(count exit "ret=$r")" = 1 ] || fail "kptc:exit with ret=$r: $(count exit "ret=$r") lines, expected 1"
done
[ "$(count entry 'n=2')" = 2 ] || fail "kptc:entry with n=2: $(count entry 'n=2') lines, expected 2"
[ "$(count exit 'ret=5')" = 2 ] || fail "kptc:exit with ret=5: $(count exit 'ret=5') lines, expected 2"
nent=$(grep -c ' entry: ' report.out)
nexit=$(grep -c ' exit: ' report.out)
[ "$nent" = 5 ] && [ "$nexit" = 5 ] || fail "$nent kptc:entry and $nexit kptc:exit lines, expected 5 each"
# Like the kernel's own print format, a return shows "(FUNC <- CALLER)" as
# addresses; FUNC is the address the entry events show.
fn=$(sed -n 's/.* entry: *(\([0-9a-f]*\)) n=1$/\1/p' report.out)
[ -n "$fn" ] || fail "no address in the kptc:entry line"
grep -Eq " exit: +\($fn <- [0-9a-f]+\) ret=3\$" report.out ||
	fail "kptc:exit does not show ($fn <- caller) ret=3"
grep -Eq ' open: .* dfd=-100 path="/etc/hostname"$' report.out ||
	fail "no kptc:open with dfd=-100 (AT_FDCWD) path=\"/etc/hostname\""
pass "$ver: lists the 3 kptc events; record/report: 5 entries and 5 returns of kp_tool_target with n and 2n+1 right, the open of /etc/hostname with dfd=-100"
