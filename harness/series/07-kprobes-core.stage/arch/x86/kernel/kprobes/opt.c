// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * x86 jump optimization, for the length of one patch: with every probe
 * refused (see core.c), the optimizer never gets a site; these hooks only
 * let the generic core link.
 */

#include <linux/kprobes.h>
#include <linux/list.h>

/*
 * <asm/kprobes.h> sizes the detour slots from the distance between these
 * two labels: none here, as no detour is ever built.
 */
asm(".pushsection .rodata\n"
	".globl optprobe_template_entry\n"
	"optprobe_template_entry:\n"
	".globl optprobe_template_end\n"
	"optprobe_template_end:\n"
	".popsection\n");

int arch_check_optimized_kprobe(struct optimized_kprobe *op)
{
	return -EOPNOTSUPP;
}

int arch_prepare_optimized_kprobe(struct optimized_kprobe *op,
				  struct kprobe *orig)
{
	return -EOPNOTSUPP;
}

int arch_within_optimized_kprobe(struct optimized_kprobe *op,
				 kprobe_opcode_t *addr)
{
	return 0;
}

void arch_optimize_kprobes(struct list_head *oplist) { }
void arch_unoptimize_kprobe(struct optimized_kprobe *op) { }
void arch_remove_optimized_kprobe(struct optimized_kprobe *op) { }

void arch_unoptimize_kprobes(struct list_head *oplist,
			     struct list_head *done_list)
{
	list_splice_tail_init(oplist, done_list);
}
