// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * x86 jump optimization for kprobes (CONFIG_OPTPROBES): not yet.
 *
 * Until the detours arrive, the optimizer's arch hooks refuse every site,
 * so each probe stays a working breakpoint probe.
 */

#include <linux/kprobes.h>
#include <linux/list.h>

int arch_prepare_optimized_kprobe(struct optimized_kprobe *op,
				  struct kprobe *orig)
{
	return -EOPNOTSUPP;
}

int arch_prepared_optinsn(struct arch_optimized_insn *optinsn)
{
	return 0;
}

int arch_check_optimized_kprobe(struct optimized_kprobe *op)
{
	return 0;
}

int arch_within_optimized_kprobe(struct optimized_kprobe *op,
				 kprobe_opcode_t *addr)
{
	return 0;
}

void arch_prescan_optimized_kprobe(struct kprobe *p) { }
void arch_optimize_kprobes(struct list_head *oplist) { }
void arch_unoptimize_kprobe(struct optimized_kprobe *op) { }
void arch_unoptimize_retired(struct list_head *oplist) { }
void arch_remove_optimized_kprobe(struct optimized_kprobe *op) { }

void arch_unoptimize_kprobes(struct list_head *oplist,
			     struct list_head *done_list)
{
	list_splice_tail_init(oplist, done_list);
}
