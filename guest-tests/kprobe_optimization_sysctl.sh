#!/bin/bash
# Jump optimization seen from user space: an event probe without
# post_handler on kernel_clone ends up [OPTIMIZED] in debugfs kprobes/list,
# its detour page shows in /proc/kallsyms as kprobe_optinsn_page, and
# /proc/sys/debug/kprobes-optimization reads 0/1: writing 0 puts the
# breakpoint back at once (the probe keeps counting hits), writing 1
# optimizes it again.
# shellcheck source=guest-tests/lib.sh
. "$KP_LIB"

S=/proc/sys/debug/kprobes-optimization
# shellcheck disable=SC2317 # called through trap
cleanup() { echo 1 > "$S"; reset_tracing; }
trap cleanup EXIT
[ -w "$S" ] || skip "no $S"
[ -w "$T/kprobe_events" ] || skip "no kprobe events"
reset_tracing

[ "$(cat "$S")" = 1 ] || fail "$S reads '$(cat "$S")' at start, expected 1"
hits() { awk '$1 == "kpt_opt" { print $2 }' "$T/kprobe_profile"; }
forks() { local _; for _ in 1 2 3 4 5; do /bin/true; done; }
site='  k  kernel_clone\+'

# Not every instruction of kernel_clone can be jumped over: find one.
found=
for off in $(seq 0 63); do
	echo "p:kprobes/kpt_opt kernel_clone+$off" > "$T/kprobe_events" 2>/dev/null || continue
	echo 1 > "$T/events/kprobes/kpt_opt/enable" || fail "cannot enable kernel_clone+$off"
	if wait_optimized "$site" 2; then
		found=$off
		break
	fi
	echo 0 > "$T/events/kprobes/kpt_opt/enable"
	echo > "$T/kprobe_events"
done
[ -n "$found" ] || fail "no probe in kernel_clone+0..63 was optimized"
grep -q 'kprobe_optinsn_page' /proc/kallsyms || fail "no kprobe_optinsn_page in /proc/kallsyms"

forks
h1=$(hits)
[ "${h1:-0}" -ge 5 ] || fail "optimized probe: $h1 hits after 5 forks"

echo 0 > "$S" || fail "cannot write 0 to $S"
[ "$(cat "$S")" = 0 ] || fail "$S reads '$(cat "$S")' after writing 0"
optimized "$site" && fail "still [OPTIMIZED] after writing 0: $(grep kernel_clone "$D/list")"
forks
h2=$(hits)
[ "$h2" -ge $((h1 + 5)) ] || fail "sysctl 0: hits went from $h1 to $h2 after 5 forks"

echo 1 > "$S" || fail "cannot write 1 to $S"
[ "$(cat "$S")" = 1 ] || fail "$S reads '$(cat "$S")' after writing 1"
wait_optimized "$site" 10 || fail "not [OPTIMIZED] again after writing 1: $(grep kernel_clone "$D/list")"
forks
h3=$(hits)
[ "$h3" -ge $((h2 + 5)) ] || fail "sysctl 1: hits went from $h2 to $h3 after 5 forks"
pass "kernel_clone+$found optimized, 0 unoptimizes, 1 optimizes again ($h1/$h2/$h3 hits)"
