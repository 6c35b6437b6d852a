// SPDX-License-Identifier: GPL-2.0
/*
 * SMP churn stress for kprobes (guest-tests/kprobe_smp_stress.sh).
 *
 * For seconds= seconds, one hitter thread per online CPU calls the target
 * functions below and checks every result against a reference computed
 * another way, while churner threads register, disable, enable and
 * unregister kprobes on every instruction boundary of the targets (alone,
 * several on one address, with and without post_handler, in batches) and
 * kretprobes with a small maxactive whose handler checks the return value
 * against the argument its entry_handler saw.  The optimizer, the
 * emulation of branches, calls and returns, boosting and single-step all
 * run under live hits.  Loading returns once the time is up and every
 * probe is gone; the counters are printed as one "kp_stress:" line and
 * are readable in /sys/module/kp_stress/parameters/.
 */

#include <linux/module.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/kallsyms.h>
#include <linux/random.h>
#include <linux/delay.h>
#include <linux/slab.h>
#include <linux/ptrace.h>

static unsigned int seconds = 60;
module_param(seconds, uint, 0444);
MODULE_PARM_DESC(seconds, "how long the stress runs");

/* Results, also module parameters so the script can read them. */
static unsigned long calls, wrong, regs_ok, regs_refused, pre_hits, post_hits;
static unsigned long ret_checked, ret_wrong, ret_missed;
module_param(calls, ulong, 0444);
module_param(wrong, ulong, 0444);
module_param(regs_ok, ulong, 0444);
module_param(regs_refused, ulong, 0444);
module_param(pre_hits, ulong, 0444);
module_param(post_hits, ulong, 0444);
module_param(ret_checked, ulong, 0444);
module_param(ret_wrong, ulong, 0444);
module_param(ret_missed, ulong, 0444);

static atomic_long_t n_calls, n_wrong, n_pre, n_post, n_ret, n_ret_wrong;

/* --- the targets: arithmetic, a loop with branches, calls and returns --- */

static noinline u64 kps_mix(u64 x)
{
	u64 r = x * 0x9e3779b97f4a7c15ULL;

	r ^= r >> 29;
	return r + 7;
}

static noinline u64 kps_bytes(u64 x)
{
	u64 r = 0;

	while (x) {
		r += x & 0xff;
		x >>= 8;
	}
	return r;
}

static noinline u64 kps_calls(u64 x)
{
	if (x & 1)
		return kps_mix(x) ^ kps_bytes(x);
	return kps_bytes(x) + kps_mix(x >> 1);
}

/* The same results, written differently and never probed. */
static u64 ref_mix(u64 x)
{
	u64 r = x * 0x9e3779b97f4a7c15ULL;

	return (r ^ (r >> 29)) + 7;
}

static u64 ref_bytes(u64 x)
{
	u64 r = 0;
	int i;

	for (i = 0; i < 8; i++)
		r += (x >> (8 * i)) & 0xff;
	return r;
}

static u64 ref_calls(u64 x)
{
	return (x & 1) ? ref_mix(x) ^ ref_bytes(x) : ref_bytes(x) + ref_mix(x >> 1);
}

struct kps_target {
	const char *name;
	u64 (*fn)(u64 x);
	u64 (*ref)(u64 x);
};

static const struct kps_target targets[] = {
	{ "kps_mix", kps_mix, ref_mix },
	{ "kps_bytes", kps_bytes, ref_bytes },
	{ "kps_calls", kps_calls, ref_calls },
};

/* Every address of the targets where a kprobe registers. */
#define KPS_MAX_SITES	256
static kprobe_opcode_t *sites[KPS_MAX_SITES];
static unsigned int nr_sites;

static int kps_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_long_inc(&n_pre);
	return 0;
}

static void kps_post(struct kprobe *p, struct pt_regs *regs,
		     unsigned long flags)
{
	atomic_long_inc(&n_post);
}

/* --- hitters --- */

static int kps_hitter(void *arg)
{
	u64 x = (unsigned long)arg * 0x100000001b3ULL + 1;
	unsigned int i;

	while (!kthread_should_stop()) {
		for (i = 0; i < 256; i++) {
			const struct kps_target *t = &targets[i % ARRAY_SIZE(targets)];

			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			if (t->fn(x) != t->ref(x))
				atomic_long_inc(&n_wrong);
		}
		atomic_long_add(256, &n_calls);
		cond_resched();
	}
	return 0;
}

/* --- churners --- */

struct kps_ret_data {
	u64 arg;
};

static int kps_ret_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kps_ret_data *d = (struct kps_ret_data *)ri->data;

	d->arg = regs_get_kernel_argument(regs, 0);
	return 0;
}

/* A kretprobe and the target it is on; on the churner's stack. */
struct kps_rp {
	struct kretprobe rp;
	const struct kps_target *t;
};

static int kps_ret_handler(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kps_ret_data *d = (struct kps_ret_data *)ri->data;
	struct kretprobe *rp = get_kretprobe(ri);
	const struct kps_target *t;

	if (!rp)
		return 0;
	t = container_of(rp, struct kps_rp, rp)->t;
	atomic_long_inc(&n_ret);
	if (regs_return_value(regs) != t->ref(d->arg))
		atomic_long_inc(&n_ret_wrong);
	return 0;
}

static atomic_long_t n_regs, n_refused, n_missed;

/* One round: a group of kprobes on one site, toggled, then removed. */
static void kps_round_kprobes(void)
{
	struct kprobe kp[3], *batch[3];
	kprobe_opcode_t *addr = sites[get_random_u32_below(nr_sites)];
	unsigned int n = 1 + get_random_u32_below(3), i, ok = 0;

	memset(kp, 0, sizeof(kp));
	for (i = 0; i < n; i++) {
		kp[i].addr = addr;
		kp[i].pre_handler = kps_pre;
		/* A post_handler keeps the site from being optimized. */
		if (get_random_u32_below(4) == 0)
			kp[i].post_handler = kps_post;
		if (get_random_u32_below(4) == 0)
			kp[i].flags = KPROBE_FLAG_DISABLED;
		batch[i] = &kp[i];
	}
	if (get_random_u32_below(2)) {
		if (register_kprobes(batch, n) == 0)
			ok = n;
	} else {
		for (i = 0; i < n; i++) {
			if (register_kprobe(&kp[i]) == 0)
				batch[ok++] = &kp[i];
		}
	}
	atomic_long_add(ok, &n_regs);
	atomic_long_add(n - ok, &n_refused);
	if (!ok)
		return;
	msleep(get_random_u32_below(20));
	for (i = 0; i < ok; i++) {
		if (get_random_u32_below(2))
			disable_kprobe(batch[i]);
	}
	msleep(get_random_u32_below(10));
	for (i = 0; i < ok; i++)
		enable_kprobe(batch[i]);
	msleep(get_random_u32_below(20));
	if (get_random_u32_below(2)) {
		unregister_kprobes(batch, ok);
	} else {
		for (i = 0; i < ok; i++)
			unregister_kprobe(batch[i]);
	}
}

/* One round: a kretprobe with few instances on a target. */
static void kps_round_kretprobe(void)
{
	const struct kps_target *t = &targets[get_random_u32_below(ARRAY_SIZE(targets))];
	struct kps_rp k = {
		.rp.kp.addr = (kprobe_opcode_t *)t->fn,
		.rp.entry_handler = kps_ret_entry,
		.rp.handler = kps_ret_handler,
		.rp.data_size = sizeof(struct kps_ret_data),
		.rp.maxactive = 1 + get_random_u32_below(2),
		.t = t,
	};

	if (register_kretprobe(&k.rp)) {
		atomic_long_inc(&n_refused);
		return;
	}
	atomic_long_inc(&n_regs);
	msleep(get_random_u32_below(30));
	if (get_random_u32_below(2)) {
		disable_kretprobe(&k.rp);
		msleep(get_random_u32_below(5));
		enable_kretprobe(&k.rp);
	}
	msleep(get_random_u32_below(30));
	unregister_kretprobe(&k.rp);
	/* nmissed is final once unregister_kretprobe() has returned. */
	atomic_long_add(k.rp.nmissed, &n_missed);
}

static int kps_churner(void *arg)
{
	bool rets = (unsigned long)arg & 1;

	while (!kthread_should_stop()) {
		if (rets && get_random_u32_below(2))
			kps_round_kretprobe();
		else
			kps_round_kprobes();
		cond_resched();
	}
	return 0;
}

/* Function size from "name+0x0/0xSIZE [mod]". */
static unsigned long kps_func_size(void *fn)
{
	char buf[KSYM_SYMBOL_LEN], *slash;
	unsigned long size;

	sprint_symbol(buf, (unsigned long)fn);
	slash = strchr(buf, '/');
	if (!slash || sscanf(slash + 1, "%lx", &size) != 1)
		return 0;
	return size;
}

static void kps_find_sites(void)
{
	unsigned int i;
	unsigned long off, size;

	for (i = 0; i < ARRAY_SIZE(targets); i++) {
		size = kps_func_size(targets[i].fn);
		for (off = 0; off < size && nr_sites < KPS_MAX_SITES; off++) {
			struct kprobe kp = {
				.addr = (kprobe_opcode_t *)targets[i].fn + off,
				.pre_handler = kps_pre,
			};

			if (register_kprobe(&kp))
				continue;
			unregister_kprobe(&kp);
			sites[nr_sites++] = kp.addr;
		}
	}
}

#define KPS_CHURNERS	3

static int __init kp_stress_init(void)
{
	struct task_struct *hitters[NR_CPUS] = { }, *churners[KPS_CHURNERS] = { };
	unsigned int cpu, i;

	kps_find_sites();
	if (!nr_sites) {
		pr_err("kp_stress: no probe-able address in the targets\n");
		return -ENOENT;
	}
	for_each_online_cpu(cpu) {
		hitters[cpu] = kthread_create_on_cpu(kps_hitter, (void *)(unsigned long)cpu,
						     cpu, "kps_hit/%u");
		if (IS_ERR(hitters[cpu]))
			hitters[cpu] = NULL;
		else
			wake_up_process(hitters[cpu]);
	}
	for (i = 0; i < KPS_CHURNERS; i++) {
		churners[i] = kthread_run(kps_churner, (void *)(unsigned long)i,
					  "kps_churn/%u", i);
		if (IS_ERR(churners[i]))
			churners[i] = NULL;
	}

	msleep_interruptible(seconds * 1000);

	for (i = 0; i < KPS_CHURNERS; i++)
		if (churners[i])
			kthread_stop(churners[i]);
	for_each_online_cpu(cpu)
		if (hitters[cpu])
			kthread_stop(hitters[cpu]);

	calls = atomic_long_read(&n_calls);
	wrong = atomic_long_read(&n_wrong);
	regs_ok = atomic_long_read(&n_regs);
	regs_refused = atomic_long_read(&n_refused);
	pre_hits = atomic_long_read(&n_pre);
	post_hits = atomic_long_read(&n_post);
	ret_checked = atomic_long_read(&n_ret);
	ret_wrong = atomic_long_read(&n_ret_wrong);
	ret_missed = atomic_long_read(&n_missed);
	pr_info("kp_stress: seconds=%u sites=%u calls=%lu wrong=%lu registrations=%lu refused=%lu pre_hits=%lu post_hits=%lu ret_checked=%lu ret_wrong=%lu ret_missed=%lu\n",
		seconds, nr_sites, calls, wrong, regs_ok, regs_refused, pre_hits,
		post_hits, ret_checked, ret_wrong, ret_missed);
	return 0;
}

static void __exit kp_stress_exit(void)
{
}

module_init(kp_stress_init);
module_exit(kp_stress_exit);
MODULE_DESCRIPTION("SMP churn stress for kprobes");
MODULE_LICENSE("GPL");
