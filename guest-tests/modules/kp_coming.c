// SPDX-License-Identifier: GPL-2.0
/*
 * Registers kprobes on a module while it is COMING, before the kprobes
 * core's own module notifier has run (guest-tests/kprobe_module_coming.sh).
 *
 * Its module notifier has the highest priority, so it runs first when
 * kp_canary comes, and registers a kprobe on kp_canary_poke() and one on
 * kp_canary_blocked(), which kp_canary puts in its kprobe blacklist
 * (NOKPROBE_SYMBOL).  Both are unregistered again at once; the results are
 * module parameters: poke_ret must be 0 and blocked_ret -EINVAL (-22).
 * "coming" says how many times the notifier saw the target come.
 */
#include <linux/module.h>
#include <linux/kprobes.h>
#include <linux/notifier.h>
#include <linux/string.h>

static int poke_ret = 1, blocked_ret = 1, coming;
module_param(poke_ret, int, 0444);
module_param(blocked_ret, int, 0444);
module_param(coming, int, 0444);

static int kpc_pre(struct kprobe *p, struct pt_regs *regs)
{
	return 0;
}

static int kpc_try(const char *sym)
{
	struct kprobe kp = { .symbol_name = sym, .pre_handler = kpc_pre };
	int ret = register_kprobe(&kp);

	if (!ret)
		unregister_kprobe(&kp);
	return ret;
}

static int kpc_notify(struct notifier_block *nb, unsigned long state,
		      void *data)
{
	struct module *mod = data;

	if (state != MODULE_STATE_COMING || strcmp(mod->name, "kp_canary"))
		return NOTIFY_DONE;
	coming++;
	poke_ret = kpc_try("kp_canary:kp_canary_poke");
	blocked_ret = kpc_try("kp_canary:kp_canary_blocked");
	return NOTIFY_DONE;
}

static struct notifier_block kpc_nb = {
	.notifier_call = kpc_notify,
	.priority = INT_MAX,
};

static int __init kp_coming_init(void)
{
	return register_module_notifier(&kpc_nb);
}

static void __exit kp_coming_exit(void)
{
	unregister_module_notifier(&kpc_nb);
}

module_init(kp_coming_init);
module_exit(kp_coming_exit);
MODULE_DESCRIPTION("kprobes on a module between COMING and the kprobes notifier");
MODULE_LICENSE("GPL");
