// SPDX-License-Identifier: GPL-2.0
/*
 * Differential instruction fuzzing of kprobes (guest-tests/kprobe_fuzz.sh).
 *
 * kp_fuzz_seqs.S, generated at build time by kp_fuzz_gen.py from a seed,
 * holds random instruction sequences (see there for the subset).  A run
 * takes the first @nseqs of them, each from a state of its own
 * (registers, arithmetic flags, a stack area, two scratch areas, all from
 * the seed), first unprobed (twice: a sequence must be deterministic),
 * then, for each instruction boundary index b, with a probe at the b-th
 * boundary of every sequence that has one, in one @mode:
 *
 *   step   pre- and post-handler: the instruction is single-stepped or
 *          emulated;
 *   boost  pre-handler only, with optimization off (the script sets it):
 *          boosted where the instruction allows;
 *   opt    pre-handler only, optimization on: the probes are given time
 *          to get their jump, then run (those refused stay boosted);
 *   kret   a kretprobe on every sequence (one batch).
 *
 * Every probed run must leave exactly what the unprobed one left.  A run
 * starts when 1 is written to /sys/module/kp_fuzz/parameters/run; the
 * result is then in /sys/module/kp_fuzz/parameters/result, one line of
 * key=value.
 */
#include <linux/delay.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#define KPF_AREA	128
#define KPF_SCRATCH	256
#define KPF_FLAGS_ARITH	0x8d5UL		/* CF PF AF ZF SF OF */

struct kpf_state {
	u64 regs[14];	/* rax rcx rdx rsi rdi rbp r8 ... r15 */
	u64 rbx;
	u64 flags;
	u8 stack[KPF_AREA];
};

static_assert(offsetof(struct kpf_state, rbx) == 112);
static_assert(offsetof(struct kpf_state, stack) == 128);

struct kpf_result {
	struct kpf_state st;
	u8 rbx[KPF_SCRATCH];
	u8 rip[KPF_SCRATCH];
};

struct kpf_desc {
	void *fn;
	u32 nbounds;
	u32 first;
};

extern const struct kpf_desc kpf_descs[];
extern const u16 kpf_bounds[];
extern const u64 kpf_seed;
extern const u32 kpf_nseqs;
extern u8 kpf_rip_scratch[KPF_SCRATCH];
void kpf_call(struct kpf_state *st);

/* Read by kpf_call(). */
void *kpf_target;
static u8 kpf_rbx_scratch[KPF_SCRATCH] __aligned(64);

static char *mode = "step";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "step, boost, opt or kret");
static int nseqs;
module_param(nseqs, int, 0444);
MODULE_PARM_DESC(nseqs, "how many sequences (0: all that were generated)");
static char result[512];
module_param_string(result, result, sizeof(result), 0444);

static u64 kpf_rand(u64 *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

/* Run sequence @i from its own state into @res. */
static void kpf_run(unsigned int i, struct kpf_result *res)
{
	u64 s = kpf_seed * 0x9e3779b97f4a7c15ULL + i + 1;
	unsigned int k;

	for (k = 0; k < ARRAY_SIZE(res->st.regs); k++)
		res->st.regs[k] = kpf_rand(&s);
	for (k = 0; k < KPF_AREA; k++)
		res->st.stack[k] = kpf_rand(&s);
	for (k = 0; k < KPF_SCRATCH; k++) {
		kpf_rbx_scratch[k] = kpf_rand(&s);
		kpf_rip_scratch[k] = kpf_rand(&s);
	}
	res->st.rbx = (u64)kpf_rbx_scratch;
	res->st.flags = (kpf_rand(&s) & KPF_FLAGS_ARITH) | X86_EFLAGS_IF |
			X86_EFLAGS_FIXED;
	kpf_target = kpf_descs[i].fn;
	kpf_call(&res->st);
	res->st.flags &= KPF_FLAGS_ARITH | X86_EFLAGS_DF;
	memcpy(res->rbx, kpf_rbx_scratch, KPF_SCRATCH);
	memcpy(res->rip, kpf_rip_scratch, KPF_SCRATCH);
}

static atomic_t kpf_pre_hits, kpf_post_hits, kpf_ret_hits;

static int kpf_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&kpf_pre_hits);
	return 0;
}

static void kpf_post(struct kprobe *p, struct pt_regs *regs,
		     unsigned long flags)
{
	atomic_inc(&kpf_post_hits);
}

static int kpf_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic_inc(&kpf_ret_hits);
	return 0;
}

struct kpf_stats {
	unsigned int boundaries, registered, refused, optimized;
	unsigned int runs, divergences, nondet;
	int last_err;
	char first[160];
};

static struct kpf_result *kpf_ref;
static struct kpf_result kpf_now;

/*
 * Compare a probed run of sequence @i with its unprobed one; @b < 0 for a
 * kretprobe.  A kretprobed sequence returns through the rethook trampoline,
 * whose own return goes through the return thunk: with call-depth tracking
 * (retbleed=stuff) that shifts a counter and leaves arithmetic flags of its
 * own, which the ABI allows after any return, so there only DF is compared.
 */
static void kpf_compare(unsigned int i, int b, struct kpf_stats *st)
{
	kpf_run(i, &kpf_now);
	st->runs++;
	if (b < 0)
		kpf_now.st.flags = (kpf_now.st.flags & ~KPF_FLAGS_ARITH) |
				   (kpf_ref[i].st.flags & KPF_FLAGS_ARITH);
	if (!memcmp(&kpf_now, &kpf_ref[i], sizeof(kpf_now)))
		return;
	if (!st->divergences++)
		snprintf(st->first, sizeof(st->first), "seq%u@%d(%pS)", i, b,
			 b < 0 ? kpf_descs[i].fn :
			 kpf_descs[i].fn + kpf_bounds[kpf_descs[i].first + b]);
}

/*
 * Wait until some probes are optimized and their count has not grown for
 * two seconds, or all are, or 30 s have passed: a run with none
 * optimized would only test boosting again.
 */
static unsigned int kpf_wait_optimized(struct kprobe **kps, unsigned int n)
{
	unsigned int i, c, last = 0, still = 0, t;

	for (t = 0; t < 300 && still < 20; t++) {
		msleep(100);
		for (c = 0, i = 0; i < n; i++)
			c += !!(READ_ONCE(kps[i]->flags) & KPROBE_FLAG_OPTIMIZED);
		if (c > last) {
			last = c;
			still = 0;
		} else if (last) {
			still++;
		}
		if (c == n)
			break;
	}
	return last;
}

static void kpf_probe_boundaries(unsigned int n, bool post, bool opt,
				 struct kpf_stats *st)
{
	struct kprobe *kp = kcalloc(n, sizeof(*kp), GFP_KERNEL);
	struct kprobe **kps = kcalloc(n, sizeof(*kps), GFP_KERNEL);
	unsigned int *seq = kcalloc(n, sizeof(*seq), GFP_KERNEL);
	unsigned int i, m, maxb = 0;
	int b, ret;

	if (!kp || !kps || !seq)
		goto out;
	for (i = 0; i < n; i++)
		maxb = max(maxb, kpf_descs[i].nbounds);
	for (b = 0; b < maxb; b++) {
		memset(kp, 0, n * sizeof(*kp));
		for (m = 0, i = 0; i < n; i++) {
			if (b >= kpf_descs[i].nbounds)
				continue;
			kp[m].addr = kpf_descs[i].fn +
				     kpf_bounds[kpf_descs[i].first + b];
			kp[m].pre_handler = kpf_pre;
			kp[m].post_handler = post ? kpf_post : NULL;
			kps[m] = &kp[m];
			seq[m++] = i;
		}
		st->boundaries += m;
		ret = register_kprobes(kps, m);
		if (ret) {
			/* One at a time, to count the refused. */
			unsigned int j = 0;

			for (i = 0; i < m; i++) {
				memset(&kp[i], 0, sizeof(kp[i]));
				kp[i].addr = kpf_descs[seq[i]].fn +
					     kpf_bounds[kpf_descs[seq[i]].first + b];
				kp[i].pre_handler = kpf_pre;
				kp[i].post_handler = post ? kpf_post : NULL;
				ret = register_kprobe(&kp[i]);
				if (ret) {
					st->refused++;
					st->last_err = ret;
					continue;
				}
				kps[j] = &kp[i];
				seq[j++] = seq[i];
			}
			m = j;
		}
		st->registered += m;
		if (opt)
			st->optimized += kpf_wait_optimized(kps, m);
		for (i = 0; i < n; i++)
			kpf_compare(i, b, st);
		unregister_kprobes(kps, m);
	}
out:
	kfree(seq);
	kfree(kps);
	kfree(kp);
}

static void kpf_kretprobes(unsigned int n, struct kpf_stats *st)
{
	struct kretprobe *rp = kcalloc(n, sizeof(*rp), GFP_KERNEL);
	struct kretprobe **rps = kcalloc(n, sizeof(*rps), GFP_KERNEL);
	unsigned int i;
	int ret;

	if (!rp || !rps)
		goto out;
	for (i = 0; i < n; i++) {
		rp[i].kp.addr = kpf_descs[i].fn;
		rp[i].handler = kpf_ret;
		rp[i].maxactive = 2;
		rps[i] = &rp[i];
	}
	st->boundaries = n;
	ret = register_kretprobes(rps, n);
	if (ret) {
		st->refused = n;
		st->last_err = ret;
		goto out;
	}
	st->registered = n;
	for (i = 0; i < n; i++)
		kpf_compare(i, -1, st);
	unregister_kretprobes(rps, n);
out:
	kfree(rps);
	kfree(rp);
}

static int kpf_fuzz(void)
{
	unsigned int n = nseqs > 0 ? min_t(u32, nseqs, kpf_nseqs) : kpf_nseqs;
	struct kpf_stats st = { .first = "-" };
	unsigned int i;

	kpf_ref = vmalloc(array_size(n, sizeof(*kpf_ref)));
	if (!kpf_ref)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		kpf_run(i, &kpf_ref[i]);
		kpf_run(i, &kpf_now);
		st.nondet += !!memcmp(&kpf_now, &kpf_ref[i], sizeof(kpf_now));
	}
	if (!strcmp(mode, "step"))
		kpf_probe_boundaries(n, true, false, &st);
	else if (!strcmp(mode, "boost"))
		kpf_probe_boundaries(n, false, false, &st);
	else if (!strcmp(mode, "opt"))
		kpf_probe_boundaries(n, false, true, &st);
	else if (!strcmp(mode, "kret"))
		kpf_kretprobes(n, &st);
	snprintf(result, sizeof(result),
		 "seed=%llu seqs=%u mode=%s boundaries=%u registered=%u refused=%u last_err=%d optimized=%u runs=%u pre_hits=%d post_hits=%d ret_hits=%d nondeterministic=%u divergences=%u first=%s\n",
		 kpf_seed, n, mode, st.boundaries, st.registered, st.refused,
		 st.last_err, st.optimized, st.runs, atomic_read(&kpf_pre_hits),
		 atomic_read(&kpf_post_hits), atomic_read(&kpf_ret_hits),
		 st.nondet, st.divergences, st.first);
	pr_info("kp_fuzz: %s", result);
	vfree(kpf_ref);
	return 0;
}

/*
 * Writing 1 to the "run" parameter runs the fuzzing in the writer's
 * context, once the module is live: probes on a module that is still
 * loading are not optimized.
 */
static DEFINE_MUTEX(kpf_mutex);

static int kpf_run_set(const char *val, const struct kernel_param *kp)
{
	int ret;

	if (!sysfs_streq(val, "1"))
		return -EINVAL;
	mutex_lock(&kpf_mutex);
	ret = kpf_fuzz();
	mutex_unlock(&kpf_mutex);
	return ret;
}

static const struct kernel_param_ops kpf_run_ops = {
	.set = kpf_run_set,
};
module_param_cb(run, &kpf_run_ops, NULL, 0200);
MODULE_PARM_DESC(run, "write 1 to run (results in the result parameter)");

static int __init kpf_init(void)
{
	return 0;
}

static void __exit kpf_exit(void)
{
}

module_init(kpf_init);
module_exit(kpf_exit);
MODULE_DESCRIPTION("Differential instruction fuzzing of kprobes");
MODULE_LICENSE("GPL");
