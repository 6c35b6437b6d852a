// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kernel probes, architecture-independent core.
 *
 * A kprobe puts a breakpoint on one kernel instruction.  When a CPU hits it,
 * the arch trap code (kprobe_int3_handler() on x86) looks the address up in
 * the probe table, runs the probe's pre_handler, carries out the probed
 * instruction (out of line or emulated) and runs its post_handler.
 * kernel/kprobes/ owns everything that is not about an instruction set:
 *
 *   core.c                  the table, sharing an address between probes,
 *                           registration, arming, modules and __init text
 *                           going away, boot
 *   slots.c                 the out-of-line instruction slot pages
 *   blacklist.c             where no probe may go
 *   address.c               where a probe goes: a symbol and offset
 *                           resolved, the checks before anything is armed
 *   optimizer.c             jump optimization (CONFIG_OPTPROBES)
 *   ftrace.c                sites attached through ftrace
 *                           (CONFIG_KPROBES_ON_FTRACE)
 *   kretprobe.c             kretprobes and their supply of instances
 *                           (CONFIG_KRETPROBES), which come from
 *   kretprobe_rethook.c     rethook (CONFIG_KRETPROBE_ON_RETHOOK) or
 *   kretprobe_trampoline.c  the arch's own return trampoline (otherwise)
 *   debugfs.c               the debugfs files (CONFIG_DEBUG_FS)
 *   internal.h              what these files share
 *
 * Sites
 * -----
 * The table is a hash of "sites", one per probed address: the struct kprobe
 * that the arch code sees on a hit.  A site is either
 *  - a lone probe: the caller's own struct kprobe, hashed by its @hlist, or
 *  - a probe group (struct kprobe_group), created when a second probe is
 *    registered at an address.  The group's embedded kprobe is hashed; the
 *    callers' probes hang off group->members by their @list and are unhashed.
 *    The group's handlers fan out to its members, so the arch code never
 *    knows the difference.  A group lives until its last member leaves; it
 *    then owns the out-of-line slot it inherited from its first member.
 *
 * Sites on a function's ftrace call site (the __fentry__ nop) are attached
 * through ftrace rather than a breakpoint where the arch supports it
 * (KPROBE_FLAG_FTRACE): ftrace rewrites those bytes itself whenever tracers
 * come and go.  Arming such a site adds it to the filter of one of two
 * ftrace_ops (ftrace.c), whose callback is the arch's
 * kprobe_ftrace_handler().  ftrace gives a function to at most one ops that
 * declares it moves regs->ip (IPMODIFY), and livepatch needs that for every
 * function it patches; so only a site with a post_handler at the time it is
 * attached takes the IPMODIFY ops (as the post_handler has always implied
 * that the probe may steer execution), and the others share the plain ops
 * and coexist with livepatch.  Attaching can fail (-EBUSY when the function
 * is another owner's); registration and enabling then fail with it, and
 * the site is left unattached (see kprobes_arm_all() for the debugfs knob).
 *
 * Handler order in a group: members run in registration order.  Each enabled
 * member's pre_handler runs once per hit; the first one that returns
 * non-zero (it has redirected regs->ip) ends the walk, the instruction is
 * skipped and no post_handler runs.  Otherwise, after the instruction, each
 * enabled member's post_handler runs once, in the same order.  On a fault
 * the members' fault_handlers are asked in order until one claims it.
 *
 * Life of a probe (the caller's struct kprobe)
 * ---------------------------------------------
 *   unregistered --register--> armed <--disable/enable--> disabled
 *   armed/disabled --text freed--> gone --unregister--> unregistered
 *   armed/disabled --unregister--> unregistered
 *
 *  - unregistered: @hlist unhashed and @list empty.  Callers zero a new
 *    probe; unregistration puts both back in that state, so trace_kprobe can
 *    tell a registered probe by looking at them.
 *  - armed: registered, not KPROBE_FLAG_DISABLED; its site has a breakpoint
 *    unless the debugfs "enabled" knob disarmed everything.
 *  - disabled: KPROBE_FLAG_DISABLED; the site is disarmed once no member of
 *    it is enabled.
 *  - gone: KPROBE_FLAG_GONE, set when the module text or __init text
 *    holding the address is about to be freed.  The site stays in the
 *    table (so the probe still counts as registered and unregistering it
 *    later is safe) but is never found by a lookup for a hit or a new
 *    registration, and its text is never written again.
 *
 * Arming state is not stored: a site has its breakpoint written exactly when
 * site_armed() is true, and every transition below writes or removes it as
 * that predicate changes.  A transition whose arming fails (only an
 * ftrace site can) is undone, so that the predicate stays true to the text.
 *
 * Optimized sites (CONFIG_OPTPROBES, optimizer.c)
 * -----------------------------------------------
 * An armed breakpoint site with no post_handler (for a group: no member
 * with one), not attached through ftrace, while the sysctl
 * debug.kprobes-optimization is 1, is a candidate for a jump:
 *
 *   armed --optimizer prepares--> detour --optimizer, after grace periods-->
 *   optimized (KPROBE_FLAG_OPTIMIZED)
 *
 *  - detour: the arch proved the instructions at the address may be
 *    replaced by a jump and built a detour buffer that runs the handlers
 *    and copies of those instructions; the breakpoint is still there, and
 *    once the arch has written the detour (arch_publish_optimized_kprobes(),
 *    before kprobe_mutex is dropped) its hits run the detour's copies
 *    rather than the site's own slot.
 *  - optimized: the jump replaced the breakpoint.
 *  debugfs "list" shows [OPTIMIZED] from the detour state on, as tools
 *  expect it right after enabling a probe: the jump itself follows a
 *  tasks-RCU grace period later, which takes longer than a shell command.
 *  - refused (KPROBE_FLAG_OPT_REFUSED): the arch found the bytes unfit
 *    for a jump; the site stays a breakpoint and the optimizer skips it
 *    until a probe just after it leaves the table (the one reason that
 *    can go away) or the sysctl is turned on again.
 *  Only the optimizer work (kprobe_optimizer_fn()) moves a site forward.
 *  The arch's checks of the text alone are made, once, when a site that
 *  will be a candidate is registered (arch_prescan_optimized_kprobe()),
 *  before it and the later probes of its batch are armed; otherwise when
 *  the optimizer first looks at it.
 *  Back to a plain breakpoint, with the detour dropped, synchronously under
 *  kprobe_mutex: text going away, a member with a post_handler joining, a
 *  probe registered inside the bytes the jump covers.  Turning the sysctl
 *  to 0 only puts the breakpoints back (optimized -> detour); turning it
 *  to 1 requeues the optimizer.  An optimized site that is unregistered
 *  leaves the table at once, and one that is disarmed (disable, the
 *  "enabled" knob) loses its detour at once, but the jump stays behind,
 *  "retired", until the original bytes are written back, for all retired
 *  jumps at once, by whoever reads, writes or frees the text next: the
 *  optimizer (at the start of a pass and before it analyses a bucket), a
 *  registration, the arming of a breakpoint, module text going away, the
 *  "enabled" knob before it returns.  See kprobe_site_retire_jump().  An arch
 *  that cannot write those bytes without a breakpoint of its own retires
 *  only unregistered sites' jumps (KPROBE_OPT_DIRECT_UNJUMP).
 *
 * Locking
 * -------
 *  - kprobe_mutex serialises every change: the table, group membership,
 *    flags, arming, the blacklist list, module and __init text
 *    retirement, the debugfs knob.
 *  - The breakpoint path reads the table and the group member lists under
 *    RCU only (it runs in NMI-like context, where sleeping locks are out).
 *    Whatever it may be looking at is freed only after synchronize_rcu().
 *  - unregister first disarms (the arch's text write synchronises all CPUs,
 *    so no new hit can start), then unlinks, then waits one grace period:
 *    a hit that started before is either in its handlers with preemption off
 *    or stepping with interrupts off, and RCU waits for both.  A batch
 *    unregister waits once for the whole batch, and disarms its sites
 *    together first (KPROBE_FLAG_LEAVING marks them until they leave the
 *    table, so one listed twice is unlinked once).  A retired jump needs no
 *    disarming: its detour is marked disabled, and the arch's callback
 *    finds its probes through the table, under the same RCU rules, so it
 *    runs no handler once they are unlinked, or once their site, disarmed
 *    but still in the table, no longer points to that detour.
 *  - Out-of-line slots may still be executed by a preempted task after a
 *    probe is gone (a "boosted" copy runs with interrupts on), so slots are
 *    recycled only after synchronize_rcu_tasks(), in a garbage collector
 *    (slots.c).
 *  - The optimizer work (optimizer.c) takes kprobe_mutex to prepare the detours of one
 *    hash bucket at a time and to write jumps, and drops it between
 *    buckets, while it gives candidates still being armed a moment to
 *    join its run, and while it waits for the grace periods that let
 *    tasks leave the bytes to be replaced; what it does after relocking it
 *    rests only on what it finds in the table then (an epoch counter says
 *    which detours have waited long enough).  Dropped detours are freed
 *    after an RCU and a tasks-RCU grace period by a work of their own,
 *    kprobe_opt_reap_fn(), without kprobe_mutex, so that new candidates
 *    do not wait behind old detours; only wait_for_kprobe_optimizer()
 *    waits for it.
 *  - A read of debugfs "list" (or "missed") copies the table under
 *    kprobe_mutex and looks the symbols up after dropping it.
 *  - A kretprobe's instance pools grow without kprobe_mutex: a hit that
 *    takes the reserve, the worker that makes the next one and the
 *    unregistration that closes the supply order themselves by the
 *    kretprobe's own raw spinlock (see "Instance supply" in
 *    kretprobe.c); unregistration syncs the irq_work and the worker
 *    before it frees the pools.
 *  - Text is written by the arch with cpus_read_lock() and text_mutex
 *    held by the core (site_write_breakpoint(), the optimizer's batches),
 *    because backends patch through stop_machine() or check text_mutex;
 *    arch_prepare_kprobe() runs under both too.  Sites on an ftrace call
 *    site are armed through ftrace, which takes text_mutex itself.
 *  - Lock order: kprobe_mutex -> jump_label_mutex; kprobe_mutex ->
 *    cpus_read_lock -> text_mutex -> slot cache mutex.  Jumps are written
 *    with text_mutex held across the batch.
 */

#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/cpu.h>
#include <linux/export.h>
#include <linux/ftrace.h>
#include <linux/hash.h>
#include <linux/init.h>
#include <linux/kdebug.h>
#include <linux/kprobes.h>
#include <linux/memory.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <asm/sections.h>

#include "internal.h"

/*
 * get_kprobe() is on every breakpoint hit, and the x86 detour builder asks
 * it about every byte of the function it scans.  With 64 buckets, 10,000
 * probes made chains of about 150 sites and arming them seven times
 * slower; 1,024 buckets (8 KiB) keep the chains near ten entries.
 */
struct hlist_head kprobe_table[KPROBE_TABLE_SIZE];

/* Serialises every change to probes; see "Locking" above. */
DEFINE_MUTEX(kprobe_mutex);

/* Set by the debugfs "enabled" knob: every site disarmed. */
bool kprobes_all_disarmed;

/* Registration is refused until the blacklist is built. */
static bool kprobes_initialized;

#if IS_BUILTIN(CONFIG_KPROBES_SANITY_TEST)
/* The task for which kprobes_test_set_ready(false) holds. */
static struct task_struct *kprobes_test_early_task;

/**
 * kprobes_test_set_ready() - act, for this task, as if init_kprobes() had
 *	not run yet
 * @ready: false for that, true to end it
 *
 * For the KUnit suite: a registration before the blacklist exists must
 * be put off, and boot gives a test no other way to make one.  Other
 * tasks register as usual meanwhile.
 */
void kprobes_test_set_ready(bool ready)
{
	WRITE_ONCE(kprobes_test_early_task, ready ? NULL : current);
}

static bool kprobes_ready(void)
{
	return kprobes_initialized &&
	       READ_ONCE(kprobes_test_early_task) != current;
}
#else
static bool kprobes_ready(void)
{
	return kprobes_initialized;
}
#endif

/* Groups emptied by the first half of an unregistration (kprobe_mutex). */
static LIST_HEAD(kprobe_groups_to_free);

static void kprobe_group_post(struct kprobe *p, struct pt_regs *regs,
			      unsigned long flags);
static int kprobe_group_fault(struct kprobe *p, struct pt_regs *regs,
			      int trapnr);
static void site_forget(struct kprobe *site);

/*
 * What every hit runs (the lookup, the miss counters, the group and
 * kretprobe handlers) is notrace: the function tracer has no business in
 * the middle of a probe hit, and its __fentry__ nop is one more
 * instruction per hit.
 */

/**
 * get_kprobe() - find the live site at an address
 * @addr: the probed address
 *
 * Context: RCU read side (the breakpoint path runs in NMI-like context,
 * which qualifies), or kprobe_mutex held.
 * Return: the lone probe or group there, or NULL; gone sites are skipped.
 */
notrace struct kprobe *get_kprobe(void *addr)
{
	struct kprobe *site;

	hlist_for_each_entry_rcu(site, kprobe_bucket(addr), hlist,
				 lockdep_is_held(&kprobe_mutex)) {
		if (site->addr == addr && !kprobe_gone(site))
			return site;
	}
	return NULL;
}

NOKPROBE_SYMBOL(get_kprobe);

/**
 * dump_kprobe() - describe a probe in the kernel log
 * @kp: a probe, typically the one a backend found in an impossible state
 *
 * Context: any; used on the way to a BUG().
 */
void dump_kprobe(struct kprobe *kp)
{
	pr_err("probe at %pS: symbol %s, offset %u, handlers pre %ps post %ps\n",
	       kp->addr, kp->symbol_name ?: "-", kp->offset,
	       kp->pre_handler, kp->post_handler);
}

NOKPROBE_SYMBOL(dump_kprobe);

/**
 * kprobes_inc_nmissed_count() - account a hit whose handlers were skipped
 * @p: the site that was hit, or a detour's &op->kp
 *
 * Context: breakpoint or ftrace handler path.
 */
void notrace kprobes_inc_nmissed_count(struct kprobe *p)
{
	struct kprobe *member;

#ifdef CONFIG_OPTPROBES
	/* A detour's own probe (arm, powerpc) stands for its site. */
	if (p->pre_handler == opt_pre_handler) {
		p = get_kprobe(p->addr);
		if (!p)
			return;
	}
#endif
	if (kprobe_is_group(p)) {
		/* Every member saw the hit go by. */
		list_for_each_entry_rcu(member, &to_kprobe_group(p)->members, list) {
			/* Racing CPUs may lose an increment: a statistic. */
			data_race(member->nmissed++);
		}
		return;
	}
	/* Racing CPUs may lose an increment: a statistic. */
	data_race(p->nmissed++);
}

NOKPROBE_SYMBOL(kprobes_inc_nmissed_count);

/**
 * kprobes_inc_disabled_count() - account a hit that found its probe disabled
 * @p: the site that was hit; for a group, all its members were disabled
 *
 * Context: breakpoint, ftrace or detour path, for a site whose probes are
 * all disabled but which is still armed (its disarm is on the way).
 */
void notrace kprobes_inc_disabled_count(struct kprobe *p)
{
	struct kprobe *member;

	if (!kprobe_is_group(p)) {
		/* Racing CPUs may lose an increment: a statistic. */
		data_race(p->nhits_disabled++);
		return;
	}
	list_for_each_entry_rcu(member, &to_kprobe_group(p)->members, list) {
		/* Racing CPUs may lose an increment: a statistic. */
		data_race(member->nhits_disabled++);
	}
}

NOKPROBE_SYMBOL(kprobes_inc_disabled_count);

int notrace kprobe_group_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct kprobe *member;

	list_for_each_entry_rcu(member, &to_kprobe_group(p)->members, list) {
		if (kprobe_disabled(member)) {
			/* Racing CPUs may lose an increment: a statistic. */
			data_race(member->nhits_disabled++);
			continue;
		}
		if (member->pre_handler && member->pre_handler(member, regs))
			return 1;
	}
	return 0;
}

NOKPROBE_SYMBOL(kprobe_group_pre);

static void notrace kprobe_group_post(struct kprobe *p, struct pt_regs *regs,
				      unsigned long flags)
{
	struct kprobe *member;

	list_for_each_entry_rcu(member, &to_kprobe_group(p)->members, list) {
		if (kprobe_disabled(member) || !member->post_handler)
			continue;
		member->post_handler(member, regs, flags);
	}
}

NOKPROBE_SYMBOL(kprobe_group_post);

static int kprobe_group_fault(struct kprobe *p, struct pt_regs *regs,
			      int trapnr)
{
	struct kprobe *member;

	list_for_each_entry_rcu(member, &to_kprobe_group(p)->members, list) {
		if (!member->fault_handler)
			continue;
		if (member->fault_handler(member, regs, trapnr))
			return 1;
	}
	return 0;
}

NOKPROBE_SYMBOL(kprobe_group_fault);

/*
 * A placeholder current_kprobe for code that runs probe-like callbacks
 * outside the breakpoint path (fprobe, kretprobe return handlers): while it
 * is set, breakpoints hit on this CPU only count as missed.
 */
static struct kprobe kprobe_busy_marker;

/**
 * kprobe_busy_begin() - mark this CPU as running a probe handler
 *
 * Disables preemption until kprobe_busy_end().
 */
void kprobe_busy_begin(void)
{
	preempt_disable();
	__this_cpu_write(current_kprobe, &kprobe_busy_marker);
	/* Backends that check it on a nested hit must see "handler running". */
	get_kprobe_ctlblk()->kprobe_status = KPROBE_HIT_ACTIVE;
}

NOKPROBE_SYMBOL(kprobe_busy_begin);

/**
 * kprobe_busy_end() - end a kprobe_busy_begin() section
 */
void kprobe_busy_end(void)
{
	__this_cpu_write(current_kprobe, NULL);
	preempt_enable();
}

NOKPROBE_SYMBOL(kprobe_busy_end);

/* ---------------------------------------------------------------------- */
/* Arming                                                                 */
/* ---------------------------------------------------------------------- */

/*
 * Does arch_unoptimize_retired() write the original bytes straight over a
 * jump?  The default passes through a breakpoint, whose hits a site still
 * in the table would take for its own: then only unregistered sites may
 * leave their jumps behind, and disarming puts the breakpoint back first.
 */
#ifndef KPROBE_OPT_DIRECT_UNJUMP
#define KPROBE_OPT_DIRECT_UNJUMP	0
#endif

/*
 * Write or remove a site's breakpoint, or attach it to or detach it from
 * the ftrace_ops.  Backends patch text with stop_machine() (arm64, arm,
 * s390) or check that text_mutex is held (riscv), so the breakpoint
 * writes take both; ftrace takes text_mutex itself, so its sites must not.
 */
static int site_write_breakpoint(struct kprobe *site, bool arm)
{
	lockdep_assert_held(&kprobe_mutex);
	if (kprobe_ftrace(site)) {
		if (arm)
			return kprobe_ftrace_arm(site);
		kprobe_ftrace_disarm(site);
		return 0;
	}
	cpus_read_lock();
	mutex_lock(&text_mutex);
	if (arm)
		arch_arm_kprobe(site);
	else
		arch_disarm_kprobe(site);
	mutex_unlock(&text_mutex);
	cpus_read_unlock();
	return 0;
}

/* Return: 0, or why an ftrace site could not be attached (nothing done). */
static int site_arm(struct kprobe *site)
{
	int ret;

	/* This site, disabled, may have left its jump behind: see site_disarm(). */
	if (!kprobe_ftrace(site))
		kprobe_opt_unjump_retired();
	ret = site_write_breakpoint(site, true);
	if (ret)
		return ret;
	if (kprobe_site_opt_candidate(site))
		kprobe_optimizer_kick();
	return 0;
}

/*
 * Remove @site's breakpoint.  A jump is retired instead, when the arch can
 * write the original bytes back later without a breakpoint: disabling an
 * optimized probe then costs no text write and no wait for the CPUs.
 */
static void site_disarm(struct kprobe *site)
{
	if (KPROBE_OPT_DIRECT_UNJUMP && kprobe_optimized(site)) {
		kprobe_site_retire_jump(site);
		return;
	}
	kprobe_site_drop_detour(site, true);
	site_write_breakpoint(site, false);
}

/*
 * Write or remove @site's breakpoint to follow a change of site_armed().
 * Return: 0, or site_arm()'s error; the caller then undoes the change.
 */
static int site_update_arming(struct kprobe *site, bool was_armed)
{
	bool armed = site_armed(site);

	if (armed == was_armed)
		return 0;
	if (armed)
		return site_arm(site);
	site_disarm(site);
	return 0;
}

/*
 * An arch whose breakpoint writes can share one synchronisation of all
 * CPUs overrides this; the default writes them one by one.
 */
void __weak arch_disarm_kprobes(struct kprobe **sites, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		arch_disarm_kprobe(sites[i]);
}

/*
 * site_disarm() for @n sites at once: the ftrace ones leave the filter in
 * one update, the jumps are retired (or taken out in one batch of text
 * pokes), the breakpoints removed with one synchronisation.
 * Reorders @sites.  kprobe_mutex held.
 */
static void site_disarm_many(struct kprobe **sites, unsigned int n)
{
	unsigned int i, nftrace = 0, nopt = 0;
	struct kprobe **bps;
	unsigned int nbps;

	lockdep_assert_held(&kprobe_mutex);
	if (!n)
		return;

	/* ftrace sites first, then those with a jump, plain breakpoints last */
	for (i = 0; i < n; i++) {
		if (kprobe_ftrace(sites[i])) {
			swap(sites[i], sites[nftrace]);
			nftrace++;
		}
	}
	for (i = nftrace; i < n; i++) {
		if (kprobe_optimized(sites[i])) {
			swap(sites[i], sites[nftrace + nopt]);
			nopt++;
		}
	}

	kprobe_ftrace_disarm_many(sites, nftrace);
	bps = sites + nftrace;
	nbps = n - nftrace;
	if (KPROBE_OPT_DIRECT_UNJUMP) {
		for (i = 0; i < nopt; i++)
			kprobe_site_retire_jump(bps[i]);
		bps += nopt;
		nbps -= nopt;
	} else {
		/* The jumps become breakpoints again, removed with the others. */
		kprobe_opt_poke_sites(bps, nopt, false);
	}
	for (i = 0; i < nbps; i++)
		kprobe_site_drop_detour(bps[i], false);

	cpus_read_lock();
	mutex_lock(&text_mutex);
	arch_disarm_kprobes(bps, nbps);
	mutex_unlock(&text_mutex);
	cpus_read_unlock();
}

/* Recompute a group's summary state from its members.  kprobe_mutex held. */
static void kprobe_group_refresh(struct kprobe_group *grp)
{
	kprobe_post_handler_t post = NULL;
	bool all_disabled = true;
	struct kprobe *member;

	lockdep_assert_held(&kprobe_mutex);

	list_for_each_entry(member, &grp->members, list) {
		if (member->post_handler)
			post = kprobe_group_post;
		if (!(member->flags & KPROBE_FLAG_DISABLED))
			all_disabled = false;
	}
	WRITE_ONCE(grp->kp.post_handler, post);
	if (all_disabled)
		kprobe_flags_set(&grp->kp, KPROBE_FLAG_DISABLED);
	else
		kprobe_flags_clear(&grp->kp, KPROBE_FLAG_DISABLED);
}

/* ---------------------------------------------------------------------- */
/* Finding a probe's site                                                 */
/* ---------------------------------------------------------------------- */

/*
 * Find the site @p is registered at, or NULL.  Gone sites count: a gone
 * probe is still registered.  kprobe_mutex held.
 */
struct kprobe *kprobe_find_site(struct kprobe *p)
{
	struct kprobe *site, *member;

	lockdep_assert_held(&kprobe_mutex);

	if (!p->addr)
		return NULL;
	hlist_for_each_entry(site, kprobe_bucket(p->addr), hlist) {
		if (site->addr != p->addr)
			continue;
		if (site == p)
			return site;
		if (!kprobe_is_group(site))
			continue;
		list_for_each_entry(member, &to_kprobe_group(site)->members, list) {
			if (member == p)
				return site;
		}
	}
	return NULL;
}

/* ---------------------------------------------------------------------- */
/* Registration                                                           */
/* ---------------------------------------------------------------------- */

int __weak arch_prepare_kprobe_ftrace(struct kprobe *p)
{
	return -EOPNOTSUPP;
}

/*
 * Set up how @p's instruction is carried out: through ftrace where the arch
 * can do so (ftrace owns its call sites and rewrites them at will),
 * otherwise with a breakpoint.  An ftrace call site is refused where the
 * arch cannot attach to it through ftrace.
 */
static int kprobe_prepare_site(struct kprobe *p)
{
	int ret;

	/* Backends start from a zeroed @ainsn; a re-registered probe has one. */
	memset(&p->ainsn, 0, sizeof(p->ainsn));

	if (ftrace_location((unsigned long)p->addr) == (unsigned long)p->addr &&
	    !kprobe_ftrace_dead()) {
		/*
		 * ftrace rewrites these bytes whenever a tracer comes or goes,
		 * and verifies what it finds there first: a breakpoint would
		 * make it fail, or be overwritten.
		 */
		if (!IS_ENABLED(CONFIG_KPROBES_ON_FTRACE))
			return -EINVAL;
		kprobe_flags_set(p, KPROBE_FLAG_FTRACE);
		ret = arch_prepare_kprobe_ftrace(p);
		if (ret != -EOPNOTSUPP)
			return ret;
		kprobe_flags_clear(p, KPROBE_FLAG_FTRACE);
	}
	/*
	 * Backends write the slot with their text-patching helpers: riscv
	 * checks text_mutex, csky uses stop_machine().
	 */
	cpus_read_lock();
	mutex_lock(&text_mutex);
	ret = arch_prepare_kprobe(p);
	mutex_unlock(&text_mutex);
	cpus_read_unlock();
	return ret;
}

/*
 * hlist_replace_rcu() leaves the old node poisoned; readers may still be on
 * it, so keep its forward link and only mark it unhashed.
 */
static void kprobe_hlist_handover(struct hlist_node *old, struct hlist_node *new)
{
	hlist_replace_rcu(old, new);
	old->pprev = NULL;
}

/* Turn the lone probe @lone into a group with @lone as its first member. */
static struct kprobe *kprobe_make_group(struct kprobe *lone)
{
	struct kprobe_group *grp;

	grp = kzalloc(sizeof(*grp), GFP_KERNEL);
	if (!grp)
		return NULL;
	INIT_LIST_HEAD(&grp->members);
	INIT_LIST_HEAD(&grp->free_link);
	grp->kp.addr = lone->addr;
	grp->kp.opcode = lone->opcode;
	grp->kp.ainsn = lone->ainsn;
#ifdef CONFIG_OPTPROBES
	/* The detour moves with the site; @lone is a member from now on. */
	grp->kp.opt = lone->opt;
	lone->opt = NULL;
#endif
	grp->kp.flags = lone->flags &
		(KPROBE_FLAG_DISABLED | KPROBE_FLAG_ON_FUNC_ENTRY |
		 KPROBE_FLAG_FTRACE | KPROBE_FLAG_FTRACE_IPMODIFY |
		 KPROBE_FLAG_OPTIMIZED | KPROBE_FLAG_OPT_REFUSED);
	grp->kp.pre_handler = kprobe_group_pre;
	grp->kp.fault_handler = kprobe_group_fault;
	grp->kp.post_handler = lone->post_handler ? kprobe_group_post : NULL;
	INIT_HLIST_NODE(&grp->kp.hlist);
	INIT_LIST_HEAD(&grp->kp.list);

	/* Publish the member list before the group becomes reachable. */
	list_add_tail_rcu(&lone->list, &grp->members);
	kprobe_hlist_handover(&lone->hlist, &grp->kp.hlist);
	return &grp->kp;
}

/* Add @p to the live site at its address.  kprobe_mutex held. */
static int kprobe_join_site(struct kprobe *site, struct kprobe *p)
{
	bool was_armed = site_armed(site);
	int ret;

	lockdep_assert_held(&kprobe_mutex);

	/* The detour runs no post_handler: back to the breakpoint first. */
	if (p->post_handler)
		kprobe_site_drop_detour(site, true);
	if (!kprobe_is_group(site)) {
		site = kprobe_make_group(site);
		if (!site)
			return -ENOMEM;
	}
	p->opcode = site->opcode;
	p->ainsn = site->ainsn;
	kprobe_flags_set(p, site->flags & (KPROBE_FLAG_FTRACE | KPROBE_FLAG_OPTIMIZED));
	list_add_tail_rcu(&p->list, &to_kprobe_group(site)->members);
	kprobe_group_refresh(to_kprobe_group(site));
	ret = site_update_arming(site, was_armed);
	if (ret) {
		/* The caller may free @p once this fails. */
		list_del_rcu(&p->list);
		kprobe_group_refresh(to_kprobe_group(site));
		synchronize_rcu();
		return ret;
	}
	if (kprobe_site_opt_candidate(site) && !kprobe_optimized(site))
		kprobe_optimizer_kick();
	return 0;
}

int __register_kprobe(struct kprobe *p)
{
	kprobe_opcode_t *addr, *given = p->addr;
	struct module *mod = NULL;
	struct kprobe *site;
	bool on_entry = false;
	int ret;

	if (!kprobes_ready())
		return -EAGAIN;
	if (kprobe_find_site(p))
		return -EINVAL;
	/* What follows reads the text, which must show no retired jump. */
	kprobe_opt_unjump_retired();

	addr = kprobe_resolve(p->addr, p->symbol_name, p->offset, &on_entry);
	if (IS_ERR(addr))
		return PTR_ERR(addr);

	ret = kprobe_check_address((unsigned long)addr, &mod);
	if (ret)
		return ret;

	p->addr = addr;
	p->nmissed = 0;
	p->nhits_disabled = 0;
	p->flags &= KPROBE_FLAG_DISABLED;
	if (on_entry)
		kprobe_flags_set(p, KPROBE_FLAG_ON_FUNC_ENTRY);
	INIT_HLIST_NODE(&p->hlist);
	INIT_LIST_HEAD(&p->list);
#ifdef CONFIG_OPTPROBES
	p->opt = NULL;
#endif

	site = get_kprobe(addr);
	if (site) {
		ret = kprobe_join_site(site, p);
		goto out;
	}

	kprobe_opt_clear_around(addr);
	ret = kprobe_prepare_site(p);
	if (ret)
		goto out;	/* nothing to undo: arch_remove_kprobe() is not for failures */
	kprobe_site_opt_prescan(p);
	hlist_add_head_rcu(&p->hlist, kprobe_bucket(addr));
	if (site_armed(p)) {
		ret = site_arm(p);
		if (ret) {
			/* An ftrace site: it holds no slot, and never fired. */
			site_forget(p);
			synchronize_rcu();
		}
	}
out:
	if (ret) {
		p->addr = given;
		INIT_HLIST_NODE(&p->hlist);
		INIT_LIST_HEAD(&p->list);
	}
	module_put(mod);
	return ret;
}

/**
 * register_kprobe() - register and arm a probe
 * @p: the probe; see struct kprobe for what the caller fills in
 *
 * Context: may sleep.
 * Return: 0; -EINVAL for a bad request (both or neither of symbol_name and
 * addr, already registered, not kernel text, blacklisted), -ENOENT for an
 * unknown symbol or a module going away, -EILSEQ for an address inside an
 * instruction, -EOPNOTSUPP for an instruction that cannot be probed, -EBUSY
 * for text owned by jump labels or static calls, or for a function entry
 * that ftrace lets another user steer (livepatch), -ENOMEM.
 */
int register_kprobe(struct kprobe *p)
{
	int ret;

	mutex_lock(&kprobe_mutex);
	ret = __register_kprobe(p);
	mutex_unlock(&kprobe_mutex);
	return ret;
}
EXPORT_SYMBOL_GPL(register_kprobe);

/* Out of the table; anything armed there was disarmed before. */
static void site_forget(struct kprobe *site)
{
	kprobe_flags_clear(site, KPROBE_FLAG_LEAVING);
	hlist_del_rcu(&site->hlist);
	kprobe_opt_retry_near(site->addr);
}

/*
 * Take @site out of the table for good.  A breakpoint must go first (a trap
 * on one the table does not know would be taken for someone else's), a
 * jump need not.  With room in @batch, a breakpoint is left to
 * kprobe_site_batch_flush(), and the site stays in the table until then.
 * kprobe_mutex held.
 */
static void site_unhash(struct kprobe *site, bool was_armed,
			struct kprobe_site_batch *batch)
{
	lockdep_assert_held(&kprobe_mutex);
	if (kprobe_optimized(site)) {
		kprobe_site_retire_jump(site);
	} else if (was_armed) {
		if (batch && batch->sites) {
			kprobe_flags_set(site, KPROBE_FLAG_LEAVING);
			batch->sites[batch->n++] = site;
			return;
		}
		site_disarm(site);
	}
	site_forget(site);
}

/* Room for the sites of @num probes; one probe goes without a batch. */
void kprobe_site_batch_init(struct kprobe_site_batch *batch, int num)
{
	batch->n = 0;
	batch->sites = num > 1 ? kvmalloc_array(num, sizeof(*batch->sites),
						GFP_KERNEL) : NULL;
}

/* Disarm the sites left in @batch, take them out of the table, free it. */
void kprobe_site_batch_flush(struct kprobe_site_batch *batch)
{
	unsigned int i;

	site_disarm_many(batch->sites, batch->n);
	for (i = 0; i < batch->n; i++)
		site_forget(batch->sites[i]);
	kvfree(batch->sites);
	batch->sites = NULL;
	batch->n = 0;
}

/*
 * First half of unregistration: after it and kprobe_site_batch_flush(), no new
 * hit reaches @p.  Returns false if @p was not registered.  @batch holds
 * room for one site per probe being unregistered, or is NULL.
 * kprobe_mutex held.
 */
bool kprobe_detach(struct kprobe *p, struct kprobe_site_batch *batch)
{
	struct kprobe_group *grp;
	struct kprobe *site;
	bool was_armed;

	lockdep_assert_held(&kprobe_mutex);

	site = kprobe_find_site(p);
	if (!site)
		return false;
	/* Listed twice in one batch: the first did it all. */
	if (site->flags & KPROBE_FLAG_LEAVING)
		return true;

	was_armed = site_armed(site);
	/* A probe leaving may let a site it was in the way of be optimized. */
	kprobe_optimizer_kick();
	if (site == p) {
		site_unhash(p, was_armed, batch);
		return true;
	}

	grp = to_kprobe_group(site);
	list_del_rcu(&p->list);
	if (!list_empty(&grp->members)) {
		kprobe_group_refresh(grp);
		site_update_arming(site, was_armed);
		return true;
	}
	site_unhash(site, was_armed, batch);
	list_add(&grp->free_link, &kprobe_groups_to_free);
	return true;
}

/*
 * Second half, after a grace period: release what no CPU can be using any
 * more and put @p back in the unregistered state.  kprobe_mutex held.
 */
void kprobe_release(struct kprobe *p)
{
	lockdep_assert_held(&kprobe_mutex);
	if (p->hlist.pprev) {
		/* A lone site: it owned its arch resources. */
		arch_remove_kprobe(p);
		INIT_HLIST_NODE(&p->hlist);
	}
	INIT_LIST_HEAD(&p->list);
}

void kprobe_release_groups(void)
{
	struct kprobe_group *grp, *next;

	list_for_each_entry_safe(grp, next, &kprobe_groups_to_free, free_link) {
		list_del(&grp->free_link);
		arch_remove_kprobe(&grp->kp);
		kfree(grp);
	}
}

/**
 * unregister_kprobes() - unregister several probes
 * @kps: the probes
 * @num: how many
 *
 * Waits for one grace period for the whole batch; on return no CPU is
 * running any of their handlers.  Probes that are not registered are
 * skipped, and their addr is cleared.
 * Context: may sleep.
 */
void unregister_kprobes(struct kprobe **kps, int num)
{
	struct kprobe **p, **end = kps + num;
	struct kprobe_site_batch batch;

	if (num <= 0)
		return;
	kprobe_site_batch_init(&batch, num);
	mutex_lock(&kprobe_mutex);
	for (p = kps; p < end; p++) {
		/* Not registered: say so, as callers may check addr. */
		if (!kprobe_detach(*p, &batch))
			(*p)->addr = NULL;
	}
	kprobe_site_batch_flush(&batch);
	synchronize_rcu();
	for (p = kps; p < end; p++)
		kprobe_release(*p);
	kprobe_release_groups();
	mutex_unlock(&kprobe_mutex);
}
EXPORT_SYMBOL_GPL(unregister_kprobes);

/**
 * unregister_kprobe() - unregister a probe
 * @p: the probe
 *
 * Context: may sleep.
 */
void unregister_kprobe(struct kprobe *p)
{
	unregister_kprobes(&p, 1);
}
EXPORT_SYMBOL_GPL(unregister_kprobe);

/**
 * register_kprobes() - register several probes, all or none
 * @kps: the probes
 * @num: how many
 *
 * Context: may sleep.
 * Return: 0, or the first error; then none of them is registered.
 */
int register_kprobes(struct kprobe **kps, int num)
{
	int i, ret = num > 0 ? 0 : -EINVAL;

	for (i = 0; i < num && !ret; i++)
		ret = register_kprobe(kps[i]);
	/* kps[i - 1] failed and holds nothing; those before it are undone. */
	if (ret && i > 1)
		unregister_kprobes(kps, i - 1);
	return ret;
}
EXPORT_SYMBOL_GPL(register_kprobes);

/**
 * disable_kprobe() - keep a probe registered but stop its handlers
 * @kp: a registered probe
 *
 * Other probes at the same address keep running.
 * Context: may sleep.
 * Return: 0, or -EINVAL if @kp is not registered.
 */
int disable_kprobe(struct kprobe *kp)
{
	struct kprobe *site;
	bool was_armed;
	int ret = 0;

	mutex_lock(&kprobe_mutex);
	site = kprobe_find_site(kp);
	if (!site) {
		ret = -EINVAL;
		goto out;
	}
	was_armed = site_armed(site);
	kprobe_flags_set(kp, KPROBE_FLAG_DISABLED);
	if (site != kp)
		kprobe_group_refresh(to_kprobe_group(site));
	if (!kprobe_gone(site))
		site_update_arming(site, was_armed);
out:
	mutex_unlock(&kprobe_mutex);
	return ret;
}
EXPORT_SYMBOL_GPL(disable_kprobe);

/**
 * disable_kprobes() - disable several probes, writing the text once
 * @kps: the probes; those not registered are skipped
 * @num: how many
 *
 * Does what disable_kprobe() does for each, but the sites that stop being
 * armed are disarmed together: the ftrace-based ones leave the ftrace
 * filter in one update, the jumps are retired (see site_disarm()) and the
 * breakpoints removed with one synchronisation of all CPUs.
 * Turning off thousands of events costs about as much as one then.
 * Context: may sleep.
 */
void disable_kprobes(struct kprobe **kps, int num)
{
	struct kprobe **sites, *site;
	unsigned int n = 0;
	bool was_armed;
	int i;

	if (num <= 0)
		return;
	sites = kvmalloc_array(num, sizeof(*sites), GFP_KERNEL);
	mutex_lock(&kprobe_mutex);
	for (i = 0; i < num; i++) {
		site = kprobe_find_site(kps[i]);
		if (!site)
			continue;
		was_armed = site_armed(site);
		kprobe_flags_set(kps[i], KPROBE_FLAG_DISABLED);
		if (site != kps[i])
			kprobe_group_refresh(to_kprobe_group(site));
		if (kprobe_gone(site))
			continue;
		/* A site is listed once: the first member that disarms it. */
		if (!sites || !was_armed || site_armed(site))
			site_update_arming(site, was_armed);
		else
			sites[n++] = site;
	}
	site_disarm_many(sites, n);
	mutex_unlock(&kprobe_mutex);
	kvfree(sites);
}
EXPORT_SYMBOL_GPL(disable_kprobes);

/**
 * enable_kprobe() - re-enable a disabled probe
 * @kp: a registered probe
 *
 * Context: may sleep.
 * Return: 0, or -EINVAL if @kp is not registered or its text is gone, or
 * why an ftrace-based site could not be attached (-EBUSY: its function is
 * another IPMODIFY user's); @kp then stays disabled.
 */
int enable_kprobe(struct kprobe *kp)
{
	struct kprobe *site;
	bool was_armed;
	int ret = 0;

	mutex_lock(&kprobe_mutex);
	site = kprobe_find_site(kp);
	if (!site || kprobe_gone(kp)) {
		ret = -EINVAL;
		goto out;
	}
	was_armed = site_armed(site);
	kprobe_flags_clear(kp, KPROBE_FLAG_DISABLED);
	if (site != kp)
		kprobe_group_refresh(to_kprobe_group(site));
	ret = site_update_arming(site, was_armed);
	if (ret) {
		kprobe_flags_set(kp, KPROBE_FLAG_DISABLED);
		if (site != kp)
			kprobe_group_refresh(to_kprobe_group(site));
	}
out:
	mutex_unlock(&kprobe_mutex);
	return ret;
}
EXPORT_SYMBOL_GPL(enable_kprobe);

/* ---------------------------------------------------------------------- */
/* Text going away: modules, __init                                       */
/* ---------------------------------------------------------------------- */

/*
 * The text under @site is about to be freed: mark it and its members gone.
 * Module text is still mapped and patchable when the notifiers run, so its
 * sites are disarmed first (@pokeable).  The kernel's own __init text is no
 * longer core kernel text by then and its breakpoints are freed with it;
 * an ftrace-based site there is still taken out of our ftrace_ops, because
 * ftrace forgets its records of that text right after us and must not be
 * left filtering on an address it no longer knows.
 */
static void kprobe_retire_site(struct kprobe *site, bool pokeable)
{
	struct kprobe *member;

	kprobe_site_drop_detour(site, pokeable);
	if (site_armed(site) && (pokeable || kprobe_ftrace(site)))
		site_write_breakpoint(site, false);
	kprobe_flags_set(site, KPROBE_FLAG_GONE);
	if (!kprobe_is_group(site))
		return;
	list_for_each_entry(member, &to_kprobe_group(site)->members, list)
		kprobe_flags_set(member, KPROBE_FLAG_GONE);
}

static void kprobe_retire_range(bool (*inside)(unsigned long, void *),
				void *arg, bool pokeable)
{
	struct kprobe *site;
	unsigned int i;

	for (i = 0; i < KPROBE_TABLE_SIZE; i++) {
		hlist_for_each_entry(site, &kprobe_table[i], hlist) {
			if (!kprobe_gone(site) &&
			    inside((unsigned long)site->addr, arg))
				kprobe_retire_site(site, pokeable);
		}
	}
	/* Patchable text gets its bytes back, as for the live sites above. */
	if (pokeable)
		kprobe_opt_unjump_retired();
	else
		kprobe_opt_forget_retired(inside, arg);
}

#ifdef CONFIG_MODULES
static bool kprobe_in_module(unsigned long addr, void *mod)
{
	return within_module(addr, mod);
}

static bool kprobe_in_module_init(unsigned long addr, void *mod)
{
	return within_module_init(addr, mod);
}

static int kprobes_module_callback(struct notifier_block *nb,
				   unsigned long val, void *data)
{
	struct module *mod = data;

	mutex_lock(&kprobe_mutex);
	switch (val) {
	case MODULE_STATE_COMING:
		kprobe_add_module_blacklist_once(mod);
		break;
	case MODULE_STATE_LIVE:
		/* The module's __init text is freed next. */
		kprobe_retire_range(kprobe_in_module_init, mod, true);
		/* Its sites that waited for it may have a jump now. */
		kprobe_optimizer_kick();
		break;
	case MODULE_STATE_GOING:
		kprobe_retire_range(kprobe_in_module, mod, true);
		kprobe_remove_module_blacklist(mod);
		break;
	}
	mutex_unlock(&kprobe_mutex);
	return NOTIFY_DONE;
}

static struct notifier_block kprobes_module_nb = {
	.notifier_call = kprobes_module_callback,
	.priority = 0,
};

static int __init kprobes_module_notifier_init(void)
{
	return register_module_notifier(&kprobes_module_nb);
}
#else
static int __init kprobes_module_notifier_init(void)
{
	return 0;
}
#endif /* CONFIG_MODULES */

static bool kprobe_in_kernel_init(unsigned long addr, void *unused)
{
	return addr >= (unsigned long)_sinittext &&
	       addr < (unsigned long)_einittext;
}

/**
 * kprobe_free_init_mem() - retire probes on the kernel's __init text
 *
 * Called by init/main.c just before that text is freed.
 */
void kprobe_free_init_mem(void)
{
	mutex_lock(&kprobe_mutex);
	kprobe_retire_range(kprobe_in_kernel_init, NULL, false);
	mutex_unlock(&kprobe_mutex);
}

/* ---------------------------------------------------------------------- */
/* Global arm/disarm (debugfs "enabled")                                  */
/* ---------------------------------------------------------------------- */

#ifdef CONFIG_DEBUG_FS

/*
 * A site that cannot be attached when everything is armed again (an
 * ftrace site whose function livepatch owns by now) is disabled with its
 * probes, so that site_armed() stays true to the text; the others are
 * armed.  Return: the first such error.
 */
static int kprobes_arm_all(void)
{
	struct kprobe *site, *member;
	unsigned int i;
	int ret, first = 0;

	for (i = 0; i < KPROBE_TABLE_SIZE; i++) {
		hlist_for_each_entry(site, &kprobe_table[i], hlist) {
			ret = site_update_arming(site, false);
			if (!ret)
				continue;
			pr_warn("cannot arm %pS (%d): its probes are disabled\n",
				site->addr, ret);
			first = first ?: ret;
			kprobe_flags_set(site, KPROBE_FLAG_DISABLED);
			if (!kprobe_is_group(site))
				continue;
			list_for_each_entry(member,
					    &to_kprobe_group(site)->members, list)
				kprobe_flags_set(member, KPROBE_FLAG_DISABLED);
		}
	}
	return first;
}

/* Each probe's own disabled state is left alone, but see above. */
int kprobes_set_all_disarmed(bool disarm)
{
	struct kprobe *site;
	unsigned int i;
	int ret = 0;

	mutex_lock(&kprobe_mutex);
	if (kprobes_all_disarmed == disarm)
		goto out;
	kprobes_all_disarmed = disarm;
	if (disarm) {
		for (i = 0; i < KPROBE_TABLE_SIZE; i++) {
			hlist_for_each_entry(site, &kprobe_table[i], hlist)
				site_update_arming(site, !kprobe_disabled(site));
		}
		/* "Disarmed" means the text is ours no more when this returns. */
		kprobe_opt_unjump_retired();
	} else {
		ret = kprobes_arm_all();
	}
	pr_info("kprobes globally %s\n", disarm ? "disarmed" : "armed");
out:
	mutex_unlock(&kprobe_mutex);
	return ret;
}
#endif /* CONFIG_DEBUG_FS */

/* ---------------------------------------------------------------------- */
/* Boot                                                                   */
/* ---------------------------------------------------------------------- */

int __init __weak arch_init_kprobes(void)
{
	return 0;
}

/*
 * arc, mips, s390, sh and sparc reach their breakpoint and single-step
 * handlers through notify_die(); the arch's kprobe_exceptions_notify()
 * does the work.  Elsewhere nobody overrides this default.
 */
int __weak kprobe_exceptions_notify(struct notifier_block *self,
				    unsigned long val, void *data)
{
	return NOTIFY_DONE;
}

NOKPROBE_SYMBOL(kprobe_exceptions_notify);

/* First among the die notifiers: a probe's trap is nobody else's. */
static struct notifier_block kprobe_exceptions_nb = {
	.priority = INT_MAX,
	.notifier_call = kprobe_exceptions_notify,
};

static int __init init_kprobes(void)
{
	unsigned int i;
	int ret;

	for (i = 0; i < KPROBE_TABLE_SIZE; i++)
		INIT_HLIST_HEAD(&kprobe_table[i]);

	/* Without a complete blacklist, probing could recurse: stay off. */
	ret = kprobe_populate_blacklist();
	if (ret) {
		pr_err("blacklist incomplete (%d); kprobes stay off\n", ret);
		return ret;
	}

	kprobe_slots_init();

	ret = register_die_notifier(&kprobe_exceptions_nb);
	if (ret)
		return ret;

	ret = kprobes_module_notifier_init();
	if (ret)
		return ret;

	kprobe_sysctls_init();

	mutex_lock(&kprobe_mutex);
	kprobes_initialized = true;
	mutex_unlock(&kprobe_mutex);

	/* Some arches register a probe of their own here (their trampoline). */
	ret = arch_init_kprobes();
	if (ret)
		pr_err("arch_init_kprobes() failed: %d\n", ret);
	return 0;
}
early_initcall(init_kprobes);
