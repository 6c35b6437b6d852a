// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ftrace-based kprobes on x86 (CONFIG_KPROBES_ON_FTRACE).
 *
 * A probe on a function's __fentry__ call site is attached through the
 * core's ftrace_ops (registers saved) instead of a breakpoint: ftrace owns those five
 * bytes and rewrites them whenever tracers come and go, so a breakpoint
 * there would fight it.  The handler makes the probe look like a breakpoint
 * probe to its handlers: regs->ip is the site + 1 in the pre_handler, and
 * the address after the (never executed) 5-byte nop in the post_handler.
 * A pre_handler that moves regs->ip and returns non-zero is honoured: the
 * regs caller returns to whatever regs->ip holds, on either of the core's
 * ops (IPMODIFY only tells ftrace who else may not steer the function).
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

/**
 * kprobe_ftrace_handler() - the callback of the core's kprobes ftrace_ops
 * @ip: the probed function's ftrace call site
 * @parent_ip: its caller
 * @ops: the core's ftrace_ops
 * @fregs: the registers ftrace saved (with FTRACE_OPS_FL_SAVE_REGS)
 *
 * ftrace leaves recursion to its callbacks.  This one takes no recursion
 * bit: nothing it runs before kprobe_running() is checked can reach an
 * ftrace-based probe (it is notrace, and what it calls is notrace and on
 * the kprobes blacklist), and from there on a hit nested in a handler,
 * in an interrupt or NMI, or in a handler's own calls, finds this CPU's
 * running probe and is only counted missed, as on the breakpoint path.
 * Disabling preemption is all the per-CPU state and the RCU-protected
 * lookup need.
 *
 * The handlers see what an int3 hit would show them: regs->ip just past
 * the (virtual) breakpoint byte for the pre_handler, past the 5-byte call
 * site for the post_handler.  Afterwards regs->ip is put back as it came:
 * past the call site, or wherever an ops that ran before this one (a
 * livepatch, which may share the function with a probe that has no
 * post_handler) sent the call.  A pre_handler that returns non-zero has
 * set the ip it wants to resume at, and ftrace_regs_caller returns there.
 *
 * Context: any the probed function runs in; preemption off inside.
 */
void notrace kprobe_ftrace_handler(unsigned long ip, unsigned long parent_ip,
				   struct ftrace_ops *ops,
				   struct ftrace_regs *fregs)
{
	struct pt_regs *regs = ftrace_get_regs(fregs);
	unsigned long resume;
	struct kprobe *p;
	int ran;

	if (unlikely(READ_ONCE(kprobe_ftrace_disabled) || !regs))
		return;
	preempt_disable_notrace();
	/* A disabled site runs no handler there; see __kprobe_run_pre(). */
	p = kprobe_site_at((kprobe_opcode_t *)ip);
	if (likely(p)) {
		resume = regs->ip;
		regs->ip = ip + INT3_INSN_SIZE;
		ran = __kprobe_run_pre(p, regs);
		if (ran == KPROBE_PRE_RAN) {
			regs->ip = ip + MCOUNT_INSN_SIZE;
			__kprobe_run_post(p, regs);
		}
		if (ran != KPROBE_PRE_SKIP)
			regs->ip = resume;
	}
	preempt_enable_notrace();
}

NOKPROBE_SYMBOL(kprobe_ftrace_handler);

/**
 * arch_prepare_kprobe_ftrace() - set up @p for kprobe_ftrace_handler()
 * @p: a probe whose address is an ftrace call site (the core has marked
 *	it KPROBE_FLAG_FTRACE)
 *
 * Context: kprobe_mutex held.
 * Return: 0; @p needs no slot.
 */
int arch_prepare_kprobe_ftrace(struct kprobe *p)
{
	p->ainsn = (struct arch_specific_insn) { .len = MCOUNT_INSN_SIZE };
	p->opcode = *p->addr;
	return 0;
}
