// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * x86 kprobes, for the length of one patch: the generic core is new and
 * the x86 backend written for it follows in the next patches.  Meanwhile
 * every probe is refused at registration with -EOPNOTSUPP, so nothing is
 * ever written into the text and the trap hooks have nothing to find.
 */

#include <linux/kprobes.h>
#include <linux/percpu.h>

DEFINE_PER_CPU(struct kprobe *, current_kprobe);
DEFINE_PER_CPU(struct kprobe_ctlblk, kprobe_ctlblk);

int arch_prepare_kprobe(struct kprobe *p)
{
	return -EOPNOTSUPP;
}

void arch_arm_kprobe(struct kprobe *p) { }
void arch_disarm_kprobe(struct kprobe *p) { }
void arch_remove_kprobe(struct kprobe *p) { }

int kprobe_int3_handler(struct pt_regs *regs)
{
	return 0;
}

NOKPROBE_SYMBOL(kprobe_int3_handler);

int kprobe_fault_handler(struct pt_regs *regs, int trapnr)
{
	return 0;
}

NOKPROBE_SYMBOL(kprobe_fault_handler);
