// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * KUnit suite "kprobes_x86_insn" (x86-64): probes on every instruction of
 * the small assembly functions of x86_targets.c, made of instructions
 * that cannot simply be copied and stepped elsewhere: RIP-relative
 * operands, relative jmp/call/jcc, calls through a register, loop/jrcxz,
 * push/pop, pushf and ret $imm16.  Each function must still compute its
 * result, and each site count its hits.  Then the instructions the
 * breakpoint path refuses, one of each class.
 */

#include <kunit/test.h>
#include <linux/bitops.h>
#include <linux/cpumask.h>
#include <linux/kprobes.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include <asm/text-patching.h>

#include "kpt.h"
#include "x86_targets.h"

struct kpt_site_probes {
	unsigned int nr;
	struct kpt_probe **probes;
	struct kprobe **kps;
};

/*
 * Arms a probe on every recorded site of @fn at once (with or without a
 * post_handler, which decides whether the step may be boosted), runs @run
 * and checks that site i was hit @hits[i] times.
 */
static void kpt_probe_sites(struct kunit *test, void *fn, const u32 *sites,
			    const unsigned int *hits, unsigned int nr_hits,
			    void (*run)(struct kunit *test, void *arg),
			    void *arg)
{
	unsigned int nr = kpt_nr_sites(sites);
	struct kpt_site_probes sp = { .nr = nr };
	unsigned int i, pass;

	KUNIT_ASSERT_EQ_MSG(test, nr, nr_hits, "site table of %ps", fn);
	sp.probes = kunit_kcalloc(test, nr, sizeof(*sp.probes), GFP_KERNEL);
	sp.kps = kunit_kcalloc(test, nr, sizeof(*sp.kps), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sp.probes);
	KUNIT_ASSERT_NOT_NULL(test, sp.kps);

	for (pass = 0; pass < 2; pass++) {
		bool with_post = pass == 1;

		for (i = 0; i < nr; i++) {
			sp.probes[i] = kpt_probe_new(test,
						     kpt_site(fn, sites, i),
						     with_post);
			sp.kps[i] = &sp.probes[i]->kp;
		}
		KUNIT_ASSERT_EQ(test, kpt_register_many(test, sp.kps, nr), 0);
		run(test, arg);
		for (i = 0; i < nr; i++) {
			struct kpt_probe *p = sp.probes[i];

			KUNIT_EXPECT_EQ_MSG(test, p->pre_hits, hits[i],
					    "%ps+%#x (post_handler: %d)", fn,
					    sites[i], with_post);
			KUNIT_EXPECT_EQ_MSG(test, p->post_hits,
					    with_post ? hits[i] : 0,
					    "%ps+%#x post", fn, sites[i]);
			KUNIT_EXPECT_EQ(test, p->kp.nmissed, 0UL);
		}
		kpt_unregister_many(test, sp.kps, nr);
		/* Unprobed again, the function is unchanged. */
		run(test, arg);
	}
}

static void kpt_run_riprel(struct kunit *test, void *arg)
{
	KUNIT_EXPECT_EQ(test, kpt_asm_riprel(0), 0x1231UL);
	KUNIT_EXPECT_EQ(test, kpt_asm_riprel(0x10000), 0x11231UL);
}

static void kpt_run_jmp(struct kunit *test, void *arg)
{
	KUNIT_EXPECT_EQ(test, kpt_asm_jmp(1), 9UL);
	KUNIT_EXPECT_EQ(test, kpt_asm_jmp(100), 108UL);
}

static void kpt_run_call(struct kunit *test, void *arg)
{
	KUNIT_EXPECT_EQ(test, kpt_asm_call(1), 10UL);
	KUNIT_EXPECT_EQ(test, kpt_asm_call(50), 108UL);
}

/*
 * Probe every site of @fn in turn, with one more probe in kpt_asm_helper(),
 * which @fn's calls reach: that one must count @helper_hits in all.
 */
static void kpt_probe_sites_and_helper(struct kunit *test, void *fn,
				       const u32 *sites,
				       const unsigned int *hits,
				       unsigned int nr_sites,
				       void (*run)(struct kunit *, void *),
				       unsigned int helper_hits)
{
	struct kpt_probe *callee;

	callee = kpt_probe_new(test, kpt_site(kpt_asm_helper,
					      kpt_asm_helper_sites, 0), true);
	KUNIT_ASSERT_EQ(test, kpt_register(test, &callee->kp), 0);
	kpt_probe_sites(test, fn, sites, hits, nr_sites, run, NULL);
	KUNIT_EXPECT_EQ(test, callee->pre_hits, helper_hits);
	KUNIT_EXPECT_EQ(test, callee->post_hits, helper_hits);
}

static void kpt_run_jcc(struct kunit *test, void *arg)
{
	KUNIT_EXPECT_EQ(test, kpt_asm_jcc(0), 0UL);
	KUNIT_EXPECT_EQ(test, kpt_asm_jcc(5), 1UL);
	KUNIT_EXPECT_EQ(test, kpt_asm_jcc(200), 3UL);
}

static void kpt_run_loop(struct kunit *test, void *arg)
{
	KUNIT_EXPECT_EQ(test, kpt_asm_loop(4), 12UL);
	KUNIT_EXPECT_EQ(test, kpt_asm_loop(0), 0UL);
}

static void kpt_run_pushpop(struct kunit *test, void *arg)
{
	KUNIT_EXPECT_EQ(test, kpt_asm_pushpop(0), 0x101aUL);
	KUNIT_EXPECT_EQ(test, kpt_asm_pushpop(0x100), 0x121aUL);
}

/*
 * The functions whose every instruction, probed at once, must leave the
 * result unchanged: kpt_probe_sites() calls @run with a probe on each
 * site, first without post_handler, then with it, and site i must be hit
 * @hits[i] times each time.  When @helper_hits is set, a probe on
 * kpt_asm_helper(), which @fn calls, must count that many hits in all.
 */
struct kpt_insn_sites {
	const char *name;
	void *fn;
	const u32 *sites;
	const unsigned int *hits;
	unsigned int nr_hits;
	void (*run)(struct kunit *test, void *arg);
	unsigned int helper_hits;
};

static const unsigned int kpt_riprel_hits[] = { 2, 2, 2, 2, 2, 2, 2, 2, 2, 2 };
static const unsigned int kpt_jmp_hits[] = { 2, 2, 2, 2, 2, 2, 2 };
static const unsigned int kpt_call_hits[] = { 2, 2, 2 };
/* Taken and not taken, short and near. */
static const unsigned int kpt_jcc_hits[] = { 3, 3, 3, 2, 3, 3, 1, 3 };
static const unsigned int kpt_loop_hits[] = { 2, 2, 2, 4, 4, 2 };
static const unsigned int kpt_pushpop_hits[] = {
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2
};

static const struct kpt_insn_sites kpt_insn_sites_cases[] = {
	{
		.name = "rip_relative",
		.fn = kpt_asm_riprel,
		.sites = kpt_asm_riprel_sites,
		.hits = kpt_riprel_hits,
		.nr_hits = ARRAY_SIZE(kpt_riprel_hits),
		.run = kpt_run_riprel,
	},
	{
		.name = "jmp",
		.fn = kpt_asm_jmp,
		.sites = kpt_asm_jmp_sites,
		.hits = kpt_jmp_hits,
		.nr_hits = ARRAY_SIZE(kpt_jmp_hits),
		.run = kpt_run_jmp,
	},
	{
		/*
		 * Also one probe in the callee, hit through the emulated
		 * call: two passes, each running kpt_run_call() probed and
		 * unprobed.
		 */
		.name = "call",
		.fn = kpt_asm_call,
		.sites = kpt_asm_call_sites,
		.hits = kpt_call_hits,
		.nr_hits = ARRAY_SIZE(kpt_call_hits),
		.run = kpt_run_call,
		.helper_hits = 8,
	},
	{
		.name = "jcc",
		.fn = kpt_asm_jcc,
		.sites = kpt_asm_jcc_sites,
		.hits = kpt_jcc_hits,
		.nr_hits = ARRAY_SIZE(kpt_jcc_hits),
		.run = kpt_run_jcc,
	},
	{
		.name = "loop",
		.fn = kpt_asm_loop,
		.sites = kpt_asm_loop_sites,
		.hits = kpt_loop_hits,
		.nr_hits = ARRAY_SIZE(kpt_loop_hits),
		.run = kpt_run_loop,
	},
	{
		.name = "push_pop",
		.fn = kpt_asm_pushpop,
		.sites = kpt_asm_pushpop_sites,
		.hits = kpt_pushpop_hits,
		.nr_hits = ARRAY_SIZE(kpt_pushpop_hits),
		.run = kpt_run_pushpop,
	},
};

static void kpt_insn_sites_desc(const struct kpt_insn_sites *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kpt_insn_sites, kpt_insn_sites_cases, kpt_insn_sites_desc);

static void kprobe_insn_sites(struct kunit *test)
{
	const struct kpt_insn_sites *c = test->param_value;

	c->run(test, NULL);
	if (c->helper_hits)
		kpt_probe_sites_and_helper(test, c->fn, c->sites, c->hits,
					   c->nr_hits, c->run, c->helper_hits);
	else
		kpt_probe_sites(test, c->fn, c->sites, c->hits, c->nr_hits,
				c->run, NULL);
}

static void kpt_run_icall(struct kunit *test, void *arg)
{
	KUNIT_EXPECT_EQ(test, kpt_asm_icall(1), 14UL);
	KUNIT_EXPECT_EQ(test, kpt_asm_icall(50), 210UL);
}

static void kprobe_insn_call_reg(struct kunit *test)
{
	static const unsigned int hits[] = { 2, 2, 2, 2, 2, 2, 2, 2 };
	void *via_ax = kpt_site(kpt_asm_icall, kpt_asm_icall_sites, 1);
	void *via_r10 = kpt_site(kpt_asm_icall, kpt_asm_icall_sites, 5);
	struct kpt_probe *a = kpt_probe_new(test, via_ax, true);
	struct kpt_probe *b = kpt_probe_new(test, via_r10, true);

	kpt_run_icall(test, NULL);

	/*
	 * The call is emulated: the post_handler already sees the callee's
	 * entry, taken from the register the pre_handler saw.
	 */
	KUNIT_ASSERT_EQ(test, kpt_register(test, &a->kp), 0);
	KUNIT_ASSERT_EQ(test, kpt_register(test, &b->kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_asm_icall(3), 22UL);
	KUNIT_EXPECT_EQ(test, a->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, a->post_hits, 1U);
	KUNIT_EXPECT_EQ(test, b->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, b->post_hits, 1U);
	KUNIT_EXPECT_EQ(test, a->pre_ax, (unsigned long)kpt_asm_helper);
	KUNIT_EXPECT_EQ(test, a->post_ip, (unsigned long)kpt_asm_helper);
	KUNIT_EXPECT_EQ(test, b->post_ip, (unsigned long)kpt_asm_helper);
	kpt_unregister(test, &a->kp);
	kpt_unregister(test, &b->kp);

	/*
	 * And the callee's own probe is hit through both emulated calls:
	 * four runs of two calls, each calling the helper twice.
	 */
	kpt_probe_sites_and_helper(test, kpt_asm_icall, kpt_asm_icall_sites,
				   hits, ARRAY_SIZE(hits), kpt_run_icall, 16);
}

/* Operand pairs that set every combination of CF, ZF, SF, OF and PF. */
static const unsigned long kpt_cmp_pairs[][2] = {
	{ 1, 2 }, { 2, 1 }, { 5, 5 }, { 0, 0 }, { -1UL, 1 }, { 1, -1UL },
	{ LONG_MIN, 1 }, { LONG_MAX, -1UL }, { 0x80, 0x7f }, { 3, 0 },
};

#define KPT_NR_CMP	ARRAY_SIZE(kpt_cmp_pairs)

static void kpt_run_jcc_all(struct kunit *test, void *arg)
{
	const unsigned long *want = arg;
	unsigned int i;

	for (i = 0; i < KPT_NR_CMP; i++)
		KUNIT_EXPECT_EQ_MSG(test,
				    kpt_asm_jcc_all(kpt_cmp_pairs[i][0],
						    kpt_cmp_pairs[i][1]),
				    want[i], "pair %u", i);
}

static void kprobe_insn_jcc_all_conditions(struct kunit *test)
{
	unsigned long *want = kunit_kcalloc(test, KPT_NR_CMP, sizeof(*want),
					    GFP_KERNEL);
	unsigned int *hits = kunit_kcalloc(test, 33, sizeof(*hits),
					   GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, want);
	KUNIT_ASSERT_NOT_NULL(test, hits);
	for (i = 0; i < KPT_NR_CMP; i++) {
		want[i] = kpt_asm_jcc_all(kpt_cmp_pairs[i][0],
					  kpt_cmp_pairs[i][1]);
		/* Each condition and its negation: one taken, one not. */
		KUNIT_EXPECT_EQ(test, hweight32(want[i] & 0xffff), 8);
		KUNIT_EXPECT_EQ(test, want[i] & 0xffff, want[i] >> 16);
	}
	for (i = 0; i < 33; i++)
		hits[i] = KPT_NR_CMP;
	kpt_probe_sites(test, kpt_asm_jcc_all, kpt_asm_jcc_all_sites, hits,
			33, kpt_run_jcc_all, want);
}

#define KPT_FLAGS_MASK	(X86_EFLAGS_CF | X86_EFLAGS_PF | X86_EFLAGS_ZF | \
			 X86_EFLAGS_SF | X86_EFLAGS_OF | X86_EFLAGS_TF | \
			 X86_EFLAGS_IF | X86_EFLAGS_DF | X86_EFLAGS_AC)

static void kpt_run_flags(struct kunit *test, void *arg)
{
	const unsigned long *want = arg;
	unsigned int i;

	for (i = 0; i < KPT_NR_CMP; i++)
		KUNIT_EXPECT_EQ_MSG(test,
				    kpt_asm_flags(kpt_cmp_pairs[i][0],
						  kpt_cmp_pairs[i][1]) &
				    KPT_FLAGS_MASK,
				    want[i], "pair %u", i);
}

static void kprobe_insn_pushf(struct kunit *test)
{
	unsigned long *want = kunit_kcalloc(test, KPT_NR_CMP, sizeof(*want),
					    GFP_KERNEL);
	unsigned int *hits = kunit_kcalloc(test, 5, sizeof(*hits), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, want);
	KUNIT_ASSERT_NOT_NULL(test, hits);
	for (i = 0; i < KPT_NR_CMP; i++) {
		want[i] = kpt_asm_flags(kpt_cmp_pairs[i][0],
					kpt_cmp_pairs[i][1]) & KPT_FLAGS_MASK;
		/* Interrupts on, no trap flag, as in any task. */
		KUNIT_EXPECT_TRUE(test, want[i] & X86_EFLAGS_IF);
		KUNIT_EXPECT_FALSE(test, want[i] & X86_EFLAGS_TF);
	}
	for (i = 0; i < 5; i++)
		hits[i] = KPT_NR_CMP;
	kpt_probe_sites(test, kpt_asm_flags, kpt_asm_flags_sites, hits, 5,
			kpt_run_flags, want);
}

static void kpt_run_retimm(struct kunit *test, void *arg)
{
	KUNIT_EXPECT_EQ(test, kpt_asm_retimm(1), 0x41UL);
	KUNIT_EXPECT_EQ(test, kpt_asm_retimm(0x1000), 0x1040UL);
}

/*
 * "ret $8" pops the return address and then the caller's extra word: a
 * result 0x100 too large means the emulated return left %rsp elsewhere.
 */
static void kprobe_insn_ret_imm16(struct kunit *test)
{
	static const unsigned int callee_hits[] = { 2, 2, 2 };
	/* The add of site 6 runs only on an unbalanced stack. */
	static const unsigned int caller_hits[] = { 2, 2, 2, 2, 2, 2, 0, 2, 2 };
	void *ret8 = kpt_site(kpt_asm_retimm_callee,
			      kpt_asm_retimm_callee_sites, 2);
	void *back = kpt_site(kpt_asm_retimm, kpt_asm_retimm_sites, 4);
	struct kpt_probe *p = kpt_probe_new(test, ret8, true);

	kpt_run_retimm(test, NULL);

	KUNIT_ASSERT_EQ(test, kpt_register(test, &p->kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_asm_retimm(5), 0x45UL);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 1U);
	KUNIT_EXPECT_EQ(test, p->post_hits, 1U);
	/* Emulated: the post_handler is already back in the caller. */
	KUNIT_EXPECT_EQ(test, p->post_ip, (unsigned long)back);
	KUNIT_EXPECT_EQ(test, p->post_ax, 0x45UL);
	kpt_unregister(test, &p->kp);

	kpt_probe_sites(test, kpt_asm_retimm_callee,
			kpt_asm_retimm_callee_sites, callee_hits,
			ARRAY_SIZE(callee_hits), kpt_run_retimm, NULL);
	kpt_probe_sites(test, kpt_asm_retimm, kpt_asm_retimm_sites,
			caller_hits, ARRAY_SIZE(caller_hits), kpt_run_retimm,
			NULL);
}

/*
 * What a probe on each site of kpt_asm_refused must get.  All refusals are
 * -EOPNOTSUPP from kprobe_classify(), which runs only once the address has
 * passed the blacklist, boundary and readability checks (-EINVAL, -EILSEQ):
 * each site is a real instruction of ordinary text, so the errno says the
 * instruction itself was refused, and why is one of:
 *  - ud0/ud1/ud2: BUG() and WARN() are looked up by the trap's address,
 *    which a copy elsewhere would not have;
 *  - int3, int n, int1, iret, far returns, far and memory-indirect
 *    calls and jumps, syscall/sysret, sysenter/sysexit, rsm: they leave or
 *    re-enter the kernel's flow, or need an operand read to emulate;
 *  - call through a register with a REX2 prefix: the register file of the
 *    emulation stops at r15;
 *  - sti, mov to %ss: their one-instruction interrupt shadow cannot be
 *    kept; hlt, mwait, mwaitx: would wait with interrupts off;
 *  - swapgs and writes to segment registers (mov, pop): per-CPU data is
 *    found through %gs, and the classifier does not single %gs out;
 *  - VMX and SVM instructions: they enter or leave a guest, or change GIF
 *    as sti and cli change IF;
 *  - xbegin: its abort address is relative, and would point into a copy;
 *  - pushf/popf with a 16-bit operand, loop/jecxz with a 32-bit address:
 *    the emulation handles the 64-bit forms only;
 *  - endbr64 (here not at the symbol's start): an int3 over it would make
 *    an indirect branch to it fault under IBT;
 *  - an instruction behind the KVM emulate prefix: the prefix is a ud2
 *    that only a hypervisor turns into the instruction behind it.
 */
static const struct {
	unsigned int site;
	int err;
	const char *insn;
} kpt_refused[] = {
	{  0, 0,		"movq %rdi, %rax (accepted)" },
	{  1, -EOPNOTSUPP,	"ud2" },
	{  2, -EOPNOTSUPP,	"ud1 %eax, %eax" },
	{  3, -EOPNOTSUPP,	"ud0" },
	{  4, -EOPNOTSUPP,	"int3" },
	{  5, -EOPNOTSUPP,	"int $0x80" },
	{  6, -EOPNOTSUPP,	"int1" },
	{  7, -EOPNOTSUPP,	"iretq" },
	{  8, -EOPNOTSUPP,	"lret" },
	{  9, -EOPNOTSUPP,	"lret $8" },
	{ 10, -EOPNOTSUPP,	"lcall *(%rax)" },
	{ 11, -EOPNOTSUPP,	"ljmp *(%rax)" },
	{ 12, -EOPNOTSUPP,	"call *(%rax)" },
	{ 13, -EOPNOTSUPP,	"jmp *(%rax)" },
	{ 14, -EOPNOTSUPP,	"call *0(%rip)" },
	{ 15, -EOPNOTSUPP,	"call *%r16 (REX2)" },
	{ 16, -EOPNOTSUPP,	"sti" },
	{ 17, -EOPNOTSUPP,	"hlt" },
	{ 18, -EOPNOTSUPP,	"mwait" },
	{ 19, -EOPNOTSUPP,	"mwaitx" },
	{ 20, -EOPNOTSUPP,	"swapgs" },
	{ 21, -EOPNOTSUPP,	"syscall" },
	{ 22, -EOPNOTSUPP,	"sysretq" },
	{ 23, -EOPNOTSUPP,	"sysenter" },
	{ 24, -EOPNOTSUPP,	"sysexitq" },
	{ 25, -EOPNOTSUPP,	"rsm" },
	{ 26, -EOPNOTSUPP,	"mov %eax, %ss" },
	{ 27, -EOPNOTSUPP,	"mov %eax, %ds" },
	{ 28, -EOPNOTSUPP,	"pop %fs" },
	{ 29, -EOPNOTSUPP,	"pop %gs" },
	{ 30, -EOPNOTSUPP,	"vmcall" },
	{ 31, -EOPNOTSUPP,	"vmlaunch" },
	{ 32, -EOPNOTSUPP,	"vmresume" },
	{ 33, -EOPNOTSUPP,	"vmxoff" },
	{ 34, -EOPNOTSUPP,	"vmrun" },
	{ 35, -EOPNOTSUPP,	"vmmcall" },
	{ 36, -EOPNOTSUPP,	"stgi" },
	{ 37, -EOPNOTSUPP,	"clgi" },
	{ 38, -EOPNOTSUPP,	"xbegin" },
	{ 39, -EOPNOTSUPP,	"pushfw" },
	{ 40, -EOPNOTSUPP,	"popfw" },
	{ 41, -EOPNOTSUPP,	"addr32 loop" },
	{ 42, -EOPNOTSUPP,	"jecxz" },
	{ 43, -EOPNOTSUPP,	"endbr64 inside a function" },
	{ 44, -EOPNOTSUPP,	"cpuid behind the KVM emulate prefix" },
};

static u8 kpt_text_byte(struct kunit *test, const void *addr)
{
	u8 byte;

	KUNIT_ASSERT_EQ(test, copy_from_kernel_nofault(&byte, addr, 1), 0L);
	return byte;
}

/*
 * Each refused probe must leave the text as it was; the accepted one shows
 * that an armed site would have read back as int3.
 */
static void kprobe_insn_refused_classes(struct kunit *test)
{
	unsigned int i;

	KUNIT_ASSERT_EQ(test, kpt_nr_sites(kpt_asm_refused_sites),
			(unsigned int)ARRAY_SIZE(kpt_refused));
	for (i = 0; i < ARRAY_SIZE(kpt_refused); i++) {
		void *site = kpt_site(kpt_asm_refused, kpt_asm_refused_sites,
				      kpt_refused[i].site);
		struct kpt_probe *p = kpt_probe_new(test, site, true);
		int err = kpt_refused[i].err;
		u8 before = kpt_text_byte(test, site);

		KUNIT_EXPECT_EQ_MSG(test, kpt_register(test, &p->kp), err,
				    "%s at %pS", kpt_refused[i].insn, site);
		KUNIT_EXPECT_EQ_MSG(test, kpt_text_byte(test, site),
				    err ? before : (u8)INT3_INSN_OPCODE,
				    "text of %s", kpt_refused[i].insn);
	}
}

#ifdef CONFIG_SMP
/*
 * A kernel that boots with one CPU of several (maxcpus=1) patches its lock
 * prefixes to ds prefixes and back when a second CPU comes up: it keeps
 * their list, and a probe on one would be overwritten.  Elsewhere the
 * list is freed at boot and nothing is refused (the "uniproc" row boots
 * this way, with this case alone).  A module loaded while the kernel
 * still runs on one CPU has a list of its own, so this holds built in or
 * not.
 */
static void kprobe_refused_lock_prefix(struct kunit *test)
{
	void *site = kpt_site(kpt_asm_locked, kpt_asm_locked_sites, 0);
	void *next = kpt_site(kpt_asm_locked, kpt_asm_locked_sites, 1);
	struct kpt_probe *p = kpt_probe_new(test, site, false);
	struct kpt_probe *q = kpt_probe_new(test, next, false);
	unsigned long word = 1;

	/* The premise itself: the prefix is a ds prefix, to be patched back. */
	if (num_possible_cpus() == 1 || *(u8 *)site != 0x3e)
		kunit_skip(test, "needs a boot with one CPU of several (maxcpus=1)");
	KUNIT_EXPECT_EQ(test, kpt_register(test, &p->kp), -EINVAL);
	KUNIT_EXPECT_EQ(test, kpt_register(test, &q->kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_asm_locked(&word), 2UL);
	KUNIT_EXPECT_EQ(test, p->pre_hits, 0U);
	KUNIT_EXPECT_EQ(test, q->pre_hits, 1U);
}
#endif

static struct kunit_case kprobes_x86_insn_cases[] = {
	KUNIT_CASE_PARAM(kprobe_insn_sites, kpt_insn_sites_gen_params),
	KUNIT_CASE(kprobe_insn_call_reg),
	KUNIT_CASE(kprobe_insn_jcc_all_conditions),
	KUNIT_CASE(kprobe_insn_pushf),
	KUNIT_CASE(kprobe_insn_ret_imm16),
	KUNIT_CASE(kprobe_insn_refused_classes),
#ifdef CONFIG_SMP
	KUNIT_CASE(kprobe_refused_lock_prefix),
#endif
	{}
};

static struct kunit_suite kprobes_x86_insn_suite = {
	.name = "kprobes_x86_insn",
	.init = kpt_test_init,
	.test_cases = kprobes_x86_insn_cases,
};

kunit_test_suites(&kprobes_x86_insn_suite);
