// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * x86 jump optimization, declined while the generic core is replaced:
 * every optprobe hook says no, so each probe stays a breakpoint probe.
 * (arch_prepared_optinsn() is the x86 header's inline: the size of a
 * detour, 0 as none is built.)  The real detours come back with the new
 * x86 backend.
 */

#include <linux/kprobes.h>
#include <linux/list.h>

#include "common.h"

/*
 * <asm/kprobes.h> sizes a detour from the distance between these labels:
 * zero here, and no detour slot is ever asked for.
 */
asm(".pushsection .rodata\n"
	".globl optprobe_template_entry\n"
	"optprobe_template_entry:\n"
	".globl optprobe_template_end\n"
	"optprobe_template_end:\n"
	".popsection\n");

/* No probe is ever behind a jump, so a hit never enters a detour. */
int setup_detour_execution(struct kprobe *p, struct pt_regs *regs, int reenter)
{
	return 0;
}

/* ...and the bytes at @addr are never a jump of ours. */
unsigned long __recover_optprobed_insn(kprobe_opcode_t *buf, unsigned long addr)
{
	return addr;
}

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
