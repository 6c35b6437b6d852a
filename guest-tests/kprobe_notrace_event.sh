#!/bin/bash
# Without CONFIG_KPROBE_EVENTS_ON_NOTRACE, a kprobe event in a function the
# tracer cannot trace (notrace: lib/ is built that way) is refused with
# EINVAL and an error_log entry, and leaves nothing behind; a .cold part
# GCC split off a function is judged by that function.  And a uprobe
# line written to dynamic_events goes to uprobes, not to kprobes.
# shellcheck source=guest-tests/lib.sh
. "$KP_LIB"

trap reset_tracing EXIT
[ -w "$T/kprobe_events" ] || skip "no kprobe events"
reset_tracing

sym=kstrtoull
grep -Eq " $sym\$" /proc/kallsyms || skip "no $sym in kallsyms"
grep -q "^$sym\b" "$T/available_filter_functions" && skip "$sym is traceable in this kernel"
if zcat /proc/config.gz 2>/dev/null | grep -q '^CONFIG_KPROBE_EVENTS_ON_NOTRACE=y'; then
	skip "CONFIG_KPROBE_EVENTS_ON_NOTRACE=y allows notrace functions"
fi
expect_errno EINVAL bash -c "echo 'p:kprobes/kpt_nt $sym' >> $T/kprobe_events"
grep -q kpt_nt "$T/kprobe_events" && fail "the refused event is defined"
grep -Eq "  k  $sym\+" "$D/list" && fail "a probe on $sym is registered"
expect_match "$T/error_log" "Command: p:kprobes/kpt_nt $sym" "no error_log entry for the refused definition"

# A traceable function is fine.
echo 'p:kprobes/kpt_nt_ok vfs_read' >> "$T/kprobe_events" || fail "a probe on vfs_read is refused"
echo '-:kprobes/kpt_nt_ok' >> "$T/kprobe_events"

# A part GCC split off a function (NAME.cold) has no ftrace call of its own
# and is judged by NAME, when NAME is unique in vmlinux: allowed when NAME is
# traceable.  Candidates are tried in turn: a part may start with an
# instruction that cannot be probed (ud2), or NAME may be blacklisted.
# parts TRACED: such parts whose NAME is (1) or is not (0) traced.
parts() {
	awk -v want="$1" '
		FNR == 1 { file++ }
		file == 1 { if (NF == 1) traced[$1] = 1; next }
		file == 2 { if (NF == 3) seen[$3]++; next }
		NF == 3 && $2 ~ /^[tT]$/ && $3 ~ /^[a-z_][a-z0-9_]*[.]cold/ {
			base = $3; sub(/[.].*/, "", base)
			if (seen[base] != 1 || seen[$3] != 1 || ($3 in traced)) next
			if ((base in traced) == want) print $3
		}' "$T/available_filter_functions" /proc/kallsyms /proc/kallsyms | head -n 30
}
ok_part=
for part in $(parts 1); do
	grep -Eq "[[:space:]]${part%%.*}\$" "$D/blacklist" && continue
	if out=$(echo "p:kprobes/kpt_nt_part $part" 2>&1 >> "$T/kprobe_events"); then
		ok_part=$part
		echo '-:kprobes/kpt_nt_part' >> "$T/kprobe_events"
		break
	fi
	case $out in
	*"$(python3 -c 'import os; print(os.strerror(22))')"*)
		fail "a probe on $part, a part of the traceable ${part%%.*}, is refused with EINVAL" ;;
	esac
done
# And one of a module function for certain (kp_tool_target.part.0, see
# guest-tests/modules/kp_tool_target.c): kernels built for size have none.
mod_part=skipped
if modprobe kp_tool_target 2> /dev/null; then
	grep -q "^kp_tool_target \[kp_tool_target\]" "$T/available_filter_functions" ||
		fail "kp_tool_target() is not traced"
	echo 'p:kprobes/kpt_nt_part kp_tool_target:kp_tool_target.part.0' >> "$T/kprobe_events" ||
		{ rmmod kp_tool_target; fail "a probe on kp_tool_target.part.0, a part of the traced kp_tool_target(), is refused"; }
	echo '-:kprobes/kpt_nt_part' >> "$T/kprobe_events"
	rmmod kp_tool_target
	mod_part=ok
fi
nt_part=$(parts 0 | head -n 1)
if [ -n "$nt_part" ]; then
	expect_errno EINVAL bash -c "echo 'p:kprobes/kpt_nt_part $nt_part' >> $T/kprobe_events"
fi

up=skipped
if [ -w "$T/uprobe_events" ]; then
	echo "p:uprobes/kpt_up /bin/true:0x0" >> "$T/dynamic_events" ||
		fail "dynamic_events refused a uprobe line"
	grep -q '^p:uprobes/kpt_up /bin/true:' "$T/uprobe_events" ||
		fail "the uprobe line did not become a uprobe: $(cat "$T/dynamic_events")"
	grep -q kpt_up "$T/kprobe_events" && fail "the uprobe line became a kprobe event"
	echo '-:uprobes/kpt_up' >> "$T/dynamic_events" || fail "cannot remove the uprobe"
	up=ok
fi
pass "$sym refused with EINVAL and an error_log entry; .cold part of a traced function (${ok_part:-none found}) and kp_tool_target.part.0 ($mod_part) allowed, of an untraced one (${nt_part:-none found}) refused; uprobe line via dynamic_events: $up"
