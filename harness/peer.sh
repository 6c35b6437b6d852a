#!/usr/bin/env bash
# The peer suites: what the tools' own authors run against kprobes, built
# from the base tree unmodified and booted on the btf row's kernel
# (harness/config/rows/btf.config), ours or the base's (BASELINE=1).
#   bpf   tools/testing/selftests/bpf's test_progs, every test that
#         attaches kprobes or kretprobes (harness/guest/peer.sh lists them)
#   perf  tools/perf built from the base tree: 'perf test' on its probe
#         cases (the vfs_getname scripts, the libc uprobe one and the
#         perftool-testsuite probe cases) and 'perf probe' by variable
#         name and source line on the DWARF kernel
#   bcc   Debian's bpfcc-tools on kernel and module functions, checked
#         by the values they print
# The guest half is harness/guest/peer.sh; results are rows "peer
# TOOL/CASE" of the btf row (report.py: btf-peer:TOOL/CASE).
#
# Host half: install what the suites need, then build them once into
# $KPROBES_CACHE/peer (a copy of the base tree, as the builds write next
# to their sources): test_progs against the btf kernel's BTF, its test
# modules (bpf_testmod, ...) against each kernel, and perf.  test_progs
# and perf are built once (again when the test list or the base tree
# changes), the test modules again whenever their kernel was rebuilt.
# It says which tools it built on its last line ("peer suites ready: ...")
# and goes on past a tool that failed to build; the exit status is that
# of the last failure.
# "peer.sh deps" installs the packages only (make check-full, before any
# guest runs).
# Usage: peer.sh build [TOOL...] | peer.sh deps
export KP_ROW=${KP_ROW:-btf}
. "$(dirname "$0")/lib.sh"
KP_STEP=peer
action=${1:-}
case $action in build|deps) ;; *) kp_die "usage: peer.sh build [bpf|perf|bcc]... | peer.sh deps" ;; esac
shift
tools=${*:-bpf perf bcc}
peer=$KPROBES_CACHE/peer
src=$peer/src
kout=$KP_OUT

need=(clang-19 lld-19 llvm-19 dwarves pkg-config libelf-dev zlib1g-dev libzstd-dev
      libcap-dev libssl-dev libdw-dev libtraceevent-dev bpfcc-tools python3-bpfcc)
missing=()
for p in "${need[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2> /dev/null | grep -q 'ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	kp_say "installing ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		"${missing[@]}" > "$KPROBES_CACHE/peer-apt.log" 2>&1 ||
		kp_die "could not install ${missing[*]} (see $KPROBES_CACHE/peer-apt.log)"
fi
[ "$action" = build ] || exit 0
[ -f "$kout/vmlinux" ] || kp_die "no btf kernel in $kout: build the btf row first (rows.sh)"

# The base tree without its drivers, sound and docs (the suites use none).
# The copy names the tree it came from; another base tree starts afresh.
base=$(kp_src)
if [ "$(cat "$src/.kp-peer-copy" 2> /dev/null)" != "$base" ]; then
	kp_say "copying the base tree's sources to $src (once)"
	rm -rf "$src" "$peer/perf" "$peer"/bpf-mods-*
	rsync -a --exclude=/Documentation --exclude=/drivers --exclude=/sound "$base/" "$src/"
	echo "$base" > "$src/.kp-peer-copy"
fi

# The BPF toolchain under its unversioned names, as the selftests call it.
mkdir -p "$peer/bin"
for t in clang llc llvm-strip llvm-objcopy llvm-readelf llvm-config ld.lld; do
	command -v "$t-19" > /dev/null || kp_die "no $t-19 (Debian's clang-19, llvm-19, lld-19)"
	ln -sfn "$(command -v "$t-19")" "$peer/bin/$t"
done
export PATH=$peer/bin:$PATH

# The suites' own builds take the kernel builds' lock (lib.sh's kp_make):
# in make check-full they would slow the builds beside them.
locked() { flock "${KP_BUILD_LOCK:-$KPROBES_CACHE/build.lock}" "$@"; }

# newer OUT SRC...: OUT exists and no SRC is newer.
newer() {
	local out=$1 f
	shift
	[ -e "$out" ] || return 1
	for f in "$@"; do
		[ ! "$f" -nt "$out" ] || return 1
	done
}

# test_progs compiles every program under progs/ against the kernel's
# vmlinux.h and links every test of prog_tests/; many need networking
# the btf kernel leaves out.  The copy keeps the tests of
# harness/peer-bpf-tests and the programs they open, unmodified; make is
# told that the light and linked skeletons, which no kprobe test uses,
# are not wanted.
prune_bpf() {
	local st=$1 orig list
	orig=$base/tools/testing/selftests/bpf
	list=$(grep -v '^#' "$KP_REPO/harness/peer-bpf-tests" | cut -d' ' -f1)
	[ "$(cat "$st/.kp-tests" 2> /dev/null)" != "$list" ] || return 0
	rsync -a --delete "$orig/prog_tests/" "$st/prog_tests/"
	rsync -a --delete "$orig/progs/" "$st/progs/"
	# shellcheck disable=SC2086 # the list, one test per word
	python3 - "$st" $list <<'EOF'
import os, re, sys
st, tests = sys.argv[1], set(sys.argv[2:])
progs = set()
for name in os.listdir(os.path.join(st, "prog_tests")):
    path = os.path.join(st, "prog_tests", name)
    if name.endswith(".c") and name[:-2] not in tests:
        os.unlink(path)
    elif name.endswith(".c"):
        text = open(path, errors="replace").read()
        progs |= set(re.findall(r"\b(\w+)\.(?:l?skel\.h|bpf\.o)", text))
for name in os.listdir(os.path.join(st, "progs")):
    if name.endswith(".c") and name[:-2] not in progs:
        os.unlink(os.path.join(st, "progs", name))
EOF
	rm -f "$st/test_progs" "$st/.kp-built"
	echo "$list" > "$st/.kp-tests"
}

build_bpf() {
	local st=$src/tools/testing/selftests/bpf mods=$peer/bpf-mods-$KP_MODE m log
	log=$peer/bpf-build.log
	prune_bpf "$st"
	# test_progs, once: its programs are CO-RE, so one build serves both
	# kernels; its modules (bpf_testmod.ko, ...) are per kernel below.
	if [ ! -x "$st/test_progs" ] || [ ! -f "$st/.kp-built" ]; then
		kp_say "building the BPF selftests' test_progs (log: $log)"
		local start=$SECONDS
		locked make -C "$st" -j"$(nproc)" VMLINUX_BTF="$kout/vmlinux" KDIR="$kout" \
			LSKELS= LSKELS_EXTRA= LINKED_SKELS= test_progs > "$log" 2>&1 || {
			kp_say "error: test_progs did not build: $(grep -m1 -E 'error' "$log" | cut -c1-160)"
			return 1
		}
		touch "$st/.kp-built"
		kp_say "test_progs built in $(( SECONDS - start )) s"
	fi
	if ! newer "$mods/bpf_testmod.ko" "$kout/vmlinux"; then
		kp_say "building bpf_testmod and its siblings against $kout"
		rm -rf "$mods"
		mkdir -p "$mods"
		for m in bpf_testmod bpf_test_no_cfi bpf_test_modorder_x bpf_test_modorder_y; do
			cp -r "$st/$m" "$mods/$m.src"
			kp_make -s M="$mods/$m.src" modules > "$mods/$m.log" 2>&1 || {
				kp_say "error: $m did not build against $kout (see $mods/$m.log)"
				rm -f "$mods/bpf_testmod.ko"
				return 1
			}
			cp "$mods/$m.src/$m.ko" "$mods/"
		done
	fi
}

build_perf() {
	local out=$peer/perf log=$peer/perf-build.log
	if [ ! -x "$out/perf" ]; then
		kp_say "building perf from the base tree (log: $log)"
		local start=$SECONDS
		mkdir -p "$out"
		# Without the language bindings, GUI and BPF skeletons: the probe
		# cases need DWARF (libdw) and libtraceevent.
		locked make -C "$src/tools/perf" O="$out" -j"$(nproc)" NO_LIBPYTHON=1 NO_LIBPERL=1 \
			NO_JVMTI=1 NO_GTK2=1 NO_SLANG=1 NO_LIBBABELTRACE=1 NO_LIBNUMA=1 \
			NO_LIBAUDIT=1 BUILD_BPF_SKEL=0 NO_SHELLCHECK=1 > "$log" 2>&1 || {
			kp_say "error: perf did not build: $(grep -m1 -E 'error' "$log" | cut -c1-160)"
			rm -f "$out/perf"
			return 1
		}
		kp_say "perf built in $(( SECONDS - start )) s"
	fi
	"$out/perf" version --build-options | grep -E 'dwarf: *\[ on' > /dev/null || {
		kp_say "error: perf was built without DWARF support (see $log)"
		return 1
	}
}

# perf probe and bcc look for the kernel's build tree (vmlinux with DWARF,
# the headers) at /lib/modules/RELEASE/build, which the guest mounts from
# the installed modules.
# bcc takes the sources from the source link beside it.
release=$(cat "$kout/include/config/kernel.release")
ln -sfn "$kout" "$kout/modroot/lib/modules/$release/build"
ln -sfn "$(readlink -f "$kout/source")" "$kout/modroot/lib/modules/$release/source"

ready=
rc=0
for t in $tools; do
	case $t in
	bpf|perf) if "build_$t"; then ready+=" $t"; else rc=1; fi ;;
	bcc) ready+=" bcc" ;;
	*) kp_say "error: no peer suite $t (bpf, perf, bcc)"; rc=1 ;;
	esac
done
kp_say "peer suites ready:${ready:- none}"
exit "$rc"
