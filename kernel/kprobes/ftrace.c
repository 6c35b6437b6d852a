// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kernel probes on ftrace call sites: the two ftrace_ops that carry them.
 *
 * A site on a function's __fentry__ call is attached to one of two
 * ftrace_ops rather than given a breakpoint; see "Sites" at the top of
 * core.c for which one and why.  Both run the arch's
 * kprobe_ftrace_handler().
 */

#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/lockdep.h>
#include <linux/slab.h>

#include "internal.h"

/*
 * ftrace died: nothing may be attached through it any more, and the
 * ftrace handler ignores the probes attached already.
 */
bool kprobe_ftrace_disabled;

/*
 * Each ops is registered while at least one site is attached to it.
 * kprobe_mutex serialises both.
 */
struct kprobe_ftrace_user {
	struct ftrace_ops ops;
	unsigned int attached;
};

static struct kprobe_ftrace_user kprobe_ftrace_plain __read_mostly = {
	.ops = {
		.func = kprobe_ftrace_handler,
		.flags = FTRACE_OPS_FL_SAVE_REGS,
	},
};

static struct kprobe_ftrace_user kprobe_ftrace_steering __read_mostly = {
	.ops = {
		.func = kprobe_ftrace_handler,
		.flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY,
	},
};

static struct kprobe_ftrace_user *kprobe_ftrace_user_of(struct kprobe *site)
{
	return site->flags & KPROBE_FLAG_FTRACE_IPMODIFY ?
	       &kprobe_ftrace_steering : &kprobe_ftrace_plain;
}

int kprobe_ftrace_arm(struct kprobe *site)
{
	unsigned long ip = (unsigned long)site->addr;
	struct kprobe_ftrace_user *user;
	int ret;

	lockdep_assert_held(&kprobe_mutex);
	/* The choice holds until the site is detached; see "Sites" in core.c. */
	if (site->post_handler)
		kprobe_flags_set(site, KPROBE_FLAG_FTRACE_IPMODIFY);
	else
		kprobe_flags_clear(site, KPROBE_FLAG_FTRACE_IPMODIFY);
	user = kprobe_ftrace_user_of(site);
	/*
	 * After ftrace_kill() every ftrace call fails, and ftrace has said
	 * why already: the site is counted, not attached, and runs no
	 * handler either way.
	 */
	if (kprobe_ftrace_dead()) {
		user->attached++;
		return 0;
	}
	ret = ftrace_set_filter_ip(&user->ops, ip, 0, 0);
	if (ret)
		return ret;
	if (!user->attached)
		ret = register_ftrace_function(&user->ops);
	if (ret) {
		ftrace_set_filter_ip(&user->ops, ip, 1, 0);
		return ret;
	}
	user->attached++;
	return 0;
}

static void kprobe_ftrace_detach(struct kprobe_ftrace_user *user,
				 unsigned long *ips, unsigned int n)
{
	if (WARN_ON_ONCE(n > user->attached))
		n = user->attached;
	if (!n)
		return;
	user->attached -= n;
	if (kprobe_ftrace_dead())
		return;		/* as in kprobe_ftrace_arm() */
	if (!user->attached)
		WARN_ON_ONCE(unregister_ftrace_function(&user->ops));
	WARN_ON_ONCE(ftrace_set_filter_ips(&user->ops, ips, n, 1, 0));
}

void kprobe_ftrace_disarm(struct kprobe *site)
{
	unsigned long ip = (unsigned long)site->addr;

	lockdep_assert_held(&kprobe_mutex);
	kprobe_ftrace_detach(kprobe_ftrace_user_of(site), &ip, 1);
}

/*
 * kprobe_ftrace_disarm() for @n sites with one filter update per ops:
 * ftrace walks all its call sites on every update, so one per site made
 * disabling 2,000 function-entry events take 17 s.  Reorders @sites.
 */
void kprobe_ftrace_disarm_many(struct kprobe **sites, unsigned int n)
{
	unsigned int i, nsteer = 0;
	unsigned long *ips;

	lockdep_assert_held(&kprobe_mutex);
	ips = n > 1 ? kvmalloc_array(n, sizeof(*ips), GFP_KERNEL) : NULL;
	if (!ips) {
		for (i = 0; i < n; i++)
			kprobe_ftrace_disarm(sites[i]);
		return;
	}
	for (i = 0; i < n; i++) {
		if (sites[i]->flags & KPROBE_FLAG_FTRACE_IPMODIFY)
			swap(sites[i], sites[nsteer++]);
	}
	for (i = 0; i < n; i++)
		ips[i] = (unsigned long)sites[i]->addr;
	kprobe_ftrace_detach(&kprobe_ftrace_steering, ips, nsteer);
	kprobe_ftrace_detach(&kprobe_ftrace_plain, ips + nsteer, n - nsteer);
	kvfree(ips);
}

/**
 * kprobe_ftrace_kill() - ftrace is dead; stop using it
 *
 * New probes on ftrace call sites fall back on breakpoints, the ftrace
 * handler stops running the handlers of probes attached through it, and
 * arming or disarming those probes no longer calls into ftrace, which
 * would refuse.  Only a flag is written: ftrace_kill() may be called in
 * any context, so a hit already past the flag's check finishes its
 * handlers.
 * Context: any (called from ftrace_kill()).
 */
void kprobe_ftrace_kill(void)
{
	WRITE_ONCE(kprobe_ftrace_disabled, true);
}
