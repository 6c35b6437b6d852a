// SPDX-License-Identifier: GPL-2.0
/*
 * Records the perf side-band events the kernel emits about its own text
 * while a command runs, as perf record (--kcore, Intel PT) sees them:
 * PERF_RECORD_TEXT_POKE (attr.text_poke) and PERF_RECORD_KSYMBOL
 * (attr.ksymbol), from a dummy event on every online CPU (side-band
 * records go to the events of the CPU where the kernel emitted them).
 *
 *   perf_sideband CMD [ARG...]
 *
 * runs CMD, then prints one line per record:
 *   poke addr=0x... old=HEX new=HEX
 *   ksym addr=0x... len=N type=N unregister=0|1 name=NAME
 * and "lost N" for records the kernel could not store.  Exit status: 0,
 * or 1 if the events could not be opened or CMD failed.
 */
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define RING_PAGES	1024	/* 4 MiB per CPU: the command is not drained */
#define MAX_CPUS	64

struct ring {
	int fd;
	struct perf_event_mmap_page *meta;
	uint8_t *data;
	uint64_t size;
};

static void hex(const uint8_t *b, unsigned int n)
{
	unsigned int i;

	if (!n)
		printf("-");
	for (i = 0; i < n; i++)
		printf("%02x", b[i]);
}

static void print_record(const struct perf_event_header *h)
{
	const uint8_t *p = (const uint8_t *)(h + 1);
	uint64_t addr;
	uint32_t len;
	uint16_t old_len, new_len, type, flags;

	memcpy(&addr, p, 8);
	switch (h->type) {
	case PERF_RECORD_TEXT_POKE:
		memcpy(&old_len, p + 8, 2);
		memcpy(&new_len, p + 10, 2);
		printf("poke addr=0x%llx old=", (unsigned long long)addr);
		hex(p + 12, old_len);
		printf(" new=");
		hex(p + 12 + old_len, new_len);
		printf("\n");
		break;
	case PERF_RECORD_KSYMBOL:
		memcpy(&len, p + 8, 4);
		memcpy(&type, p + 12, 2);
		memcpy(&flags, p + 14, 2);
		printf("ksym addr=0x%llx len=%u type=%u unregister=%d name=%s\n",
		       (unsigned long long)addr, len, type,
		       !!(flags & PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER),
		       (const char *)(p + 16));
		break;
	case PERF_RECORD_LOST:
		memcpy(&addr, p + 8, 8);
		printf("lost %llu\n", (unsigned long long)addr);
		break;
	}
}

static void drain(struct ring *r)
{
	uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->meta->data_tail;
	static uint8_t buf[65536];
	struct perf_event_header h;
	uint64_t i, off;

	while (tail < head) {
		off = tail % r->size;
		for (i = 0; i < sizeof(h); i++)
			((uint8_t *)&h)[i] = r->data[(off + i) % r->size];
		if (h.size < sizeof(h))
			break;
		for (i = 0; i < h.size && i < sizeof(buf); i++)
			buf[i] = r->data[(off + i) % r->size];
		print_record((const struct perf_event_header *)buf);
		tail += h.size;
	}
	__atomic_store_n(&r->meta->data_tail, tail, __ATOMIC_RELEASE);
}

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE);
	int ncpu = sysconf(_SC_NPROCESSORS_ONLN), cpu, n = 0, status;
	struct ring rings[MAX_CPUS];
	struct perf_event_attr attr;
	pid_t child;

	if (argc < 2) {
		fprintf(stderr, "usage: %s CMD [ARG...]\n", argv[0]);
		return 2;
	}
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.text_poke = 1;
	attr.ksymbol = 1;
	for (cpu = 0; cpu < ncpu && cpu < MAX_CPUS; cpu++) {
		struct ring *r = &rings[n];
		void *m;

		r->fd = syscall(SYS_perf_event_open, &attr, -1, cpu, -1, 0);
		if (r->fd < 0) {
			perror("perf_event_open");
			return 1;
		}
		r->size = (uint64_t)RING_PAGES * page;
		m = mmap(NULL, (RING_PAGES + 1) * page, PROT_READ | PROT_WRITE,
			 MAP_SHARED, r->fd, 0);
		if (m == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
		r->meta = m;
		r->data = (uint8_t *)m + page;
		n++;
	}
	fflush(stdout);
	child = fork();
	if (child == 0) {
		execvp(argv[1], argv + 1);
		perror("execvp");
		_exit(127);
	}
	if (child < 0 || waitpid(child, &status, 0) < 0) {
		perror("fork/wait");
		return 1;
	}
	for (cpu = 0; cpu < n; cpu++)
		drain(&rings[cpu]);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "command failed (status %#x)\n", status);
		return 1;
	}
	return 0;
}
