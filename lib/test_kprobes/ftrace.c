// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * KUnit suite "kprobes_ftrace" (x86, CONFIG_KPROBES_ON_FTRACE): probes
 * that go through ftrace at a function's entry: pre/post and the ip each
 * sees, a pre_handler redirecting the call, nmissed, beside an ftrace_ops
 * that modifies the ip as livepatch's does and refused where that takes
 * IPMODIFY, a kretprobe on such a function, and handlers kept from
 * running once ftrace is killed.
 */

#include <kunit/test.h>
#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/time.h>

#ifdef CONFIG_X86
#include <asm/text-patching.h>
#endif

#include "kpt.h"

#if defined(CONFIG_KPROBES_ON_FTRACE) && defined(CONFIG_X86)
#define KPT_FTRACE_TESTS	1

/*
 * lib/ is built without the ftrace call at function entry, so these cases
 * probe mktime64(): kernel text that has it, exported, without side
 * effects and seldom called.  The handlers count only calls made with
 * KPT_FT_YEAR, which no one else asks about.
 */
#define KPT_FT_YEAR		1999U
#define KPT_FT_OVERRIDE		0x5eedLL

struct kpt_ft_probe {
	struct kprobe kp;
	unsigned int pre_hits;
	unsigned int post_hits;
	unsigned long pre_ip;
	unsigned long post_ip;
	unsigned long day;
	bool redirect;
	bool recurse;
};

static bool kpt_ft_ours(struct pt_regs *regs)
{
	return regs_get_kernel_argument(regs, 0) == KPT_FT_YEAR;
}

static noinline __noipa time64_t kpt_ft_call(unsigned int day)
{
	return mktime64(KPT_FT_YEAR, 1, day, 0, 0, 0);
}

/* Stands in for mktime64() when a pre_handler redirects the call. */
static noinline __noipa time64_t kpt_ft_override(unsigned int year,
						 unsigned int mon,
						 unsigned int day,
						 unsigned int hour,
						 unsigned int min,
						 unsigned int sec)
{
	return KPT_FT_OVERRIDE;
}

static int kpt_ft_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct kpt_ft_probe *f = container_of(kp, struct kpt_ft_probe, kp);

	if (!kpt_ft_ours(regs))
		return 0;
	f->pre_hits++;
	f->pre_ip = instruction_pointer(regs);
	f->day = regs_get_kernel_argument(regs, 2);
	if (f->recurse) {
		/* Once: this nested call must be counted as missed. */
		f->recurse = false;
		kpt_ft_call(2);
	}
	if (f->redirect) {
		instruction_pointer_set(regs, (unsigned long)kpt_ft_override);
		return 1;
	}
	return 0;
}

static void kpt_ft_post(struct kprobe *kp, struct pt_regs *regs,
			unsigned long flags)
{
	struct kpt_ft_probe *f = container_of(kp, struct kpt_ft_probe, kp);

	if (!kpt_ft_ours(regs))
		return;
	f->post_hits++;
	f->post_ip = instruction_pointer(regs);
}

static struct kpt_ft_probe *kpt_ft_probe_new(struct kunit *test)
{
	struct kpt_ft_probe *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, f);
	f->kp.symbol_name = "mktime64";
	f->kp.pre_handler = kpt_ft_pre;
	f->kp.post_handler = kpt_ft_post;
	return f;
}

/* A probe at offset 0 is the ftrace site; pre and post see its ip rules. */
static void kprobe_ftrace_pre_post(struct kunit *test)
{
	struct kpt_ft_probe *f = kpt_ft_probe_new(test);
	time64_t want = kpt_ft_call(7);
	unsigned long site;

	KUNIT_ASSERT_EQ(test, kpt_register(test, &f->kp), 0);
	KUNIT_EXPECT_TRUE(test, f->kp.flags & KPROBE_FLAG_FTRACE);
	KUNIT_EXPECT_TRUE(test, f->kp.flags & KPROBE_FLAG_ON_FUNC_ENTRY);
	site = (unsigned long)f->kp.addr;
	KUNIT_EXPECT_EQ(test, ftrace_location(site), site);

	KUNIT_EXPECT_EQ(test, kpt_ft_call(7), want);
	KUNIT_EXPECT_EQ(test, f->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, f->post_hits, 1U);
	KUNIT_EXPECT_EQ(test, f->day, 7UL);
	/* As if a breakpoint had been hit, then the 5-byte call stepped. */
	KUNIT_EXPECT_EQ(test, f->pre_ip, site + INT3_INSN_SIZE);
	KUNIT_EXPECT_EQ(test, f->post_ip, site + MCOUNT_INSN_SIZE);

	KUNIT_ASSERT_EQ(test, disable_kprobe(&f->kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_ft_call(7), want);
	KUNIT_EXPECT_EQ(test, f->pre_hits, 1U);
	KUNIT_ASSERT_EQ(test, enable_kprobe(&f->kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_ft_call(7), want);
	KUNIT_EXPECT_EQ(test, f->pre_hits, 2U);
	KUNIT_EXPECT_EQ(test, f->post_hits, 2U);
}

/* A pre_handler that sets regs->ip and returns 1 replaces the function. */
static void kprobe_ftrace_redirect(struct kunit *test)
{
	struct kpt_ft_probe *f = kpt_ft_probe_new(test);

	f->redirect = true;
	KUNIT_ASSERT_EQ(test, kpt_register(test, &f->kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_ft_call(3), KPT_FT_OVERRIDE);
	KUNIT_EXPECT_EQ(test, f->pre_hits, 1U);
	/* The post_handler is for a probed instruction that ran. */
	KUNIT_EXPECT_EQ(test, f->post_hits, 0U);
	f->redirect = false;
	KUNIT_EXPECT_NE(test, kpt_ft_call(3), KPT_FT_OVERRIDE);
}

/* The probed function called from the handler: missed, not run. */
static void kprobe_ftrace_nmissed(struct kunit *test)
{
	struct kpt_ft_probe *f = kpt_ft_probe_new(test);
	time64_t want = kpt_ft_call(4);

	f->recurse = true;
	KUNIT_ASSERT_EQ(test, kpt_register(test, &f->kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_ft_call(4), want);
	KUNIT_EXPECT_EQ(test, f->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, f->post_hits, 1U);
	KUNIT_EXPECT_EQ(test, f->kp.nmissed, 1UL);
}

/* Sends the suite's own calls to kpt_ft_override(), as a livepatch would. */
static void notrace kpt_ft_steer_cb(unsigned long ip, unsigned long parent_ip,
				    struct ftrace_ops *ops,
				    struct ftrace_regs *fregs)
{
	struct pt_regs *regs = ftrace_get_regs(fregs);

	if (regs && kpt_ft_ours(regs))
		instruction_pointer_set(regs, (unsigned long)kpt_ft_override);
}

static void kpt_ft_steer_stop(void *arg)
{
	struct ftrace_ops *ops = arg;

	WARN_ON(unregister_ftrace_function(ops));
	ftrace_free_filter(ops);
}

/*
 * Holds @func's entry as livepatch does: an ftrace_ops with registers
 * saved and IPMODIFY, which ftrace grants one user per function.
 */
static void kpt_ft_steer(struct kunit *test, void *func)
{
	struct ftrace_ops *ops = kunit_kzalloc(test, sizeof(*ops), GFP_KERNEL);
	unsigned long ip = ftrace_location((unsigned long)func);
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, ops);
	KUNIT_ASSERT_NE(test, ip, 0UL);
	ops->func = kpt_ft_steer_cb;
	ops->flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY;
	KUNIT_ASSERT_EQ(test, ftrace_set_filter_ip(ops, ip, 0, 0), 0);
	ret = register_ftrace_function(ops);
	if (ret)
		ftrace_free_filter(ops);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kpt_ft_steer_stop,
							ops), 0);
}

/*
 * A probe without a post_handler shares a livepatched function's entry,
 * registered before the livepatch or after it, and leaves the livepatch's
 * redirection alone (ftrace calls the ops last registered first).
 */
static void kprobe_ftrace_beside_ipmodify(struct kunit *test)
{
	struct kpt_ft_probe *f = kpt_ft_probe_new(test);
	struct kpt_ft_probe *g = kpt_ft_probe_new(test);

	f->kp.post_handler = NULL;
	g->kp.post_handler = NULL;
	KUNIT_ASSERT_EQ(test, kpt_register(test, &f->kp), 0);
	kpt_ft_steer(test, mktime64);
	KUNIT_EXPECT_TRUE(test, f->kp.flags & KPROBE_FLAG_FTRACE);
	KUNIT_EXPECT_EQ(test, kpt_ft_call(5), KPT_FT_OVERRIDE);
	KUNIT_EXPECT_EQ(test, f->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, f->day, 5UL);

	kpt_unregister(test, &f->kp);
	KUNIT_ASSERT_EQ(test, kpt_register(test, &g->kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_ft_call(6), KPT_FT_OVERRIDE);
	KUNIT_EXPECT_EQ(test, g->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, g->day, 6UL);
}

static noinline __noipa void kpt_ft_call_tm(void)
{
	struct tm tm;

	time64_to_tm(KPT_FT_YEAR, 0, &tm);
	barrier_data(&tm);
}

/*
 * A probe that needs IPMODIFY on a function another ops already steers is
 * refused with ftrace's error, by registration and by enabling alike, and
 * leaves nothing behind: another site attached through the same ops
 * (counted once per attached site) keeps firing after the refused probe
 * is unregistered.
 */
static void kprobe_ftrace_ipmodify_refused(struct kunit *test)
{
	struct kpt_ft_probe *other = kpt_ft_probe_new(test);
	struct kpt_ft_probe *f = kpt_ft_probe_new(test);
	int ret;

	other->kp.symbol_name = "time64_to_tm";
	KUNIT_ASSERT_EQ(test, kpt_register(test, &other->kp), 0);
	KUNIT_ASSERT_TRUE(test, other->kp.flags & KPROBE_FLAG_FTRACE);
	kpt_ft_call_tm();
	KUNIT_EXPECT_EQ(test, other->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, other->post_hits, 1U);

	kpt_ft_steer(test, mktime64);
	ret = register_kprobe(&f->kp);
	KUNIT_EXPECT_EQ(test, ret, -EBUSY);
	if (!ret)
		unregister_kprobe(&f->kp);
	KUNIT_EXPECT_TRUE(test, list_empty(&f->kp.list));

	/* Registered disabled, it is refused when enabled, and stays off. */
	f->kp.flags = KPROBE_FLAG_DISABLED;
	f->kp.addr = NULL;
	KUNIT_ASSERT_EQ(test, register_kprobe(&f->kp), 0);
	KUNIT_EXPECT_EQ(test, enable_kprobe(&f->kp), -EBUSY);
	KUNIT_EXPECT_TRUE(test, kprobe_disabled(&f->kp));
	kpt_ft_call(6);
	KUNIT_EXPECT_EQ(test, f->pre_hits, 0U);
	unregister_kprobe(&f->kp);

	kpt_ft_call_tm();
	KUNIT_EXPECT_EQ(test, other->pre_hits, 2U);
	KUNIT_EXPECT_EQ(test, other->post_hits, 2U);
}

struct kpt_ft_rprobe {
	struct kretprobe rp;
	unsigned int entries;
	unsigned int returns;
	long long retval;
};

static int kpt_ft_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kpt_ft_rprobe *r = container_of(get_kretprobe(ri),
					       struct kpt_ft_rprobe, rp);

	if (!kpt_ft_ours(regs))
		return 1;	/* not ours: no return hook */
	r->entries++;
	return 0;
}

static int kpt_ft_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kpt_ft_rprobe *r = container_of(get_kretprobe(ri),
					       struct kpt_ft_rprobe, rp);

	r->returns++;
	r->retval = (long long)regs_return_value(regs);
	return 0;
}

/* A kretprobe whose entry probe goes through ftrace. */
static void kretprobe_ftrace(struct kunit *test)
{
	struct kpt_ft_rprobe *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	time64_t want = kpt_ft_call(9);

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->rp.kp.symbol_name = "mktime64";
	r->rp.entry_handler = kpt_ft_entry;
	r->rp.handler = kpt_ft_ret;
	KUNIT_ASSERT_EQ(test, kpt_register_ret(test, &r->rp), 0);
	KUNIT_EXPECT_TRUE(test, r->rp.kp.flags & KPROBE_FLAG_FTRACE);
	KUNIT_EXPECT_EQ(test, kpt_ft_call(9), want);
	KUNIT_EXPECT_EQ(test, r->entries, 1U);
	KUNIT_EXPECT_EQ(test, r->returns, 1U);
	KUNIT_EXPECT_EQ(test, r->retval, want);
}

#if KPT_BUILTIN
static void kpt_ft_revive(void *unused)
{
	WRITE_ONCE(kprobe_ftrace_disabled, false);
}

/*
 * Once ftrace_kill() has told kprobes that ftrace is dead, no handler of a
 * probe attached through ftrace runs, although ftrace (alive here) still
 * calls ours.  The flag is cleared again before the probe is unregistered
 * (kunit runs actions last added first), so that it leaves the ftrace_ops
 * as it would with ftrace alive.
 */
static void kprobe_ftrace_killed(struct kunit *test)
{
	struct kpt_ft_probe *f = kpt_ft_probe_new(test);
	time64_t want = kpt_ft_call(7);

	KUNIT_ASSERT_EQ(test, kpt_register(test, &f->kp), 0);
	KUNIT_EXPECT_TRUE(test, f->kp.flags & KPROBE_FLAG_FTRACE);
	KUNIT_EXPECT_EQ(test, kpt_ft_call(7), want);
	KUNIT_EXPECT_EQ(test, f->pre_hits, 1U);

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kpt_ft_revive,
							NULL), 0);
	kprobe_ftrace_kill();
	KUNIT_EXPECT_EQ(test, kpt_ft_call(7), want);
	KUNIT_EXPECT_EQ(test, f->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, f->post_hits, 1U);
}
#endif
#else
#define KPT_FTRACE_TESTS	0
#endif

#if !KPT_FTRACE_TESTS
static void kprobe_x86_ftrace_cases(struct kunit *test)
{
	kunit_skip(test,
		   "x86 only: ftrace-based probes on the suite's own targets");
}
#endif

static struct kunit_case kprobes_ftrace_cases[] = {
#if KPT_FTRACE_TESTS
	KUNIT_CASE(kprobe_ftrace_pre_post),
	KUNIT_CASE(kprobe_ftrace_redirect),
	KUNIT_CASE(kprobe_ftrace_nmissed),
	KUNIT_CASE(kprobe_ftrace_beside_ipmodify),
	KUNIT_CASE(kprobe_ftrace_ipmodify_refused),
	KUNIT_CASE(kretprobe_ftrace),
#if KPT_BUILTIN
	KUNIT_CASE(kprobe_ftrace_killed),
#endif
#else
	KUNIT_CASE(kprobe_x86_ftrace_cases),
#endif
	{}
};

static struct kunit_suite kprobes_ftrace_suite = {
	.name = "kprobes_ftrace",
	.init = kpt_test_init,
	.test_cases = kprobes_ftrace_cases,
};

kunit_test_suites(&kprobes_ftrace_suite);
