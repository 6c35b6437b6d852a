/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A plain tracepoint event of the benchmark module: the hit cost of an
 * event producer other than kprobes, which goes through the same generic
 * reserve and commit (trace_event_buffer_reserve()) as kprobe events.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM kp_bench

#if !defined(_KP_BENCH_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _KP_BENCH_TRACE_H

#include <linux/tracepoint.h>

TRACE_EVENT(kpb_tick,
	TP_PROTO(int v),
	TP_ARGS(v),
	TP_STRUCT__entry(
		__field(int, v)
	),
	TP_fast_assign(
		__entry->v = v;
	),
	TP_printk("v=%d", __entry->v)
);

#endif /* _KP_BENCH_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE kp_bench_trace
#include <trace/define_trace.h>
