// SPDX-License-Identifier: GPL-2.0
/*
 * Guest helper for guest-tests/kprobe_perf_pmu.sh: kprobes through the
 * "kprobe" perf PMU, the way perf and BPF loaders use it.
 *
 *   kprobe_pmu SYMBOL NREADS FILE ADDR BADSYMBOL
 *
 * Opens, for this task only, a counting event on SYMBOL's entry (config1 =
 * the name, config2 = offset 0), one with the PMU's retprobe bit set, and
 * one by address (config1 = 0, config2 = ADDR, hex); counts NREADS pread()s
 * of FILE; and tries BADSYMBOL, which must fail.  It prints key=value lines
 * for the script to assert on, among them how many lines of the debugfs
 * kprobes list name SYMBOL while the events are open and after they are
 * closed.  Exit status 0 unless something could not be set up at all.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "perf_count.h"

#define PMU "/sys/bus/event_source/devices/kprobe"

static int read_file(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (!fgets(buf, len, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/* Lines of the debugfs kprobes list whose symbol column is SYM+0x... */
static int list_lines(const char *sym)
{
	char line[512], pat[256];
	FILE *f = fopen("/sys/kernel/debug/kprobes/list", "r");
	int n = 0;

	if (!f)
		return -1;
	snprintf(pat, sizeof(pat), " %s+0x", sym);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, pat))
			n++;
	fclose(f);
	return n;
}

static int open_kprobe(int type, uint64_t config, const char *func,
		       uint64_t addr_or_offs)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	attr.config1 = (uint64_t)(uintptr_t)func;	/* kprobe_func */
	attr.config2 = addr_or_offs;	/* probe_offset, or kprobe_addr */
	attr.disabled = 1;
	attr.exclude_hv = 1;
	/* This task only, any CPU. */
	return syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
}

int main(int argc, char **argv)
{
	char buf[256], data[64];
	const char *sym, *file, *bad;
	int type, bit, n, i, fd, fds[3], nfds, errno_bad;
	uint64_t addr;

	if (argc != 6) {
		fprintf(stderr, "usage: %s SYMBOL NREADS FILE ADDR BADSYMBOL\n", argv[0]);
		return 2;
	}
	sym = argv[1];
	n = atoi(argv[2]);
	file = argv[3];
	addr = strtoull(argv[4], NULL, 16);
	bad = argv[5];

	if (read_file(PMU "/type", buf, sizeof(buf))) {
		printf("error=no " PMU "/type\n");
		return 3;
	}
	type = atoi(buf);
	/* "config:N": the bit of attr.config that asks for a return probe. */
	if (read_file(PMU "/format/retprobe", buf, sizeof(buf)) ||
	    sscanf(buf, "config:%d", &bit) != 1) {
		printf("error=cannot parse " PMU "/format/retprobe '%s'\n", buf);
		return 3;
	}
	printf("type=%d retprobe_bit=%d\n", type, bit);
	printf("list_before=%d\n", list_lines(sym));

	fds[0] = open_kprobe(type, 0, sym, 0);
	if (fds[0] < 0) {
		printf("error=entry event on %s: %s (errno %d)\n", sym, strerror(errno), errno);
		return 1;
	}
	fds[1] = open_kprobe(type, 1ULL << bit, sym, 0);
	if (fds[1] < 0) {
		printf("error=return event on %s: %s (errno %d)\n", sym, strerror(errno), errno);
		return 1;
	}
	/* Refused by address: reported, and the other two still checked. */
	fds[2] = open_kprobe(type, 0, NULL, addr);
	if (fds[2] < 0)
		printf("addr_errno=%d addr_error=%s\n", errno, strerror(errno));
	nfds = fds[2] < 0 ? 2 : 3;
	printf("opened=%d list_open=%d\n", nfds, list_lines(sym));

	fd = open(file, O_RDONLY);
	if (fd < 0) {
		printf("error=open %s: %s\n", file, strerror(errno));
		return 1;
	}
	for (i = 0; i < nfds; i++)
		ioctl(fds[i], PERF_EVENT_IOC_ENABLE, 0);
	for (i = 0; i < n; i++)
		if (pread(fd, data, sizeof(data), 0) < 0) {
			printf("error=pread: %s\n", strerror(errno));
			return 1;
		}
	for (i = 0; i < nfds; i++)
		ioctl(fds[i], PERF_EVENT_IOC_DISABLE, 0);
	close(fd);
	printf("reads=%d entry=%lld return=%lld addr=%lld\n", n,
	       perf_count(fds[0]), perf_count(fds[1]),
	       nfds > 2 ? perf_count(fds[2]) : -1LL);
	for (i = 0; i < nfds; i++)
		close(fds[i]);
	/* The local probes go away with the last reference to the events. */
	printf("list_closed=%d\n", list_lines(sym));

	fd = open_kprobe(type, 0, bad, 0);
	errno_bad = errno;
	if (fd >= 0) {
		printf("bad_entry=accepted\n");
		close(fd);
	} else {
		printf("bad_entry=%d\n", errno_bad);
	}
	fd = open_kprobe(type, 1ULL << bit, bad, 0);
	errno_bad = errno;
	if (fd >= 0) {
		printf("bad_return=accepted\n");
		close(fd);
	} else {
		printf("bad_return=%d\n", errno_bad);
	}
	printf("list_end=%d\n", list_lines(sym));
	return 0;
}
