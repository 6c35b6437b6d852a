// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Jump optimization of kernel probes (CONFIG_OPTPROBES).
 *
 * The states of an optimized site are described at the top of core.c.
 * The optimizer work offers candidate sites to the arch, which builds a
 * detour (struct optimized_kprobe, kept in site->opt) for each one it can
 * prove safe; on x86 the breakpoint path then runs the detour's copy of
 * the instructions, so no new task enters the bytes the jump will cover
 * (elsewhere the jump covers just the probed instruction).
 * One RCU and one tasks-RCU grace period later no task is inside them any
 * more (the optimizer epoch counts those waits), and the work writes the
 * jumps of all ready sites in one batch.
 *
 * A detour stays with its site while the site remains armed and keeps no
 * post_handler: turning the sysctl off only puts the breakpoints back, and
 * turning it on again can write the jumps without waiting.  Anything else
 * that ends candidacy drops the detour (kprobe_site_drop_detour()), or, for an
 * optimized site that is unregistered, retires it with its jump
 * (kprobe_site_retire_jump()).  The work frees dropped detours after
 * another pair of grace periods.
 */

#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/cpu.h>
#include <linux/kprobes.h>
#include <linux/list_sort.h>
#include <linux/memory.h>
#include <linux/rcupdate_wait.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/sysctl.h>
#include <linux/workqueue.h>

#include "internal.h"

int sysctl_kprobes_optimization __read_mostly = 1;

#define KPROBE_OPTIMIZE_DELAY	5

/* How far back from an address a detour's bytes can reach, in opcodes. */
#ifndef KPROBE_OPT_REGION_MAX
#define KPROBE_OPT_REGION_MAX	MAX_INSN_SIZE
#endif

/* Detours taken from their sites, awaiting kprobe_opt_reap_fn(); kprobe_mutex. */
static LIST_HEAD(kprobe_opt_dropped);
/*
 * Detours of sites unregistered with their jumps in place; see
 * kprobe_site_retire_jump().  kprobe_mutex.
 */
static LIST_HEAD(kprobe_opt_retired);
/* Bumped after each wait of the optimizer; kprobe_mutex. */
static unsigned long kprobe_opt_epoch = 1;

static void kprobe_optimizer_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(kprobe_optimizer_work, kprobe_optimizer_fn);
static void kprobe_opt_reap_fn(struct work_struct *work);
static DECLARE_WORK(kprobe_opt_reap_work, kprobe_opt_reap_fn);

void __weak arch_publish_optimized_kprobes(void)
{
}

void __weak arch_prescan_optimized_kprobe(struct kprobe *p)
{
}

/*
 * An arch with no way to write the original bytes straight over a jump
 * goes through its breakpoint: a CPU that traps in between finds no probe
 * there and, as after any disarming, retries the instruction.
 */
void __weak arch_unoptimize_retired(struct list_head *oplist)
{
	struct optimized_kprobe *op;

	list_for_each_entry(op, oplist, list) {
		arch_unoptimize_kprobe(op);
		arch_disarm_kprobe(&op->kp);
	}
}

void kprobe_optimizer_kick(void)
{
	schedule_delayed_work(&kprobe_optimizer_work, KPROBE_OPTIMIZE_DELAY);
}

/* Should @site carry a jump?  kprobe_mutex held. */
bool kprobe_site_opt_candidate(struct kprobe *site)
{
	lockdep_assert_held(&kprobe_mutex);
	return sysctl_kprobes_optimization && site_armed(site) &&
	       !kprobe_ftrace(site) && !site->post_handler;
}

/* [OPTIMIZED] in debugfs "list"; see the top of core.c.  kprobe_mutex. */
bool kprobe_site_listed_optimized(struct kprobe *site)
{
	return kprobe_optimized(site) ||
	       (site->opt && kprobe_site_opt_candidate(site));
}

/*
 * A new site that will be a candidate once armed: the arch's checks of its
 * text run now, in the registering task, before this or any later probe
 * of a batch is armed.  The optimizer would run them with the whole batch
 * armed and hit every probe on the code they call.  kprobe_mutex held.
 */
void kprobe_site_opt_prescan(struct kprobe *site)
{
	lockdep_assert_held(&kprobe_mutex);
	if (sysctl_kprobes_optimization && !kprobe_ftrace(site) &&
	    !site->post_handler)
		arch_prescan_optimized_kprobe(site);
}

/* The flag is kept on the members too, for their owners to look at. */
static void site_set_optimized(struct kprobe *site, bool on)
{
	struct kprobe *member;

	if (on)
		kprobe_flags_set(site, KPROBE_FLAG_OPTIMIZED);
	else
		kprobe_flags_clear(site, KPROBE_FLAG_OPTIMIZED);
	if (!kprobe_is_group(site))
		return;
	list_for_each_entry(member, &to_kprobe_group(site)->members, list) {
		if (on)
			kprobe_flags_set(member, KPROBE_FLAG_OPTIMIZED);
		else
			kprobe_flags_clear(member, KPROBE_FLAG_OPTIMIZED);
	}
}

static int kprobe_site_addr_cmp(const void *a, const void *b)
{
	const struct kprobe *x = *(const struct kprobe **)a;
	const struct kprobe *y = *(const struct kprobe **)b;

	if (x->addr == y->addr)
		return 0;
	return x->addr < y->addr ? -1 : 1;
}

/*
 * Write the jumps of @sites (@jump) or put their breakpoints back, in one
 * batch of text pokes.  text_poke_queue() writes out what it holds as soon
 * as an address comes below the previous one, so without sorting a batch
 * would fall apart into many, each with its own IPIs.  kprobe_mutex held.
 */
void kprobe_opt_poke_sites(struct kprobe **sites, unsigned int n, bool jump)
{
	struct optimized_kprobe *op, *next;
	LIST_HEAD(batch);
	LIST_HEAD(done);
	unsigned int i;

	lockdep_assert_held(&kprobe_mutex);

	if (!n)
		return;
	sort(sites, n, sizeof(*sites), kprobe_site_addr_cmp, NULL);
	for (i = 0; i < n; i++) {
		list_add_tail(&sites[i]->opt->list, &batch);
		site_set_optimized(sites[i], jump);
	}
	cpus_read_lock();
	mutex_lock(&text_mutex);
	if (jump)
		arch_optimize_kprobes(&batch);
	else
		arch_unoptimize_kprobes(&batch, &done);
	mutex_unlock(&text_mutex);
	cpus_read_unlock();
	/* A live site's detour is on none of the core's lists. */
	list_splice_init(&done, &batch);
	list_for_each_entry_safe(op, next, &batch, list)
		list_del_init(&op->list);
}

/* Put @site's breakpoint back over its jump, right away. */
static void site_unoptimize(struct kprobe *site)
{
	if (kprobe_optimized(site))
		kprobe_opt_poke_sites(&site, 1, false);
}

/*
 * @site stops being a candidate: take its jump (unless its text is gone,
 * !@poke) and its detour away.  The breakpoint path goes back to the
 * site's own slot at once; the detour is freed by a later reap.
 */
void kprobe_site_drop_detour(struct kprobe *site, bool poke)
{
	struct optimized_kprobe *op = site->opt;

	if (!op)
		return;
	if (poke)
		site_unoptimize(site);
	else
		site_set_optimized(site, false);
	/* A CPU still inside the detour runs no handler from now on. */
	WRITE_ONCE(op->kp.flags, op->kp.flags | KPROBE_FLAG_DISABLED);
	WRITE_ONCE(site->opt, NULL);
	list_add_tail(&op->list, &kprobe_opt_dropped);
	schedule_work(&kprobe_opt_reap_work);
}

/*
 * @site leaves the table while optimized, or is disarmed while its text
 * stays (disable, the "enabled" knob).  Its jump may stay: hits that take
 * it reach a detour whose callback looks the address up and finds no
 * probe, or a site no longer pointing to that detour, and only runs the
 * copied instructions.  So an unregistration or a disable does not wait
 * for the text writes; the optimizer puts the original bytes back for the
 * whole lot later, and before that every reader or writer of the text
 * (registration, arming a breakpoint, the optimizer's analysis) has them
 * put back first, as it would otherwise see the jump.
 */
void kprobe_site_retire_jump(struct kprobe *site)
{
	struct optimized_kprobe *op = site->opt;

	site_set_optimized(site, false);
	WRITE_ONCE(op->kp.flags, op->kp.flags | KPROBE_FLAG_DISABLED);
	WRITE_ONCE(site->opt, NULL);
	list_add_tail(&op->list, &kprobe_opt_retired);
	kprobe_optimizer_kick();
}

static int kprobe_detour_addr_cmp(void *priv, const struct list_head *a,
				  const struct list_head *b)
{
	const struct optimized_kprobe *x, *y;

	x = list_entry(a, struct optimized_kprobe, list);
	y = list_entry(b, struct optimized_kprobe, list);
	return x->kp.addr > y->kp.addr;
}

/*
 * Write the original bytes back over every retired jump, in one batch
 * (sorted, as for kprobe_opt_poke_sites()), and hand their detours to the
 * reap.  kprobe_mutex held.
 */
void kprobe_opt_unjump_retired(void)
{
	lockdep_assert_held(&kprobe_mutex);
	if (list_empty(&kprobe_opt_retired))
		return;
	list_sort(NULL, &kprobe_opt_retired, kprobe_detour_addr_cmp);
	cpus_read_lock();
	mutex_lock(&text_mutex);
	arch_unoptimize_retired(&kprobe_opt_retired);
	mutex_unlock(&text_mutex);
	cpus_read_unlock();
	list_splice_tail_init(&kprobe_opt_retired, &kprobe_opt_dropped);
	schedule_work(&kprobe_opt_reap_work);
}

/*
 * The text under some retired jumps is about to be freed: no write to it
 * any more, only the reap of their detours.  kprobe_mutex held.
 */
void kprobe_opt_forget_retired(bool (*inside)(unsigned long, void *),
			       void *arg)
{
	struct optimized_kprobe *op, *next;

	lockdep_assert_held(&kprobe_mutex);

	list_for_each_entry_safe(op, next, &kprobe_opt_retired, list) {
		if (inside((unsigned long)op->kp.addr, arg))
			list_move_tail(&op->list, &kprobe_opt_dropped);
	}
	if (!list_empty(&kprobe_opt_dropped))
		schedule_work(&kprobe_opt_reap_work);
}

/*
 * A probe is about to go to @addr: a detour whose copied instructions
 * cover it would run them without its breakpoint, and its jump would
 * hold the bytes the new breakpoint goes to.
 */
void kprobe_opt_clear_around(kprobe_opcode_t *addr)
{
	struct kprobe *site;
	unsigned int back;

	for (back = 1; back < KPROBE_OPT_REGION_MAX; back++) {
		site = get_kprobe(addr - back);
		if (site && site->opt &&
		    arch_within_optimized_kprobe(site->opt, addr))
			kprobe_site_drop_detour(site, true);
	}
}

/*
 * A site is leaving @addr.  Of the arch's reasons to refuse a site, only
 * another probe inside the bytes its jump would cover can change while
 * the text stays: give the sites just before @addr another analysis.
 */
void kprobe_opt_retry_near(kprobe_opcode_t *addr)
{
	struct kprobe *site;
	unsigned int back;

	for (back = 1; back < KPROBE_OPT_REGION_MAX; back++) {
		site = get_kprobe(addr - back);
		if (site)
			kprobe_flags_clear(site, KPROBE_FLAG_OPT_REFUSED);
	}
}

/* The sysctl turned on: every refusal is looked at again. */
static void kprobe_opt_retry_all(void)
{
	struct kprobe *site;
	unsigned int i;

	for (i = 0; i < KPROBE_TABLE_SIZE; i++)
		hlist_for_each_entry(site, &kprobe_table[i], hlist)
			kprobe_flags_clear(site, KPROBE_FLAG_OPT_REFUSED);
}

/*
 * Free the dropped detours once no CPU can be running them.  A work item
 * never runs on two CPUs at once, so no two reaps overlap.
 */
static void kprobe_opt_reap_fn(struct work_struct *work)
{
	struct optimized_kprobe *op, *next;
	LIST_HEAD(dead);

	mutex_lock(&kprobe_mutex);
	list_splice_init(&kprobe_opt_dropped, &dead);
	mutex_unlock(&kprobe_mutex);
	if (list_empty(&dead))
		return;
	/* Handlers run with preemption off; the copies preemptible. */
	synchronize_rcu_mult(call_rcu, call_rcu_tasks);
	list_for_each_entry_safe(op, next, &dead, list) {
		arch_remove_optimized_kprobe(op);
		kfree(op);
	}
}

/*
 * Make @site's detour: the arch sees a copy of the site in op->kp, as it
 * would see an aggregate probe of its own, and the site itself as @orig,
 * where it may keep what it learnt of the text.  kprobe_mutex held.
 */
static int site_build_detour(struct kprobe *site)
{
	struct optimized_kprobe *op;
	int ret;

	lockdep_assert_held(&kprobe_mutex);

	op = kzalloc(sizeof(*op), GFP_KERNEL);
	if (!op)
		return -ENOMEM;
	INIT_LIST_HEAD(&op->list);
	INIT_HLIST_NODE(&op->kp.hlist);
	INIT_LIST_HEAD(&op->kp.list);
	op->kp.addr = site->addr;
	op->kp.opcode = site->opcode;
	op->kp.ainsn = site->ainsn;
	op->kp.flags = site->flags & KPROBE_FLAG_ON_FUNC_ENTRY;
	op->kp.pre_handler = opt_pre_handler;

	ret = arch_check_optimized_kprobe(op);
	if (!ret)
		ret = arch_prepare_optimized_kprobe(op, site);
	if (!ret && !arch_prepared_optinsn(&op->optinsn))
		ret = -EOPNOTSUPP;
	if (ret) {
		kfree(op);
		return ret;
	}
	/* What the arch noted in the site, its detour code reads in op->kp. */
	op->kp.ainsn = site->ainsn;
	op->epoch = kprobe_opt_epoch;
	WRITE_ONCE(site->opt, op);
	return 0;
}

/**
 * opt_pre_handler() - run the handlers of an optimized site
 * @p: the detour's kprobe (&op->kp), set as current_kprobe by the arch
 * @regs: registers as the arch's detour presents them
 *
 * The site is looked up again: the detour may outlive it, and a detour
 * whose site is gone or changed was marked disabled when it was dropped.
 * Context: the arch's detour callback, preemption off.
 * Return: 0; a detour cannot honour a redirection of regs' ip.
 */
int opt_pre_handler(struct kprobe *p, struct pt_regs *regs)
{
	struct kprobe *site;

	if (kprobe_disabled(p))
		return 0;
	site = get_kprobe(p->addr);
	if (site && !kprobe_disabled(site) && site->pre_handler)
		site->pre_handler(site, regs);
	return 0;
}

NOKPROBE_SYMBOL(opt_pre_handler);

/*
 * Build detours for the candidates in bucket @i that have none.  Returns
 * how many it built, and sets *@waiting if some detour there still waits
 * for its grace periods.  A site the arch refuses (-EOPNOTSUPP) is marked,
 * so that later passes do not decode its function again; see
 * kprobe_opt_retry_near().  kprobe_mutex held.
 */
static unsigned int kprobe_opt_prepare_bucket(unsigned int i, bool *waiting)
{
	unsigned int built = 0;
	bool text_clean = false;
	struct kprobe *site;
	int ret;

	lockdep_assert_held(&kprobe_mutex);

	hlist_for_each_entry(site, &kprobe_table[i], hlist) {
		if (!kprobe_site_opt_candidate(site) ||
		    (site->flags & KPROBE_FLAG_OPT_REFUSED))
			continue;
		if (!site->opt) {
			/*
			 * The analysis reads the text, and unregistrations
			 * may have retired jumps while the mutex was free.
			 * Only here: removing events one by one should not
			 * cost a text write per bucket.
			 */
			if (!text_clean) {
				kprobe_opt_unjump_retired();
				text_clean = true;
			}
			ret = site_build_detour(site);
			/*
			 * Only a shortage of memory, or a module still coming
			 * (the pass its going live kicks tries again), may go
			 * away by itself.
			 */
			if (ret && ret != -ENOMEM && ret != -EAGAIN)
				kprobe_flags_set(site, KPROBE_FLAG_OPT_REFUSED);
			if (ret)
				continue;
			built++;
		}
		if (site->opt->epoch >= kprobe_opt_epoch)
			*waiting = true;
	}
	if (text_clean)
		arch_publish_optimized_kprobes();
	return built;
}

/* Does kprobe_opt_poke_all(@jump) change @site?  kprobe_mutex held. */
static bool kprobe_opt_poke_wanted(struct kprobe *site, bool jump)
{
	lockdep_assert_held(&kprobe_mutex);
	if (!jump)
		return kprobe_optimized(site);
	return !kprobe_optimized(site) && kprobe_site_opt_candidate(site) &&
	       site->opt && site->opt->epoch < kprobe_opt_epoch;
}

/*
 * Write the jump of every candidate whose detour is ready (@jump), or put
 * the breakpoint back over every jump, in one batch.  kprobe_mutex held.
 */
static void kprobe_opt_poke_all(bool jump)
{
	unsigned int i, n = 0, max = 0;
	struct kprobe **sites, *site;

	lockdep_assert_held(&kprobe_mutex);

	for (i = 0; i < KPROBE_TABLE_SIZE; i++)
		hlist_for_each_entry(site, &kprobe_table[i], hlist)
			max += kprobe_opt_poke_wanted(site, jump);
	if (!max)
		return;

	sites = kvmalloc_array(max, sizeof(*sites), GFP_KERNEL);
	for (i = 0; i < KPROBE_TABLE_SIZE; i++) {
		hlist_for_each_entry(site, &kprobe_table[i], hlist) {
			if (!kprobe_opt_poke_wanted(site, jump))
				continue;
			if (sites)
				sites[n++] = site;
			else	/* no memory to sort in: slower, as correct */
				kprobe_opt_poke_sites(&site, 1, jump);
		}
	}
	kprobe_opt_poke_sites(sites, n, jump);
	kvfree(sites);
}

/*
 * How long one run of the optimizer keeps taking in new candidates before
 * it waits for its grace periods, while each of its loops still finds
 * some (enabling thousands of probes one by one).  Without it, the first
 * run waits for the few sites armed before it started, and the rest wait
 * for that run to end before theirs starts.  A bound, so that a steady
 * stream of probes still sees jumps.
 */
#define KPROBE_OPT_GATHER	HZ

static void kprobe_optimizer_fn(struct work_struct *work)
{
	unsigned long start = jiffies;
	unsigned int i, built;
	bool waiting = false;

	/*
	 * Also when no site is left for the loop below: a retired jump
	 * must not outlive the last probe in the table.
	 */
	mutex_lock(&kprobe_mutex);
	kprobe_opt_unjump_retired();
	mutex_unlock(&kprobe_mutex);

	/*
	 * A detour takes a decode of its region, a text write and, for a
	 * site not checked at registration, a decode of its whole function;
	 * at thousands of candidates that is seconds, which registrations
	 * should not wait out.  A site added to a bucket already passed
	 * kicks the work again.  As long as a loop finds new candidates,
	 * more are likely on their way: a short pause lets them join this
	 * run.
	 */
	for (;;) {
		built = 0;
		for (i = 0; i < KPROBE_TABLE_SIZE; i++) {
			if (hlist_empty(&kprobe_table[i]))
				continue;
			mutex_lock(&kprobe_mutex);
			built += kprobe_opt_prepare_bucket(i, &waiting);
			mutex_unlock(&kprobe_mutex);
			cond_resched();
		}
		/*
		 * A registration that kicked the work meanwhile queued it
		 * again: more may follow.  A lone probe goes straight on.
		 */
		if (!built || !delayed_work_pending(&kprobe_optimizer_work) ||
		    time_after(jiffies, start + KPROBE_OPT_GATHER))
			break;
		schedule_timeout_idle(KPROBE_OPTIMIZE_DELAY);
	}

	if (waiting) {
		/*
		 * Tasks may have been interrupted or preempted inside the
		 * bytes the jumps will cover; new ones go to the detours.
		 * Both grace periods run side by side.
		 */
		synchronize_rcu_mult(call_rcu, call_rcu_tasks);
		mutex_lock(&kprobe_mutex);
		kprobe_opt_epoch++;
		mutex_unlock(&kprobe_mutex);
	}

	mutex_lock(&kprobe_mutex);
	kprobe_opt_poke_all(true);
	mutex_unlock(&kprobe_mutex);
}

/*
 * Apply sysctl_kprobes_optimization: off puts every breakpoint back right
 * away (the detours stay), on queues the optimizer.  kprobe_mutex held.
 */
static void __kprobe_optimization_apply(void)
{
	lockdep_assert_held(&kprobe_mutex);
	if (sysctl_kprobes_optimization) {
		kprobe_opt_retry_all();
		kprobe_optimizer_kick();
	} else {
		kprobe_opt_poke_all(false);
	}
}

/**
 * kprobe_optimization_set() - what writing /proc/sys/debug/kprobes-optimization does
 * @on: 0 or 1
 *
 * For in-kernel users (tests) without a file to write to.
 * Context: may sleep.
 */
void kprobe_optimization_set(int on)
{
	mutex_lock(&kprobe_mutex);
	if (sysctl_kprobes_optimization != !!on) {
		sysctl_kprobes_optimization = !!on;
		__kprobe_optimization_apply();
	}
	mutex_unlock(&kprobe_mutex);
}

/**
 * wait_for_kprobe_optimizer() - wait until queued (un)optimizations are done
 *
 * Runs the optimizer now if it is queued, and returns once it finished:
 * every site that could be optimized when this was called has its jump
 * (or was refused), and dropped detours are freed.
 * Context: may sleep; not with kprobe_mutex held.
 */
void wait_for_kprobe_optimizer(void)
{
	flush_delayed_work(&kprobe_optimizer_work);
	flush_work(&kprobe_opt_reap_work);
}
EXPORT_SYMBOL_GPL(wait_for_kprobe_optimizer);

static int kprobe_proc_optimization(const struct ctl_table *table, int write,
				    void *buffer, size_t *length, loff_t *ppos)
{
	int ret, old;

	mutex_lock(&kprobe_mutex);
	old = sysctl_kprobes_optimization;
	ret = proc_dointvec_minmax(table, write, buffer, length, ppos);
	if (!ret && write && old != sysctl_kprobes_optimization)
		__kprobe_optimization_apply();
	mutex_unlock(&kprobe_mutex);
	return ret;
}

/* /proc/sys/debug/kprobes-optimization: 0 or 1 */
static struct ctl_table kprobe_sysctls[] = {
	{
		.procname	= "kprobes-optimization",
		.mode		= 0644,
		.data		= &sysctl_kprobes_optimization,
		.maxlen		= sizeof(sysctl_kprobes_optimization),
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_ONE,
		.proc_handler	= kprobe_proc_optimization,
	},
};

void __init kprobe_sysctls_init(void)
{
	if (IS_ENABLED(CONFIG_SYSCTL))
		register_sysctl_init("debug", kprobe_sysctls);
}
