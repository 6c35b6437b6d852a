// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kretprobe instances for the arches that divert returns themselves.
 *
 * A pool is a struct kretprobe_pool, around an objpool: lockless, usable
 * from any context.  The entry probe takes an instance from the newest
 * one, lets arch_prepare_kretprobe() save the real return address in it
 * and point the return at __kretprobe_trampoline, and pushes it on the
 * calling task's kretprobe_instances list.  That list is a stack only its own
 * task (and interrupts nested on it, which push and pop in pairs) ever
 * changes, so plain llist operations do.
 *
 * Instances outlive their kretprobe when calls are still in flight at
 * unregistration: pool->rp goes NULL first, and after a grace period the
 * pool is finished with objpool_fini().  An instance coming back later
 * is dropped instead of pushed (objpool_drop()), and the last one frees
 * the pool.  Whoever gives one back does so inside an RCU read-side
 * section, so it either saw pool->rp and pushed before the fini, or saw
 * NULL.
 */

#include <linux/kprobes.h>
#include <linux/llist.h>
#include <linux/objpool.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "internal.h"

struct kretprobe_pool {
	struct kretprobe __rcu *rp;
	struct objpool_head objpool;
};

static __always_inline struct kretprobe_instance *
kretprobe_objpool_pop(void *pool)
{
	struct kretprobe_pool *krp = pool;
	struct kretprobe_instance *ri = objpool_pop(&krp->objpool);

	if (ri)
		ri->pool = krp;
	return ri;
}

/* For the instance supply, when the newest pool had nothing. */
notrace struct kretprobe_instance *kretprobe_pool_take(void *pool)
{
	return kretprobe_objpool_pop(pool);
}

NOKPROBE_SYMBOL(kretprobe_pool_take);

/* parisc also puts the real return address back in a register here. */
void __weak arch_kretprobe_fixup_return(struct pt_regs *regs,
					kprobe_opcode_t *correct_ret_addr)
{
}

/* objpool's last reference is gone: the pool around it goes too. */
static int kretprobe_pool_release(struct objpool_head *head, void *unused)
{
	kfree(container_of(head, struct kretprobe_pool, objpool));
	return 0;
}

/**
 * kretprobe_of_instance() - the kretprobe an instance belongs to
 * @ri: an instance
 *
 * Context: RCU read side (kretprobe handlers qualify).
 * Return: the kretprobe, or NULL once it is being unregistered.
 */
struct kretprobe *kretprobe_of_instance(struct kretprobe_instance *ri)
{
	return rcu_dereference_check(ri->pool->rp, rcu_read_lock_any_held());
}

NOKPROBE_SYMBOL(kretprobe_of_instance);

/* Back to its pool, or to the pool's end if the kretprobe is gone. */
static void kretprobe_recycle(struct kretprobe_instance *ri)
{
	struct kretprobe_pool *pool = ri->pool;

	rcu_read_lock();
	if (rcu_dereference(pool->rp))
		objpool_push(ri, &pool->objpool);
	else
		objpool_drop(ri, &pool->objpool);
	rcu_read_unlock();
}

NOKPROBE_SYMBOL(kretprobe_recycle);

int notrace kretprobe_entry(struct kprobe *p, struct pt_regs *regs)
{
	struct kretprobe *rp = container_of(p, struct kretprobe, kp);
	void *newest = READ_ONCE(rp->pool);
	struct kretprobe_instance *ri = kretprobe_objpool_pop(newest);

	if (unlikely(!ri)) {
		ri = kretprobe_take_spare(rp, newest);
		if (!ri)
			return 0;
	}
	ri->task = current;
	if (rp->entry_handler && rp->entry_handler(ri, regs)) {
		objpool_push(ri, &ri->pool->objpool);
		return 0;
	}
	arch_prepare_kretprobe(ri, regs);
	__llist_add(&ri->llist, &current->kretprobe_instances);
	return 0;
}

NOKPROBE_SYMBOL(kretprobe_entry);

/*
 * The instance of the call returning now: the newest one made from
 * @frame_pointer, or simply the newest when the arch keeps no frame.
 * Newer ones with another frame belong to calls that will never return
 * through the trampoline (their frames were abandoned).
 */
static struct llist_node *kretprobe_match(struct llist_node *node,
					  void *frame_pointer)
{
	struct kretprobe_instance *ri;

	for (; node; node = node->next) {
		ri = container_of(node, struct kretprobe_instance, llist);
		if (!frame_pointer || ri->fp == frame_pointer)
			return node;
	}
	return NULL;
}

NOKPROBE_SYMBOL(kretprobe_match);

/**
 * __kretprobe_trampoline_handler() - run the handler of a diverted return
 * @regs: registers at the trampoline
 * @frame_pointer: the returning call's frame, as saved in @ri->fp, or NULL
 *
 * Sets regs' instruction pointer to the real return address for the
 * handler, runs it with the kretprobe as current_kprobe, and gives the
 * instance (and any abandoned newer ones) back.  Without a matching
 * instance the return address is lost, and the kernel cannot go on.
 * Context: the arch's trampoline path, preemption off; the caller has
 * marked this CPU busy (kretprobe_trampoline_handler()) or runs as a
 * probe handler itself.
 * Return: the real return address.
 */
unsigned long __kretprobe_trampoline_handler(struct pt_regs *regs,
					     void *frame_pointer)
{
	struct llist_head *stack = &current->kretprobe_instances;
	struct llist_node *node, *match, *next;
	struct kretprobe_instance *ri;
	struct kprobe *outer;
	struct kretprobe *rp;
	unsigned long ret;

	node = stack->first;
	match = kretprobe_match(node, frame_pointer);
	/* There is no way back to the caller without its address. */
	if (unlikely(!match))
		panic("kretprobe: a diverted return has no instance\n");
	ri = container_of(match, struct kretprobe_instance, llist);
	ret = (unsigned long)ri->ret_addr;

	instruction_pointer_set(regs, ret);
	arch_kretprobe_fixup_return(regs, ri->ret_addr);
	/*
	 * The instance stays on the list while the handler runs: a stack
	 * trace taken there unwinds through the trampoline with its help.
	 * No other instance can come or go meanwhile, as this CPU counts as
	 * running a probe.
	 */
	rp = kretprobe_of_instance(ri);
	if (rp && rp->handler) {
		outer = kprobe_running();
		__this_cpu_write(current_kprobe, &rp->kp);
		rp->handler(ri, regs);
		__this_cpu_write(current_kprobe, outer);
	}
	stack->first = match->next;

	for (; node != match->next; node = next) {
		next = node->next;
		kretprobe_recycle(container_of(node, struct kretprobe_instance,
					       llist));
	}
	return ret;
}

NOKPROBE_SYMBOL(__kretprobe_trampoline_handler);

/**
 * kretprobe_find_ret_addr() - the real return address behind a trampoline
 * @tsk: the task whose stack is being unwound (current, or one that
 *	cannot run meanwhile)
 * @fp: the frame the unwinder is at, or NULL to take the next instance
 * @cur: the unwinder's cursor: NULL to start with the newest instance;
 *	moved past the one found
 *
 * Return: the return address saved for the next diverted call made from
 * @fp, or 0 if there is none.
 */
unsigned long kretprobe_find_ret_addr(struct task_struct *tsk, void *fp,
				      struct llist_node **cur)
{
	struct llist_node *node;

	node = *cur ? (*cur)->next : READ_ONCE(tsk->kretprobe_instances.first);
	node = kretprobe_match(node, fp);
	if (!node)
		return 0;
	*cur = node;
	return (unsigned long)container_of(node, struct kretprobe_instance,
					   llist)->ret_addr;
}

NOKPROBE_SYMBOL(kretprobe_find_ret_addr);

/**
 * kprobe_flush_task() - give back the instances of an exiting task
 * @tk: a task that will never run again
 *
 * Context: called by kernel/exit.c when the task is freed.
 */
void kprobe_flush_task(struct task_struct *tk)
{
	struct llist_node *node, *next;

	node = llist_del_all(&tk->kretprobe_instances);
	for (; node; node = next) {
		next = node->next;
		kretprobe_recycle(container_of(node, struct kretprobe_instance,
					       llist));
	}
}

NOKPROBE_SYMBOL(kprobe_flush_task);

/* A pool of @num instances for @rp, or an ERR_PTR(). */
void *kretprobe_pool_new(struct kretprobe *rp, int num)
{
	struct kretprobe_pool *pool;

	pool = kzalloc(sizeof(*pool), GFP_KERNEL);
	if (!pool)
		return ERR_PTR(-ENOMEM);
	RCU_INIT_POINTER(pool->rp, rp);
	if (objpool_init(&pool->objpool, num,
			 sizeof(struct kretprobe_instance) + rp->data_size,
			 GFP_KERNEL, NULL, NULL, kretprobe_pool_release)) {
		kfree(pool);
		return ERR_PTR(-ENOMEM);
	}
	return pool;
}

/* The pool entries take from first. */
notrace void kretprobe_set_newest(struct kretprobe *rp, void *pool)
{
	WRITE_ONCE(rp->pool, pool);
}

NOKPROBE_SYMBOL(kretprobe_set_newest);

/* Returns still in flight through @pool skip the handler from now on. */
void kretprobe_pool_stop(void *pool)
{
	rcu_assign_pointer(((struct kretprobe_pool *)pool)->rp, NULL);
}

/*
 * After a grace period since kretprobe_pool_stop(); instances still out
 * are dropped as their calls return, and the last one frees the pool.
 */
void kretprobe_pool_free(void *pool)
{
	objpool_fini(&((struct kretprobe_pool *)pool)->objpool);
}
