#!/bin/bash
# A definition with nothing after its first word ("p", "p:NAME",
# "r2:GROUP/EVENT") names no place to probe: it is refused with EINVAL and
# an error_log entry, like every other bad line (found by the 100,000-line
# fuzz, which split such lines off with an embedded newline).
# shellcheck source=guest-tests/lib.sh
. "$KP_LIB"
[ -w "$T/error_log" ] || skip "no error_log"
trap reset_tracing EXIT
reset_tracing
for def in 'p' 'p:kpnp/only' 'r2:kpnp/ret' 'p:
kpnp/split vfs_read'; do
	echo > "$T/error_log"
	expect_errno EINVAL bash -c "echo '$def' >> $T/kprobe_events"
	grep -q 'trace_kprobe: error: Invalid probed address or symbol' "$T/error_log" ||
		fail "no error_log entry for '$def': $(cat "$T/error_log")"
done
! grep -q kpnp "$T/kprobe_events" || fail "an event was defined: $(cat "$T/kprobe_events")"
pass "p, p:NAME, r2:G/E and a line split before its place: EINVAL with an error_log entry each"
