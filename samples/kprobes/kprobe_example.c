// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprobe_example: put a kprobe on one kernel function and log every hit.
 *
 * The pre-handler runs just before the probed instruction executes and logs
 * where the probe is and the registers a caller of the function cares about
 * most (the first two arguments, the stack pointer and the flags).  The
 * post-handler runs just after that instruction was executed out of line and
 * logs the flags again, so the two lines of one hit can be told apart.
 *
 *   modprobe kprobe_example symbol=kernel_clone
 *   dmesg | grep kernel_clone
 *
 * The default symbol, kernel_clone, is hit by every fork and clone.  Since
 * both handlers log on every hit, pick a function that is not hit thousands
 * of times per second.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/kprobes.h>
#include <linux/ptrace.h>

static char *symbol = "kernel_clone";
module_param(symbol, charp, 0444);
MODULE_PARM_DESC(symbol, "kernel function to probe (default: kernel_clone)");

static struct kprobe example_probe;

/*
 * The first two arguments where the arch can name them; every arch has
 * an instruction and a stack pointer.
 */
static void example_show_args(struct pt_regs *regs)
{
#ifdef CONFIG_HAVE_FUNCTION_ARG_ACCESS_API
	pr_info("  arg0=0x%lx arg1=0x%lx\n", regs_get_kernel_argument(regs, 0),
		regs_get_kernel_argument(regs, 1));
#endif
}

static int example_pre(struct kprobe *p, struct pt_regs *regs)
{
	pr_info("<%s> pre_handler: p->addr=%pS ip=0x%lx sp=0x%lx\n",
		p->symbol_name, p->addr, instruction_pointer(regs),
		kernel_stack_pointer(regs));
	example_show_args(regs);
	/* Zero: let the probed instruction run (out of line). */
	return 0;
}

static void example_post(struct kprobe *p, struct pt_regs *regs,
			 unsigned long flags)
{
	pr_info("<%s> post_handler: p->addr=%pS ip=0x%lx sp=0x%lx\n",
		p->symbol_name, p->addr, instruction_pointer(regs),
		kernel_stack_pointer(regs));
}

static int __init kprobe_example_init(void)
{
	int ret;

	example_probe.symbol_name = symbol;
	example_probe.pre_handler = example_pre;
	example_probe.post_handler = example_post;

	ret = register_kprobe(&example_probe);
	if (ret < 0) {
		pr_err("cannot probe %s: %d\n", symbol, ret);
		return ret;
	}
	pr_info("planted kprobe at %s (%pS)\n", symbol, example_probe.addr);
	return 0;
}

static void __exit kprobe_example_exit(void)
{
	unregister_kprobe(&example_probe);
	pr_info("kprobe at %s unregistered, %lu hits missed\n", symbol,
		example_probe.nmissed);
}

module_init(kprobe_example_init);
module_exit(kprobe_example_exit);
MODULE_DESCRIPTION("kprobes sample: log every hit of one kernel function");
MODULE_LICENSE("GPL");
