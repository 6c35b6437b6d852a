#!/bin/bash
# debugfs kprobes/blacklist: "0x<start>-0x<end>\t<symbol>" per line (perf
# parses it), listing NOKPROBE_SYMBOL() functions such as notify_die.
# shellcheck source=guest-tests/lib.sh
. "$KP_LIB"

[ -r "$D/blacklist" ] || skip "no $D/blacklist"
bl=$(mktemp)
cat "$D/blacklist" > "$bl"
[ -s "$bl" ] || fail "blacklist is empty"
bad=$(grep -Pvc '^0x[0-9a-f]+-0x[0-9a-f]+\t[^\s]+( \[[A-Za-z0-9_]+\])?$' "$bl")
[ "$bad" = 0 ] || { grep -Pv '^0x[0-9a-f]+-0x[0-9a-f]+\t[^\s]+( \[[A-Za-z0-9_]+\])?$' "$bl" | head; fail "$bad malformed line(s)"; }

for s in notify_die notifier_call_chain atomic_notifier_call_chain bsearch; do
	grep -Pq "\t$s\$" "$bl" || fail "$s (NOKPROBE_SYMBOL) is not listed"
done

# Ranges are non-empty and contain their symbol's address.
addr=$(awk '$3 == "notify_die" { print $1; exit }' /proc/kallsyms)
range=$(grep -P '\tnotify_die$' "$bl" | head -n 1 | cut -f 1)
start=${range%-*} end=${range#*-}
if [ "$((start))" != 0 ]; then
	[ "$((start))" -lt "$((end))" ] || fail "empty range $range for notify_die"
	if [ -n "$addr" ] && [ "$((16#$addr))" != 0 ]; then
		if [ "$((start))" -gt "$((16#$addr))" ] || [ "$((16#$addr))" -ge "$((end))" ]; then
			fail "notify_die at $addr is outside its range $range"
		fi
	fi
fi
pass "$(wc -l < "$bl") blacklist lines, all '0x<start>-0x<end>\\t<symbol>'"
