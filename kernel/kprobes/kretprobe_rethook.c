// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kretprobe instances on rethook (CONFIG_KRETPROBE_ON_RETHOOK).
 *
 * A pool is a rethook.  The entry handler takes an instance from the
 * newest one and diverts the return address to the rethook trampoline.
 * The rethook keeps the real return address on the task's shadow list,
 * which is also what unwinders consult, so stack traces through a
 * diverted return still show the real caller.
 */

#include <linux/kprobes.h>
#include <linux/rethook.h>

#include "internal.h"

/*
 * rethook_try_get() returns nothing from a stopped pool: its handler is
 * cleared first (see kretprobe_pool_stop()).
 */
static __always_inline struct kretprobe_instance *
kretprobe_rethook_pop(void *pool)
{
	struct rethook_node *rhn = rethook_try_get(pool);

	return rhn ? container_of(rhn, struct kretprobe_instance, node) : NULL;
}

/* For the instance supply, when the newest pool had nothing. */
notrace struct kretprobe_instance *kretprobe_pool_take(void *pool)
{
	return kretprobe_rethook_pop(pool);
}

NOKPROBE_SYMBOL(kretprobe_pool_take);

int notrace kretprobe_entry(struct kprobe *p, struct pt_regs *regs)
{
	struct kretprobe *rp = container_of(p, struct kretprobe, kp);
	void *newest = READ_ONCE(rp->rh);
	struct kretprobe_instance *ri = kretprobe_rethook_pop(newest);
	bool follow;

	if (unlikely(!ri)) {
		ri = kretprobe_take_spare(rp, newest);
		if (!ri)
			return 0;
	}
	ri->task = current;
	follow = !rp->entry_handler || !rp->entry_handler(ri, regs);
	if (follow)
		rethook_hook(&ri->node, regs, kprobe_ftrace(p));
	else
		rethook_recycle(&ri->node);
	return 0;
}

NOKPROBE_SYMBOL(kretprobe_entry);

/*
 * Called by rethook with preemption off when a followed call returns.  The
 * entry probe is this CPU's running probe meanwhile, so probes hit inside
 * the handler are only counted as missed.
 */
static void notrace kretprobe_return(struct rethook_node *rhn, void *data,
				     unsigned long ret_addr,
				     struct pt_regs *regs)
{
	struct kretprobe *rp = data;
	struct kprobe *outer;

	if (!rp || !rp->handler)
		return;
	/*
	 * A return inside another probe's handler must not recurse.  On
	 * powerpc the rethook trampoline is itself a probe, whose handler
	 * brings us here: that one does not count.
	 */
	outer = kprobe_running();
	if (unlikely(outer) &&
	    !is_rethook_trampoline((unsigned long)outer->addr)) {
		/* Racing CPUs may lose an increment: a statistic. */
		data_race(rp->nmissed_return_busy++);
		/* Racing CPUs may lose an increment: a statistic. */
		data_race(rp->nmissed++);
		return;
	}
	__this_cpu_write(current_kprobe, &rp->kp);
	rp->handler(container_of(rhn, struct kretprobe_instance, node), regs);
	__this_cpu_write(current_kprobe, outer);
}

NOKPROBE_SYMBOL(kretprobe_return);

/* A pool of @num instances for @rp, or an ERR_PTR(). */
void *kretprobe_pool_new(struct kretprobe *rp, int num)
{
	return rethook_alloc(rp, kretprobe_return,
			     sizeof(struct kretprobe_instance) + rp->data_size,
			     num);
}

/* The pool entries take from first. */
notrace void kretprobe_set_newest(struct kretprobe *rp, void *pool)
{
	WRITE_ONCE(rp->rh, pool);
}

NOKPROBE_SYMBOL(kretprobe_set_newest);

/* Returns still in flight through @pool skip the handler from now on. */
void kretprobe_pool_stop(void *pool)
{
	struct rethook *rh = pool;

	rethook_stop(rh);
	WRITE_ONCE(rh->data, NULL);
}

/*
 * After a grace period since kretprobe_pool_stop(); instances still out
 * are freed by rethook when their calls return.
 */
void kretprobe_pool_free(void *pool)
{
	rethook_free(pool);
}
