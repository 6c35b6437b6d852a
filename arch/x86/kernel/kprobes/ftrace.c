// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ftrace-based kprobes on x86 (CONFIG_KPROBES_ON_FTRACE).
 *
 * A probe on a function's __fentry__ call site is attached through an
 * ftrace_ops with registers instead of a breakpoint: ftrace owns those five
 * bytes and rewrites them whenever tracers come and go, so a breakpoint
 * there would fight it.  The handler makes the probe look like a breakpoint
 * probe to its handlers: regs->ip is the site + 1 in the pre_handler, and
 * the address after the (never executed) 5-byte nop in the post_handler.
 * A pre_handler that moves regs->ip and returns non-zero is honoured
 * (the ops has IPMODIFY).
 *
 * Such probes are listed [FTRACE].  After kprobe_ftrace_kill() (ftrace
 * died) no new one is attached this way, and the ones attached already run
 * no handlers any more: ftrace may not be able to detach them.
 */

#include <linux/kprobes.h>
#include <linux/ftrace.h>
#include <linux/preempt.h>

#include <asm/text-patching.h>

#include "common.h"

/*
 * One hit of an enabled ftrace-based probe, with the CPU's kprobe slot free;
 * inlined into the ftrace callback, every hit's path.
 * The handlers must see what an int3 hit would show them: ip just past the
 * (virtual) breakpoint byte for the pre-handler, just past the 5-byte call
 * site for the post-handler.  A pre-handler that returns non-zero has set
 * the ip it wants to resume at, and ftrace honours it (IPMODIFY).
 */
static __always_inline void kprobe_ftrace_run(struct kprobe *p,
					      unsigned long site,
					      struct pt_regs *regs)
{
	struct kprobe_ctlblk *kcb = this_cpu_ptr(&kprobe_ctlblk);
	unsigned long resume = regs->ip;
	bool redirected;

	__this_cpu_write(current_kprobe, p);
	kcb->status = KPROBE_HIT_ACTIVE;
	regs->ip = site + INT3_INSN_SIZE;
	redirected = p->pre_handler && p->pre_handler(p, regs);
	if (!redirected) {
		regs->ip = site + MCOUNT_INSN_SIZE;
		if (p->post_handler) {
			kcb->status = KPROBE_HIT_SSDONE;
			p->post_handler(p, regs, 0);
		}
		regs->ip = resume;
	}
	reset_current_kprobe();
}

static void kprobe_ftrace_handler(unsigned long ip, unsigned long parent_ip,
				  struct ftrace_ops *ops,
				  struct ftrace_regs *fregs)
{
	/* Taking the recursion guard also turns preemption off until unlock. */
	int bit = ftrace_test_recursion_trylock(ip, parent_ip);
	struct pt_regs *regs;
	struct kprobe *p;

	if (bit < 0)
		return;
	if (unlikely(READ_ONCE(kprobe_ftrace_disabled))) {
		ftrace_test_recursion_unlock(bit);
		return;
	}
	regs = ftrace_get_regs(fregs);
	p = likely(regs) ? get_kprobe((kprobe_opcode_t *)ip) : NULL;
	if (p && !kprobe_disabled(p)) {
		if (kprobe_running())
			kprobes_inc_nmissed_count(p);
		else
			kprobe_ftrace_run(p, ip, regs);
	}
	ftrace_test_recursion_unlock(bit);
}

NOKPROBE_SYMBOL(kprobe_ftrace_handler);

static struct ftrace_ops kprobe_ftrace_ops __read_mostly = {
	.func = kprobe_ftrace_handler,
	.flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY,
};

/* Armed ftrace sites; the ops is registered while there is any. */
static unsigned int kprobe_ftrace_armed;

/**
 * kprobe_ftrace_arm() - start calling @p's handlers from its ftrace site
 * @p: a site prepared by arch_prepare_kprobe_ftrace()
 *
 * Context: kprobe_mutex held.
 * Return: 0 or an error from ftrace.
 */
int kprobe_ftrace_arm(struct kprobe *p)
{
	unsigned long ip = (unsigned long)p->addr;
	int ret;

	ret = ftrace_set_filter_ip(&kprobe_ftrace_ops, ip, 0, 0);
	if (ret)
		return ret;
	if (!kprobe_ftrace_armed) {
		ret = register_ftrace_function(&kprobe_ftrace_ops);
		if (ret) {
			ftrace_set_filter_ip(&kprobe_ftrace_ops, ip, 1, 0);
			return ret;
		}
	}
	kprobe_ftrace_armed++;
	return 0;
}

/**
 * kprobe_ftrace_disarm() - stop calling @p's handlers
 * @p: a site armed by kprobe_ftrace_arm()
 *
 * Context: kprobe_mutex held.
 */
void kprobe_ftrace_disarm(struct kprobe *p)
{
	if (WARN_ON_ONCE(!kprobe_ftrace_armed))
		return;
	if (kprobe_ftrace_armed == 1)
		WARN_ON_ONCE(unregister_ftrace_function(&kprobe_ftrace_ops));
	kprobe_ftrace_armed--;
	WARN_ON_ONCE(ftrace_set_filter_ip(&kprobe_ftrace_ops,
					  (unsigned long)p->addr, 1, 0));
}

/**
 * arch_prepare_kprobe_ftrace() - attach @p through ftrace
 * @p: a probe whose address is an ftrace call site
 *
 * Context: kprobe_mutex held.
 * Return: 0; @p is marked KPROBE_FLAG_FTRACE and needs no slot.
 */
int arch_prepare_kprobe_ftrace(struct kprobe *p)
{
	p->ainsn = (struct arch_specific_insn) { .len = MCOUNT_INSN_SIZE };
	p->opcode = *p->addr;
	p->flags |= KPROBE_FLAG_FTRACE;
	return 0;
}
