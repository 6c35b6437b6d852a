#!/usr/bin/env bash
# Configure $KP_OUT: the kernel's tinyconfig (allnoconfig + its tiny.config
# fragments) with our test fragment on top, via KCONFIG_ALLCONFIG, so that
# nothing we did not ask for is built.  KP_CONFIG_EXTRA may name one more
# fragment (used for the config matrix, e.g. KPROBES off).
. "$(dirname "$0")/lib.sh"
KP_STEP=config

tree=$(kp_tree)
frag=$KP_REPO/harness/config/kprobes-test.config
mkdir -p "$KP_OUT"
want=$KP_OUT/.kp-allconfig
{
	# tinyconfig, minus its size-over-speed choices: distributions build
	# with -O2 and ORC, and so do we.
	grep -hv -e OPTIMIZE_FOR_SIZE -e KERNEL_XZ -e SLUB_TINY -e UNWINDER_GUESS \
		"$tree/kernel/configs/tiny-base.config" "$tree/arch/x86/configs/tiny.config"
	cat "$frag"
	[ -z "${KP_CONFIG_EXTRA:-}" ] || cat "$KP_CONFIG_EXTRA"
	echo "CONFIG_LOCALVERSION=\"$KP_LOCALVERSION\""
	echo "# CONFIG_LOCALVERSION_AUTO is not set"
} > "$want.new"

if [ -f "$KP_OUT/.config" ] && cmp -s "$want.new" "$want"; then
	rm -f "$want.new"
	kp_say "config unchanged ($KP_OUT/.config)"
	exit 0
fi
kp_say "configuring $KP_MODE kernel in $KP_OUT"
# Keep the old .config's timestamp semantics to Kconfig: it rewrites only
# the per-symbol files that changed, so an unchanged result rebuilds nothing.
kp_make -s KCONFIG_ALLCONFIG="$want.new" allnoconfig >/dev/null

# Every symbol the fragments ask for must have stuck.  In a matrix variant
# the variant's own lines are what must hold; test-fragment lines that its
# choices switched off (KPROBES off takes KRETPROBES with it) are only named.
unstuck() {
	local line sym
	while read -r line; do
		case $line in
		CONFIG_*=*) grep -qxF "$line" "$KP_OUT/.config" || echo "not set as asked: $line" ;;
		"# CONFIG_"*" is not set")
			sym=${line#\# }; sym=${sym%% *}
			! grep -q "^$sym=" "$KP_OUT/.config" || echo "still set: $sym" ;;
		esac
	done < "$1"
}
if [ -n "${KP_CONFIG_EXTRA:-}" ]; then
	bad=$(unstuck "$KP_CONFIG_EXTRA")
	off=$(unstuck "$frag" | sed -n 's/^not set as asked: CONFIG_\([A-Z0-9_]*\)=.*/\1/p' | tr '\n' ' ')
	[ -z "$off" ] || kp_say "off in variant $(basename "$KP_CONFIG_EXTRA" .config): $off"
else
	bad=$(unstuck "$frag")
fi
if [ -n "$bad" ]; then
	echo "$bad" | while read -r l; do kp_say "$l"; done
	kp_die "Kconfig refused part of the fragment (see above)"
fi
mv "$want.new" "$want"
kp_say "configured: $(grep -c '=[ym]' "$KP_OUT/.config") options on"
