#!/bin/bash
# Text that jump labels and static calls own is refused to a probe, as
# their tables say.  With the series' patches to jump_label.c and
# static_call_inline.c the core kernel's tables are searched by address,
# and their init sites count only while the kernel boots, when the KUnit
# suite kprobes_text_reserved first runs.  Here it runs again, through
# KUnit's debugfs, on the running kernel: every case must pass again.
# shellcheck source=guest-tests/lib.sh
. "$KP_LIB"

k=/sys/kernel/debug/kunit/kprobes_text_reserved
[ -d /sys/kernel/debug/kunit ] || skip "no KUnit debugfs (KUNIT_DEBUGFS)"
[ -w "$k/run" ] || skip "no kprobes_text_reserved suite (x86_64 only)"
echo run > "$k/run" || fail "cannot run the suite"
res=$(cat "$k/results")
echo "$res"
cases=$(grep -E '^[[:space:]]*ok [0-9]+ kprobe_' <<< "$res" | grep -cv '# SKIP' || true)
bad=$(grep -E '^[[:space:]]*not ok [0-9]+ ' <<< "$res" || true)
[ -z "$bad" ] || fail "after boot: $bad"
[ "${cases:-0}" -ge 2 ] || fail "after boot: only ${cases:-0} cases passed"
grep -qE '^[[:space:]]*ok [0-9]+ kprobe_refused_jump_label_site' <<< "$res" ||
	fail "kprobe_refused_jump_label_site did not pass"
pass "$cases cases pass again after boot"
