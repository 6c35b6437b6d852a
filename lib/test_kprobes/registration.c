// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * KUnit suite "kprobes": what every architecture's kprobes promise of
 * registration, seen from outside.  In this order:
 *
 *  1. registration: by symbol, by address, symbol+offset, "mod:sym", and
 *     each refused registration with its errno (the blacklist included);
 *  2. several probes on one address, enable/disable, unregister, batches
 *     and their rollback, concurrent hits, unregister vs. a running handler,
 *     and the out-of-line slots.
 *
 * What the handlers see and may do is suite "kprobes_handlers"
 * (handlers.c).  The probes go on functions of the suites only, run from
 * the test thread or from helper kthreads it owns; the cases assert
 * registration errnos, the address a probe resolved to, handler hit
 * counts and nmissed counters.
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/sched/task.h>

#ifdef CONFIG_X86_64
#include "x86_targets.h"
#endif

#include "kpt.h"

/* ---------------------------------------------------------------------- */
/* Targets                                                                 */

static noinline __noipa __kprobes unsigned long kpt_kprobes_text_target(unsigned long x)
{
	return x + 3;
}

/*
 * @p must be refused with @err, and a refused probe must leave no trace:
 * calling kpt_target_add() afterwards does not reach its handler.
 */
static void kpt_expect_refused(struct kunit *test, struct kpt_probe *p, int err)
{
	KUNIT_EXPECT_EQ(test, kpt_register(test, &p->kp), err);
	kpt_target_add(1, 1);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 0U);
}

/* ---------------------------------------------------------------------- */
/* 1. Registration                                                         */

static void kprobe_register_by_symbol(struct kunit *test)
{
	struct kpt_probe *p = kpt_probe_new(test, NULL, false);

	p->kp.symbol_name = "kpt_target_add";
	KUNIT_ASSERT_EQ(test, kpt_register(test, &p->kp), 0);
	KUNIT_EXPECT_EQ(test, (unsigned long)p->kp.addr,
			kpt_entry_addr(kpt_target_add));
	KUNIT_EXPECT_TRUE(test, p->kp.flags & KPROBE_FLAG_ON_FUNC_ENTRY);

	KUNIT_EXPECT_EQ(test, kpt_target_add(2, 3), 5UL);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, kpt_target_add(4, 3), 7UL);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 2U);
	KUNIT_EXPECT_EQ(test, p->kp.nmissed, 0UL);
}

#if KPT_BUILTIN
/*
 * Audit row A17: a registration before init_kprobes() has built the
 * blacklist is put off (-EAGAIN), not let through unchecked, and leaves
 * nothing behind.
 */
static void kprobe_register_before_init(struct kunit *test)
{
	struct kpt_probe *p = kpt_probe_new(test, NULL, false);
	int ret;

	p->kp.symbol_name = "kpt_target_add";
	kprobes_test_set_ready(false);
	ret = register_kprobe(&p->kp);
	kprobes_test_set_ready(true);
	KUNIT_EXPECT_EQ(test, ret, -EAGAIN);
	KUNIT_EXPECT_EQ(test, kpt_target_add(2, 3), 5UL);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 0U);

	KUNIT_ASSERT_EQ(test, kpt_register(test, &p->kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_target_add(2, 3), 5UL);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 1U);
}

/*
 * Audit row D7: fprobe and kretprobe returns mark their CPU busy with
 * kprobe_busy_begin() while they run a handler; a probe hit meanwhile
 * only counts as missed, and the probe fires again after
 * kprobe_busy_end().
 */
static void kprobe_busy_section_misses(struct kunit *test)
{
	struct kpt_probe *p = kpt_probe_new(test, NULL, false);
	struct kprobe *running;
	unsigned long ret;
	int status;

	p->kp.symbol_name = "kpt_target_add";
	KUNIT_ASSERT_EQ(test, kpt_register(test, &p->kp), 0);

	kprobe_busy_begin();
	running = kprobe_running();
	status = get_kprobe_ctlblk()->kprobe_status;
	ret = kpt_target_add(2, 3);
	kprobe_busy_end();

	KUNIT_EXPECT_NOT_NULL(test, running);
	KUNIT_EXPECT_EQ(test, status, KPROBE_HIT_ACTIVE);
	KUNIT_EXPECT_EQ(test, ret, 5UL);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 0U);
	KUNIT_EXPECT_EQ(test, p->kp.nmissed, 1UL);
	preempt_disable();
	running = kprobe_running();
	preempt_enable();
	KUNIT_EXPECT_NULL(test, running);

	KUNIT_EXPECT_EQ(test, kpt_target_add(2, 3), 5UL);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 1U);
}
#endif

static void kprobe_register_by_addr(struct kunit *test)
{
	struct kpt_probe *p = kpt_probe_new(test, kpt_target_add, true);

	KUNIT_ASSERT_EQ(test, kpt_register(test, &p->kp), 0);
	KUNIT_EXPECT_EQ(test, (unsigned long)p->kp.addr,
			kpt_entry_addr(kpt_target_add));
	KUNIT_EXPECT_TRUE(test, p->kp.flags & KPROBE_FLAG_ON_FUNC_ENTRY);

	KUNIT_EXPECT_EQ(test, kpt_target_add(10, 20), 30UL);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, p->post_hits, 1U);
}

/*
 * Registrations refused for what the struct kprobe asks for, before any
 * text is looked at.  Those that name an existing function, as part of
 * what they ask, must also leave no trace on it: kpt_expect_refused().
 */
struct kpt_refusal {
	const char *name;
	const char *symbol_name;
	bool with_addr;		/* kp.addr = kpt_target_add */
	int err;
	bool then_call;		/* kpt_expect_refused() */
};

static const struct kpt_refusal kpt_refusals[] = {
	{
		.name = "unknown_symbol",
		.symbol_name = "kpt_no_such_function_anywhere",
		.err = -ENOENT,
	},
	{
		/* The symbol exists, but not in a module of that name. */
		.name = "mod_sym_absent_module",
		.symbol_name = "kpt_no_such_module:kpt_target_add",
		.err = -ENOENT,
		.then_call = true,
	},
	{
		.name = "symbol_and_addr",
		.symbol_name = "kpt_target_add",
		.with_addr = true,
		.err = -EINVAL,
		.then_call = true,
	},
	{
		.name = "no_symbol_no_addr",
		.err = -EINVAL,
	},
};

static void kpt_refusal_desc(const struct kpt_refusal *r, char *desc)
{
	strscpy(desc, r->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kpt_refusal, kpt_refusals, kpt_refusal_desc);

static void kprobe_register_refused(struct kunit *test)
{
	const struct kpt_refusal *r = test->param_value;
	struct kpt_probe *p;

	p = kpt_probe_new(test, r->with_addr ? kpt_target_add : NULL, false);
	p->kp.symbol_name = r->symbol_name;
	if (r->then_call)
		kpt_expect_refused(test, p, r->err);
	else
		KUNIT_EXPECT_EQ(test, kpt_register(test, &p->kp), r->err);
}

static void kprobe_mod_sym(struct kunit *test)
{
	struct kpt_probe *p = kpt_probe_new(test, NULL, false);

	if (!IS_MODULE(CONFIG_KPROBES_SANITY_TEST))
		kunit_skip(test, "built in: no module to name (see guest tests)");

	p->kp.symbol_name = KBUILD_MODNAME ":kpt_target_add";
	KUNIT_ASSERT_EQ(test, kpt_register(test, &p->kp), 0);
	KUNIT_EXPECT_EQ(test, (unsigned long)p->kp.addr,
			kpt_entry_addr(kpt_target_add));
	KUNIT_EXPECT_EQ(test, kpt_target_add(1, 2), 3UL);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 1U);
}

static void kprobe_not_text(struct kunit *test)
{
	struct kpt_probe *p = kpt_probe_new(test, &kpt_data_word, false);
	struct kpt_probe *q = kpt_probe_new(test, NULL, false);
	void *heap = kunit_kzalloc(test, 64, GFP_KERNEL);
	struct kpt_probe *h = kpt_probe_new(test, heap, false);

	KUNIT_EXPECT_EQ(test, kpt_register(test, &p->kp), -EINVAL);
	q->kp.symbol_name = "kpt_data_word";
	/* Without KALLSYMS_ALL a data symbol has no name to look up. */
	KUNIT_EXPECT_EQ(test, kpt_register(test, &q->kp),
			IS_ENABLED(CONFIG_KALLSYMS_ALL) ? -EINVAL : -ENOENT);
	/* Outside any symbol: refused, as -EINVAL or as unknown. */
	KUNIT_EXPECT_LT(test, kpt_register(test, &h->kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_data_word, 0x1234UL);
}

static void kprobe_blacklist_local(struct kunit *test)
{
	struct kpt_probe *p = kpt_probe_new(test, kpt_nokprobe_target, false);
	struct kpt_probe *q = kpt_probe_new(test, kpt_kprobes_text_target,
					    false);

	KUNIT_EXPECT_EQ(test, kpt_register(test, &p->kp), -EINVAL);
	KUNIT_EXPECT_EQ(test, kpt_register(test, &q->kp), -EINVAL);
	KUNIT_EXPECT_EQ(test, kpt_nokprobe_target(1), 3UL);
	KUNIT_EXPECT_EQ(test, kpt_kprobes_text_target(1), 4UL);
	KUNIT_EXPECT_EQ(test, p->pre_hits + q->pre_hits, 0U);
#if KPT_BUILTIN
	KUNIT_EXPECT_TRUE(test,
			  within_kprobe_blacklist((unsigned long)kpt_nokprobe_target));
	KUNIT_EXPECT_TRUE(test,
			  within_kprobe_blacklist((unsigned long)kpt_kprobes_text_target));
	KUNIT_EXPECT_FALSE(test,
			   within_kprobe_blacklist((unsigned long)kpt_target_add));
#endif
}

#ifdef CONFIG_X86_64
/*
 * What the compiler split off a blacklisted function (NAME.cold,
 * NAME.part.N, ...) runs that function's code, and is refused with it.
 */
static void kprobe_blacklist_split_part(struct kunit *test)
{
	struct kprobe *part = kunit_kzalloc(test, sizeof(*part), GFP_KERNEL);
	struct kprobe *func = kunit_kzalloc(test, sizeof(*func), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, part);
	KUNIT_ASSERT_NOT_NULL(test, func);
	part->symbol_name = "kpt_asm_nokp.part.0";
	func->addr = (kprobe_opcode_t *)kpt_asm_nokp;
	KUNIT_EXPECT_EQ(test, kpt_register(test, func), -EINVAL);
	KUNIT_EXPECT_EQ(test, kpt_register(test, part), -EINVAL);
	KUNIT_EXPECT_EQ(test, kpt_asm_nokp(7), 7UL);
#if KPT_BUILTIN
	{
		unsigned long at = kallsyms_lookup_name("kpt_asm_nokp.part.0");
		unsigned long parent = 0;

		KUNIT_ASSERT_NE(test, at, 0UL);
		KUNIT_EXPECT_EQ(test, kprobe_clone_parent(at, true, &parent), 0);
		KUNIT_EXPECT_EQ(test, parent, (unsigned long)kpt_asm_nokp);
		KUNIT_EXPECT_EQ(test, kprobe_clone_parent((unsigned long)kpt_asm_nokp,
							  false, &parent), -ENOENT);
	}
#endif
}

/*
 * A jump optimized over a kCFI preamble would overwrite the type hash that
 * every indirect caller compares: preambles are refused, the function
 * after them is not.
 */
static void kprobe_refused_preamble(struct kunit *test)
{
	static const struct {
		const char *symbol;
		unsigned int offset;
	} refused[] = {
		{ "__cfi_kpt_asm_padded", 0 },
		{ "__cfi_kpt_asm_padded", 5 },
		{ "__pfx_kpt_asm_padded", 0 },
	};
	struct kpt_probe *func = kpt_probe_new(test, kpt_asm_padded, false);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(refused); i++) {
		struct kpt_probe *p = kpt_probe_new(test, NULL, false);

		p->kp.symbol_name = refused[i].symbol;
		p->kp.offset = refused[i].offset;
		KUNIT_EXPECT_EQ_MSG(test, kpt_register(test, &p->kp), -EINVAL,
				    "%s+%u", refused[i].symbol,
				    refused[i].offset);
	}
	KUNIT_ASSERT_EQ(test, kpt_register(test, &func->kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_asm_padded(9), 9UL);
	KUNIT_EXPECT_EQ(test, func->pre_hits, 1U);
}

/* x + 1 through a function pointer the compiler cannot see through. */
static noinline __noipa unsigned long kpt_cfi_caller(unsigned long x)
{
	unsigned long (*fn)(unsigned long) = kpt_target_inner;

	OPTIMIZER_HIDE_VAR(fn);
	return fn(x) + 1;
}

/*
 * Under kCFI an indirect call is preceded by its check,
 *	movl $-hash, %r10d; addl -N(%r11), %r10d; je 1f; ud2; 1:
 * and the CFI trap handler reads the movl and addl back from the ud2 to
 * name the types: both are refused (-EOPNOTSUPP), the je takes a probe.
 * Audit A10.
 */
static void kprobe_refused_cfi_check(struct kunit *test)
{
	static const u8 je_ud2[] = { 0x74, 0x02, 0x0f, 0x0b };
	const u8 *text = (const u8 *)kpt_cfi_caller;
	struct kpt_probe *movl, *addl, *je;
	/* The function is a few instructions long; its text is read. */
	unsigned int i, size = 64;

	if (!IS_ENABLED(CONFIG_CFI_CLANG))
		kunit_skip(test, "needs CONFIG_CFI_CLANG");
	/* With IBT, FineIBT may have rewritten the checks at boot. */
	if (cpu_feature_enabled(X86_FEATURE_IBT))
		kunit_skip(test, "IBT: the call sites may be FineIBT's");
	for (i = 0; i + 14 <= size; i++)
		if (text[i] == 0x41 && text[i + 1] == 0xba &&
		    text[i + 6] == 0x45 && text[i + 7] == 0x03 &&
		    !memcmp(text + i + 10, je_ud2, sizeof(je_ud2)))
			break;
	KUNIT_ASSERT_LE_MSG(test, i + 14, size, "no kCFI check in %ps", text);

	movl = kpt_probe_new(test, (void *)text + i, false);
	addl = kpt_probe_new(test, (void *)text + i + 6, false);
	je = kpt_probe_new(test, (void *)text + i + 10, false);
	KUNIT_EXPECT_EQ(test, kpt_register(test, &movl->kp), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, kpt_register(test, &addl->kp), -EOPNOTSUPP);
	KUNIT_ASSERT_EQ(test, kpt_register(test, &je->kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_cfi_caller(4), kpt_target_inner(4) + 1);
	KUNIT_EXPECT_EQ(test, je->pre_hits, 1U);
}

#endif

/* Functions that no kprobe may ever be put on. */
static const char * const kpt_blacklisted_symbols[] = {
	"notify_die",			/* NOKPROBE_SYMBOL() */
	"bsearch",			/* NOKPROBE_SYMBOL(), in lib/ */
	"get_kprobe",			/* kprobes' own hit path */
#ifdef CONFIG_X86_64
	"kprobe_int3_handler",		/* the x86 breakpoint path */
	"exc_page_fault",		/* noinstr */
	"entry_SYSCALL_64",		/* entry text */
#endif
#ifdef CONFIG_RETHOOK
	"arch_rethook_trampoline",	/* the return trampoline */
#endif
};

static void kprobe_blacklist_kernel(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kpt_blacklisted_symbols); i++) {
		struct kpt_probe *p = kpt_probe_new(test, NULL, false);

		p->kp.symbol_name = kpt_blacklisted_symbols[i];
		KUNIT_EXPECT_EQ_MSG(test, kpt_register(test, &p->kp), -EINVAL,
				    "symbol %s", kpt_blacklisted_symbols[i]);
	}
}

#ifdef CONFIG_X86_64
/*
 * The return and untrain thunks every return may go through, and the
 * indirect-branch thunk arrays: blacklisted by name on x86, as listed in
 * arch_populate_kprobe_blacklist().  Which of them exist depends on the
 * mitigations configured.
 */
static const char * const kpt_thunk_symbols[] = {
	"__x86_return_thunk",
	"__x86_indirect_thunk_array",
	"__x86_indirect_call_thunk_array",
	"__x86_indirect_jump_thunk_array",
	"__x86_indirect_its_thunk_array",
	/* the last thunks of the arrays: the whole array is blacklisted */
	"__x86_indirect_thunk_r15",
	"__x86_indirect_call_thunk_r15",
	"__x86_indirect_jump_thunk_r15",
	"__x86_indirect_its_thunk_r15",
	"its_return_thunk",
	"retbleed_return_thunk",
	"retbleed_untrain_ret",
	"srso_return_thunk",
	"srso_untrain_ret",
	"srso_alias_return_thunk",
	"srso_alias_untrain_ret",
	"srso_alias_safe_ret",
	"srso_safe_ret",
	"call_depth_return_thunk",
	"entry_untrain_ret",
};

/*
 * Is @name in kallsyms?  Modules cannot ask, the lookup is not exported to
 * them; they go by registration's -ENOENT, which comes from that lookup.
 */
static bool kpt_ksym_exists(const char *name)
{
#if KPT_BUILTIN
	return kallsyms_lookup_name(name);
#else
	return true;
#endif
}

static void kprobe_blacklist_thunks(struct kunit *test)
{
	unsigned int i, present = 0;

	for (i = 0; i < ARRAY_SIZE(kpt_thunk_symbols); i++) {
		const char *name = kpt_thunk_symbols[i];
		struct kpt_probe *p;
		int ret;

		if (!kpt_ksym_exists(name))
			continue;
		p = kpt_probe_new(test, NULL, false);
		p->kp.symbol_name = name;
		ret = kpt_register(test, &p->kp);
		if (!KPT_BUILTIN && ret == -ENOENT)
			continue;
		present++;
		KUNIT_EXPECT_EQ_MSG(test, ret, -EINVAL, "symbol %s", name);
	}
	if (!present)
		kunit_skip(test, "no return or untrain thunk in this kernel");
}
#endif

static void kprobe_register_twice(struct kunit *test)
{
	struct kpt_probe *p = kpt_probe_new(test, kpt_target_add, false);

	KUNIT_ASSERT_EQ(test, kpt_register(test, &p->kp), 0);
	KUNIT_EXPECT_EQ(test, register_kprobe(&p->kp), -EINVAL);
	/* Still registered once, and only once. */
	KUNIT_EXPECT_EQ(test, kpt_target_add(1, 1), 2UL);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 1U);
}

static void kprobe_flag_disabled(struct kunit *test)
{
	struct kpt_probe *p = kpt_probe_new(test, kpt_target_add, true);

	p->kp.flags = KPROBE_FLAG_DISABLED;
	KUNIT_ASSERT_EQ(test, kpt_register(test, &p->kp), 0);
	KUNIT_EXPECT_TRUE(test, p->kp.flags & KPROBE_FLAG_DISABLED);
	KUNIT_EXPECT_EQ(test, kpt_target_add(1, 2), 3UL);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 0U);

	KUNIT_ASSERT_EQ(test, enable_kprobe(&p->kp), 0);
	KUNIT_EXPECT_FALSE(test, p->kp.flags & KPROBE_FLAG_DISABLED);
	KUNIT_EXPECT_EQ(test, kpt_target_add(1, 2), 3UL);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, p->post_hits, 1U);
}

static void kprobe_disable_enable(struct kunit *test)
{
	struct kpt_probe *p = kpt_probe_new(test, kpt_target_add, true);

	KUNIT_ASSERT_EQ(test, kpt_register(test, &p->kp), 0);
	kpt_target_add(1, 1);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 1U);

	KUNIT_ASSERT_EQ(test, disable_kprobe(&p->kp), 0);
	KUNIT_EXPECT_TRUE(test, p->kp.flags & KPROBE_FLAG_DISABLED);
	KUNIT_EXPECT_EQ(test, kpt_target_add(1, 1), 2UL);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, p->post_hits, 1U);

	KUNIT_ASSERT_EQ(test, enable_kprobe(&p->kp), 0);
	KUNIT_EXPECT_FALSE(test, p->kp.flags & KPROBE_FLAG_DISABLED);
	KUNIT_EXPECT_EQ(test, kpt_target_add(1, 1), 2UL);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 2U);
	KUNIT_EXPECT_EQ(test, p->post_hits, 2U);
	/* A disabled probe does not count its non-hits as missed. */
	KUNIT_EXPECT_EQ(test, p->kp.nmissed, 0UL);
}

static void kprobe_unregister(struct kunit *test)
{
	struct kpt_probe *p = kpt_probe_new(test, kpt_target_add, false);

	KUNIT_ASSERT_EQ(test, kpt_register(test, &p->kp), 0);
	kpt_target_add(1, 1);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 1U);
	kpt_unregister(test, &p->kp);
	KUNIT_EXPECT_EQ(test, kpt_target_add(1, 1), 2UL);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 1U);

	/* A second unregister finds no such probe; it clears addr. */
	unregister_kprobe(&p->kp);
	KUNIT_EXPECT_NULL(test, p->kp.addr);

	/* The struct can be registered again from scratch. */
	p->kp.addr = (void *)kpt_target_add;
	p->kp.flags = 0;
	KUNIT_ASSERT_EQ(test, kpt_register(test, &p->kp), 0);
	kpt_target_add(1, 1);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 2U);
}

#ifdef CONFIG_X86_64
static void kprobe_register_symbol_offset(struct kunit *test)
{
	struct kpt_probe *p = kpt_probe_new(test, NULL, true);
	u32 off = kpt_asm_regs_sites[1];

	p->kp.symbol_name = "kpt_asm_regs";
	p->kp.offset = off;
	KUNIT_ASSERT_EQ(test, kpt_register(test, &p->kp), 0);
	KUNIT_EXPECT_PTR_EQ(test, (void *)p->kp.addr,
			    (void *)kpt_asm_regs + off);
	KUNIT_EXPECT_FALSE(test, p->kp.flags & KPROBE_FLAG_ON_FUNC_ENTRY);
	KUNIT_EXPECT_EQ(test, kpt_asm_regs(1), 1UL + 0x55 + 0x1234);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, p->post_hits, 1U);
}

static void kprobe_not_insn_boundary(struct kunit *test)
{
	/* Three bytes into "movq kpt_asm_data(%rip), %rax" (seven bytes). */
	u32 off = kpt_asm_riprel_sites[0] + 3;
	struct kpt_probe *p = kpt_probe_new(test, (void *)kpt_asm_riprel + off,
					    false);
	struct kpt_probe *q = kpt_probe_new(test, NULL, false);

	KUNIT_EXPECT_EQ(test, kpt_register(test, &p->kp), -EILSEQ);
	q->kp.symbol_name = "kpt_asm_riprel";
	q->kp.offset = off;
	KUNIT_EXPECT_EQ(test, kpt_register(test, &q->kp), -EILSEQ);
	KUNIT_EXPECT_EQ(test, kpt_asm_riprel(0), 0x1231UL);
}
#endif /* CONFIG_X86_64 */

/* ---------------------------------------------------------------------- */
/* 2. Several probes on one address, batches, concurrency, slots           */

#define KPT_NR_AGGR	3

static void kpt_new_aggr(struct kunit *test, struct kpt_probe **ps)
{
	int i;

	for (i = 0; i < KPT_NR_AGGR; i++) {
		/* Mixed: with and without post_handler. */
		ps[i] = kpt_probe_new(test, kpt_target_add, i != 1);
		KUNIT_ASSERT_EQ(test, kpt_register(test, &ps[i]->kp), 0);
	}
}

static void kprobe_aggregate_all_handlers(struct kunit *test)
{
	struct kpt_probe *ps[KPT_NR_AGGR];
	int i;

	kpt_new_aggr(test, ps);
	KUNIT_EXPECT_EQ(test, kpt_target_add(3, 4), 7UL);
	KUNIT_EXPECT_EQ(test, kpt_target_add(3, 5), 8UL);
	for (i = 0; i < KPT_NR_AGGR; i++) {
		KUNIT_EXPECT_EQ_MSG(test, ps[i]->pre_hits, 2U, "probe %d", i);
		KUNIT_EXPECT_EQ_MSG(test, ps[i]->post_hits, i != 1 ? 2U : 0U,
				    "probe %d", i);
		KUNIT_EXPECT_PTR_EQ(test, ps[i]->kp.addr, ps[0]->kp.addr);
		/* Every pre_handler ran before any post_handler. */
		if (i != 1)
			KUNIT_EXPECT_LT(test, ps[1]->pre_seq, ps[i]->post_seq);
	}
}

static void kprobe_aggregate_disable_one(struct kunit *test)
{
	struct kpt_probe *ps[KPT_NR_AGGR];

	kpt_new_aggr(test, ps);
	KUNIT_ASSERT_EQ(test, disable_kprobe(&ps[0]->kp), 0);
	kpt_target_add(1, 1);
	KUNIT_EXPECT_EQ(test, ps[0]->pre_hits, 0U);
	KUNIT_EXPECT_EQ(test, ps[0]->post_hits, 0U);
	KUNIT_EXPECT_EQ(test, ps[1]->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, ps[2]->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, ps[2]->post_hits, 1U);

	/* All but one disabled: the last still hits. */
	KUNIT_ASSERT_EQ(test, disable_kprobe(&ps[2]->kp), 0);
	kpt_target_add(1, 1);
	KUNIT_EXPECT_EQ(test, ps[1]->pre_hits, 2U);
	KUNIT_EXPECT_EQ(test, ps[2]->pre_hits, 1U);
	/* Each hit a disabled member saw go by, counted apart from misses. */
	KUNIT_EXPECT_EQ(test, ps[0]->kp.nhits_disabled, 2UL);
	KUNIT_EXPECT_EQ(test, ps[2]->kp.nhits_disabled, 1UL);
	KUNIT_EXPECT_EQ(test, ps[1]->kp.nhits_disabled, 0UL);
	KUNIT_EXPECT_EQ(test, ps[0]->kp.nmissed, 0UL);

	KUNIT_ASSERT_EQ(test, enable_kprobe(&ps[0]->kp), 0);
	KUNIT_ASSERT_EQ(test, enable_kprobe(&ps[2]->kp), 0);
	kpt_target_add(1, 1);
	KUNIT_EXPECT_EQ(test, ps[0]->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, ps[1]->pre_hits, 3U);
	KUNIT_EXPECT_EQ(test, ps[2]->pre_hits, 2U);
}

static void kprobe_aggregate_all_disabled(struct kunit *test)
{
	struct kpt_probe *ps[KPT_NR_AGGR];
	int i;

	kpt_new_aggr(test, ps);
	for (i = 0; i < KPT_NR_AGGR; i++)
		KUNIT_ASSERT_EQ(test, disable_kprobe(&ps[i]->kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_target_add(2, 2), 4UL);
	for (i = 0; i < KPT_NR_AGGR; i++)
		KUNIT_EXPECT_EQ(test, ps[i]->pre_hits, 0U);
	KUNIT_ASSERT_EQ(test, enable_kprobe(&ps[1]->kp), 0);
	kpt_target_add(2, 2);
	KUNIT_EXPECT_EQ(test, ps[0]->pre_hits, 0U);
	KUNIT_EXPECT_EQ(test, ps[1]->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, ps[2]->pre_hits, 0U);
}

static void kprobe_aggregate_partial_unregister(struct kunit *test)
{
	struct kpt_probe *ps[KPT_NR_AGGR];

	kpt_new_aggr(test, ps);
	kpt_unregister(test, &ps[1]->kp);
	kpt_target_add(1, 1);
	KUNIT_EXPECT_EQ(test, ps[0]->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, ps[0]->post_hits, 1U);
	KUNIT_EXPECT_EQ(test, ps[1]->pre_hits, 0U);
	KUNIT_EXPECT_EQ(test, ps[2]->pre_hits, 1U);

	kpt_unregister(test, &ps[0]->kp);
	kpt_target_add(1, 1);
	KUNIT_EXPECT_EQ(test, ps[0]->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, ps[2]->pre_hits, 2U);
	KUNIT_EXPECT_EQ(test, ps[2]->post_hits, 2U);

	/* The address can be probed again (the struct reset, as for any user). */
	ps[1]->kp.addr = (void *)kpt_target_add;
	ps[1]->kp.flags = 0;
	KUNIT_ASSERT_EQ(test, kpt_register(test, &ps[1]->kp), 0);
	kpt_target_add(1, 1);
	KUNIT_EXPECT_EQ(test, ps[1]->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, ps[2]->pre_hits, 3U);

	kpt_unregister(test, &ps[1]->kp);
	kpt_unregister(test, &ps[2]->kp);
	KUNIT_EXPECT_EQ(test, kpt_target_add(1, 1), 2UL);
	KUNIT_EXPECT_EQ(test, ps[1]->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, ps[2]->pre_hits, 3U);
}

static void kprobes_batch(struct kunit *test)
{
	struct kpt_probe *a = kpt_probe_new(test, kpt_target_inner, true);
	struct kpt_probe *b = kpt_probe_new(test, kpt_target_outer, false);
	struct kpt_probe *c = kpt_probe_new(test, NULL, false);
	struct kprobe *kps[] = { &a->kp, &b->kp, &c->kp };

	c->kp.symbol_name = "kpt_target_spin";
	KUNIT_ASSERT_EQ(test, kpt_register_many(test, kps, ARRAY_SIZE(kps)), 0);
	KUNIT_EXPECT_EQ(test, (unsigned long)c->kp.addr,
			kpt_entry_addr(kpt_target_spin));
	kpt_target_inner(1);
	kpt_target_outer(1);
	kpt_target_spin(1);
	KUNIT_EXPECT_EQ(test, a->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, a->post_hits, 1U);
	KUNIT_EXPECT_EQ(test, b->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, c->pre_hits, 1U);

	kpt_unregister_many(test, kps, ARRAY_SIZE(kps));
	KUNIT_EXPECT_EQ(test, kpt_target_inner(1), 10UL);
	KUNIT_EXPECT_EQ(test, kpt_target_outer(1), 1UL ^ 0x5a);
	KUNIT_EXPECT_EQ(test, kpt_target_spin(1), 2UL);
	KUNIT_EXPECT_EQ(test, a->pre_hits + b->pre_hits + c->pre_hits, 3U);
}

/*
 * unregister_kprobes() takes the breakpoints of a batch out together: a
 * probe listed twice is unregistered once, a group member leaves its
 * group's other probe running, a probe never registered gets a NULL addr,
 * and a removed probe registers again.
 */
static void kprobes_batch_unregister(struct kunit *test)
{
	struct kpt_probe *a = kpt_probe_new(test, kpt_target_inner, true);
	struct kpt_probe *b = kpt_probe_new(test, kpt_target_outer, false);
	struct kpt_probe *c = kpt_probe_new(test, kpt_target_spin, false);
	struct kpt_probe *d = kpt_probe_new(test, kpt_target_inner, false);
	struct kpt_probe *never = kpt_probe_new(test, kpt_target_add, false);
	struct kprobe *kps[] = { &a->kp, &b->kp, &c->kp, &d->kp };
	struct kprobe *gone[] = { &b->kp, &a->kp, &never->kp, &b->kp, &c->kp };

	KUNIT_ASSERT_EQ(test, kpt_register_many(test, kps, ARRAY_SIZE(kps)), 0);
	unregister_kprobes(gone, ARRAY_SIZE(gone));
	KUNIT_EXPECT_EQ(test, (unsigned long)b->kp.addr,
			kpt_entry_addr(kpt_target_outer));
	KUNIT_EXPECT_NULL(test, never->kp.addr);
	KUNIT_EXPECT_EQ(test, kpt_target_inner(1), 10UL);
	KUNIT_EXPECT_EQ(test, kpt_target_outer(1), 1UL ^ 0x5a);
	KUNIT_EXPECT_EQ(test, kpt_target_spin(1), 2UL);
	KUNIT_EXPECT_EQ(test, a->pre_hits + a->post_hits, 0U);
	KUNIT_EXPECT_EQ(test, b->pre_hits + c->pre_hits, 0U);
	KUNIT_EXPECT_EQ(test, d->pre_hits, 1U);

	b->kp.flags = 0;
	KUNIT_ASSERT_EQ(test, kpt_register(test, &b->kp), 0);
	kpt_target_outer(1);
	KUNIT_EXPECT_EQ(test, b->pre_hits, 1U);
}

/*
 * disable_kprobes(): every probe of the batch stops, a second member of a
 * group at one of the addresses keeps running, a probe that was never
 * registered is skipped, and each comes back with enable_kprobe().
 */
static void kprobes_batch_disable(struct kunit *test)
{
	struct kpt_probe *a = kpt_probe_new(test, kpt_target_inner, true);
	struct kpt_probe *b = kpt_probe_new(test, kpt_target_outer, false);
	struct kpt_probe *c = kpt_probe_new(test, kpt_target_spin, false);
	struct kpt_probe *d = kpt_probe_new(test, kpt_target_inner, false);
	struct kpt_probe *never = kpt_probe_new(test, kpt_target_add, false);
	struct kprobe *kps[] = { &a->kp, &b->kp, &c->kp, &d->kp };
	struct kprobe *off[] = { &a->kp, &never->kp, &b->kp, &c->kp };

	KUNIT_ASSERT_EQ(test, kpt_register_many(test, kps, ARRAY_SIZE(kps)), 0);
	kpt_target_inner(1);
	kpt_target_outer(1);
	kpt_target_spin(1);
	KUNIT_EXPECT_EQ(test, a->pre_hits + b->pre_hits + c->pre_hits, 3U);

	disable_kprobes(off, ARRAY_SIZE(off));
	KUNIT_EXPECT_TRUE(test, kprobe_disabled(&a->kp));
	KUNIT_EXPECT_TRUE(test, kprobe_disabled(&b->kp));
	KUNIT_EXPECT_TRUE(test, kprobe_disabled(&c->kp));
	KUNIT_EXPECT_FALSE(test, kprobe_disabled(&d->kp));
	KUNIT_EXPECT_EQ(test, kpt_target_inner(1), 10UL);
	KUNIT_EXPECT_EQ(test, kpt_target_outer(1), 1UL ^ 0x5a);
	KUNIT_EXPECT_EQ(test, kpt_target_spin(1), 2UL);
	KUNIT_EXPECT_EQ(test, a->pre_hits + b->pre_hits + c->pre_hits, 3U);
	KUNIT_EXPECT_EQ(test, a->post_hits, 1U);
	/* inner ran twice: its enabled group member saw both */
	KUNIT_EXPECT_EQ(test, d->pre_hits, 2U);
	KUNIT_EXPECT_EQ(test, never->pre_hits, 0U);
	/* outer and spin are plain text again: no trap, nothing missed */
	KUNIT_EXPECT_EQ(test, b->kp.nmissed + c->kp.nmissed, 0UL);

	KUNIT_EXPECT_EQ(test, enable_kprobe(&a->kp), 0);
	KUNIT_EXPECT_EQ(test, enable_kprobe(&b->kp), 0);
	KUNIT_EXPECT_EQ(test, enable_kprobe(&c->kp), 0);
	kpt_target_inner(1);
	kpt_target_outer(1);
	kpt_target_spin(1);
	KUNIT_EXPECT_EQ(test, a->pre_hits + b->pre_hits + c->pre_hits, 6U);
	KUNIT_EXPECT_EQ(test, a->post_hits, 2U);
}

static void kprobes_batch_rollback(struct kunit *test)
{
	struct kpt_probe *a = kpt_probe_new(test, kpt_target_inner, false);
	struct kpt_probe *b = kpt_probe_new(test, kpt_target_outer, true);
	struct kpt_probe *bad = kpt_probe_new(test, kpt_target_spin, false);
	struct kprobe *kps[] = { &a->kp, &b->kp, &bad->kp };

	/* The last one is invalid (symbol and address): all or nothing. */
	bad->kp.symbol_name = "kpt_target_spin";
	KUNIT_EXPECT_EQ(test, kpt_register_many(test, kps, ARRAY_SIZE(kps)),
			-EINVAL);
	kpt_target_inner(1);
	kpt_target_outer(1);
	kpt_target_spin(1);
	KUNIT_EXPECT_EQ(test, a->pre_hits, 0U);
	KUNIT_EXPECT_EQ(test, b->pre_hits, 0U);
	KUNIT_EXPECT_EQ(test, b->post_hits, 0U);
	KUNIT_EXPECT_EQ(test, bad->pre_hits, 0U);

	/* Rolled back, not leaked: the same structs register again. */
	a->kp.addr = (void *)kpt_target_inner;
	a->kp.flags = 0;
	KUNIT_EXPECT_EQ(test, kpt_register(test, &a->kp), 0);
	b->kp.addr = (void *)kpt_target_outer;
	b->kp.flags = 0;
	KUNIT_EXPECT_EQ(test, kpt_register(test, &b->kp), 0);
	kpt_target_inner(1);
	kpt_target_outer(1);
	KUNIT_EXPECT_EQ(test, a->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, b->pre_hits, 1U);
}

/* Helper threads that call a probed function in a loop. */
struct kpt_worker {
	struct task_struct *task;
	struct completion done;
	unsigned int loops;	/* 0: until told to stop */
	unsigned int calls;
	unsigned long bad_results;
	bool stop;
};

static int kpt_worker_fn(void *arg)
{
	struct kpt_worker *w = arg;

	while (!READ_ONCE(w->stop) && (!w->loops || w->calls < w->loops)) {
		if (kpt_target_spin(w->calls) != w->calls + 1UL)
			w->bad_results++;
		w->calls++;
		if (!w->loops)
			cond_resched();
	}
	complete(&w->done);

	return kpt_wait_for_stop();
}

static void kpt_worker_stop(void *arg)
{
	struct kpt_worker *w = arg;

	WRITE_ONCE(w->stop, true);
	kthread_stop(w->task);
	put_task_struct(w->task);
}

static struct kpt_worker *kpt_worker_start(struct kunit *test,
					   unsigned int loops, int cpu)
{
	struct kpt_worker *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	struct task_struct *task;

	KUNIT_ASSERT_NOT_NULL(test, w);
	init_completion(&w->done);
	w->loops = loops;
	task = kthread_create(kpt_worker_fn, w, "kprobes_test/%d", cpu);
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	if (cpu >= 0)
		kthread_bind(task, cpu);
	w->task = get_task_struct(task);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kpt_worker_stop,
							w), 0);
	wake_up_process(task);
	return w;
}

static atomic_t kpt_spin_hits;
static atomic_t kpt_spin_inside;
static unsigned int kpt_spin_delay_us;

static int kpt_spin_pre(struct kprobe *kp, struct pt_regs *regs)
{
	atomic_inc(&kpt_spin_inside);
	if (kpt_spin_delay_us)
		udelay(kpt_spin_delay_us);
	atomic_inc(&kpt_spin_hits);
	atomic_dec(&kpt_spin_inside);
	return 0;
}

#define KPT_WORKER_LOOPS	500

static void kprobe_concurrent_hits(struct kunit *test)
{
	struct kprobe *kp = kunit_kzalloc(test, sizeof(*kp), GFP_KERNEL);
	struct kpt_worker *w[2];
	int i, cpu;

	KUNIT_ASSERT_NOT_NULL(test, kp);
	atomic_set(&kpt_spin_hits, 0);
	kpt_spin_delay_us = 0;
	kp->addr = (void *)kpt_target_spin;
	kp->pre_handler = kpt_spin_pre;
	KUNIT_ASSERT_EQ(test, kpt_register(test, kp), 0);

	cpu = cpumask_first(cpu_online_mask);
	for (i = 0; i < 2; i++) {
		w[i] = kpt_worker_start(test, KPT_WORKER_LOOPS, cpu);
		cpu = cpumask_next(cpu, cpu_online_mask);
		if (cpu >= nr_cpu_ids)
			cpu = cpumask_first(cpu_online_mask);
	}
	for (i = 0; i < 2; i++) {
		KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&w[i]->done,
								  60 * HZ), 0UL);
		KUNIT_EXPECT_EQ(test, w[i]->bad_results, 0UL);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_spin_hits),
			2 * KPT_WORKER_LOOPS);
	KUNIT_EXPECT_EQ(test, kp->nmissed, 0UL);
}

static void kprobe_unregister_waits_for_handlers(struct kunit *test)
{
	struct kprobe *kp = kunit_kzalloc(test, sizeof(*kp), GFP_KERNEL);
	unsigned long timeout = jiffies + 30 * HZ;
	struct kpt_worker *w;
	int hits;

	KUNIT_ASSERT_NOT_NULL(test, kp);
	atomic_set(&kpt_spin_hits, 0);
	atomic_set(&kpt_spin_inside, 0);
	kpt_spin_delay_us = 200;
	kp->addr = (void *)kpt_target_spin;
	kp->pre_handler = kpt_spin_pre;
	KUNIT_ASSERT_EQ(test, kpt_register(test, kp), 0);

	w = kpt_worker_start(test, 0, -1);
	while (atomic_read(&kpt_spin_hits) < 20 && time_before(jiffies, timeout))
		usleep_range(500, 1000);
	KUNIT_ASSERT_GE(test, atomic_read(&kpt_spin_hits), 20);

	kpt_unregister(test, kp);
	/* No handler may still be running, and none may start. */
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_spin_inside), 0);
	hits = atomic_read(&kpt_spin_hits);
	msleep(50);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_spin_hits), hits);
	KUNIT_EXPECT_EQ(test, w->bad_results, 0UL);
	kpt_spin_delay_us = 0;
}

#if KPT_BUILTIN
/*
 * Out-of-line slots come from chunks of up to several pages: every slot of
 * a run long enough to fill a few chunks is distinct, and the slot lookup
 * that unwinders use finds both ends of each, on whichever page of its
 * chunk it lies.
 */
#define KPT_NR_SLOTS	300

static void kpt_slot_run(struct kunit *test, kprobe_opcode_t *(*get)(void),
			 void (*put)(kprobe_opcode_t *, int),
			 bool (*is_slot)(unsigned long), unsigned int size)
{
	kprobe_opcode_t **slots;
	unsigned int i, j, n;

	slots = kunit_kcalloc(test, KPT_NR_SLOTS, sizeof(*slots), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, slots);
	for (n = 0; n < KPT_NR_SLOTS; n++) {
		slots[n] = get();
		if (!slots[n])
			break;
	}
	KUNIT_EXPECT_EQ(test, n, KPT_NR_SLOTS);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_TRUE(test, is_slot((unsigned long)slots[i]));
		KUNIT_EXPECT_TRUE(test,
				  is_slot((unsigned long)slots[i] + size - 1));
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_PTR_NE(test, slots[i], slots[j]);
	}
	KUNIT_EXPECT_FALSE(test, is_slot((unsigned long)kpt_slot_run));
	for (i = 0; i < n; i++)
		put(slots[i], 1);
}

static void kprobe_slot_chunks(struct kunit *test)
{
	kpt_slot_run(test, get_insn_slot, free_insn_slot, is_kprobe_insn_slot,
		     KPROBE_INSN_SLOT_SIZE);
	/* Where the detour size is only known at run time, skip its cache. */
#if defined(CONFIG_OPTPROBES) && defined(KPROBE_OPTINSN_SLOT_SIZE)
	kpt_slot_run(test, get_optinsn_slot, free_optinsn_slot,
		     is_kprobe_optinsn_slot, KPROBE_OPTINSN_SLOT_SIZE);
#endif
}
#endif /* KPT_BUILTIN: the slot allocator is not exported */

#ifndef CONFIG_X86_64
/*
 * The cases that need x86-64 (symbol+offset and instruction boundaries on
 * hand-written targets, compiler-split parts, CFI preambles and checks,
 * the return thunks) stand for themselves on other architectures as one
 * skipped case, with the reason.
 */
static void kprobe_x86_regs_cases(struct kunit *test)
{
	kunit_skip(test,
		   "x86-64 only: symbol+offset, boundaries, split parts, CFI, thunks");
}
#endif

static struct kunit_case kprobes_cases[] = {
	/* 1. registration */
	KUNIT_CASE(kprobe_register_by_symbol),
	KUNIT_CASE(kprobe_register_by_addr),
#if KPT_BUILTIN
	KUNIT_CASE(kprobe_register_before_init),
	KUNIT_CASE(kprobe_busy_section_misses),
#endif
	KUNIT_CASE_PARAM(kprobe_register_refused, kpt_refusal_gen_params),
	KUNIT_CASE(kprobe_mod_sym),
	KUNIT_CASE(kprobe_not_text),
	KUNIT_CASE(kprobe_blacklist_local),
#ifdef CONFIG_X86_64
	KUNIT_CASE(kprobe_blacklist_split_part),
	KUNIT_CASE(kprobe_refused_preamble),
	KUNIT_CASE(kprobe_refused_cfi_check),
#endif
	KUNIT_CASE(kprobe_blacklist_kernel),
#ifdef CONFIG_X86_64
	KUNIT_CASE(kprobe_blacklist_thunks),
#endif
	KUNIT_CASE(kprobe_register_twice),
	KUNIT_CASE(kprobe_flag_disabled),
	KUNIT_CASE(kprobe_disable_enable),
	KUNIT_CASE(kprobe_unregister),
#ifdef CONFIG_X86_64
	KUNIT_CASE(kprobe_register_symbol_offset),
	KUNIT_CASE(kprobe_not_insn_boundary),
#else
	KUNIT_CASE(kprobe_x86_regs_cases),
#endif
	/* 2. several probes, batches, concurrency, slots */
	KUNIT_CASE(kprobe_aggregate_all_handlers),
	KUNIT_CASE(kprobe_aggregate_disable_one),
	KUNIT_CASE(kprobe_aggregate_all_disabled),
	KUNIT_CASE(kprobe_aggregate_partial_unregister),
	KUNIT_CASE(kprobes_batch),
	KUNIT_CASE(kprobes_batch_rollback),
	KUNIT_CASE(kprobes_batch_unregister),
	KUNIT_CASE(kprobes_batch_disable),
	KUNIT_CASE(kprobe_concurrent_hits),
	KUNIT_CASE(kprobe_unregister_waits_for_handlers),
#if KPT_BUILTIN
	KUNIT_CASE(kprobe_slot_chunks),
#endif
	{}
};

static struct kunit_suite kprobes_suite = {
	.name = "kprobes",
	.init = kpt_test_init,
	.test_cases = kprobes_cases,
};

kunit_test_suites(&kprobes_suite);
