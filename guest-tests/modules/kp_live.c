// SPDX-License-Identifier: GPL-2.0
/*
 * A module's __init text in the instant between LIVE and its freeing
 * (guest-tests/kprobe_module_init_live.sh).  kp_live probes its own init
 * function twice: from that function, while the module is COMING, which
 * must be accepted (init_ret 0), and from its module notifier when it goes
 * LIVE, while the text is still there and named but about to be freed,
 * which must be refused with -ENOENT (live_ret -2), while a probe on its
 * core text registers there (core_ret 0).  Each probe that registers is
 * unregistered at once.
 */
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/notifier.h>

static int init_ret = 1, live_ret = 1, core_ret = 1;
module_param(init_ret, int, 0444);
MODULE_PARM_DESC(init_ret, "registering on the init function while COMING");
module_param(live_ret, int, 0444);
MODULE_PARM_DESC(live_ret, "registering on it once LIVE");
module_param(core_ret, int, 0444);
MODULE_PARM_DESC(core_ret, "registering on core text once LIVE");

/* Core text, for the control probe. */
static noinline __noipa int kpl_core(int x)
{
	return x + 1;
}

/* Set by the init function: a reference from data to __init text. */
static void *kpl_init_text;

static int kpl_pre(struct kprobe *p, struct pt_regs *regs)
{
	return 0;
}

static int kpl_try(void *addr)
{
	struct kprobe kp = { .addr = addr, .pre_handler = kpl_pre };
	int ret = register_kprobe(&kp);

	if (!ret)
		unregister_kprobe(&kp);
	return ret;
}

static int kpl_notify(struct notifier_block *nb, unsigned long state,
		      void *data)
{
	if (data == THIS_MODULE && state == MODULE_STATE_LIVE) {
		live_ret = kpl_try(kpl_init_text);
		core_ret = kpl_try(kpl_core);
	}
	return NOTIFY_DONE;
}

static struct notifier_block kpl_nb = {
	.notifier_call = kpl_notify,
};

static int __init kp_live_init(void)
{
	kpl_init_text = kp_live_init;
	init_ret = kpl_try(kpl_init_text);
	return register_module_notifier(&kpl_nb);
}
module_init(kp_live_init);

static void __exit kp_live_exit(void)
{
	unregister_module_notifier(&kpl_nb);
}
module_exit(kp_live_exit);

MODULE_DESCRIPTION("kprobes tests: a probe on a module's init text once it is live");
MODULE_LICENSE("GPL");
