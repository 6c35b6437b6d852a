// SPDX-License-Identifier: GPL-2.0
/*
 * Harness canary: a module whose only job is to prove that the harness
 * notices a kernel warning.  Loading it with warn=1 fires one WARN_ON; the
 * console scan must then fail the run.  Loading it with leak=1 drops one
 * allocation made inside a kprobe handler, so kmemleak's report has our
 * kprobe dispatch in the object's backtrace and the debug kernel's
 * kmemleak row must fail.
 *
 * It also carries a function of module text for tests to probe:
 * kp_canary_poke() runs once per write to /sys/module/kp_canary/parameters/poke
 * (guest-tests/kprobe_module_before_load.sh), and one no probe may go on,
 * kp_canary_blocked(), in the module's kprobe blacklist
 * (guest-tests/kprobe_module_coming.sh).
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/kernel.h>
#include <linux/bug.h>
#include <linux/kprobes.h>
#include <linux/slab.h>

static bool warn;
module_param(warn, bool, 0444);
MODULE_PARM_DESC(warn, "fire a WARN_ON at load time");

static bool leak;
module_param(leak, bool, 0444);
MODULE_PARM_DESC(leak, "leak one object allocated in a kprobe handler at load time");

static noinline int kp_canary_poke(int val)
{
	asm volatile("" : "+r" (val));
	return val + 1;
}

static noinline int kp_canary_blocked(int val)
{
	asm volatile("" : "+r" (val));
	return val;
}

NOKPROBE_SYMBOL(kp_canary_blocked);

static int poke_set(const char *buf, const struct kernel_param *kp)
{
	int val, ret;

	ret = kstrtoint(buf, 0, &val);
	if (ret)
		return ret;
	*(int *)kp->arg = kp_canary_poke(kp_canary_blocked(val));
	return 0;
}

static const struct kernel_param_ops poke_ops = {
	.set	= poke_set,
	.get	= param_get_int,
};

static int poke;
module_param_cb(poke, &poke_ops, &poke, 0644);
MODULE_PARM_DESC(poke, "each write calls kp_canary_poke() once (reads: last value + 1)");

static void *kp_canary_kept;

static int kp_canary_leak_pre(struct kprobe *p, struct pt_regs *regs)
{
	/* Kept only until the next hit overwrites it: the first is lost. */
	WRITE_ONCE(kp_canary_kept, kmalloc(96, GFP_ATOMIC));
	return 0;
}

static struct kprobe kp_canary_leak_probe = {
	.symbol_name	= "kp_canary_poke",
	.pre_handler	= kp_canary_leak_pre,
};

static int __init kp_canary_init(void)
{
	int ret;

	WARN_ON(warn);
	if (!leak)
		return 0;
	ret = register_kprobe(&kp_canary_leak_probe);
	if (ret)
		return ret;
	kp_canary_poke(1);
	kp_canary_poke(2);
	unregister_kprobe(&kp_canary_leak_probe);
	return 0;
}

static void __exit kp_canary_exit(void)
{
	kfree(kp_canary_kept);
}

module_init(kp_canary_init);
module_exit(kp_canary_exit);
MODULE_DESCRIPTION("kprobes harness canary");
MODULE_LICENSE("GPL");
