// SPDX-License-Identifier: GPL-2.0
/*
 * Guest helper for guest-tests/kprobe_bpf_attach.sh: BPF kprobe programs on
 * our kprobe events, loaded and attached with the raw bpf() and
 * perf_event_open() system calls (no libbpf, no compiler for BPF needed).
 *
 *   kprobe_bpf keep   EVENT_ID RET N   a program that counts its runs in an
 *                                      array map and returns RET, on the
 *                                      tracefs kprobe event EVENT_ID, for N
 *                                      getppid() calls of this task
 *   kprobe_bpf override EVENT_ID ERRNO N   bpf_override_return(-ERRNO) on a
 *                                      tracefs kprobe event
 *   kprobe_bpf override-pmu SYM OFFS ERRNO N   the same through the kprobe
 *                                      perf PMU, on SYM+OFFS
 *
 * The perf event is opened for this task only, with a sample period of 1,
 * so its count is the number of samples perf was handed.  The helper
 * prints key=value lines (runs, samples, errnos, what getppid() returned)
 * for the script to assert on; it exits non-zero only when it could not
 * set things up at all.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "perf_count.h"

#define PMU_TYPE "/sys/bus/event_source/devices/kprobe/type"

#define INSN(c, d, s, o, i) \
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), \
			    .off = (o), .imm = (i) })

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static int counter_map(void)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_ARRAY;
	a.key_size = 4;
	a.value_size = 8;
	a.max_entries = 1;
	return sys_bpf(BPF_MAP_CREATE, &a);
}

static long long counter_value(int map)
{
	union bpf_attr a;
	uint32_t key = 0;
	uint64_t val = 0;

	memset(&a, 0, sizeof(a));
	a.map_fd = map;
	a.key = (uintptr_t)&key;
	a.value = (uintptr_t)&val;
	if (sys_bpf(BPF_MAP_LOOKUP_ELEM, &a))
		return -1;
	return val;
}

static char verifier_log[65536];

static int load(struct bpf_insn *insns, int n)
{
	union bpf_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_KPROBE;
	a.insns = (uintptr_t)insns;
	a.insn_cnt = n;
	/* bpf_override_return() is GPL-only */
	a.license = (uintptr_t)"GPL";
	a.log_buf = (uintptr_t)verifier_log;
	a.log_size = sizeof(verifier_log);
	a.log_level = 1;
	fd = sys_bpf(BPF_PROG_LOAD, &a);
	if (fd < 0)
		fprintf(stderr, "verifier: %s\n", verifier_log);
	return fd;
}

/* map[0] += 1; return ret; */
static int load_counting(int map, int ret)
{
	struct bpf_insn p[] = {
		INSN(BPF_ST | BPF_MEM | BPF_W, BPF_REG_10, 0, -4, 0),
		INSN(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_1, BPF_PSEUDO_MAP_FD,
		     0, map),
		INSN(0, 0, 0, 0, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_2, BPF_REG_10, 0, 0),
		INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_2, 0, 0, -4),
		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem),
		INSN(BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_0, 0, 2, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_1, 0, 0, 1),
		INSN(BPF_STX | BPF_ATOMIC | BPF_DW, BPF_REG_0, BPF_REG_1, 0,
		     BPF_ADD),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, ret),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};

	return load(p, sizeof(p) / sizeof(p[0]));
}

/* bpf_override_return(ctx, -err); return 0; */
static int load_override(int err)
{
	struct bpf_insn p[] = {
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_2, 0, 0, -err),
		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_override_return),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};

	return load(p, sizeof(p) / sizeof(p[0]));
}

static int open_event(uint32_t type, uint64_t config, const char *sym,
		      uint64_t offs)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = type;
	a.config = config;
	a.config1 = (uintptr_t)sym;
	a.config2 = offs;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_RAW;
	a.disabled = 1;
	return syscall(__NR_perf_event_open, &a, 0, -1, -1, 0);
}

/*
 * Run N getppid()s with PROG attached to EV; print how many returned the
 * real parent and how many failed with which errno.
 */
static int attach_and_call(int ev, int prog, long n)
{
	long i, real = 0, failed = 0;
	int err = 0;
	pid_t parent = getppid();

	if (ioctl(ev, PERF_EVENT_IOC_SET_BPF, prog)) {
		printf("attach_errno=%d\n", errno);
		return -1;
	}
	printf("attach_errno=0\n");
	ioctl(ev, PERF_EVENT_IOC_ENABLE, 0);
	for (i = 0; i < n; i++) {
		long r = syscall(SYS_getppid);

		if (r == parent) {
			real++;
		} else {
			failed++;
			err = r < 0 ? errno : -1;
		}
	}
	ioctl(ev, PERF_EVENT_IOC_DISABLE, 0);
	printf("real=%ld failed=%ld errno=%d samples=%lld\n", real, failed, err,
	       perf_count(ev));
	return 0;
}

static int pmu_type(void)
{
	FILE *f = fopen(PMU_TYPE, "r");
	int t = -1;

	if (f) {
		if (fscanf(f, "%d", &t) != 1)
			t = -1;
		fclose(f);
	}
	return t;
}

int main(int argc, char **argv)
{
	int map = -1, prog, ev;
	long n;

	if (argc == 5 && !strcmp(argv[1], "keep")) {
		map = counter_map();
		if (map < 0) {
			printf("error=map %d\n", errno);
			return 1;
		}
		prog = load_counting(map, atoi(argv[3]));
		ev = open_event(PERF_TYPE_TRACEPOINT, strtoull(argv[2], NULL, 0),
				NULL, 0);
		n = atol(argv[4]);
	} else if (argc == 5 && !strcmp(argv[1], "override")) {
		prog = load_override(atoi(argv[3]));
		ev = open_event(PERF_TYPE_TRACEPOINT, strtoull(argv[2], NULL, 0),
				NULL, 0);
		n = atol(argv[4]);
	} else if (argc == 6 && !strcmp(argv[1], "override-pmu")) {
		prog = load_override(atoi(argv[4]));
		ev = open_event(pmu_type(), 0, argv[2],
				strtoull(argv[3], NULL, 0));
		n = atol(argv[5]);
	} else {
		fprintf(stderr, "usage: see the comment at the top\n");
		return 2;
	}
	if (prog < 0) {
		printf("error=load %d\n", errno);
		return 1;
	}
	if (ev < 0) {
		printf("open_errno=%d\n", errno);
		return 0;
	}
	printf("open_errno=0\n");
	if (attach_and_call(ev, prog, n) == 0 && map >= 0)
		printf("runs=%lld\n", counter_value(map));
	return 0;
}
