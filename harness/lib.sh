# shellcheck shell=bash
# Shared settings for the harness scripts.  Sourced, never run.
#
# Everything persistent lives under $KPROBES_CACHE (outside the repo):
#   src/linux-$VER/        pristine base tree, extracted once, never modified
#   work/linux-$VER/       base + our files (hard-link farm, see overlay.sh)
#   out/ours, out/base     O= build directories for our kernel / the baseline
#   ccache/                compiler cache shared by both builds
#   runs/<mode>-<stamp>/   console logs and results of each boot

set -euo pipefail

KP_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KPROBES_CACHE=${KPROBES_CACHE:-$HOME/.cache/kprobes-dev}
# The Debian package version we build against.  If the registry has dropped
# it, base.sh says so and falls back to the newest 6.12.y it can find.
KP_PIN_VERSION=${KP_PIN_VERSION:-6.12.117-1~deb12u1}

# BASELINE=1 selects the unmodified base kernel (upstream's kprobes).
if [ "${BASELINE:-0}" = 1 ]; then
	KP_MODE=base
else
	KP_MODE=ours
fi
KP_OUT=$KPROBES_CACHE/out/$KP_MODE
# KP_OUT_DIR and KP_TREE_DIR point a build at another output directory and
# work tree (a private copy of the work tree to try a new owned file in,
# without disturbing the main build).
KP_OUT=${KP_OUT_DIR:-$KP_OUT}
# KP_VARIANT=NAME: a config-matrix variant (harness/config/matrix/NAME.config
# on top of the test fragment), built in a directory of its own.
if [ -n "${KP_VARIANT:-}" ]; then
	KP_OUT=$KP_OUT-$KP_VARIANT
	KP_CONFIG_EXTRA=$KP_REPO/harness/config/matrix/$KP_VARIANT.config
fi
KP_LOCALVERSION=-kp$KP_MODE
# KP_ROW=NAME: a booted configuration row (harness/config/rows/NAME.config
# on top of the test fragment; see rows.sh), in a directory of its own.
# Its "# make:" line adds make variables: a toolchain (LLVM=-19), or an
# object a directory's Makefile leaves out of an instrumentation
# (KCSAN_SANITIZE_trace_kprobe.o=y; a command-line variable wins).
KP_ROW_MAKE=()
KP_LLVM=
if [ -n "${KP_ROW:-}" ]; then
	KP_CONFIG_EXTRA=$KP_REPO/harness/config/rows/$KP_ROW.config
	[ -f "$KP_CONFIG_EXTRA" ] || { echo "no configuration row $KP_ROW" >&2; exit 1; }
	read -r -a KP_ROW_MAKE < <(sed -n 's/^# make: *//p' "$KP_CONFIG_EXTRA"; echo)
	KP_LLVM=$(printf '%s\n' "${KP_ROW_MAKE[@]}" | sed -n 's/^LLVM=//p')
	if grep -q '^# build: none' "$KP_CONFIG_EXTRA"; then
		KP_CONFIG_EXTRA=
	else
		KP_OUT=$KP_OUT-$KP_ROW
		KP_LOCALVERSION=-kp$KP_MODE-$KP_ROW
	fi
	KP_RUN_SUFFIX=-$KP_ROW
fi
# KP_DEBUG=1: the debug kernel (harness/config/debug.config on top of the
# test fragment: KASAN, lockdep, kmemleak, ...), in a directory of its own.
if [ "${KP_DEBUG:-0}" = 1 ]; then
	KP_OUT=$KP_OUT-debug
	KP_CONFIG_EXTRA=$KP_REPO/harness/config/debug.config
	KP_LOCALVERSION=-kp$KP_MODE-debug
	KP_RUN_SUFFIX=-debug
fi
# Run directories and the latest-* link are named after this (a private
# KP_OUT_DIR build gets runs of its own).
KP_RUN_NAME=$KP_MODE${KP_OUT_DIR:+-$(basename "$KP_OUT_DIR")}${KP_RUN_SUFFIX:-}

export CCACHE_DIR=${CCACHE_DIR:-$KPROBES_CACHE/ccache}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
# Both trees are compiled with O=, so the same source seen through the
# pristine and the work tree should still hit the cache.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$KPROBES_CACHE}
export CCACHE_NOHASHDIR=1

kp_say() { printf '[%s] %s\n' "${KP_STEP:-harness}" "$*" >&2; }
kp_die() { printf '[%s] error: %s\n' "${KP_STEP:-harness}" "$*" >&2; exit 1; }

# The pristine tree (set by base.sh; read back here by every later step).
kp_src() {
	local f=$KPROBES_CACHE/src/current
	[ -L "$f" ] || kp_die "no base tree yet: run 'make base' first"
	readlink -f "$f"
}

# The tree a build of the current mode compiles.
kp_tree() {
	if [ -n "${KP_TREE_DIR:-}" ]; then
		echo "$KP_TREE_DIR"
	elif [ "$KP_MODE" = base ]; then
		kp_src
	else
		local w
		w=$KPROBES_CACHE/work/$(basename "$(kp_src)")
		[ -d "$w" ] || kp_die "no work tree yet: run 'make overlay' first"
		echo "$w"
	fi
}

# Kernel make in the current mode, with ccache and all cores.  Builds are
# serialised through one lock: two kernel builds on two cores only slow
# each other down (helpers compiling single objects take the same lock).
kp_make() {
	mkdir -p "$KPROBES_CACHE"
	local cc=gcc
	[ -z "$KP_LLVM" ] || cc=clang$KP_LLVM
	flock "${KP_BUILD_LOCK:-$KPROBES_CACHE/build.lock}" make -C "$(kp_tree)" O="$KP_OUT" \
		${KP_ROW_MAKE[@]+"${KP_ROW_MAKE[@]}"} CC="ccache $cc" HOSTCC="ccache $cc" LOCALVERSION= -j"$(nproc)" "$@"
}

# The owned-file list without comments and blank lines.
kp_owned() {
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$KP_REPO/harness/owned-files" | grep -v '^$' || true
}

# kp_patches: our patches to other subsystems' files, in the order they
# apply: MAINTAINERS.patch, then patches/*.patch by name.  Each is a diff
# against the base (git format-patch output or a plain diff, -p1).
kp_patches() {
	local f
	[ -f "$KP_REPO/MAINTAINERS.patch" ] && echo "$KP_REPO/MAINTAINERS.patch"
	for f in "$KP_REPO"/patches/*.patch; do
		[ -f "$f" ] && echo "$f"
	done
	return 0
}

# kp_patch_paths PATCH: the files PATCH changes, creates or deletes, one per
# line, from its "--- a/PATH" and "+++ b/PATH" lines (git's diff format,
# which patches/ must use).  A path that could leave the tree stops here.
kp_patch_paths() {
	local p
	sed -n 's/^\(--- a\|+++ b\)\/\([^[:space:]]*\).*/\2/p' "$1" | sort -u |
		while read -r p; do
			case /$p/ in
			*/../*|//*) kp_die "$1: path $p leaves the tree" ;;
			esac
			echo "$p"
		done
}

# kp_our_functions OUT: the functions our objects in the build directory
# OUT define, one per line, as backtraces name them (kmemleak's in
# debug.sh, KCSAN's in kcsan.sh).
kp_our_functions() {
	local o f
	for o in kernel/kprobes.o kernel/kprobes/*.o kernel/trace/trace_kprobe.o lib/test_kprobes/*.o \
		arch/x86/kernel/kprobes/*.o samples/kprobes/*.o; do
		# shellcheck disable=SC2086 # the glob is expanded in the build
		for f in $1/$o; do
			[ -f "$f" ] && nm --defined-only "$f" | awk '$2 ~ /^[tTwW]$/ { print $3 }'
		done
	done | sort -u
}
