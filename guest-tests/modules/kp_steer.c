// SPDX-License-Identifier: GPL-2.0
/*
 * Owns a function's entry as livepatch does, on demand, for
 * guest-tests/kprobes_enabled_refused.sh: writing 1 to
 * /sys/module/kp_steer/parameters/steer registers an ftrace_ops with
 * IPMODIFY on kp_steer_target() (ftrace grants that to one ops per
 * function), writing 0 unregisters it; the write fails with ftrace's
 * error when another owner holds the function.  Writing N to
 * .../parameters/call calls kp_steer_target(N) once.
 */

#include <linux/ftrace.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>

static unsigned long calls;
module_param(calls, ulong, 0444);
MODULE_PARM_DESC(calls, "how often kp_steer_target() ran");

/* Neither inlined nor cloned: its probes and ftrace name it. */
static noinline __noipa long kp_steer_target(long n)
{
	barrier();
	calls++;
	return n + 1;
}

/* Owns the entry and leaves regs->ip alone: nothing is redirected. */
static void kp_steer_cb(unsigned long ip, unsigned long parent_ip,
			struct ftrace_ops *op, struct ftrace_regs *fregs)
{
}

static struct ftrace_ops kp_steer_ops = {
	.func	= kp_steer_cb,
	.flags	= FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY,
};

static DEFINE_MUTEX(kp_steer_lock);
static bool kp_steering;

static int kp_steer_on(void)
{
	/* By name: ftrace_location() is not for modules. */
	static unsigned char name[] = "kp_steer_target";
	int ret;

	ret = ftrace_set_filter(&kp_steer_ops, name, sizeof(name) - 1, 1);
	if (ret)
		return ret;
	ret = register_ftrace_function(&kp_steer_ops);
	if (ret)
		ftrace_free_filter(&kp_steer_ops);
	return ret;
}

static void kp_steer_off(void)
{
	WARN_ON(unregister_ftrace_function(&kp_steer_ops));
	ftrace_free_filter(&kp_steer_ops);
}

static int kp_steer_set(const char *val, const struct kernel_param *kp)
{
	bool on;
	int ret = kstrtobool(val, &on);

	if (ret)
		return ret;
	mutex_lock(&kp_steer_lock);
	if (on && !kp_steering)
		ret = kp_steer_on();
	else if (!on && kp_steering)
		kp_steer_off();
	if (!ret)
		kp_steering = on;
	mutex_unlock(&kp_steer_lock);
	return ret;
}

static int kp_steer_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", kp_steering);
}

static const struct kernel_param_ops kp_steer_param_ops = {
	.set	= kp_steer_set,
	.get	= kp_steer_get,
};
module_param_cb(steer, &kp_steer_param_ops, NULL, 0600);
MODULE_PARM_DESC(steer, "1: own kp_steer_target()'s entry with IPMODIFY, 0: let go");

static int kp_steer_call(const char *val, const struct kernel_param *kp)
{
	long n;
	int ret = kstrtol(val, 0, &n);

	if (ret)
		return ret;
	kp_steer_target(n);
	return 0;
}

static const struct kernel_param_ops kp_steer_call_ops = {
	.set	= kp_steer_call,
};
module_param_cb(call, &kp_steer_call_ops, NULL, 0200);
MODULE_PARM_DESC(call, "write N: call kp_steer_target(N) once");

static void __exit kp_steer_exit(void)
{
	mutex_lock(&kp_steer_lock);
	if (kp_steering)
		kp_steer_off();
	mutex_unlock(&kp_steer_lock);
}
module_exit(kp_steer_exit);

MODULE_DESCRIPTION("kprobes tests: an IPMODIFY owner of a function, on demand");
MODULE_LICENSE("GPL");
