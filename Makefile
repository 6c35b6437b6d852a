# kprobes for Linux 6.12: build, boot and test harness.
#
#   make run      set up, build our kernel, boot it, show kprobes working
#   make check    build and boot, run every test, print the results table
#   make check-full   check, plus cross builds of all eleven other kprobes
#                 architectures (not only arm64, riscv64, powerpc64le, s390x),
#                 the whole arm64 kernel booted with our KUnit suite, and
#                 the booted configuration rows (clang+kCFI, RT, KCSAN,
#                 BTF; harness/rows.sh)
#   make shell    interactive shell in the guest
#   make bench    our kprobes against the base kernel's, both built and
#                 booted; table in bench/results/ and README (QUICK=1: short)
#   make series   our files as a git format-patch series with a cover letter
#                 against the base, in series/ (SERIES_DIR=DIR: elsewhere)
#   make series-check   apply the series to the base with git am, building
#                 vmlinux and modules after each patch (a full build; not
#                 part of check, whose static rows checkpatch each patch)
#
# Switches:  BASELINE=1   the unmodified base kernel (upstream's kprobes)
#            T=SUITE[:GLOB]   one suite or some tests (kunit, ftrace, guest,
#                         static), e.g. T=ftrace:kprobe/kprobe_args*;
#                         T=debug: only the debug kernel; T=config[:NAME]:
#                         the booted configuration rows; T=peer[:TOOL]:
#                         the tools' own suites (bpf, perf, bcc) on the
#                         btf row (harness/peer.sh; also in check-full)
#            DEBUG=0      check without the debug kernel (KASAN, lockdep,
#                         kmemleak: a build and a boot of its own), which
#                         every full check runs
#            ACCEL=tcg|kvm|auto   how QEMU runs the guest (default tcg)
#            KPROBES_CACHE=DIR    where trees, builds and runs live
#                         (default ~/.cache/kprobes-dev)
# Each pipeline step is a target of its own and can run alone:
#   deps base overlay config build static

H := harness
export BASELINE ACCEL KPROBES_CACHE KP_CANARY KP_TIMEOUT QUICK SERIES_DIR KP_CROSS_FULL KP_FULL DEBUG
T ?= all

.PHONY: all run shell check check-full bench deps base overlay config build static clean-runs help \
	series series-check

all: help

help:
	@sed -n '3,/^$$/p' Makefile | sed 's/^# \{0,1\}//'

deps:
	@$(H)/deps.sh
base: deps
	@$(H)/base.sh
overlay: base
	@$(H)/overlay.sh
config: overlay
	@$(H)/config.sh
build: config
	@$(H)/build.sh

run: build
	@$(H)/boot.sh demo

shell: build
	@$(H)/boot.sh shell

static: base
	@$(H)/check.sh static

check: build
	@$(H)/check.sh $(T)

# check, with the cross rows of every kprobes architecture Debian has a
# compiler for (harness/config/cross-full/) and their compilers.
check-full:
	@$(MAKE) --no-print-directory check KP_CROSS_FULL=1 KP_FULL=1 DEBUG=1

# Both kernels (each step incremental), then the benchmark (bench/run.sh).
bench:
	@$(MAKE) --no-print-directory build BASELINE=1
	@$(MAKE) --no-print-directory build BASELINE=0
	@bench/run.sh

# The patch series (harness/series.sh) and its per-patch build check.
series: base
	@$(H)/series.sh
series-check: base
	@$(H)/series-check.sh

clean-runs:
	rm -rf "$${KPROBES_CACHE:-$$HOME/.cache/kprobes-dev}/runs"
