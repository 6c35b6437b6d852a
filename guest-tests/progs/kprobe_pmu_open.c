// SPDX-License-Identifier: GPL-2.0
/*
 * Guest helper for guest-tests/kprobe_unprivileged.sh: one attempt to open
 * a counting event of the "kprobe" perf PMU on SYMBOL's entry, or on its
 * return with "return", for this task.  Prints "errno=N" (0 when the event
 * opened; it is closed again at once) and exits 0, so that the caller can
 * assert on the errno; exit 2 when the PMU's type cannot be read.
 *
 *   kprobe_pmu_open SYMBOL [return]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct perf_event_attr attr;
	FILE *f = fopen("/sys/bus/event_source/devices/kprobe/type", "r");
	int type, fd;

	if (argc < 2 || !f || fscanf(f, "%d", &type) != 1) {
		fprintf(stderr, "usage: kprobe_pmu_open SYMBOL [return] (and a kprobe PMU)\n");
		return 2;
	}
	fclose(f);
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	/* format/retprobe is config:0 */
	attr.config = argc > 2 && !strcmp(argv[2], "return");
	attr.config1 = (uint64_t)(uintptr_t)argv[1];
	attr.disabled = 1;
	attr.exclude_hv = 1;
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	printf("errno=%d\n", fd < 0 ? errno : 0);
	if (fd >= 0)
		close(fd);
	return 0;
}
