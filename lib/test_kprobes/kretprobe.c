// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * KUnit suite "kretprobes": the return value and the return address a
 * return handler sees, entry_handler and per-instance data, maxactive,
 * the supply of instances past it and nmissed, enable/disable and batches,
 * a kprobe beside a kretprobe, stack traces through the return trampoline,
 * from the handler and of a task parked inside a probed call, and
 * unregistration while calls are in flight.
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/irqflags.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/stacktrace.h>

#ifdef CONFIG_X86_64
#include "x86_targets.h"
#endif

#include "kpt.h"

static bool kpt_is_trampoline(unsigned long addr)
{
#if KPT_BUILTIN
	return is_kretprobe_trampoline(addr);
#else
	return false;
#endif
}

/* ---------------------------------------------------------------------- */
/* Targets                                                                 */

/* Sum of 0..n, computed recursively (the call is not a tail call). */
static noinline __noipa unsigned long kpt_recurse(unsigned long n)
{
	unsigned long sum = n;

	if (n)
		sum += kpt_recurse(n - 1);
	barrier();
	return sum;
}

/* Where kpt_ret_target() was asked to return to, as it saw it. */
static unsigned long kpt_ret_target_ra;

static noinline __noipa unsigned long kpt_ret_target(unsigned long x)
{
	kpt_ret_target_ra = (unsigned long)__builtin_return_address(0);
	return x * 3 + 1;
}

static noinline __noipa unsigned long kpt_ret_caller(unsigned long x)
{
	unsigned long ret = kpt_ret_target(x);

	barrier();
	return ret;
}

/* A task that stops inside kpt_park_target() until released. */
struct kpt_park {
	struct completion entered;
	struct completion release;
	unsigned long result;
	bool done;
};

static unsigned long kpt_park_target_ra;

static noinline __noipa unsigned long kpt_park_target(struct kpt_park *pk)
{
	if (!pk) {
		kpt_park_target_ra = (unsigned long)__builtin_return_address(0);
		return 11;
	}
	complete(&pk->entered);
	wait_for_completion(&pk->release);
	return 11;
}

static noinline __noipa unsigned long kpt_park_caller(struct kpt_park *pk)
{
	unsigned long ret = kpt_park_target(pk);

	barrier();
	return ret;
}

/* ---------------------------------------------------------------------- */
/* Cases                                                                   */

static void kretprobe_return_value(struct kunit *test)
{
	struct kpt_rprobe *r = kpt_rprobe_new(test, kpt_ret_target, 0);
	unsigned long real_ra;

	kpt_ret_caller(1);
	real_ra = kpt_ret_target_ra;

	KUNIT_ASSERT_EQ(test, kpt_register_ret(test, &r->rp), 0);
	KUNIT_EXPECT_EQ(test, (unsigned long)r->rp.kp.addr,
			kpt_entry_addr(kpt_ret_target));
	KUNIT_EXPECT_EQ(test, kpt_ret_caller(10), 31UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->entry_hits), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret_hits), 1);
	KUNIT_EXPECT_EQ(test, r->retval, 31UL);
	KUNIT_EXPECT_PTR_EQ(test, r->seen_rp, &r->rp);
	KUNIT_EXPECT_EQ(test, r->ret_addr, real_ra);
	KUNIT_EXPECT_EQ(test, r->rp.nmissed, 0);

	KUNIT_EXPECT_EQ(test, kpt_ret_caller(100), 301UL);
	KUNIT_EXPECT_EQ(test, r->retval, 301UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret_hits), 2);
}

static void kretprobe_by_symbol(struct kunit *test)
{
	struct kpt_rprobe *r = kpt_rprobe_new(test, NULL, 0);

	r->rp.kp.symbol_name = "kpt_ret_target";
	KUNIT_ASSERT_EQ(test, kpt_register_ret(test, &r->rp), 0);
	KUNIT_EXPECT_EQ(test, (unsigned long)r->rp.kp.addr,
			kpt_entry_addr(kpt_ret_target));
	KUNIT_EXPECT_EQ(test, kpt_ret_caller(2), 7UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret_hits), 1);
	KUNIT_EXPECT_EQ(test, r->retval, 7UL);
}

#ifdef CONFIG_X86_64
/*
 * __switch_to() returns into another task: no instance could follow it.
 * A kprobe may go there, so the refusal is the kretprobe's own.
 */
static void kpt_switch_to_refused(struct kunit *test, struct kpt_rprobe *sw)
{
	struct kprobe kp = { .symbol_name = "__switch_to" };
	int ret = register_kprobe(&kp);

	KUNIT_EXPECT_EQ(test, ret, 0);
	if (!ret)
		unregister_kprobe(&kp);
	sw->rp.kp.symbol_name = "__switch_to";
	KUNIT_EXPECT_EQ(test, kpt_register_ret(test, &sw->rp), -EINVAL);
}
#endif

static void kretprobe_invalid(struct kunit *test)
{
	struct kpt_rprobe *both = kpt_rprobe_new(test, kpt_ret_target, 0);
	struct kpt_rprobe *mid = kpt_rprobe_new(test, NULL, 0);
	struct kpt_rprobe *nok = kpt_rprobe_new(test, kpt_nokprobe_target, 0);
	struct kpt_rprobe *sw = kpt_rprobe_new(test, NULL, 0);

	both->rp.kp.symbol_name = "kpt_ret_target";
	KUNIT_EXPECT_EQ(test, kpt_register_ret(test, &both->rp), -EINVAL);
	KUNIT_EXPECT_EQ(test, kpt_register_ret(test, &nok->rp), -EINVAL);
#ifdef CONFIG_X86_64
	/* Not a function entry. */
	mid->rp.kp.symbol_name = "kpt_asm_regs";
	mid->rp.kp.offset = kpt_asm_regs_sites[1];
	KUNIT_EXPECT_EQ(test, kpt_register_ret(test, &mid->rp), -EINVAL);
	KUNIT_EXPECT_EQ(test, kpt_asm_regs(0), 0x55UL + 0x1234);
	kpt_switch_to_refused(test, sw);
#endif
	kpt_ret_caller(1);
	kpt_nokprobe_target(1);
	KUNIT_EXPECT_EQ(test, atomic_read(&both->entry_hits) +
			atomic_read(&mid->entry_hits) +
			atomic_read(&nok->entry_hits) +
			atomic_read(&sw->entry_hits), 0);
}

/*
 * Both refused before any instance is allocated: too much instance data,
 * and a kretprobe that is already registered, whose instances a second
 * registration would replace under the calls it is following.
 */
static void kretprobe_refused_data_size_and_twice(struct kunit *test)
{
	struct kpt_rprobe *big = kpt_rprobe_new(test, kpt_ret_target, 1);
	struct kpt_rprobe *r = kpt_rprobe_new(test, kpt_ret_target, 0);

	big->rp.data_size = KRETPROBE_MAX_DATA_SIZE + 1;
	KUNIT_EXPECT_EQ(test, kpt_register_ret(test, &big->rp), -E2BIG);
	KUNIT_EXPECT_EQ(test, kpt_ret_caller(1), 4UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&big->entry_hits), 0);

	/* The limit itself is allowed. */
	big->rp.data_size = KRETPROBE_MAX_DATA_SIZE;
	KUNIT_ASSERT_EQ(test, kpt_register_ret(test, &big->rp), 0);
	KUNIT_EXPECT_EQ(test, kpt_ret_caller(2), 7UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&big->ret_hits), 1);
	kpt_unregister_ret(test, &big->rp);

	KUNIT_ASSERT_EQ(test, kpt_register_ret(test, &r->rp), 0);
	KUNIT_EXPECT_EQ(test, kpt_ret_caller(3), 10UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret_hits), 1);
	KUNIT_EXPECT_EQ(test, register_kretprobe(&r->rp), -EINVAL);

	/* Still registered once, with its instances. */
	KUNIT_EXPECT_EQ(test, kpt_ret_caller(4), 13UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->entry_hits), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret_hits), 2);
	KUNIT_EXPECT_EQ(test, r->retval, 13UL);
	KUNIT_EXPECT_EQ(test, r->rp.nmissed, 0);
}

static void kretprobe_entry_handler_skips(struct kunit *test)
{
	struct kpt_rprobe *r = kpt_rprobe_new(test, kpt_ret_target, 0);

	r->entry_ret = 1;
	KUNIT_ASSERT_EQ(test, kpt_register_ret(test, &r->rp), 0);
	KUNIT_EXPECT_EQ(test, kpt_ret_caller(3), 10UL);
	KUNIT_EXPECT_EQ(test, kpt_ret_caller(4), 13UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->entry_hits), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret_hits), 0);
	/* Declined by entry_handler is not missed. */
	KUNIT_EXPECT_EQ(test, r->rp.nmissed, 0);

	r->entry_ret = 0;
	KUNIT_EXPECT_EQ(test, kpt_ret_caller(3), 10UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret_hits), 1);
}

static void kretprobe_data_size(struct kunit *test)
{
	struct kpt_rprobe *r = kpt_rprobe_new(test, kpt_recurse, 8);

	r->use_data = true;
	r->rp.data_size = sizeof(struct kpt_data);
	KUNIT_ASSERT_EQ(test, kpt_register_ret(test, &r->rp), 0);
	/* Five nested instances, each with its own data. */
	KUNIT_EXPECT_EQ(test, kpt_recurse(4), 10UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->entry_hits), 5);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret_hits), 5);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->data_ok), 5);
	KUNIT_EXPECT_EQ(test, r->retval, 10UL);
	KUNIT_EXPECT_EQ(test, r->rp.nmissed, 0);
}

/*
 * Nested calls past maxactive are followed from the reserve.  With
 * interrupts off the worker that refills it cannot run, so a burst past
 * maxactive + reserve (1 + 16 here) is missed, counted; once interrupts are
 * back a larger reserve is made and a burst of that size loses nothing.
 */
static void kretprobe_supply_burst(struct kunit *test)
{
	struct kpt_rprobe *r = kpt_rprobe_new(test, kpt_recurse, 1);
	unsigned long flags, missed, sum;
	int tries;

	r->use_data = true;
	r->rp.data_size = sizeof(struct kpt_data);
	KUNIT_ASSERT_EQ(test, kpt_register_ret(test, &r->rp), 0);

	/* 40 calls: 17 instances, each with its own data; 23 missed. */
	local_irq_save(flags);
	sum = kpt_recurse(39);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, sum, 780UL);
	KUNIT_EXPECT_EQ(test, r->rp.nmissed, 23);
	KUNIT_EXPECT_EQ(test, r->rp.nmissed_no_instance, 23UL);
	KUNIT_EXPECT_EQ(test, r->rp.nmissed_return_busy, 0UL);
	KUNIT_EXPECT_EQ(test, r->rp.kp.nmissed, 0UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->entry_hits), 17);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret_hits), 17);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->data_ok), 17);
	/* The outermost calls got them. */
	KUNIT_EXPECT_EQ(test, r->retval, 780UL);

	/* 1 + 16 + the next reserve (17) hold 30 nested calls. */
	for (tries = 0; tries < 100; tries++) {
		msleep(20);
		missed = r->rp.nmissed;
		atomic_set(&r->ret_hits, 0);
		local_irq_save(flags);
		sum = kpt_recurse(29);
		local_irq_restore(flags);
		KUNIT_EXPECT_EQ(test, sum, 435UL);
		if (r->rp.nmissed == missed)
			break;
	}
	KUNIT_EXPECT_LT(test, tries, 100);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret_hits), 30);
}

#ifdef CONFIG_KRETPROBE_ON_RETHOOK
/* Never registered: stands for a probe handler running on this CPU. */
static struct kprobe kpt_busy_stand_in;

/* Returns while kpt_busy_stand_in counts as this CPU's running probe. */
static noinline __noipa unsigned long kpt_ret_busy_target(unsigned long x)
{
	__this_cpu_write(current_kprobe, &kpt_busy_stand_in);
	return x + 5;
}

/*
 * A return that comes while another probe's handler runs skips the
 * handler, and is counted as such (rethook, where the return handler
 * checks; without rethook the trampoline marks the CPU busy itself).
 */
static void kretprobe_return_busy(struct kunit *test)
{
	struct kpt_rprobe *r = kpt_rprobe_new(test, kpt_ret_busy_target, 0);
	unsigned long v;

	KUNIT_ASSERT_EQ(test, kpt_register_ret(test, &r->rp), 0);
	preempt_disable();
	v = kpt_ret_busy_target(1);
	__this_cpu_write(current_kprobe, NULL);
	preempt_enable();
	KUNIT_EXPECT_EQ(test, v, 6UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->entry_hits), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret_hits), 0);
	KUNIT_EXPECT_EQ(test, r->rp.nmissed_return_busy, 1UL);
	KUNIT_EXPECT_EQ(test, r->rp.nmissed_no_instance, 0UL);
	KUNIT_EXPECT_EQ(test, r->rp.nmissed, 1);
	KUNIT_EXPECT_EQ(test, r->rp.kp.nmissed, 0UL);
}
#endif

static void kretprobe_maxactive_default(struct kunit *test)
{
	struct kpt_rprobe *r = kpt_rprobe_new(test, kpt_recurse, 0);

	/* The default is at least 10 (max(10, 2 * CPUs)). */
	KUNIT_ASSERT_EQ(test, kpt_register_ret(test, &r->rp), 0);
	KUNIT_EXPECT_EQ(test, kpt_recurse(9), 45UL);
	KUNIT_EXPECT_EQ(test, r->rp.nmissed, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret_hits), 10);
}

static void kretprobe_disable_enable(struct kunit *test)
{
	struct kpt_rprobe *r = kpt_rprobe_new(test, kpt_ret_target, 0);

	r->rp.kp.flags = KPROBE_FLAG_DISABLED;
	KUNIT_ASSERT_EQ(test, kpt_register_ret(test, &r->rp), 0);
	KUNIT_EXPECT_EQ(test, kpt_ret_caller(1), 4UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->entry_hits), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret_hits), 0);

	KUNIT_ASSERT_EQ(test, enable_kretprobe(&r->rp), 0);
	KUNIT_EXPECT_EQ(test, kpt_ret_caller(1), 4UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret_hits), 1);

	KUNIT_ASSERT_EQ(test, disable_kretprobe(&r->rp), 0);
	KUNIT_EXPECT_EQ(test, kpt_ret_caller(1), 4UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret_hits), 1);

	KUNIT_ASSERT_EQ(test, enable_kretprobe(&r->rp), 0);
	KUNIT_EXPECT_EQ(test, kpt_ret_caller(1), 4UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret_hits), 2);

	kpt_unregister_ret(test, &r->rp);
	KUNIT_EXPECT_EQ(test, kpt_ret_caller(1), 4UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret_hits), 2);
}

static void kretprobes_batch_rollback(struct kunit *test)
{
	struct kpt_rprobe *a = kpt_rprobe_new(test, kpt_ret_target, 0);
	struct kpt_rprobe *b = kpt_rprobe_new(test, kpt_recurse, 0);
	struct kpt_rprobe *bad = kpt_rprobe_new(test, NULL, 0);
	struct kretprobe *rps[] = { &a->rp, &b->rp, &bad->rp };

	/* Neither symbol nor address. */
	KUNIT_EXPECT_EQ(test, kpt_register_rets(test, rps, ARRAY_SIZE(rps)),
			-EINVAL);
	kpt_ret_caller(1);
	kpt_recurse(1);
	KUNIT_EXPECT_EQ(test, atomic_read(&a->entry_hits), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&b->entry_hits), 0);

	/* Without the bad one, both work, and go away together. */
	a->rp.kp.addr = (void *)kpt_ret_target;
	a->rp.kp.flags = 0;
	b->rp.kp.addr = (void *)kpt_recurse;
	b->rp.kp.flags = 0;
	KUNIT_ASSERT_EQ(test, kpt_register_rets(test, rps, 2), 0);
	kpt_ret_caller(1);
	kpt_recurse(1);
	kpt_unregister_rets(test, rps, 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&a->ret_hits), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&b->ret_hits), 2);
	kpt_ret_caller(1);
	kpt_recurse(1);
	KUNIT_EXPECT_EQ(test, atomic_read(&a->ret_hits), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&b->ret_hits), 2);
}

static void kretprobe_with_kprobe(struct kunit *test)
{
	struct kpt_rprobe *r = kpt_rprobe_new(test, kpt_ret_target, 0);
	struct kpt_probe *p = kpt_probe_new(test, kpt_ret_target, true);

	KUNIT_ASSERT_EQ(test, kpt_register(test, &p->kp), 0);
	KUNIT_ASSERT_EQ(test, kpt_register_ret(test, &r->rp), 0);
	KUNIT_EXPECT_EQ(test, kpt_ret_caller(5), 16UL);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, p->post_hits, 1U);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->entry_hits), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret_hits), 1);
	KUNIT_EXPECT_EQ(test, r->retval, 16UL);

	kpt_unregister(test, &p->kp);
	KUNIT_EXPECT_EQ(test, kpt_ret_caller(6), 19UL);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret_hits), 2);
	KUNIT_EXPECT_EQ(test, r->retval, 19UL);
}

static void kretprobe_handler_hits_kprobe(struct kunit *test)
{
	struct kpt_rprobe *r = kpt_rprobe_new(test, kpt_ret_target, 0);
	struct kpt_probe *p = kpt_probe_new(test, kpt_target_inner, false);

	r->call_in_ret = kpt_target_inner;
	KUNIT_ASSERT_EQ(test, kpt_register(test, &p->kp), 0);
	KUNIT_ASSERT_EQ(test, kpt_register_ret(test, &r->rp), 0);
	KUNIT_EXPECT_EQ(test, kpt_ret_caller(1), 4UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret_hits), 1);
	/* A return handler is a kprobe handler: nested hits are missed. */
	KUNIT_EXPECT_EQ(test, r->call_result, 41UL * 7 + 3);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 0U);
	KUNIT_EXPECT_EQ(test, p->kp.nmissed, 1UL);
}

#ifdef CONFIG_STACKTRACE
static bool kpt_trace_has_trampoline(const unsigned long *trace,
				     unsigned int len)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		if (kpt_is_trampoline(trace[i]))
			return true;
	return false;
}
#endif

static void kretprobe_stacktrace_in_handler(struct kunit *test)
{
#ifdef CONFIG_STACKTRACE
	struct kpt_rprobe *r = kpt_rprobe_new(test, kpt_ret_target, 0);
	unsigned long real_ra;

	kpt_ret_caller(1);
	real_ra = kpt_ret_target_ra;

	r->save_trace = true;
	KUNIT_ASSERT_EQ(test, kpt_register_ret(test, &r->rp), 0);
	KUNIT_EXPECT_EQ(test, kpt_ret_caller(2), 7UL);
	KUNIT_ASSERT_EQ(test, atomic_read(&r->ret_hits), 1);
	KUNIT_EXPECT_GT(test, r->trace_len, 0U);
	/* The caller's return address is there, the trampoline is not. */
	KUNIT_EXPECT_TRUE_MSG(test, kpt_trace_has(r->trace, r->trace_len,
						  real_ra),
			      "no %pS in the return handler's stack trace",
			      (void *)real_ra);
	KUNIT_EXPECT_FALSE(test, kpt_trace_has_trampoline(r->trace,
							  r->trace_len));
#else
	kunit_skip(test, "needs CONFIG_STACKTRACE");
#endif
}

static int kpt_park_thread(void *arg)
{
	struct kpt_park *pk = arg;

	pk->result = kpt_park_caller(pk);
	WRITE_ONCE(pk->done, true);

	return kpt_wait_for_stop();
}

KUNIT_DEFINE_ACTION_WRAPPER(kpt_complete_all_action, complete_all,
			    struct completion *);

static void kpt_park_stop(void *arg)
{
	struct task_struct *task = arg;

	kthread_stop(task);
	put_task_struct(task);
}

/* Is @task off its CPU and asleep? */
static bool kpt_task_parked(struct task_struct *task)
{
	if (READ_ONCE(task->__state) != TASK_UNINTERRUPTIBLE)
		return false;
#ifdef CONFIG_SMP
	if (READ_ONCE(task->on_cpu))
		return false;
#endif
	return true;
}

/*
 * Starts a task that parks in kpt_park_target() on @pk; at the end of the
 * test it is released, then stopped (actions run last-in first-out).
 */
static struct task_struct *kpt_park_start(struct kunit *test,
					  struct kpt_park *pk, int n)
{
	struct task_struct *task;

	init_completion(&pk->entered);
	init_completion(&pk->release);
	task = kthread_run(kpt_park_thread, pk, "kprobes_test_park%d", n);
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	get_task_struct(task);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kpt_park_stop,
							task), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							kpt_complete_all_action,
							&pk->release), 0);
	return task;
}

static void kretprobe_parked_task(struct kunit *test)
{
	struct kpt_rprobe *r = kpt_rprobe_new(test, kpt_park_target, 1);
	struct kpt_park *pk = kunit_kzalloc(test, sizeof(*pk), GFP_KERNEL);
	unsigned long timeout = jiffies + 30 * HZ;
	struct task_struct *task;
	unsigned long real_ra;
	unsigned long *trace;
	unsigned int len = 0;

	KUNIT_ASSERT_NOT_NULL(test, pk);
	trace = kunit_kcalloc(test, KPT_TRACE_MAX, sizeof(*trace), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, trace);

	kpt_park_caller(NULL);
	real_ra = kpt_park_target_ra;

	KUNIT_ASSERT_EQ(test, kpt_register_ret(test, &r->rp), 0);
	task = kpt_park_start(test, pk, 0);

	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&pk->entered,
							  30 * HZ), 0UL);
	while (!kpt_task_parked(task) && time_before(jiffies, timeout))
		usleep_range(1000, 2000);
	KUNIT_ASSERT_TRUE(test, kpt_task_parked(task));

	/* Its only first-pool instance is taken: this one is a spare. */
	KUNIT_EXPECT_EQ(test, kpt_park_caller(NULL), 11UL);
	KUNIT_EXPECT_EQ(test, r->rp.nmissed, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->entry_hits), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret_hits), 1);

#ifdef CONFIG_STACKTRACE
	len = stack_trace_save_tsk(task, trace, KPT_TRACE_MAX, 0);
	KUNIT_EXPECT_GT(test, len, 0U);
	KUNIT_EXPECT_TRUE_MSG(test, kpt_trace_has(trace, len, real_ra),
			      "no %pS in the parked task's stack trace",
			      (void *)real_ra);
	KUNIT_EXPECT_FALSE(test, kpt_trace_has_trampoline(trace, len));
#endif

	complete_all(&pk->release);
	while (!READ_ONCE(pk->done) && time_before(jiffies, timeout))
		usleep_range(1000, 2000);
	KUNIT_ASSERT_TRUE(test, READ_ONCE(pk->done));
	KUNIT_EXPECT_EQ(test, pk->result, 11UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret_hits), 2);
	KUNIT_EXPECT_EQ(test, r->retval, 11UL);
	KUNIT_EXPECT_EQ(test, r->ret_addr, real_ra);
}

/* Releases a parked task when @waiter enters synchronize_rcu(). */
struct kpt_gp_release {
	struct kprobe kp;
	struct task_struct *waiter;
	struct completion *release;
};

static int kpt_release_at_gp(struct kprobe *kp, struct pt_regs *regs)
{
	struct kpt_gp_release *g = container_of(kp, struct kpt_gp_release, kp);

	if (current == READ_ONCE(g->waiter)) {
		WRITE_ONCE(g->waiter, NULL);
		complete(g->release);
	}
	return 0;
}

/*
 * A disabled kretprobe listed twice in one unregister_kretprobes(): its
 * first entry detaches it, the second finds nothing.  A call in flight
 * that returns during the grace period must not run the handler: once
 * that has begun, unregistration waits for no handler that starts
 * later.  The parked call is released as unregistration enters
 * synchronize_rcu().
 */
static void kretprobe_unregister_listed_twice(struct kunit *test)
{
	struct kpt_rprobe *r = kpt_rprobe_new(test, kpt_park_target, 1);
	struct kpt_park *pk = kunit_kzalloc(test, sizeof(*pk), GFP_KERNEL);
	struct kpt_gp_release *g = kunit_kzalloc(test, sizeof(*g), GFP_KERNEL);
	unsigned long timeout = jiffies + 30 * HZ;
	struct kretprobe *rps[2];

	KUNIT_ASSERT_NOT_NULL(test, pk);
	KUNIT_ASSERT_NOT_NULL(test, g);
	g->kp.symbol_name = "synchronize_rcu";
	g->kp.pre_handler = kpt_release_at_gp;
	g->release = &pk->release;
	KUNIT_ASSERT_EQ(test, kpt_register(test, &g->kp), 0);
	KUNIT_ASSERT_EQ(test, kpt_register_ret(test, &r->rp), 0);
	kpt_park_start(test, pk, 0);
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&pk->entered,
							  30 * HZ), 0UL);
	KUNIT_ASSERT_EQ(test, disable_kretprobe(&r->rp), 0);

	rps[0] = &r->rp;
	rps[1] = &r->rp;
	WRITE_ONCE(g->waiter, current);
	kpt_unregister_rets(test, rps, 2);
	KUNIT_EXPECT_PTR_EQ(test, READ_ONCE(g->waiter), NULL);
	WRITE_ONCE(g->waiter, NULL);

	while (!READ_ONCE(pk->done) && time_before(jiffies, timeout))
		usleep_range(1000, 2000);
	KUNIT_ASSERT_TRUE(test, READ_ONCE(pk->done));
	KUNIT_EXPECT_EQ(test, pk->result, 11UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->entry_hits), 1);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&r->ret_hits), 0,
			    "a return ran the handler of a detached kretprobe");
}

/*
 * Sleepers, each holding an instance: 40 of them on a kretprobe of
 * maxactive 1 take the first pool, the reserve and the pools made while
 * they come in; every return is seen once they are released.
 */
#define KPT_NR_SLEEPERS	40

static void kretprobe_sleepers_all_followed(struct kunit *test)
{
	struct kpt_rprobe *r = kpt_rprobe_new(test, kpt_park_target, 1);
	unsigned long timeout = jiffies + 60 * HZ;
	struct kpt_park *pk;
	int i, done;

	pk = kunit_kcalloc(test, KPT_NR_SLEEPERS, sizeof(*pk), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pk);
	KUNIT_ASSERT_EQ(test, kpt_register_ret(test, &r->rp), 0);
	for (i = 0; i < KPT_NR_SLEEPERS; i++) {
		kpt_park_start(test, &pk[i], i);
		KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&pk[i].entered,
								  30 * HZ), 0UL);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&r->entry_hits), KPT_NR_SLEEPERS);
	KUNIT_EXPECT_EQ(test, r->rp.nmissed, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret_hits), 0);

	for (i = 0; i < KPT_NR_SLEEPERS; i++)
		complete_all(&pk[i].release);
	do {
		for (done = 0, i = 0; i < KPT_NR_SLEEPERS; i++)
			done += READ_ONCE(pk[i].done);
		if (done < KPT_NR_SLEEPERS)
			usleep_range(1000, 2000);
	} while (done < KPT_NR_SLEEPERS && time_before(jiffies, timeout));
	KUNIT_ASSERT_EQ(test, done, KPT_NR_SLEEPERS);
	for (i = 0; i < KPT_NR_SLEEPERS; i++)
		KUNIT_EXPECT_EQ(test, pk[i].result, 11UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret_hits), KPT_NR_SLEEPERS);
	KUNIT_EXPECT_EQ(test, r->rp.nmissed, 0);
}

static struct kunit_case kretprobes_cases[] = {
	KUNIT_CASE(kretprobe_return_value),
	KUNIT_CASE(kretprobe_by_symbol),
	KUNIT_CASE(kretprobe_invalid),
	KUNIT_CASE(kretprobe_refused_data_size_and_twice),
	KUNIT_CASE(kretprobe_entry_handler_skips),
	KUNIT_CASE(kretprobe_data_size),
	KUNIT_CASE(kretprobe_supply_burst),
#ifdef CONFIG_KRETPROBE_ON_RETHOOK
	KUNIT_CASE(kretprobe_return_busy),
#endif
	KUNIT_CASE(kretprobe_maxactive_default),
	KUNIT_CASE(kretprobe_disable_enable),
	KUNIT_CASE(kretprobes_batch_rollback),
	KUNIT_CASE(kretprobe_with_kprobe),
	KUNIT_CASE(kretprobe_handler_hits_kprobe),
	KUNIT_CASE(kretprobe_stacktrace_in_handler),
	KUNIT_CASE(kretprobe_parked_task),
	KUNIT_CASE(kretprobe_unregister_listed_twice),
	KUNIT_CASE(kretprobe_sleepers_all_followed),
	{}
};

static struct kunit_suite kretprobes_suite = {
	.name = "kretprobes",
	.init = kpt_test_init,
	.test_cases = kretprobes_cases,
};

kunit_test_suites(&kretprobes_suite);
