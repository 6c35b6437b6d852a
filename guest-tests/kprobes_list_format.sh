#!/bin/bash
# debugfs kprobes/list: one line per probe, "ADDR  k|r  SYM+0xOFF  MOD FLAGS".
# The kprobe_example and kretprobe_example samples probe kernel_clone; their
# lines must have that shape, and ADDR must be kernel_clone's address + OFF.
# shellcheck source=guest-tests/lib.sh
. "$KP_LIB"

# shellcheck disable=SC2317 # called through trap
cleanup() { rmmod kretprobe_example kprobe_example 2>/dev/null; }
trap cleanup EXIT
[ -r "$D/list" ] || skip "no $D/list (debugfs or KPROBES missing)"

modprobe kprobe_example symbol=kernel_clone || fail "modprobe kprobe_example failed"
modprobe kretprobe_example func=kernel_clone || fail "modprobe kretprobe_example failed"
/bin/true

list=$(mktemp)
cat "$D/list" > "$list"
flags='(\[(GONE|DISABLED|OPTIMIZED|FTRACE)\])*'
# No module column for vmlinux: two spaces, one space for the module, a space.
expect_match "$list" "^[0-9a-f]+  k  kernel_clone\+0x[0-9a-f]+    $flags\$" \
	"no well-formed 'k' line for kernel_clone"
expect_match "$list" "^[0-9a-f]+  r  kernel_clone\+0x[0-9a-f]+    $flags\$" \
	"no well-formed 'r' line for kernel_clone"

# Every line, whoever registered it, has the same shape.
bad=$(grep -Evc "^[0-9a-f]+  [kr]  [^ ]+\+0x[0-9a-f]+  ([A-Za-z0-9_]+| ) $flags\$" "$list")
[ "$bad" = 0 ] || { cat "$list"; fail "$bad malformed line(s) in $D/list"; }

# Both probes sit past the entry's ENDBR (or at +0), on kernel_clone.
sym=$(awk '$3 == "kernel_clone" { print $1; exit }' /proc/kallsyms)
n=0
while read -r addr type where _; do
	n=$((n + 1))
	off=${where#kernel_clone+}
	case $off in
	0x0|0x4) ;;
	*) fail "$type probe on kernel_clone at offset $off, expected 0x0 or 0x4" ;;
	esac
	# Addresses read as zero when kallsyms values are hidden.
	if [ -n "$sym" ] && [ "$((16#$sym))" != 0 ] && [ "$((16#$addr))" != 0 ]; then
		[ "$((16#$addr))" = "$((16#$sym + off))" ] ||
			fail "$type probe address $addr is not kernel_clone ($sym) + $off"
	fi
done <<< "$(grep -E '  [kr]  kernel_clone\+' "$list")"
[ "$n" = 2 ] || fail "expected 2 kernel_clone lines, checked $n"
pass "kprobes/list shows 'k' and 'r' lines for kernel_clone in the documented format"
