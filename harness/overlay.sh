#!/usr/bin/env bash
# Make the work tree: the pristine base plus every file we own.
#
# The work tree is a hard-link farm of the pristine tree (cheap, made once).
# Nothing may write through a link, so every file we place is first unlinked
# and then written anew; the pristine copy is therefore never touched.  Files
# are only rewritten when their content differs, which keeps make's view of
# timestamps stable and the build incremental.
. "$(dirname "$0")/lib.sh"
KP_STEP=overlay

[ "$KP_MODE" = ours ] || { kp_say "baseline mode: no overlay (building the pristine base)"; exit 0; }

src=$(kp_src)
work=$KPROBES_CACHE/work/$(basename "$src")
if [ ! -f "$work/.kp-work" ]; then
	kp_say "creating work tree $work (hard links to the pristine tree)"
	rm -rf "$work"
	mkdir -p "$(dirname "$work")"
	cp -al "$src" "$work"
	rm -f "$work/.kp-pristine"
	touch "$work/.kp-work"
fi

# Every path we placed last time: if one is no longer ours, the pristine
# version comes back.
placed=$work/.kp-placed
touch "$placed"
: > "$placed.new"

# install_file REL SRC: put SRC at REL in the work tree unless identical.
install_file() {
	local rel=$1 from=$2 to=$work/$1
	echo "$rel" >> "$placed.new"
	if [ -f "$to" ] && [ ! -L "$to" ] && cmp -s "$from" "$to"; then
		return 0
	fi
	mkdir -p "$(dirname "$to")"
	rm -f "$to"
	cp "$from" "$to"
	kp_say "placed $rel"
}

missing=0
while read -r entry; do
	case $entry in
	!*)
		rel=${entry#!}
		if [ -e "$KP_REPO/$rel" ]; then
			kp_say "$rel is both removed ('!' in harness/owned-files) and in the repository"
			missing=1
			continue
		fi
		echo "$rel" >> "$placed.new"
		if [ -e "$work/$rel" ]; then
			rm -f "$work/$rel"
			kp_say "removed base file $rel (ours: no longer in the tree)"
		fi
		;;
	*/)
		dir=${entry%/}
		if [ ! -d "$KP_REPO/$dir" ]; then
			kp_say "missing owned directory: $dir/ (declared in harness/owned-files)"
			missing=1
			continue
		fi
		# Base files in an owned directory that we do not ship go away.
		if [ -d "$src/$dir" ]; then
			(cd "$src/$dir" && find . -type f) | while read -r f; do
				f=${f#./}
				if [ ! -e "$KP_REPO/$dir/$f" ] && [ -e "$work/$dir/$f" ]; then
					rm -f "$work/$dir/$f"
					kp_say "removed base file $dir/$f (directory is ours)"
				fi
			done
		fi
		while read -r f; do
			install_file "$dir/${f#./}" "$KP_REPO/$dir/${f#./}"
		done < <(cd "$KP_REPO/$dir" && find . -type f | sort)
		;;
	*)
		if [ ! -f "$KP_REPO/$entry" ]; then
			kp_say "missing owned file: $entry (declared in harness/owned-files)"
			missing=1
			continue
		fi
		install_file "$entry" "$KP_REPO/$entry"
		;;
	esac
done < <(kp_owned)
[ "$missing" = 0 ] || kp_die "owned files are missing; refusing to build with the base's versions (BASELINE=1 builds the unmodified base)"

# Paths we placed before but no longer own: back to the pristine file.
sort -u "$placed.new" -o "$placed.new"
sort -u "$placed" | comm -23 - "$placed.new" | while read -r rel; do
	rm -f "$work/$rel"
	if [ -f "$src/$rel" ]; then
		ln "$src/$rel" "$work/$rel"
		kp_say "restored base file $rel"
	fi
done
mv "$placed.new" "$placed"

# Patches to other subsystems' files (MAINTAINERS.patch and patches/*.patch,
# diffs against the base) apply to private copies of the files they touch,
# never through the hard links.  When any of them changed, every file they
# touched last time goes back to the base's and all are applied again, in
# order.  None may touch a file we own, or one in a directory we own:
# change ours directly.
mapfile -t patchfiles < <(kp_patches)
for pf in "${patchfiles[@]}"; do
	while read -r rel; do
		while read -r entry; do
			entry=${entry#!}
			case $entry in
			*/) [ "${rel#"$entry"}" = "$rel" ] || kp_die "${pf#"$KP_REPO"/} changes $rel, in $entry, which we own" ;;
			*) [ "$rel" != "$entry" ] || kp_die "${pf#"$KP_REPO"/} changes $rel, which we own" ;;
			esac
		done < <(kp_owned)
	done < <(kp_patch_paths "$pf")
done
stamp=$work/.kp-patches-applied
patched=$work/.kp-patched
# A work tree from before patches/: its MAINTAINERS was the one patched.
if [ -f "$work/.kp-maintainers-applied" ]; then
	echo MAINTAINERS >> "$patched"
	rm -f "$work/.kp-maintainers-applied" "$stamp"
fi
cat "${patchfiles[@]}" /dev/null > "$stamp.new"
printf '%s\n' "${patchfiles[@]}" >> "$stamp.new"
if ! cmp -s "$stamp.new" "$stamp"; then
	# A private copy, not a link: its new time makes make rebuild what
	# the patch changed, and a file we now own stays ours.
	touch "$patched"
	sort -u "$patched" | while read -r rel; do
		grep -qxF "$rel" "$placed" && continue
		rm -f "$work/$rel"
		if [ -f "$src/$rel" ]; then cp "$src/$rel" "$work/$rel"; fi
	done
	: > "$patched"
	for pf in "${patchfiles[@]}"; do
		while read -r rel; do
			grep -qxF "$rel" "$patched" && continue
			rm -f "$work/$rel"
			if [ -f "$src/$rel" ]; then cp "$src/$rel" "$work/$rel"; fi
			echo "$rel" >> "$patched"
		done < <(kp_patch_paths "$pf")
		patch -s -p1 -d "$work" --no-backup-if-mismatch --reject-file=- < "$pf" ||
			kp_die "${pf#"$KP_REPO"/} does not apply to the base"
		kp_say "applied ${pf#"$KP_REPO"/}"
	done
	mv "$stamp.new" "$stamp"
else
	rm -f "$stamp.new"
fi
kp_say "work tree ready: $work ($(wc -l < "$placed") owned files)"
