// SPDX-License-Identifier: GPL-2.0-only
/*
 * kretprobe_example: time one kernel function with a return probe.
 *
 * The entry handler stores a timestamp in the instance's private data
 * (data_size bytes the kretprobe keeps per pending call); the return handler
 * reads it back and logs the function's return value and how long the call
 * took.  Calls that found no free instance (more than maxactive calls pending
 * at once) are not timed; their number is reported when the module goes.
 *
 *   modprobe kretprobe_example func=kernel_clone
 *   dmesg | grep returned
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/kprobes.h>
#include <linux/ktime.h>
#include <linux/sched.h>

static char func[KSYM_NAME_LEN] = "kernel_clone";
module_param_string(func, func, KSYM_NAME_LEN, 0444);
MODULE_PARM_DESC(func, "kernel function to time (default: kernel_clone)");

static int maxactive = 20;
module_param(maxactive, int, 0444);
MODULE_PARM_DESC(maxactive, "calls that may be pending at once (default: 20)");

/* What one pending call remembers between its entry and its return. */
struct call_stamp {
	ktime_t entered;
};

static int stamp_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct call_stamp *stamp = (struct call_stamp *)ri->data;

	/* Kernel threads are not timed: returning non-zero skips the return. */
	if (!current->mm)
		return 1;
	stamp->entered = ktime_get();
	return 0;
}

static int report_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct call_stamp *stamp = (struct call_stamp *)ri->data;
	s64 took = ktime_to_ns(ktime_sub(ktime_get(), stamp->entered));

	pr_info("%s returned %ld after %lld ns\n", func,
		(long)regs_return_value(regs), took);
	return 0;
}

static struct kretprobe timing_probe = {
	.entry_handler	= stamp_entry,
	.handler	= report_return,
	.data_size	= sizeof(struct call_stamp),
};

static int __init kretprobe_example_init(void)
{
	int ret;

	timing_probe.kp.symbol_name = func;
	timing_probe.maxactive = maxactive;
	ret = register_kretprobe(&timing_probe);
	if (ret < 0) {
		pr_err("cannot put a return probe on %s: %d\n", func, ret);
		return ret;
	}
	pr_info("return probe planted on %s (%pS)\n", func, timing_probe.kp.addr);
	return 0;
}

static void __exit kretprobe_example_exit(void)
{
	unregister_kretprobe(&timing_probe);
	pr_info("return probe on %s unregistered, %d calls missed (no free instance)\n",
		func, timing_probe.nmissed);
}

module_init(kretprobe_example_init);
module_exit(kretprobe_example_exit);
MODULE_DESCRIPTION("kprobes sample: time one kernel function with a kretprobe");
MODULE_LICENSE("GPL");
