// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ftrace-based kprobes on x86 (CONFIG_KPROBES_ON_FTRACE), for the
 * length of the patches before the handler.
 *
 * Until the handler arrives, a probe on a function's __fentry__ call site
 * is refused: a breakpoint there would fight ftrace for the same bytes.
 */

#include <linux/kprobes.h>
#include <linux/ftrace.h>

void kprobe_ftrace_handler(unsigned long ip, unsigned long parent_ip,
			   struct ftrace_ops *ops, struct ftrace_regs *fregs)
{
}

NOKPROBE_SYMBOL(kprobe_ftrace_handler);

int arch_prepare_kprobe_ftrace(struct kprobe *p)
{
	return -EOPNOTSUPP;
}
