// SPDX-License-Identifier: GPL-2.0
/*
 * kp_bench: the in-kernel half of `make bench`.  It only uses the public
 * kprobes API, so the same source builds against our kernel and the base.
 *
 * /sys/kernel/debug/kp_bench/ctl takes one command per write; a read
 * returns the last command's result as one "key=value ..." line:
 *
 *   arm KIND        register the probe(s) of one hit-cost kind on its target:
 *                   int3 (kpb_target_nb, an instruction with an exception-
 *                   table entry: stepped, never boosted), boost and opt
 *                   (kpb_target_b, a run of 5-byte movs: boosted with
 *                   optimization off, jump-optimizable with it on), ftrace
 *                   (kprobe on kpb_target_entry+0), kret (kretprobe on
 *                   kpb_target_entry), both (kprobe + kretprobe on it)
 *   disarm          unregister them
 *   loop T N        call target T (nb, b, entry, tp) N times; ns=total time
 *                   (tp: kpb_target_tp, which fires the module's own
 *                   tracepoint event kp_bench/kpb_tick: not a kprobe, the
 *                   cost of another event producer once it is enabled)
 *   steps T         call target T once with the trap flag set and count
 *                   the instructions it took (one #DB each, counted by a
 *                   die notifier); steps=N.  Paths that run in an
 *                   exception (int3, boosted) are counted only outside it:
 *                   the CPU clears TF while a handler runs.
 *   smp K N         K kthreads on CPUs 0..K-1 call kpb_target_b N times each
 *   sleep K N MAX   kretprobe (maxactive MAX) on kpb_sleep, which sleeps;
 *                   K kthreads call it N times each; reports nmissed
 *   alloc N         prepare N kprobes from the symbol list (disabled)
 *   reg             register_kprobes() them (failures: see below)
 *   enable          enable_kprobe() each
 *   unreg           unregister_kprobes() them and free
 *   time FN         time every call of kernel function FN from now on (a
 *                   kretprobe stamps its entry and adds up the durations;
 *                   up to four functions)
 *   timed           FN_ns=total FN_calls=count for each timed function
 *   untime          stop timing
 *
 * /sys/kernel/debug/kp_bench/syms takes "name address" lines (from
 * /proc/kallsyms); the probe goes on the first instruction after the
 * function's ENDBR and __fentry__ call, so it is a breakpoint (not an
 * ftrace-based) probe and a candidate for jump optimization.  A read gives
 * back "name offset" lines.
 *
 * register_kprobes() gives up on the first probe it cannot place.  When it
 * does, each probe is registered alone once to find the ones the kernel
 * refuses (counted per errno), those are dropped, the rest unregistered,
 * and the timed register_kprobes() runs again on the rest.
 */
#include <linux/module.h>
#include <linux/kprobes.h>
#include <linux/debugfs.h>
#include <linux/uaccess.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/kthread.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/sched/clock.h>
#include <linux/ktime.h>
#include <linux/string.h>
#include <linux/kdebug.h>
#include <linux/notifier.h>
#include <asm/asm.h>
#include <asm/ibt.h>
#include <asm/debugreg.h>
#include <asm/processor-flags.h>

#define CREATE_TRACE_POINTS
#include "kp_bench_trace.h"

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kprobes benchmark targets and timing loops");

/* ---- targets ---------------------------------------------------------- */

static int kpb_word = 1;

void kpb_target_entry(void);
void kpb_target_b(void);
int kpb_target_nb(int *p);
void kpb_sleep(void);

noinline __attribute__((noclone)) void kpb_target_entry(void)
{
	asm volatile("" ::: "memory");
}

void kpb_target_tp(void);

noinline __attribute__((noclone)) void kpb_target_tp(void)
{
	trace_kpb_tick(kpb_word);
}

noinline __attribute__((noclone)) void kpb_target_b(void)
{
	asm volatile(".Lkpb_site_b:\n\t"
		     "movl $1, %%eax\n\t"
		     "movl $2, %%eax\n\t"
		     "movl $3, %%eax\n\t"
		     ::: "eax", "memory");
}

noinline __attribute__((noclone)) int kpb_target_nb(int *p)
{
	int v = 0;

	asm volatile(".Lkpb_site_nb:\n\t"
		     "1: movl (%1), %0\n"
		     "2:\n"
		     _ASM_EXTABLE(1b, 2b)
		     : "+r"(v) : "r"(p) : "memory");
	return v;
}

noinline __attribute__((noclone)) void kpb_sleep(void)
{
	usleep_range(50, 100);
}

/* Where the two mid-function sites sit in their functions. */
asm(".pushsection .rodata\n"
    ".balign 4\n"
    "kpb_site_b_off: .long .Lkpb_site_b - kpb_target_b\n"
    "kpb_site_nb_off: .long .Lkpb_site_nb - kpb_target_nb\n"
    ".popsection\n");
extern const u32 kpb_site_b_off, kpb_site_nb_off;
#define kpb_site_b_addr ((unsigned long)kpb_target_b + kpb_site_b_off)
#define kpb_site_nb_addr ((unsigned long)kpb_target_nb + kpb_site_nb_off)

/* ---- hit-cost probes ---------------------------------------------------- */

static unsigned long kpb_hits, kpb_rhits;

static int kpb_pre(struct kprobe *p, struct pt_regs *regs)
{
	kpb_hits++;
	return 0;
}

static int kpb_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	kpb_rhits++;
	return 0;
}

static struct kprobe kpb_kp;
static struct kretprobe kpb_rp;
static bool kpb_kp_on, kpb_rp_on;

static char kpb_result[512];
#define RES(...) snprintf(kpb_result, sizeof(kpb_result), __VA_ARGS__)

static void kpb_disarm(void)
{
	if (kpb_kp_on)
		unregister_kprobe(&kpb_kp);
	if (kpb_rp_on)
		unregister_kretprobe(&kpb_rp);
	kpb_kp_on = kpb_rp_on = false;
}

static int kpb_arm(const char *kind)
{
	bool kp = false, rp = false;
	int ret = 0;

	kpb_disarm();
	memset(&kpb_kp, 0, sizeof(kpb_kp));
	memset(&kpb_rp, 0, sizeof(kpb_rp));
	kpb_kp.pre_handler = kpb_pre;
	if (!strcmp(kind, "int3")) {
		kpb_kp.addr = (kprobe_opcode_t *)kpb_site_nb_addr;
		kp = true;
	} else if (!strcmp(kind, "boost") || !strcmp(kind, "opt")) {
		kpb_kp.addr = (kprobe_opcode_t *)kpb_site_b_addr;
		kp = true;
	} else if (!strcmp(kind, "ftrace")) {
		kpb_kp.symbol_name = "kpb_target_entry";
		kp = true;
	} else if (!strcmp(kind, "kret")) {
		rp = true;
	} else if (!strcmp(kind, "both")) {
		kpb_kp.symbol_name = "kpb_target_entry";
		kp = rp = true;
	} else if (strcmp(kind, "none")) {
		return -EINVAL;
	}
	kpb_rp.kp.symbol_name = "kpb_target_entry";
	kpb_rp.handler = kpb_ret;
	if (kp) {
		ret = register_kprobe(&kpb_kp);
		if (ret)
			goto out;
		kpb_kp_on = true;
	}
	if (rp) {
		ret = register_kretprobe(&kpb_rp);
		if (ret)
			goto out;
		kpb_rp_on = true;
	}
out:
	if (ret)
		kpb_disarm();
	RES("arm=%s ret=%d addr=%px", kind, ret,
	    kp ? kpb_kp.addr : rp ? kpb_rp.kp.addr : NULL);
	return ret;
}

#define KPB_CHUNK 1024

/* Target T of "loop" and "steps": 0 nb, 1 b, 2 entry, 3 tp. */
static int kpb_target_index(const char *t)
{
	if (!strcmp(t, "nb"))
		return 0;
	if (!strcmp(t, "b"))
		return 1;
	if (!strcmp(t, "entry"))
		return 2;
	if (!strcmp(t, "tp"))
		return 3;
	return -EINVAL;
}

static int kpb_loop(const char *t, u64 n)
{
	unsigned long h0 = kpb_hits, r0 = kpb_rhits;
	u64 done = 0, ns = 0, t0;
	int which;

	which = kpb_target_index(t);
	if (which < 0)
		return which;
	while (done < n) {
		u64 i, m = min_t(u64, KPB_CHUNK, n - done);

		preempt_disable();
		t0 = local_clock();
		switch (which) {
		case 0:
			for (i = 0; i < m; i++)
				kpb_target_nb(&kpb_word);
			break;
		case 1:
			for (i = 0; i < m; i++)
				kpb_target_b();
			break;
		case 3:
			for (i = 0; i < m; i++)
				kpb_target_tp();
			break;
		default:
			for (i = 0; i < m; i++)
				kpb_target_entry();
			break;
		}
		ns += local_clock() - t0;
		preempt_enable();
		done += m;
		cond_resched();
	}
	RES("loop=%s n=%llu ns=%llu hits=%lu rhits=%lu", t, n, ns,
	    kpb_hits - h0, kpb_rhits - r0);
	return 0;
}

/* ---- instructions per hit: single-step one call ------------------------ */

static unsigned long kpb_nsteps;
static int kpb_step_cpu = -1;
/* The address of each stepped instruction, for debugfs steplog. */
#define KPB_STEPLOG 4096
static unsigned long kpb_steplog[KPB_STEPLOG];

/*
 * Each instruction executed with TF set ends in a #DB whose DR_STEP the
 * kernel hands to the die chain first; consume ours and count it.
 */
static int kpb_step_notify(struct notifier_block *nb, unsigned long val,
			   void *data)
{
	struct die_args *args = data;
	unsigned long *dr6 = (unsigned long *)args->err;

	if (val != DIE_DEBUG || READ_ONCE(kpb_step_cpu) != smp_processor_id() ||
	    !(*dr6 & DR_STEP))
		return NOTIFY_DONE;
	if (kpb_nsteps < KPB_STEPLOG)
		kpb_steplog[kpb_nsteps] = args->regs->ip;
	kpb_nsteps++;
	*dr6 &= ~DR_STEP;
	return NOTIFY_STOP;
}

static struct notifier_block kpb_step_nb = {
	.notifier_call = kpb_step_notify,
	.priority = INT_MAX,
};

static noinline void kpb_step_call(int which)
{
	asm volatile("pushf\n\torl %0, (%%" _ASM_SP ")\n\tpopf"
		     :: "i"(X86_EFLAGS_TF) : "memory", "cc");
	switch (which) {
	case 0:
		kpb_target_nb(&kpb_word);
		break;
	case 1:
		kpb_target_b();
		break;
	case 3:
		kpb_target_tp();
		break;
	default:
		kpb_target_entry();
		break;
	}
	asm volatile("pushf\n\tandl %0, (%%" _ASM_SP ")\n\tpopf"
		     :: "i"(~X86_EFLAGS_TF) : "memory", "cc");
}

static int kpb_steps(const char *t)
{
	unsigned long flags;
	int which, ret;

	which = kpb_target_index(t);
	if (which < 0)
		return which;
	ret = register_die_notifier(&kpb_step_nb);
	if (ret)
		return ret;
	/* Interrupts off: their handlers would run without TF anyway. */
	local_irq_save(flags);
	kpb_nsteps = 0;
	WRITE_ONCE(kpb_step_cpu, smp_processor_id());
	kpb_step_call(which);
	WRITE_ONCE(kpb_step_cpu, -1);
	local_irq_restore(flags);
	unregister_die_notifier(&kpb_step_nb);
	RES("steps=%lu target=%s", kpb_nsteps, t);
	return 0;
}

/* ---- SMP: K threads hammering one probed function ---------------------- */

static DECLARE_COMPLETION(kpb_go);
static DECLARE_COMPLETION(kpb_done);
static atomic_t kpb_running;
static u64 kpb_per_thread;
static int kpb_thread_fn; /* 0: kpb_target_b, 1: kpb_sleep */

static int kpb_thread(void *arg)
{
	u64 i;

	wait_for_completion(&kpb_go);
	for (i = 0; i < kpb_per_thread; i++) {
		if (kpb_thread_fn)
			kpb_sleep();
		else
			kpb_target_b();
		if ((i & (KPB_CHUNK - 1)) == 0)
			cond_resched();
	}
	if (atomic_dec_and_test(&kpb_running))
		complete(&kpb_done);
	return 0;
}

static int kpb_threads(int k, u64 n, int fn, u64 *ns)
{
	struct task_struct *t;
	u64 t0;
	int i;

	if (k < 1 || k > num_online_cpus())
		return -EINVAL;
	reinit_completion(&kpb_go);
	reinit_completion(&kpb_done);
	atomic_set(&kpb_running, k);
	kpb_per_thread = n;
	kpb_thread_fn = fn;
	for (i = 0; i < k; i++) {
		t = kthread_create(kpb_thread, NULL, "kpb/%d", i);
		if (IS_ERR(t))
			return PTR_ERR(t); /* leaks the started ones' wait: bench only */
		kthread_bind(t, i);
		wake_up_process(t);
	}
	t0 = ktime_get_ns();
	complete_all(&kpb_go);
	wait_for_completion(&kpb_done);
	*ns = ktime_get_ns() - t0;
	return 0;
}

static int kpb_smp(int k, u64 n)
{
	unsigned long h0 = kpb_hits;
	u64 ns;
	int ret = kpb_threads(k, n, 0, &ns);

	if (ret)
		return ret;
	RES("smp=%d n=%llu ns=%llu hits=%lu", k, n * k, ns, kpb_hits - h0);
	return 0;
}

static int kpb_sleepers(int k, u64 n, int maxactive)
{
	struct kretprobe rp = {
		.kp.symbol_name = "kpb_sleep",
		.handler = kpb_ret,
		.maxactive = maxactive,
	};
	unsigned long r0 = kpb_rhits;
	u64 ns;
	int ret;

	ret = register_kretprobe(&rp);
	if (ret) {
		RES("sleep=%d ret=%d", k, ret);
		return ret;
	}
	ret = kpb_threads(k, n, 1, &ns);
	unregister_kretprobe(&rp);
	if (ret)
		return ret;
	RES("sleep=%d n=%llu ns=%llu rhits=%lu nmissed=%d maxactive=%d",
	    k, n * k, ns, kpb_rhits - r0, rp.nmissed, maxactive);
	return 0;
}

/* ---- registration throughput ------------------------------------------- */

struct kpb_sym {
	char name[KSYM_NAME_LEN];
	unsigned int off;
};

static struct kpb_sym *kpb_syms;
static int kpb_nsyms, kpb_syms_cap;
static struct kprobe *kpb_many;
static struct kprobe **kpb_many_p;
static int kpb_nmany;
static bool kpb_many_reg;

static int kpb_many_pre(struct kprobe *p, struct pt_regs *regs)
{
	return 0;
}

/* Offset of the first instruction after ENDBR and the __fentry__ site. */
static unsigned int kpb_entry_skip(unsigned long addr)
{
	static const u8 nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
	unsigned int off = 0;
	u8 b[5];
	u32 w;

	if (copy_from_kernel_nofault(&w, (void *)addr, 4))
		return 0;
	if (IS_ENABLED(CONFIG_X86_KERNEL_IBT) && is_endbr(w))
		off = 4;
	if (copy_from_kernel_nofault(b, (void *)(addr + off), 5))
		return off;
	if (!memcmp(b, nop5, 5) || b[0] == 0xe8)
		off += 5;
	return off;
}

static int kpb_add_sym(char *line)
{
	char name[KSYM_NAME_LEN];
	unsigned long addr;

	if (sscanf(line, "%127s %lx", name, &addr) != 2)
		return -EINVAL;
	if (kpb_nsyms == kpb_syms_cap) {
		int cap = kpb_syms_cap ? 2 * kpb_syms_cap : 1024;
		struct kpb_sym *n = kvcalloc(cap, sizeof(*n), GFP_KERNEL);

		if (!n)
			return -ENOMEM;
		if (kpb_syms)
			memcpy(n, kpb_syms, kpb_nsyms * sizeof(*n));
		kvfree(kpb_syms);
		kpb_syms = n;
		kpb_syms_cap = cap;
	}
	strscpy(kpb_syms[kpb_nsyms].name, name, KSYM_NAME_LEN);
	kpb_syms[kpb_nsyms].off = kpb_entry_skip(addr);
	kpb_nsyms++;
	return 0;
}

static void kpb_many_init(int i)
{
	memset(&kpb_many[i], 0, sizeof(kpb_many[i]));
	kpb_many[i].symbol_name = kpb_syms[i].name;
	kpb_many[i].offset = kpb_syms[i].off;
	kpb_many[i].pre_handler = kpb_many_pre;
	kpb_many[i].flags = KPROBE_FLAG_DISABLED;
}

static void kpb_many_free(void)
{
	if (kpb_many_reg)
		unregister_kprobes(kpb_many_p, kpb_nmany);
	kpb_many_reg = false;
	kvfree(kpb_many);
	kvfree(kpb_many_p);
	kpb_many = NULL;
	kpb_many_p = NULL;
	kpb_nmany = 0;
}

static int kpb_alloc(int n)
{
	int i;

	kpb_many_free();
	n = min(n, kpb_nsyms);
	kpb_many = kvcalloc(n, sizeof(*kpb_many), GFP_KERNEL);
	kpb_many_p = kvcalloc(n, sizeof(*kpb_many_p), GFP_KERNEL);
	if (!kpb_many || !kpb_many_p) {
		kpb_many_free();
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		kpb_many_init(i);
		kpb_many_p[i] = &kpb_many[i];
	}
	kpb_nmany = n;
	RES("alloc=%d", n);
	return 0;
}

static int kpb_reg(void)
{
	int i, j, ret, failed = 0, asked = kpb_nmany;
	int e_inval = 0, e_ilseq = 0, e_notsupp = 0, e_other = 0, e_last = 0;
	u64 t0, ns, first_ns;

	if (!kpb_nmany || kpb_many_reg)
		return -EINVAL;
	t0 = ktime_get_ns();
	ret = register_kprobes(kpb_many_p, kpb_nmany);
	ns = first_ns = ktime_get_ns() - t0;
	if (ret) {
		/* Find the refused ones, one at a time. */
		for (i = 0; i < kpb_nmany; i++) {
			kpb_many_init(i);
			ret = register_kprobe(&kpb_many[i]);
			if (!ret)
				continue;
			failed++;
			e_last = ret;
			if (ret == -EINVAL)
				e_inval++;
			else if (ret == -EILSEQ)
				e_ilseq++;
			else if (ret == -EOPNOTSUPP)
				e_notsupp++;
			else
				e_other++;
			kpb_many[i].symbol_name = NULL;
		}
		for (i = j = 0; i < kpb_nmany; i++)
			if (kpb_many[i].symbol_name)
				kpb_many_p[j++] = &kpb_many[i];
		unregister_kprobes(kpb_many_p, j);
		/* Drop the refused symbols from the list for good. */
		for (i = j = 0; i < kpb_nmany; i++) {
			if (!kpb_many[i].symbol_name)
				continue;
			kpb_syms[j] = kpb_syms[i];
			j++;
		}
		memmove(&kpb_syms[j], &kpb_syms[kpb_nmany],
			(kpb_nsyms - kpb_nmany) * sizeof(*kpb_syms));
		kpb_nsyms -= kpb_nmany - j;
		kpb_nmany = j;
		for (i = 0; i < kpb_nmany; i++) {
			kpb_many_init(i);
			kpb_many_p[i] = &kpb_many[i];
		}
		t0 = ktime_get_ns();
		ret = register_kprobes(kpb_many_p, kpb_nmany);
		ns = ktime_get_ns() - t0;
	}
	if (!ret)
		kpb_many_reg = true;
	RES("reg asked=%d ok=%d failed=%d einval=%d eilseq=%d eopnotsupp=%d eother=%d elast=%d ret=%d ns=%llu first_ns=%llu",
	    asked, ret ? 0 : kpb_nmany, failed, e_inval, e_ilseq, e_notsupp,
	    e_other, e_last, ret, ns, first_ns);
	return ret;
}

static int kpb_enable(void)
{
	int i, bad = 0;
	u64 t0, ns;

	if (!kpb_many_reg)
		return -EINVAL;
	t0 = ktime_get_ns();
	for (i = 0; i < kpb_nmany; i++)
		if (enable_kprobe(&kpb_many[i]))
			bad++;
	ns = ktime_get_ns() - t0;
	RES("enable n=%d failed=%d ns=%llu", kpb_nmany, bad, ns);
	return 0;
}

static int kpb_unreg(void)
{
	int n = kpb_nmany;
	u64 t0, ns;

	if (!kpb_many_reg)
		return -EINVAL;
	t0 = ktime_get_ns();
	unregister_kprobes(kpb_many_p, kpb_nmany);
	ns = ktime_get_ns() - t0;
	kpb_many_reg = false;
	kpb_many_free();
	RES("unreg n=%d ns=%llu", n, ns);
	return 0;
}

/* ---- timing kernel functions ------------------------------------------ */

#define KPB_TIMED_MAX	4

struct kpb_timed {
	struct kretprobe rp;
	atomic64_t ns;
	atomic_t calls;
};

static struct kpb_timed kpb_timed[KPB_TIMED_MAX];
static int kpb_ntimed;

static int kpb_timed_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	*(u64 *)ri->data = ktime_get_ns();
	return 0;
}

static int kpb_timed_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kretprobe *rp = get_kretprobe(ri);
	struct kpb_timed *t;

	if (!rp)
		return 0;
	t = container_of(rp, struct kpb_timed, rp);
	atomic64_add(ktime_get_ns() - *(u64 *)ri->data, &t->ns);
	atomic_inc(&t->calls);
	return 0;
}

static int kpb_time(const char *fn)
{
	struct kpb_timed *t;
	int ret;

	if (kpb_ntimed == KPB_TIMED_MAX)
		return -ENOSPC;
	t = &kpb_timed[kpb_ntimed];
	memset(t, 0, sizeof(*t));
	t->rp.kp.symbol_name = kstrdup(fn, GFP_KERNEL);
	if (!t->rp.kp.symbol_name)
		return -ENOMEM;
	t->rp.entry_handler = kpb_timed_entry;
	t->rp.handler = kpb_timed_ret;
	t->rp.data_size = sizeof(u64);
	t->rp.maxactive = 16;
	ret = register_kretprobe(&t->rp);
	RES("time fn=%s ret=%d", fn, ret);
	if (ret) {
		kfree(t->rp.kp.symbol_name);
		return ret;
	}
	kpb_ntimed++;
	return 0;
}

static void kpb_timed_report(void)
{
	int i, len = 0;

	kpb_result[0] = 0;
	for (i = 0; i < kpb_ntimed; i++)
		len += scnprintf(kpb_result + len, sizeof(kpb_result) - len,
				 "%s%s_ns=%lld %s_calls=%d", i ? " " : "",
				 kpb_timed[i].rp.kp.symbol_name,
				 atomic64_read(&kpb_timed[i].ns),
				 kpb_timed[i].rp.kp.symbol_name,
				 atomic_read(&kpb_timed[i].calls));
}

static void kpb_untime(void)
{
	int i;

	for (i = 0; i < kpb_ntimed; i++) {
		unregister_kretprobe(&kpb_timed[i].rp);
		kfree(kpb_timed[i].rp.kp.symbol_name);
	}
	kpb_ntimed = 0;
}

/* ---- debugfs ------------------------------------------------------------ */

static DEFINE_MUTEX(kpb_lock);

static ssize_t kpb_ctl_write(struct file *f, const char __user *ubuf,
			     size_t len, loff_t *ppos)
{
	char buf[128], a[32], b[32];
	unsigned long long n = 0;
	int k = 0, m = 0, ret;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	strim(buf);
	a[0] = b[0] = 0;
	mutex_lock(&kpb_lock);
	RES("error");
	if (sscanf(buf, "arm %31s", a) == 1)
		ret = kpb_arm(a);
	else if (!strcmp(buf, "disarm"))
		ret = (kpb_disarm(), RES("disarm"), 0);
	else if (sscanf(buf, "loop %31s %llu", a, &n) == 2)
		ret = kpb_loop(a, n);
	else if (sscanf(buf, "steps %31s", a) == 1)
		ret = kpb_steps(a);
	else if (sscanf(buf, "smp %d %llu", &k, &n) == 2)
		ret = kpb_smp(k, n);
	else if (sscanf(buf, "sleep %d %llu %d", &k, &n, &m) == 3)
		ret = kpb_sleepers(k, n, m);
	else if (sscanf(buf, "alloc %d", &k) == 1)
		ret = kpb_alloc(k);
	else if (!strcmp(buf, "reg"))
		ret = kpb_reg();
	else if (!strcmp(buf, "enable"))
		ret = kpb_enable();
	else if (!strcmp(buf, "unreg"))
		ret = kpb_unreg();
	else if (!strcmp(buf, "timed"))	/* before "time FN" matches it */
		ret = (kpb_timed_report(), 0);
	else if (!strcmp(buf, "untime"))
		ret = (kpb_untime(), RES("untime"), 0);
	else if (sscanf(buf, "time %31s", a) == 1)
		ret = kpb_time(a);
	else if (!strcmp(buf, "clearsyms"))
		ret = (kpb_many_free(), kpb_nsyms = 0, RES("clearsyms"), 0);
	else
		ret = -EINVAL;
	mutex_unlock(&kpb_lock);
	return ret < 0 ? ret : len;
}

static ssize_t kpb_ctl_read(struct file *f, char __user *ubuf, size_t len,
			    loff_t *ppos)
{
	char buf[sizeof(kpb_result) + 1];
	int n;

	mutex_lock(&kpb_lock);
	n = scnprintf(buf, sizeof(buf), "%s\n", kpb_result);
	mutex_unlock(&kpb_lock);
	return simple_read_from_buffer(ubuf, len, ppos, buf, n);
}

static const struct file_operations kpb_ctl_fops = {
	.owner = THIS_MODULE,
	.write = kpb_ctl_write,
	.read = kpb_ctl_read,
	.llseek = default_llseek,
};

/* Symbol lines may be split across writes: keep the partial tail. */
static char kpb_partial[KSYM_NAME_LEN + 32];
static int kpb_npartial;

static ssize_t kpb_syms_write(struct file *f, const char __user *ubuf,
			      size_t len, loff_t *ppos)
{
	char *buf, *p, *nl;
	int ret = 0;

	buf = kvmalloc(len + sizeof(kpb_partial) + 1, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	mutex_lock(&kpb_lock);
	memcpy(buf, kpb_partial, kpb_npartial);
	if (copy_from_user(buf + kpb_npartial, ubuf, len)) {
		ret = -EFAULT;
		goto out;
	}
	buf[kpb_npartial + len] = 0;
	p = buf;
	while ((nl = strchr(p, '\n'))) {
		*nl = 0;
		if (*p)
			kpb_add_sym(p);
		p = nl + 1;
	}
	kpb_npartial = min(strlen(p), sizeof(kpb_partial) - 1);
	memcpy(kpb_partial, p, kpb_npartial);
out:
	mutex_unlock(&kpb_lock);
	kvfree(buf);
	return ret ? ret : len;
}

static int kpb_syms_show(struct seq_file *m, void *v)
{
	int i;

	mutex_lock(&kpb_lock);
	for (i = 0; i < kpb_nsyms; i++)
		seq_printf(m, "%s %u\n", kpb_syms[i].name, kpb_syms[i].off);
	mutex_unlock(&kpb_lock);
	return 0;
}

static int kpb_syms_open(struct inode *inode, struct file *file)
{
	if (file->f_mode & FMODE_READ)
		return single_open_size(file, kpb_syms_show, NULL,
					kpb_nsyms * 80 + PAGE_SIZE);
	return 0;
}

static int kpb_syms_release(struct inode *inode, struct file *file)
{
	if (file->f_mode & FMODE_READ)
		return single_release(inode, file);
	return 0;
}

/* One line per stepped instruction of the last "steps": where it was. */
static int kpb_steplog_show(struct seq_file *m, void *v)
{
	unsigned long i, n;

	mutex_lock(&kpb_lock);
	n = min_t(unsigned long, kpb_nsteps, KPB_STEPLOG);
	for (i = 0; i < n; i++)
		seq_printf(m, "%pS\n", (void *)kpb_steplog[i]);
	mutex_unlock(&kpb_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kpb_steplog);

static const struct file_operations kpb_syms_fops = {
	.owner = THIS_MODULE,
	.open = kpb_syms_open,
	.read = seq_read,
	.write = kpb_syms_write,
	.release = kpb_syms_release,
	.llseek = noop_llseek,
};

static struct dentry *kpb_dir;

static int __init kpb_init(void)
{
	kpb_dir = debugfs_create_dir("kp_bench", NULL);
	debugfs_create_file("ctl", 0600, kpb_dir, NULL, &kpb_ctl_fops);
	debugfs_create_file("syms", 0600, kpb_dir, NULL, &kpb_syms_fops);
	debugfs_create_file("steplog", 0400, kpb_dir, NULL, &kpb_steplog_fops);
	return 0;
}

static void __exit kpb_exit(void)
{
	debugfs_remove_recursive(kpb_dir);
	mutex_lock(&kpb_lock);
	kpb_disarm();
	kpb_untime();
	kpb_many_free();
	kvfree(kpb_syms);
	mutex_unlock(&kpb_lock);
}

module_init(kpb_init);
module_exit(kpb_exit);
