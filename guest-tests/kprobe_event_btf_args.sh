#!/bin/bash
# Probe events that read BTF (CONFIG_PROBE_EVENTS_BTF_ARGS), as bpftrace
# and perf users write them: an argument by its name in the source, a
# field through a pointer, $retval typed by the function's return type;
# and a probe placed by address, where there is no function for BTF to
# describe: $retval still works, and a name is refused with an error_log
# entry rather than a bare EINVAL; a return probe by address that is no
# function's entry is refused at once, as "r SYM+OFFS" is.
# shellcheck source=guest-tests/lib.sh
. "$KP_LIB"
fn=vfs_read
grep -q '<argname>\[->field' "$T/README" ||
	skip "no BTF arguments in this kernel (CONFIG_PROBE_EVENTS_BTF_ARGS)"
[ -r /sys/kernel/btf/vmlinux ] || skip "no /sys/kernel/btf/vmlinux"
reset_tracing
# shellcheck disable=SC2317 # called through trap
cleanup() {
	echo 0 > "$T/events/kpbtf/enable" 2> /dev/null
	for e in in out by_addr; do
		echo "-:kpbtf/$e" >> "$T/dynamic_events" 2> /dev/null
	done
	reset_tracing
}
trap cleanup EXIT
define() { echo "$1" >> "$T/kprobe_events" || fail "'$1' was refused: $(tail -n 2 "$T/error_log")"; }

addr=$(awk -v f="$fn" '$3 == f && $2 ~ /^[Tt]$/ { print $1; exit }' /proc/kallsyms)
{ [ -n "$addr" ] && [ "$addr" != 0000000000000000 ]; } || fail "no address for $fn in /proc/kallsyms"

define "p:kpbtf/in $fn count pos_ok=pos"
define "r:kpbtf/out $fn \$retval"
define "r:kpbtf/by_addr 0x$addr \$retval"
# The fields' types come from BTF: size_t count, ssize_t return.
grep -q 'field:u64 count;' "$T/events/kpbtf/in/format" || {
	cat "$T/events/kpbtf/in/format"; fail "count is not typed from BTF"; }
grep -q 'field:s64 arg1;' "$T/events/kpbtf/out/format" || {
	cat "$T/events/kpbtf/out/format"; fail "\$retval is not typed as ssize_t (s64) from BTF"; }
echo 1 > "$T/events/kpbtf/enable"
echo > "$T/trace"
dd if=/dev/zero of=/dev/null bs=4093 count=5 2> /dev/null
echo 0 > "$T/events/kpbtf/enable"
n_in=$(grep -Ec " dd-[0-9]+ .* in: \($fn\+0x[0-9a-f]+/.*\) count=(4093|0xffd) pos_ok=0x[0-9a-f]+" "$T/trace")
n_out=$(grep -Ec " dd-[0-9]+ .* out: \(.*<- $fn\) arg1=4093\$" "$T/trace")
n_addr=$(grep -Ec " dd-[0-9]+ .* by_addr: \(.*<- $fn\) arg1=(4093|0xffd)\$" "$T/trace")
[ "$n_in $n_out $n_addr" = "5 5 5" ] || {
	grep ' dd-' "$T/trace" | tail -n 12
	fail "dd's 5 reads of 4093 bytes: $n_in entries with count, $n_out returns, $n_addr returns by address (want 5 each)"; }

# By address past the entry, there is no function whose arguments a name
# could be: refused, and error_log says why.  A return probe there is
# refused at its place.
refused() {	# refused LINE MESSAGE
	echo > "$T/error_log"
	echo "$1" >> "$T/kprobe_events" 2> /dev/null && fail "'$1' was accepted"
	grep -q "$2" "$T/error_log" || { cat "$T/error_log"; fail "'$1' refused with no '$2' in error_log"; }
	grep -q 'kpbtf/bad' "$T/kprobe_events" && fail "the refused '$1' was defined"
	return 0
}
inside=$(printf '%x' $((0x$addr + 1)))
refused "p:kpbtf/bad 0x$inside count" 'BTF is not available or not supported'
refused "r:kpbtf/bad 0x$inside \$retval" 'Retprobe address must be an function entry'
pass "BTF arguments on $fn: count and pos by name, \$retval as s64, $n_in/$n_out/$n_addr lines; by address: the entry's \$retval typed by BTF, a name or a return probe inside the function refused with an error_log entry"
