#!/bin/bash
# Probes at every byte offset of randomly chosen (seeded) kernel functions,
# all enabled at once with jump optimization on, while the system works:
# instruction boundaries are accepted and the rest refused with an errno,
# some probes get optimized, probes hit, the sysctl can be turned off and
# on under them, and everything goes away without a trace.
. "$KP_LIB"
seed=${KPT_MANY_SEED:-20261122}
nfuncs=${KPT_MANY_FUNCS:-24}
trap '[ ! -d "$T/events/kpt_many" ] || echo 0 > "$T/events/kpt_many/enable"; reset_tracing' EXIT
reset_tracing
sysctl=/proc/sys/debug/kprobes-optimization
echo 1 > "$sysctl"

python3 "$KP_REPO/guest-tests/progs/kprobe_many_offsets.py" "$seed" "$nfuncs" 400 > defs ||
	fail "defining the events failed (seed $seed)"
read -r accepted refused funcs < defs
[ "$accepted" -gt 0 ] || fail "no offset accepted"
[ "$refused" -gt 0 ] || fail "no offset refused: not every byte is an instruction boundary"
echo "seed $seed: $accepted accepted, $refused refused in: $funcs"

echo 1 > "$T/events/kpt_many/enable" || fail "cannot enable the events"
listed=$(grep -vc 'DISABLED' "$D/list" || true)
[ "$listed" -ge "$accepted" ] || fail "only $listed enabled probes listed for $accepted events"

# Work while the optimizer runs, then check that some probes got their jump.
opt=0
for _ in $(seq 1 30); do
	ls -R /etc /usr/lib/modules > /dev/null 2>&1
	cat /proc/kallsyms /proc/self/maps > /dev/null
	sh -c 'for i in 1 2 3; do /bin/true; done'
	opt=$(grep -c '\[OPTIMIZED\]' "$D/list" || true)
	[ "$opt" -gt 0 ] && break
	sleep 1
done
[ "$opt" -gt 0 ] || fail "no probe was optimized"

# The sysctl under live probes: off takes every jump away, on brings them back.
echo 0 > "$sysctl"
n=$(grep -c '\[OPTIMIZED\]' "$D/list" || true)
[ "$n" -eq 0 ] || fail "$n probes still optimized with the sysctl off"
ls -R /etc /usr/lib/modules > /dev/null 2>&1
echo 1 > "$sysctl"
for _ in $(seq 1 20); do
	ls /usr/bin > /dev/null
	n=$(grep -c '\[OPTIMIZED\]' "$D/list" || true)
	[ "$n" -gt 0 ] && break
	sleep 1
done
[ "$n" -gt 0 ] || fail "no probe optimized again after the sysctl went back on"

hits=$(awk '$1 ~ /^f[0-9]+_[0-9]+$/ { h += $2 } END { print h + 0 }' "$T/kprobe_profile")
hot_hits=$(awk '$1 ~ /^f0_[0-9]+$/ { h += $2 } END { print h + 0 }' "$T/kprobe_profile")
echo 0 > "$T/tracing_on"	# reading must not feed the buffer it reads
lines=$(grep -Ec ' f[0-9]+_[0-9]+: \(' "$T/trace" || true)

echo 0 > "$T/events/kpt_many/enable" || fail "cannot disable the events"
echo > "$T/kprobe_events" || fail "cannot remove the events"
left=$(grep -c . "$D/list" || true)
[ "$left" -eq 0 ] || { head "$D/list"; fail "$left probes left after removing every event"; }
[ "$hot_hits" -gt 0 ] || fail "no probe in ${funcs%% *}, which the test's own reads and writes run, was hit"
pass "seed $seed, $nfuncs functions: $accepted probes ($refused offsets refused), $opt optimized, $hits hits, $lines trace lines, clean removal"
