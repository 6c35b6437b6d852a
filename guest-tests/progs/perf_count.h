/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by the guest helpers in this directory. */
#ifndef KP_GUEST_PERF_COUNT_H
#define KP_GUEST_PERF_COUNT_H

#include <stdint.h>
#include <unistd.h>

/* A counting perf event's value, or -1 if it cannot be read. */
static inline long long perf_count(int fd)
{
	uint64_t v;

	if (read(fd, &v, sizeof(v)) != sizeof(v))
		return -1;
	return (long long)v;
}

#endif
