#!/bin/bash
# kprobe_events survives thousands of malformed and random definitions
# (guest-tests/progs/kprobe_events_fuzz.py: seeded, repeatable; KP_FUZZ_SEED
# and KP_FUZZ_COUNT override the seed and the count, default 5000): every
# line the kprobe parser refuses leaves an error_log entry naming it, every
# accepted one can be deleted, and afterwards nothing is left: kprobe_events
# and dynamic_events hold no kprobe, debugfs kprobes/list no probe of the
# fuzz, events/ no new directory, and the kernel log no BUG, WARNING or Oops.
# shellcheck source=guest-tests/lib.sh
. "$KP_LIB"
[ -w "$T/kprobe_events" ] || skip "no kprobe events"
[ -w "$T/error_log" ] || skip "no error_log"
reset_tracing
ls "$T/events" | sort > events.before
cp "$D/list" list.before
dmesg_lines=$(dmesg | wc -l)

start=$(date +%s)
python3 "$KP_REPO/guest-tests/progs/kprobe_events_fuzz.py" > fuzz.out 2>&1
rc=$?
secs=$(( $(date +%s) - start ))
cat fuzz.out
totals=$(grep -m1 '^seed=' fuzz.out)
[ -n "$totals" ] || fail "the fuzzer did not finish (exit $rc): $(tail -n 1 fuzz.out)"
[ "$rc" = 0 ] || fail "$(grep -c '^PROBLEM:' fuzz.out) problems shown, e.g. $(grep -m1 '^PROBLEM:' fuzz.out | cut -c1-120)"

grep -q . "$T/kprobe_events" && { cat "$T/kprobe_events"; fail "kprobe_events not empty after the fuzz"; }
grep -Eq '^[pr][0-9]*:' "$T/dynamic_events" &&
	{ cat "$T/dynamic_events"; fail "dynamic_events still has kprobe lines"; }
# The fuzz probes only its own symbols: any list line not there before is a leak.
if ! diff list.before "$D/list" > list.diff; then
	cat list.diff
	grep -q '^>' list.diff && fail "kprobes/list gained lines during the fuzz"
fi
ls "$T/events" | sort > events.after
comm -13 events.before events.after > events.new
[ -s events.new ] && fail "events/ directories left: $(tr '\n' ' ' < events.new)"
dmesg | tail -n +$((dmesg_lines + 1)) > dmesg.new
if grep -Ei 'BUG|WARNING|Oops|Call Trace' dmesg.new > bad; then
	head -n 20 bad
	fail "kernel log during the fuzz: $(head -n 1 bad)"
fi
reset_tracing
pass "$totals (${secs}s in all)"
