#!/usr/bin/env bash
# Install Debian's linux-source-6.12 (pinned) and extract the pristine tree
# once into $KPROBES_CACHE/src.  The pristine tree is never written to again.
. "$(dirname "$0")/lib.sh"
KP_STEP=base

pkg=linux-source-6.12
have=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || true)
want=$KP_PIN_VERSION
if [ "$have" != "$want" ]; then
	export DEBIAN_FRONTEND=noninteractive
	[ -n "$(apt-cache madison "$pkg" 2>/dev/null)" ] || apt-get update -q >/dev/null
	if ! apt-cache madison "$pkg" | awk '{print $3}' | grep -qxF "$want"; then
		newest=$(apt-cache madison "$pkg" | awk '{print $3}' | sort -V | tail -n 1)
		[ -n "$newest" ] || kp_die "$pkg is not in the package registry at all"
		kp_say "WARNING: pinned $pkg $want is gone from the registry; using the newest, $newest"
		want=$newest
	fi
	if [ "$have" != "$want" ]; then
		kp_say "installing $pkg=$want"
		apt-get install -y -q --no-install-recommends "$pkg=$want" >/dev/null
	fi
fi

tarball=$(ls /usr/src/linux-source-6.12.tar.xz)
upver=${want%%-*}
dest=$KPROBES_CACHE/src/linux-$upver
if [ ! -f "$dest/.kp-pristine" ]; then
	kp_say "extracting $tarball into $dest (once)"
	rm -rf "$dest" "$dest.tmp"
	mkdir -p "$dest.tmp"
	tar -xf "$tarball" -C "$dest.tmp" --strip-components=1
	mv "$dest.tmp" "$dest"
	echo "$pkg $want" > "$dest/.kp-pristine"
fi
grep -q "^SUBLEVEL = ${upver##*.}\$" "$dest/Makefile" ||
	kp_die "$dest/Makefile does not say version $upver"
ln -sfn "$dest" "$KPROBES_CACHE/src/current"
kp_say "pristine base: $dest ($(cat "$dest/.kp-pristine"))"
