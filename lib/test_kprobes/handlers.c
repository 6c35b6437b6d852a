// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * KUnit suite "kprobes_handlers": what every architecture's kprobes
 * promise of a probe's handlers, seen from outside.  In this order:
 *
 *  1. handler semantics: pre/post order, registers seen by post_handler,
 *     a pre_handler or post_handler that moves regs->ip, the stack a
 *     post_handler unwinds, nmissed when a probe is hit inside a handler
 *     or from a #DB;
 *  2. (x86-64) fault_handler; last, since a broken fault path takes the
 *     kernel down with it (and this suite runs after the others, see the
 *     Makefile).
 *
 * The cases assert handler hit counts and their order, the registers and
 * stacks a handler saw, where execution went on, and nmissed counters.
 */

#include <kunit/test.h>
#include <linux/hw_breakpoint.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/stacktrace.h>
#include <linux/vmalloc.h>

#ifdef CONFIG_X86_64
#include <asm/text-patching.h>
#include <asm/trapnr.h>

#include "x86_targets.h"
#endif

#include "kpt.h"

/* ---------------------------------------------------------------------- */
/* 1. Handler semantics                                                    */

static void kprobe_pre_post_order(struct kunit *test)
{
	struct kpt_probe *p = kpt_probe_new(test, kpt_target_add, true);
	int returned_seq;

	KUNIT_ASSERT_EQ(test, kpt_register(test, &p->kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_target_add(5, 6), 11UL);
	returned_seq = ++kpt_seq;
	KUNIT_EXPECT_EQ(test, p->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, p->post_hits, 1U);
	/*
	 * pre before the function body, post after pre and before the return.
	 * (The probed first instruction may already belong to the body:
	 * lib/ is built without the ftrace call at function entry.)
	 */
	KUNIT_EXPECT_LT(test, p->pre_seq, kpt_add_body_seq);
	KUNIT_EXPECT_LT(test, p->pre_seq, p->post_seq);
	KUNIT_EXPECT_LT(test, p->post_seq, returned_seq);
	KUNIT_EXPECT_FALSE(test, p->pre_preemptible);
	if (KPT_BUILTIN) {
		/* Both ran as the current kprobe... */
		KUNIT_EXPECT_PTR_EQ(test, p->pre_running, &p->kp);
		KUNIT_EXPECT_PTR_EQ(test, p->post_running, &p->kp);
		/* ...and nothing is left running once we are back. */
		preempt_disable();
		KUNIT_EXPECT_NULL(test, kpt_running());
		preempt_enable();
	}
}

#ifdef CONFIG_X86_64
static void kprobe_post_handler_regs(struct kunit *test)
{
	void *site = kpt_site(kpt_asm_regs, kpt_asm_regs_sites, 1);
	void *next = kpt_site(kpt_asm_regs, kpt_asm_regs_sites, 2);
	struct kpt_probe *p = kpt_probe_new(test, site, true);

	/* The probe sits on "addq $0x55, %rax". */
	KUNIT_ASSERT_EQ(test, kpt_register(test, &p->kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_asm_regs(0x100), 0x100UL + 0x55 + 0x1234);
	KUNIT_ASSERT_EQ(test, p->pre_hits, 1U);
	KUNIT_ASSERT_EQ(test, p->post_hits, 1U);
	KUNIT_EXPECT_EQ(test, p->pre_ax, 0x100UL);
	KUNIT_EXPECT_EQ(test, p->post_ax, 0x100UL + 0x55);
	KUNIT_EXPECT_EQ(test, p->post_ip, (unsigned long)next);
}

#if KPT_BUILTIN
static void kpt_step_trap_off(void *unused)
{
	kprobe_step_force_trap(false);
}

/*
 * The way out of a step that Xen PV and FRED kernels take: the copy ends
 * in an int3, and the trap's own return resumes the probed code.  Forced
 * here for one probe, which must behave as one with the call-and-iretq
 * way out: the post_handler sees the next instruction and the copy's
 * result, the function returns the same.
 */
static void kprobe_step_by_trap_exit(struct kunit *test)
{
	void *site = kpt_site(kpt_asm_regs, kpt_asm_regs_sites, 1);
	void *next = kpt_site(kpt_asm_regs, kpt_asm_regs_sites, 2);
	struct kpt_probe *p = kpt_probe_new(test, site, true);
	int ret;

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kpt_step_trap_off,
							NULL), 0);
	kprobe_step_force_trap(true);
	ret = kpt_register(test, &p->kp);
	kprobe_step_force_trap(false);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_ASSERT_EQ(test, p->kp.ainsn.slot[p->kp.ainsn.len],
			(kprobe_opcode_t)INT3_INSN_OPCODE);

	KUNIT_EXPECT_EQ(test, kpt_asm_regs(0x100), 0x100UL + 0x55 + 0x1234);
	KUNIT_EXPECT_EQ(test, kpt_asm_regs(0x200), 0x200UL + 0x55 + 0x1234);
	KUNIT_ASSERT_EQ(test, p->pre_hits, 2U);
	KUNIT_ASSERT_EQ(test, p->post_hits, 2U);
	KUNIT_EXPECT_EQ(test, p->pre_ax, 0x200UL);
	KUNIT_EXPECT_EQ(test, p->post_ax, 0x200UL + 0x55);
	KUNIT_EXPECT_EQ(test, p->post_ip, (unsigned long)next);
	KUNIT_EXPECT_PTR_EQ(test, p->post_running, &p->kp);
	preempt_disable();
	KUNIT_EXPECT_PTR_EQ(test, kpt_running(), NULL);
	preempt_enable();
}
#endif /* KPT_BUILTIN */

#ifdef CONFIG_STACKTRACE
/* What kprobe_post_handler_unwinds() records from its post_handler. */
static unsigned long kpt_step_trace[32];
static unsigned int kpt_step_trace_len;
static unsigned long kpt_step_post_ip;

static void kpt_post_save_trace(struct kprobe *kp, struct pt_regs *regs,
				unsigned long flags)
{
	kpt_step_post_ip = regs->ip;
	kpt_step_trace_len = stack_trace_save(kpt_step_trace,
					      ARRAY_SIZE(kpt_step_trace), 0);
}

/* The function the unwind must reach past the probed one. */
static noinline __noipa unsigned long kpt_step_trace_caller(unsigned long x)
{
	return kpt_asm_regs(x) + 1;
}

/* Does the trace hold an address inside the function named @name? */
static bool kpt_step_trace_in(const char *name)
{
	char sym[KSYM_SYMBOL_LEN];
	size_t len = strlen(name);
	unsigned int i;

	for (i = 0; i < kpt_step_trace_len; i++) {
		sprint_symbol(sym, kpt_step_trace[i]);
		if (!strncmp(sym, name, len) && sym[len] == '+')
			return true;
	}
	return false;
}
#endif

/*
 * A post_handler of a stepped copy runs after the copy has called back
 * into kprobes (no second trap on 64-bit): a stack trace taken there
 * still shows the probed function at the next instruction, and its
 * caller.
 */
static void kprobe_post_handler_unwinds(struct kunit *test)
{
#ifdef CONFIG_STACKTRACE
	void *site = kpt_site(kpt_asm_regs, kpt_asm_regs_sites, 1);
	void *next = kpt_site(kpt_asm_regs, kpt_asm_regs_sites, 2);
	struct kpt_probe *p = kpt_probe_new(test, site, true);

	p->kp.post_handler = kpt_post_save_trace;
	kpt_step_trace_len = 0;
	KUNIT_ASSERT_EQ(test, kpt_register(test, &p->kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_step_trace_caller(0x100),
			0x100UL + 0x55 + 0x1234 + 1);
	KUNIT_EXPECT_EQ(test, kpt_step_post_ip, (unsigned long)next);
	KUNIT_ASSERT_GT(test, kpt_step_trace_len, 0U);
	KUNIT_EXPECT_TRUE(test, kpt_step_trace_in("kpt_asm_regs"));
	KUNIT_EXPECT_TRUE(test, kpt_step_trace_in("kpt_step_trace_caller"));
#else
	kunit_skip(test, "needs CONFIG_STACKTRACE");
#endif
}

/* Resume at the last addq of kpt_asm_regs with %rdx = 7. */
static void kpt_post_moves_ip(struct kprobe *kp, struct pt_regs *regs,
			      unsigned long flags)
{
	regs->ip = (unsigned long)kpt_site(kpt_asm_regs, kpt_asm_regs_sites, 3);
	regs->dx = 7;
}

/*
 * What a post_handler writes into the registers of a stepped copy is
 * where the probed code goes on, as after a trap: here the "movq $0x1234,
 * %rdx" after the probed instruction is skipped.
 */
static void kprobe_post_handler_moves_ip(struct kunit *test)
{
	void *site = kpt_site(kpt_asm_regs, kpt_asm_regs_sites, 1);
	struct kpt_probe *p = kpt_probe_new(test, site, true);

	p->kp.post_handler = kpt_post_moves_ip;
	KUNIT_ASSERT_EQ(test, kpt_register(test, &p->kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_asm_regs(0x100), 0x100UL + 0x55 + 7);
	KUNIT_EXPECT_EQ(test, kpt_asm_regs(0x200), 0x200UL + 0x55 + 7);
}

static void kprobe_pre_handler_moves_ip(struct kunit *test)
{
	void *site = kpt_site(kpt_asm_regs, kpt_asm_regs_sites, 1);
	void *next = kpt_site(kpt_asm_regs, kpt_asm_regs_sites, 2);
	struct kpt_probe *p = kpt_probe_new(test, site, true);

	/* Skip "addq $0x55, %rax": the result lacks 0x55, no post_handler. */
	p->new_ip = (unsigned long)next;
	KUNIT_ASSERT_EQ(test, kpt_register(test, &p->kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_asm_regs(0x100), 0x100UL + 0x1234);
	KUNIT_EXPECT_EQ(test, kpt_asm_regs(0x200), 0x200UL + 0x1234);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 2U);
	KUNIT_EXPECT_EQ(test, p->post_hits, 0U);
}
#endif /* CONFIG_X86_64 */

static void kprobe_nmissed_nested(struct kunit *test)
{
	struct kpt_probe *outer = kpt_probe_new(test, kpt_target_outer, true);
	struct kpt_probe *inner = kpt_probe_new(test, kpt_target_inner, true);

	outer->call_in_pre = kpt_target_inner;
	KUNIT_ASSERT_EQ(test, kpt_register(test, &inner->kp), 0);
	KUNIT_ASSERT_EQ(test, kpt_register(test, &outer->kp), 0);

	KUNIT_EXPECT_EQ(test, kpt_target_outer(1), 1UL ^ 0x5a);
	KUNIT_EXPECT_EQ(test, outer->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, outer->post_hits, 1U);
	/* inner was hit from outer's handler: missed, but still ran right. */
	KUNIT_EXPECT_EQ(test, outer->call_result, 41UL * 7 + 3);
	KUNIT_EXPECT_EQ(test, inner->pre_hits, 0U);
	KUNIT_EXPECT_EQ(test, inner->post_hits, 0U);
	KUNIT_EXPECT_EQ(test, inner->kp.nmissed, 1UL);
	KUNIT_EXPECT_EQ(test, outer->kp.nmissed, 0UL);
	/* Missed by recursion only. */
	KUNIT_EXPECT_EQ(test, inner->kp.nhits_disabled, 0UL);

	/* Outside a handler, inner works as usual. */
	KUNIT_EXPECT_EQ(test, kpt_target_inner(2), 17UL);
	KUNIT_EXPECT_EQ(test, inner->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, inner->kp.nmissed, 1UL);
}

static void kprobe_nmissed_self(struct kunit *test)
{
	struct kpt_probe *p = kpt_probe_new(test, kpt_target_inner, false);

	p->call_in_pre = kpt_target_inner;
	KUNIT_ASSERT_EQ(test, kpt_register(test, &p->kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_target_inner(1), 10UL);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, p->call_result, 41UL * 7 + 3);
	KUNIT_EXPECT_EQ(test, p->kp.nmissed, 1UL);
}

#if defined(CONFIG_X86_64) && KPT_BUILTIN
/*
 * A data breakpoint's #DB is NMI-like: it comes whatever the CPU is doing,
 * interrupts off or not, and the code it runs may hit probes.  It lands
 * here while a handler runs, while a probed instruction's copy is being
 * stepped, while the copy of a probe hit from a handler is (upstream
 * keeps one saved level and BUG()s on a hit there), and in a post_handler,
 * whose step record is free by then.  Each level needs a step record of
 * its own, the probe hit from the #DB takes the next, and the records
 * below it are left as they were.
 */
enum kpt_db_where {
	KPT_DB_HANDLER, KPT_DB_STEP, KPT_DB_NESTED_STEP, KPT_DB_POST_HANDLER,
};

static const enum kpt_db_where kpt_db_wheres[] = {
	KPT_DB_HANDLER, KPT_DB_STEP, KPT_DB_NESTED_STEP, KPT_DB_POST_HANDLER,
};

static void kpt_db_desc(const enum kpt_db_where *where, char *desc)
{
	static const char *const names[] = {
		[KPT_DB_HANDLER] = "in a pre_handler",
		[KPT_DB_STEP] = "in a stepped copy",
		[KPT_DB_NESTED_STEP] = "in the copy of a probe hit from a handler",
		[KPT_DB_POST_HANDLER] = "in a post_handler",
	};

	strscpy(desc, names[*where], KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kpt_db, kpt_db_wheres, kpt_db_desc);

/* The watched word, and what the breakpoint's handler saw. */
static unsigned long kpt_db_word __aligned(8);

static struct {
	unsigned int hits;
	int cpu;
	unsigned int depth;
	unsigned int depth_after;
	struct kprobe *running;
	struct kprobe *recorded;
	struct kprobe_step below, below_after;
	unsigned long ip;
	unsigned long loaded;
} kpt_db_seen;

/* Never registered: marks a free step record. */
static struct kprobe kpt_db_mark;

static void kpt_db_hit(struct perf_event *bp, struct perf_sample_data *data,
		       struct pt_regs *regs)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	unsigned int depth = kcb->depth;

	kpt_db_seen.hits++;
	kpt_db_seen.cpu = smp_processor_id();
	kpt_db_seen.depth = depth;
	kpt_db_seen.running = kprobe_running();
	kpt_db_seen.ip = regs->ip;
	if (depth)
		kpt_db_seen.below = kcb->step[depth - 1];
	/*
	 * The entry a probe hit now would take, marked: a step there fills
	 * it and empties it again when it is popped; a boosted copy, or a
	 * step on another entry, would leave the mark.
	 */
	if (depth < KPROBE_STEP_DEPTH)
		kcb->step[depth].p = &kpt_db_mark;
	kpt_db_seen.loaded = kpt_asm_load(&kpt_data_word);
	if (depth < KPROBE_STEP_DEPTH)
		kpt_db_seen.recorded = kcb->step[depth].p;
	kpt_db_seen.depth_after = kcb->depth;
	if (depth)
		kpt_db_seen.below_after = kcb->step[depth - 1];
}

/* A KUnit action: its argument lost the per-CPU address space. */
static void kpt_db_unregister(void *bp)
{
	unregister_wide_hw_breakpoint((struct perf_event * __percpu __force *)bp);
}

static unsigned long kpt_db_write(unsigned long x)
{
	return kpt_asm_store(&kpt_db_word, x);
}

/* Counts as kpt_post() does, then writes the watched word. */
static void kpt_db_post(struct kprobe *kp, struct pt_regs *regs,
			unsigned long flags)
{
	struct kpt_probe *p = container_of(kp, struct kpt_probe, kp);

	p->post_hits++;
	p->call_result = kpt_db_write(43);
}

static void kprobe_hit_from_debug_trap(struct kunit *test)
{
	enum kpt_db_where where = *(const enum kpt_db_where *)test->param_value;
	void *store = kpt_site(kpt_asm_store, kpt_asm_store_sites, 0);
	void *after = kpt_site(kpt_asm_store, kpt_asm_store_sites, 1);
	void *load = kpt_site(kpt_asm_load, kpt_asm_load_sites, 0);
	struct kpt_probe *in_db = kpt_probe_new(test, load, false);
	struct kpt_probe *outer, *stepper = NULL;
	struct perf_event * __percpu *bp;
	struct perf_event_attr attr;
	unsigned int depth;

	KUNIT_ASSERT_EQ(test, kpt_register(test, &in_db->kp), 0);
	if (where == KPT_DB_STEP) {
		outer = kpt_probe_new(test, store, true);
		stepper = outer;
	} else {
		outer = kpt_probe_new(test, kpt_target_outer, true);
		if (where == KPT_DB_POST_HANDLER)
			outer->kp.post_handler = kpt_db_post;
		else
			outer->call_in_pre = kpt_db_write;
	}
	KUNIT_ASSERT_EQ(test, kpt_register(test, &outer->kp), 0);
	if (where == KPT_DB_NESTED_STEP) {
		stepper = kpt_probe_new(test, store, true);
		KUNIT_ASSERT_EQ(test, kpt_register(test, &stepper->kp), 0);
	}

	hw_breakpoint_init(&attr);
	attr.bp_addr = (unsigned long)&kpt_db_word;
	attr.bp_len = HW_BREAKPOINT_LEN_8;
	attr.bp_type = HW_BREAKPOINT_W;
	bp = register_wide_hw_breakpoint(&attr, kpt_db_hit, NULL);
	if (IS_ERR_OR_NULL((void __force *)bp))
		kunit_skip(test, "no data breakpoint (%ld)",
			   PTR_ERR((void __force *)bp));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kpt_db_unregister,
							(void __force *)bp), 0);

	memset(&kpt_db_seen, 0, sizeof(kpt_db_seen));
	if (where == KPT_DB_STEP) {
		KUNIT_EXPECT_EQ(test, kpt_db_write(0x77), 0x78UL);
		KUNIT_EXPECT_EQ(test, kpt_db_word, 0x77UL);
	} else if (where == KPT_DB_POST_HANDLER) {
		KUNIT_EXPECT_EQ(test, kpt_target_outer(1), 1UL ^ 0x5a);
		KUNIT_EXPECT_EQ(test, outer->call_result, 44UL);
		KUNIT_EXPECT_EQ(test, kpt_db_word, 43UL);
	} else {
		KUNIT_EXPECT_EQ(test, kpt_target_outer(1), 1UL ^ 0x5a);
		KUNIT_EXPECT_EQ(test, outer->call_result, 42UL);
		KUNIT_EXPECT_EQ(test, kpt_db_word, 41UL);
	}

	/* The trap came where the case says, and the probe in it worked. */
	KUNIT_ASSERT_EQ(test, kpt_db_seen.hits, 1U);
	KUNIT_EXPECT_PTR_EQ(test, kpt_db_seen.running, &outer->kp);
	if (stepper) {
		struct arch_specific_insn *ai = &stepper->kp.ainsn;

		KUNIT_EXPECT_EQ(test, kpt_db_seen.depth, 1U);
		KUNIT_EXPECT_EQ(test, kpt_db_seen.ip,
				(unsigned long)ai->slot + ai->len);
		/* The stepping probe's record is untouched by the one above. */
		KUNIT_EXPECT_PTR_EQ(test, kpt_db_seen.below.p, &stepper->kp);
		KUNIT_EXPECT_PTR_EQ(test, kpt_db_seen.below_after.p,
				    kpt_db_seen.below.p);
		KUNIT_EXPECT_EQ(test, kpt_db_seen.below_after.flags_if,
				kpt_db_seen.below.flags_if);
		KUNIT_EXPECT_EQ(test, kpt_db_seen.below_after.nested,
				kpt_db_seen.below.nested);
		KUNIT_EXPECT_EQ(test, kpt_db_seen.below.nested,
				where == KPT_DB_NESTED_STEP);
	} else {
		/* A post_handler runs once its record is popped. */
		KUNIT_EXPECT_EQ(test, kpt_db_seen.depth, 0U);
		KUNIT_EXPECT_PTR_EQ(test, (void *)kpt_db_seen.ip, after);
	}
	KUNIT_EXPECT_EQ(test, kpt_db_seen.loaded, kpt_data_word);
	/* It was stepped on the next record, which is empty again. */
	KUNIT_EXPECT_NULL(test, kpt_db_seen.recorded);
	KUNIT_EXPECT_EQ(test, kpt_db_seen.depth_after, kpt_db_seen.depth);
	KUNIT_EXPECT_EQ(test, in_db->kp.nmissed, 1UL);
	KUNIT_EXPECT_EQ(test, in_db->pre_hits, 0U);

	/* The probes outside it ran their handlers, or were missed, as usual. */
	KUNIT_EXPECT_EQ(test, outer->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, outer->post_hits, 1U);
	KUNIT_EXPECT_EQ(test, outer->kp.nmissed, 0UL);
	if (where == KPT_DB_STEP)
		KUNIT_EXPECT_PTR_EQ(test, (void *)outer->post_ip, after);
	if (where == KPT_DB_NESTED_STEP) {
		KUNIT_EXPECT_EQ(test, stepper->kp.nmissed, 1UL);
		KUNIT_EXPECT_EQ(test, stepper->pre_hits, 0U);
	}

	/*
	 * Every record of the CPU that took the trap is free again, and the
	 * probe works outside the trap.
	 */
	depth = per_cpu_ptr(&kprobe_ctlblk, kpt_db_seen.cpu)->depth;
	KUNIT_EXPECT_EQ(test, depth, 0U);
	KUNIT_EXPECT_EQ(test, kpt_asm_load(&kpt_data_word), kpt_data_word);
	KUNIT_EXPECT_EQ(test, in_db->pre_hits, 1U);
}
#endif

/* ---------------------------------------------------------------------- */
/* 2. fault_handler                                                        */

#ifdef CONFIG_X86_64
#define KPT_GP_MARK	0x600dUL

static int kpt_fault_note(struct kprobe *kp, struct pt_regs *regs, int trapnr)
{
	struct kpt_probe *p = to_kpt_probe(kp);

	p->fault_hits++;
	p->fault_trapnr = trapnr;
	return 0;
}

/* Steps over the faulting load of kpt_asm_gp(), which then returns a mark. */
static int kpt_fault_fix_gp(struct kprobe *kp, struct pt_regs *regs,
			    int trapnr)
{
	struct kpt_probe *p = to_kpt_probe(kp);

	p->fault_hits++;
	p->fault_trapnr = trapnr;
	if (trapnr != X86_TRAP_GP || regs->ip != p->fault_ip)
		return 0;
	regs->ip += p->fault_len;
	regs->ax = KPT_GP_MARK;
	return 1;
}

static int kpt_pre_load_bad(struct kprobe *kp, struct pt_regs *regs)
{
	struct kpt_probe *p = to_kpt_probe(kp);

	p->pre_hits++;
	p->call_result = kpt_asm_load((const unsigned long *)p->arg);
	return 0;
}

static int kpt_pre_gp(struct kprobe *kp, struct pt_regs *regs)
{
	struct kpt_probe *p = to_kpt_probe(kp);

	p->pre_hits++;
	p->call_result = kpt_asm_gp();
	return 0;
}

KUNIT_DEFINE_ACTION_WRAPPER(kpt_vfree_action, vfree, const void *);

/* An address in the guard page behind a vmalloc() area: never mapped. */
static const unsigned long *kpt_unmapped(struct kunit *test)
{
	void *area = vmalloc(PAGE_SIZE);

	KUNIT_ASSERT_NOT_NULL(test, area);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kpt_vfree_action,
							area), 0);
	return area + PAGE_SIZE;
}

static void kprobe_fault_in_single_step(struct kunit *test)
{
	void *site = kpt_site(kpt_asm_load, kpt_asm_load_sites, 0);
	struct kpt_probe *p = kpt_probe_new(test, site, true);
	const unsigned long *bad = kpt_unmapped(test);
	unsigned long good = 0xfeed;
	int pc = preempt_count();

	p->kp.fault_handler = kpt_fault_note;
	KUNIT_ASSERT_EQ(test, kpt_register(test, &p->kp), 0);

	/*
	 * The probed load faults; its exception-table fixup still applies.
	 * A page fault is never offered to fault_handler.
	 */
	KUNIT_EXPECT_EQ(test, kpt_asm_load(bad), (unsigned long)-EFAULT);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, p->fault_hits, 0U);
	KUNIT_EXPECT_EQ(test, p->post_hits, 0U);
	KUNIT_EXPECT_EQ(test, preempt_count(), pc);
	preempt_disable();
	KUNIT_EXPECT_NULL(test, kpt_running());
	preempt_enable();

	/* And the probe goes on working. */
	KUNIT_EXPECT_EQ(test, kpt_asm_load(&good), 0xfeedUL);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 2U);
	KUNIT_EXPECT_EQ(test, p->post_hits, 1U);
	KUNIT_EXPECT_EQ(test, p->fault_hits, 0U);
}

/*
 * A #GP, not a page fault, in a stepped load that has a fixup: the
 * exception table has nothing for the copy's address, so the step is
 * undone and the load's own fixup applies at the probed address.
 */
static void kprobe_gp_fixup_in_single_step(struct kunit *test)
{
	void *site = kpt_site(kpt_asm_load, kpt_asm_load_sites, 0);
	struct kpt_probe *p = kpt_probe_new(test, site, true);
	const unsigned long *noncanonical = (void *)0xdead000000000000UL;
	unsigned long good = 0xbeef;
	int pc = preempt_count();

	KUNIT_ASSERT_EQ(test, kpt_register(test, &p->kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_asm_load(noncanonical),
			(unsigned long)-EFAULT);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, p->post_hits, 0U);
	KUNIT_EXPECT_EQ(test, preempt_count(), pc);
	preempt_disable();
	KUNIT_EXPECT_NULL(test, kpt_running());
	preempt_enable();
	KUNIT_EXPECT_EQ(test, kpt_asm_load(&good), 0xbeefUL);
	KUNIT_EXPECT_EQ(test, p->post_hits, 1U);
}

/* Claims the first fault it is offered without repairing anything. */
static int kpt_fault_claim_once(struct kprobe *kp, struct pt_regs *regs,
				int trapnr)
{
	struct kpt_probe *p = to_kpt_probe(kp);

	p->fault_trapnr = trapnr;
	return ++p->fault_hits == 1;
}

/*
 * A page fault in a pre_handler, with a fault_handler that would claim it:
 * arch/x86/mm/fault.c WARNs when kprobes claims a page fault and then
 * retries the load, so the fault_handler must not be asked; the exception
 * table fixes the load up.
 */
static void kprobe_fault_in_handler(struct kunit *test)
{
	struct kpt_probe *p = kpt_probe_new(test, kpt_target_add, true);
	int pc = preempt_count();

	p->kp.pre_handler = kpt_pre_load_bad;
	p->kp.fault_handler = kpt_fault_claim_once;
	p->arg = (unsigned long)kpt_unmapped(test);
	KUNIT_ASSERT_EQ(test, kpt_register(test, &p->kp), 0);

	KUNIT_EXPECT_EQ(test, kpt_target_add(1, 2), 3UL);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, p->fault_hits, 0U);
	KUNIT_EXPECT_EQ(test, p->call_result, (unsigned long)-EFAULT);
	KUNIT_EXPECT_EQ(test, p->post_hits, 1U);
	KUNIT_EXPECT_EQ(test, preempt_count(), pc);
}

/* Claims the first #GP: the call returns a mark from the next instruction. */
static int kpt_fault_resume(struct kprobe *kp, struct pt_regs *regs,
			    int trapnr)
{
	struct kpt_probe *p = to_kpt_probe(kp);

	if (trapnr != X86_TRAP_GP || p->fault_hits++)
		return 0;
	p->fault_ip = regs->ip;
	regs->ip = p->arg;
	regs->ax = KPT_GP_MARK;
	return 1;
}

/*
 * A fault_handler that claims a fault of a stepped copy and moves regs->ip
 * ends the step there: the CPU resumes where it said, not at the probe.
 */
static void kprobe_fault_handler_resumes_step(struct kunit *test)
{
	void *site = kpt_site(kpt_asm_gp, kpt_asm_gp_sites, 1);
	struct kpt_probe *p = kpt_probe_new(test, site, true);
	int pc = preempt_count();

	p->kp.fault_handler = kpt_fault_resume;
	p->arg = (unsigned long)kpt_site(kpt_asm_gp, kpt_asm_gp_sites, 2);
	KUNIT_ASSERT_EQ(test, kpt_register(test, &p->kp), 0);

	KUNIT_EXPECT_EQ(test, kpt_asm_gp(), KPT_GP_MARK);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, p->fault_hits, 1U);
	KUNIT_EXPECT_EQ(test, p->fault_ip, (unsigned long)p->kp.ainsn.slot);
	KUNIT_EXPECT_EQ(test, p->post_hits, 0U);
	KUNIT_EXPECT_EQ(test, preempt_count(), pc);
	preempt_disable();
	KUNIT_EXPECT_NULL(test, kpt_running());
	preempt_enable();
}

static void kprobe_fault_handler_handles(struct kunit *test)
{
	struct kpt_probe *p = kpt_probe_new(test, kpt_target_add, true);

	p->kp.pre_handler = kpt_pre_gp;
	p->kp.fault_handler = kpt_fault_fix_gp;
	p->fault_ip = (unsigned long)kpt_site(kpt_asm_gp, kpt_asm_gp_sites, 1);
	p->fault_len = kpt_asm_gp_sites[2] - kpt_asm_gp_sites[1];
	KUNIT_ASSERT_EQ(test, kpt_register(test, &p->kp), 0);

	/* The #GP in pre_handler is handled by fault_handler returning 1. */
	KUNIT_EXPECT_EQ(test, kpt_target_add(2, 2), 4UL);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, p->fault_hits, 1U);
	KUNIT_EXPECT_EQ(test, p->fault_trapnr, X86_TRAP_GP);
	KUNIT_EXPECT_EQ(test, p->call_result, KPT_GP_MARK);
	KUNIT_EXPECT_EQ(test, p->post_hits, 1U);
}
#endif /* CONFIG_X86_64 */

#ifndef CONFIG_X86_64
/*
 * The cases that need x86-64 (register names, hand-written instruction
 * targets, the fault paths) stand for themselves on other architectures
 * as one skipped case per group, with the reason.
 */
static void kprobe_x86_handler_cases(struct kunit *test)
{
	kunit_skip(test,
		   "x86-64 only: handler registers, regs->ip moved, #DB nesting");
}

static void kprobe_x86_fault_cases(struct kunit *test)
{
	kunit_skip(test, "x86-64 only: fault_handler on #GP in a step or handler");
}
#endif

static struct kunit_case kprobes_handlers_cases[] = {
	/* 1. handlers */
	KUNIT_CASE(kprobe_pre_post_order),
#ifdef CONFIG_X86_64
	KUNIT_CASE(kprobe_post_handler_regs),
#if KPT_BUILTIN
	KUNIT_CASE(kprobe_step_by_trap_exit),
#endif
	KUNIT_CASE(kprobe_post_handler_unwinds),
	KUNIT_CASE(kprobe_post_handler_moves_ip),
	KUNIT_CASE(kprobe_pre_handler_moves_ip),
#else
	KUNIT_CASE(kprobe_x86_handler_cases),
#endif
	KUNIT_CASE(kprobe_nmissed_nested),
	KUNIT_CASE(kprobe_nmissed_self),
#if defined(CONFIG_X86_64) && KPT_BUILTIN
	KUNIT_CASE_PARAM(kprobe_hit_from_debug_trap, kpt_db_gen_params),
#endif
	/* 2. fault_handler, last */
#ifdef CONFIG_X86_64
	KUNIT_CASE(kprobe_fault_in_single_step),
	KUNIT_CASE(kprobe_fault_in_handler),
	KUNIT_CASE(kprobe_fault_handler_handles),
	KUNIT_CASE(kprobe_gp_fixup_in_single_step),
	KUNIT_CASE(kprobe_fault_handler_resumes_step),
#else
	KUNIT_CASE(kprobe_x86_fault_cases),
#endif
	{}
};

static struct kunit_suite kprobes_handlers_suite = {
	.name = "kprobes_handlers",
	.init = kpt_test_init,
	.test_cases = kprobes_handlers_cases,
};

kunit_test_suites(&kprobes_handlers_suite);
