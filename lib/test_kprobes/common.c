// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What the kprobes KUnit suites share: the probes whose handlers count
 * and remember what they saw, the registration helpers and the C targets
 * more than one suite probes.  Declared in kpt.h.
 *
 * Every probe is registered through kpt_register*(), which also queues its
 * unregistration as a KUnit action: a failed assertion never leaves a probe
 * armed on a function whose handler data has been freed.
 */

#include <kunit/test.h>
#include <linux/kcsan-checks.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/stacktrace.h>

#ifdef CONFIG_X86_64
#include <asm/ibt.h>
#endif

#include "kpt.h"

int kpt_seq;

/**
 * kpt_test_init() - the init function of every suite
 * @test: the case about to run
 *
 * Restarts the order in which handlers and targets count (kpt_seq).
 *
 * Return: 0.
 */
int kpt_test_init(struct kunit *test)
{
	kpt_seq = 0;
	return 0;
}

/**
 * kpt_wait_for_stop() - the end of a helper kthread that is done early
 *
 * Sleeps until the case calls kthread_stop(), which may only be called on
 * a thread that has not returned yet.
 *
 * Return: 0, for the thread function to return.
 */
int kpt_wait_for_stop(void)
{
	set_current_state(TASK_INTERRUPTIBLE);
	while (!kthread_should_stop()) {
		schedule();
		set_current_state(TASK_INTERRUPTIBLE);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

/**
 * kpt_running() - kprobe_running(), where the suites can call it
 *
 * Context: preemption disabled, as for kprobe_running().
 *
 * Return: this CPU's running kprobe; always NULL in a modular build, to
 * which kprobe_running() is not exported.
 */
struct kprobe *kpt_running(void)
{
#if KPT_BUILTIN
	return kprobe_running();
#else
	return NULL;
#endif
}

/**
 * kpt_entry_addr() - the address a probe on @fn+0 must report
 * @fn: a function
 *
 * Return: @fn, past its ENDBR on IBT kernels.
 */
unsigned long kpt_entry_addr(const void *fn)
{
	unsigned long addr = (unsigned long)fn;

	/* Computed at run time: fn + 4 as a relocation would upset objtool. */
	OPTIMIZER_HIDE_VAR(addr);
#ifdef CONFIG_X86_64
	if (IS_ENABLED(CONFIG_X86_KERNEL_IBT) && is_endbr(*(const u32 *)fn))
		addr += ENDBR_INSN_SIZE;
#endif
	return addr;
}

/**
 * kpt_trace_has() - look for an address in a stack trace
 * @trace: the entries of the trace
 * @len: how many there are
 * @addr: the address to find
 *
 * Return: true if one of the entries is @addr.
 */
bool kpt_trace_has(const unsigned long *trace, unsigned int len,
		   unsigned long addr)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		if (trace[i] == addr)
			return true;
	return false;
}

/* ---------------------------------------------------------------------- */
/* Shared targets                                                          */

int kpt_add_body_seq;
unsigned long kpt_data_word = 0x1234;

/**
 * kpt_target_add() - a target: a + b, noting when its body ran
 * @a: any number
 * @b: any number
 *
 * Return: a + b.
 */
noinline __noipa unsigned long kpt_target_add(unsigned long a, unsigned long b)
{
	kpt_add_body_seq = ++kpt_seq;
	return a + b;
}

/**
 * kpt_target_outer() - a target: x ^ 0x5a
 * @x: any number
 *
 * Return: x ^ 0x5a.
 */
noinline __noipa unsigned long kpt_target_outer(unsigned long x)
{
	kpt_keep_calls();
	return x ^ 0x5a;
}

/**
 * kpt_target_inner() - a target: x * 7 + 3
 * @x: any number
 *
 * Return: x * 7 + 3.
 */
noinline __noipa unsigned long kpt_target_inner(unsigned long x)
{
	kpt_keep_calls();
	return x * 7 + 3;
}

/**
 * kpt_target_spin() - a target: x + 1, called in loops by helper threads
 * @x: any number
 *
 * Return: x + 1.
 */
noinline __noipa unsigned long kpt_target_spin(unsigned long x)
{
	kpt_keep_calls();
	return x + 1;
}

/**
 * kpt_nokprobe_target() - blacklisted by annotation: registration must fail
 * @x: any number
 *
 * Return: x + 2.
 */
noinline __noipa unsigned long kpt_nokprobe_target(unsigned long x)
{
	return x + 2;
}

NOKPROBE_SYMBOL(kpt_nokprobe_target);

/* ---------------------------------------------------------------------- */
/* Probe bookkeeping                                                       */

KUNIT_DEFINE_ACTION_WRAPPER(kpt_unregister_kprobe_action, unregister_kprobe,
			    struct kprobe *);
KUNIT_DEFINE_ACTION_WRAPPER(kpt_unregister_kretprobe_action,
			    unregister_kretprobe, struct kretprobe *);

/**
 * kpt_defer_unregister() - unregister a kprobe at the end of the test
 * @test: the running case
 * @kp: a registered kprobe
 *
 * Return: 0, or the error of kunit_add_action_or_reset(), which has then
 * unregistered @kp already.
 */
int kpt_defer_unregister(struct kunit *test, struct kprobe *kp)
{
	return kunit_add_action_or_reset(test, kpt_unregister_kprobe_action, kp);
}

/**
 * kpt_register() - register a kprobe for the rest of the test
 * @test: the running case
 * @kp: the kprobe
 *
 * Return: 0, or the error of register_kprobe() (@kp is then not registered
 * and nothing is queued).
 */
int kpt_register(struct kunit *test, struct kprobe *kp)
{
	int ret = register_kprobe(kp);

	if (ret)
		return ret;
	return kpt_defer_unregister(test, kp);
}

/**
 * kpt_unregister() - unregister a kprobe of kpt_register() now
 * @test: the running case
 * @kp: the kprobe
 */
void kpt_unregister(struct kunit *test, struct kprobe *kp)
{
	kunit_release_action(test, kpt_unregister_kprobe_action, kp);
}

/*
 * Batch registrations defer one unregister action per member, so a case
 * that fails half way still leaves nothing registered.  The batch helpers
 * for kprobes and kretprobes share these two loops over their members.
 */
static int kpt_defer_each(struct kunit *test, kunit_action_t *action,
			  void *const *members, int num)
{
	int i, ret = 0;

	for (i = 0; i < num && !ret; i++)
		ret = kunit_add_action_or_reset(test, action, members[i]);
	return ret;
}

static void kpt_forget_each(struct kunit *test, kunit_action_t *action,
			    void *const *members, int num)
{
	int i;

	for (i = 0; i < num; i++)
		kunit_remove_action(test, action, members[i]);
}

/**
 * kpt_register_many() - register_kprobes() for the rest of the test
 * @test: the running case
 * @kps: the kprobes
 * @num: how many
 *
 * Return: 0, or the error of register_kprobes(), which then registered
 * none of them.
 */
int kpt_register_many(struct kunit *test, struct kprobe **kps, int num)
{
	int ret = register_kprobes(kps, num);

	return ret ? ret : kpt_defer_each(test, kpt_unregister_kprobe_action,
					  (void *const *)kps, num);
}

/**
 * kpt_unregister_many() - unregister_kprobes() now, on a batch of
 *	kpt_register_many()
 * @test: the running case
 * @kps: the kprobes
 * @num: how many
 */
void kpt_unregister_many(struct kunit *test, struct kprobe **kps, int num)
{
	unregister_kprobes(kps, num);
	kpt_forget_each(test, kpt_unregister_kprobe_action,
			(void *const *)kps, num);
}

/**
 * kpt_register_ret() - register a kretprobe for the rest of the test
 * @test: the running case
 * @rp: the kretprobe
 *
 * Return: 0, or the error of register_kretprobe().
 */
int kpt_register_ret(struct kunit *test, struct kretprobe *rp)
{
	int ret = register_kretprobe(rp);

	if (ret)
		return ret;
	return kunit_add_action_or_reset(test, kpt_unregister_kretprobe_action,
					 rp);
}

/**
 * kpt_unregister_ret() - unregister a kretprobe of kpt_register_ret() now
 * @test: the running case
 * @rp: the kretprobe
 */
void kpt_unregister_ret(struct kunit *test, struct kretprobe *rp)
{
	kunit_release_action(test, kpt_unregister_kretprobe_action, rp);
}

/**
 * kpt_register_rets() - register_kretprobes() for the rest of the test
 * @test: the running case
 * @rps: the kretprobes
 * @num: how many
 *
 * Return: 0, or the error of register_kretprobes(), which then registered
 * none of them.
 */
int kpt_register_rets(struct kunit *test, struct kretprobe **rps, int num)
{
	int ret = register_kretprobes(rps, num);

	return ret ? ret : kpt_defer_each(test, kpt_unregister_kretprobe_action,
					  (void *const *)rps, num);
}

/**
 * kpt_unregister_rets() - unregister_kretprobes() now, on a batch of
 *	kpt_register_rets()
 * @test: the running case
 * @rps: the kretprobes
 * @num: how many
 */
void kpt_unregister_rets(struct kunit *test, struct kretprobe **rps, int num)
{
	unregister_kretprobes(rps, num);
	kpt_forget_each(test, kpt_unregister_kretprobe_action,
			(void *const *)rps, num);
}

/* ---------------------------------------------------------------------- */
/* Kprobes that count                                                      */

static int kpt_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct kpt_probe *p = to_kpt_probe(kp);

	p->pre_hits++;
	p->pre_seq = ++kpt_seq;
	p->pre_running = kpt_running();
	p->pre_preemptible = preemptible();
	p->pre_ax = regs_return_value(regs);
	if (p->call_in_pre)
		p->call_result = p->call_in_pre(41);
	if (p->new_ip) {
		instruction_pointer_set(regs, p->new_ip);
		return 1;
	}
	return 0;
}

static void kpt_post(struct kprobe *kp, struct pt_regs *regs,
		     unsigned long flags)
{
	struct kpt_probe *p = to_kpt_probe(kp);

	p->post_hits++;
	p->post_seq = ++kpt_seq;
	p->post_running = kpt_running();
	p->post_ax = regs_return_value(regs);
	p->post_ip = instruction_pointer(regs);
}

/**
 * kpt_probe_new() - a counting kprobe, not registered yet
 * @test: the running case, which owns the memory
 * @addr: where to probe (NULL: the case sets symbol_name)
 * @with_post: give it a post_handler too
 *
 * Return: the new probe; the case fails if it cannot be allocated.
 */
struct kpt_probe *kpt_probe_new(struct kunit *test, void *addr,
				bool with_post)
{
	struct kpt_probe *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	p->kp.addr = addr;
	p->kp.pre_handler = kpt_pre;
	if (with_post)
		p->kp.post_handler = kpt_post;
	return p;
}

/* ---------------------------------------------------------------------- */
/* Kretprobes that count                                                   */

static struct kpt_rprobe *to_kpt_rprobe(struct kretprobe_instance *ri)
{
	return container_of(get_kretprobe(ri), struct kpt_rprobe, rp);
}

/*
 * The first argument, where the arch can name it; elsewhere KPT_NO_ARG, and
 * the return handler then checks the instance data alone.
 */
#define KPT_NO_ARG	ULONG_MAX

static unsigned long kpt_first_arg(struct pt_regs *regs)
{
#ifdef CONFIG_HAVE_FUNCTION_ARG_ACCESS_API
	return regs_get_kernel_argument(regs, 0);
#else
	return KPT_NO_ARG;
#endif
}

static int kpt_rp_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kpt_rprobe *r = to_kpt_rprobe(ri);

	atomic_inc(&r->entry_hits);
	if (r->use_data) {
		struct kpt_data *d = (struct kpt_data *)ri->data;

		d->arg = kpt_first_arg(regs);
		d->cookie = d->arg ^ 0xc0ffee;
	}
	return r->entry_ret;
}

static int kpt_rp_handler(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kpt_rprobe *r = to_kpt_rprobe(ri);
	unsigned long result;

	if (r->call_in_ret) {
		/* A probed function called from here runs with KCSAN on. */
		result = r->call_in_ret(41);
		/* Several CPUs store alike here at once (sleeper cases). */
		data_race(r->call_result = result);
	}
	/*
	 * In the sleeper cases several CPUs store views alike here at once,
	 * read once they are over: races by design, which KCSAN is told.
	 */
	kcsan_disable_current();
	r->seen_rp = get_kretprobe(ri);
	r->retval = regs_return_value(regs);
	r->ret_addr = get_kretprobe_retaddr(ri);
	if (r->use_data) {
		struct kpt_data *d = (struct kpt_data *)ri->data;
		unsigned long n = d->arg;

		/* kpt_recurse(n) returns n(n+1)/2. */
		if (d->cookie == (n ^ 0xc0ffee) &&
		    (n == KPT_NO_ARG || r->retval == n * (n + 1) / 2))
			atomic_inc(&r->data_ok);
	}
	if (r->save_trace)
		r->trace_len = stack_trace_save(r->trace, KPT_TRACE_MAX, 0);
	kcsan_enable_current();
	atomic_inc(&r->ret_hits);
	return 0;
}

/**
 * kpt_rprobe_new() - a counting kretprobe, not registered yet
 * @test: the running case, which owns the memory
 * @addr: the function to probe (NULL: the case sets symbol_name)
 * @maxactive: its maxactive (0: the default)
 *
 * Return: the new kretprobe; the case fails if it cannot be allocated.
 */
struct kpt_rprobe *kpt_rprobe_new(struct kunit *test, void *addr,
				  int maxactive)
{
	struct kpt_rprobe *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->rp.kp.addr = addr;
	r->rp.handler = kpt_rp_handler;
	r->rp.entry_handler = kpt_rp_entry;
	r->rp.maxactive = maxactive;
	return r;
}

MODULE_DESCRIPTION("KUnit tests for kprobes and kretprobes");
MODULE_LICENSE("GPL");
