// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kernel probes, architecture-independent core.
 *
 * A kprobe puts a breakpoint on one kernel instruction.  When a CPU hits it,
 * the arch trap code (kprobe_int3_handler() on x86) looks the address up in
 * the probe table, runs the probe's pre_handler, carries out the probed
 * instruction (out of line or emulated) and runs its post_handler.  This file
 * owns everything that is not about an instruction set: the table, sharing
 * an address between probes, registration and its error checking, arming,
 * the blacklist, modules and __init text, kretprobes, the out-of-line slot
 * pages and the debugfs files.
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
 * ftrace_ops owned by this file, whose callback is the arch's
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
 *  - gone: KPROBE_FLAG_GONE, set when the module text or __init text holding
 *    the address is about to be freed.  The site stays in the table (so the probe still
 *    counts as registered and unregistering it later is safe) but is never
 *    found by a lookup for a hit or a new registration, and its text is never
 *    written again.
 *
 * Arming state is not stored: a site has its breakpoint written exactly when
 * site_armed() is true, and every transition below writes or removes it as
 * that predicate changes.  A transition whose arming fails (only an
 * ftrace site can) is undone, so that the predicate stays true to the text.
 *
 * Optimized sites (CONFIG_OPTPROBES)
 * ----------------------------------
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
 *  "enabled" knob before it returns.  See site_retire_jump().  An arch
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
 *    recycled only after synchronize_rcu_tasks(), in a garbage collector.
 *  - The optimizer work takes kprobe_mutex to prepare the detours of one
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
 *    kretprobe's own raw spinlock (see "Instance supply"); unregistration
 *    syncs the irq_work and the worker before it frees the pools.
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

#include <linux/kprobes.h>
#include <linux/hash.h>
#include <linux/init.h>
#include <linux/slab.h>
#include <linux/stddef.h>
#include <linux/export.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/debugfs.h>
#include <linux/sysctl.h>
#include <linux/kdebug.h>
#include <linux/memory.h>
#include <linux/ftrace.h>
#include <linux/cpu.h>
#include <linux/jump_label.h>
#include <linux/static_call.h>
#include <linux/perf_event.h>
#include <linux/execmem.h>
#include <linux/workqueue.h>
#include <linux/irq_work.h>
#include <linux/rcupdate_wait.h>
#include <linux/uaccess.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <linux/sort.h>
#include <linux/list_sort.h>

#include <asm/sections.h>

/*
 * get_kprobe() is on every breakpoint hit, and the x86 detour builder asks
 * it about every byte of the function it scans.  With 64 buckets, 10,000
 * probes made chains of about 150 sites and arming them seven times
 * slower; 1,024 buckets (8 KiB) keep the chains near ten entries.
 */
struct hlist_head kprobe_table[KPROBE_TABLE_SIZE];

/* Serialises every change to probes; see "Locking" above. */
static DEFINE_MUTEX(kprobe_mutex);

static int kprobe_ftrace_arm(struct kprobe *site);
static void site_forget(struct kprobe *site);
static void kprobe_ftrace_disarm(struct kprobe *site);
static void kprobe_ftrace_disarm_many(struct kprobe **sites, unsigned int n);

/* Set by the debugfs "enabled" knob: every site disarmed. */
static bool kprobes_all_disarmed;

/* Registration is refused until the blacklist is built. */
static bool kprobes_initialized;

#ifdef CONFIG_KPROBES_ON_FTRACE
/*
 * ftrace died: nothing may be attached through it any more, and the
 * ftrace handler ignores the probes attached already.
 */
bool kprobe_ftrace_disabled;
#else
static const bool kprobe_ftrace_disabled;
#endif

/* Text ranges no probe may go to; RCU-readable for within_kprobe_blacklist(). */
static LIST_HEAD(kprobe_blacklist);

/**
 * struct kprobe_group - the site of an address shared by several probes
 * @kp: what the table and the arch code see; its handlers fan out
 * @members: the registered probes at this address, in registration order,
 *	linked by their @list; RCU-readable
 * @free_link: link in the list of emptied groups awaiting their grace period
 */
struct kprobe_group {
	struct kprobe kp;
	struct list_head members;
	struct list_head free_link;
};

/* Groups emptied by the first half of an unregistration (kprobe_mutex). */
static LIST_HEAD(kprobe_groups_to_free);

static int kprobe_group_pre(struct kprobe *p, struct pt_regs *regs);
static void kprobe_group_post(struct kprobe *p, struct pt_regs *regs,
			      unsigned long flags);
static int kprobe_group_fault(struct kprobe *p, struct pt_regs *regs,
			      int trapnr);

static nokprobe_inline bool kprobe_is_group(struct kprobe *p)
{
	return p->pre_handler == kprobe_group_pre;
}

static nokprobe_inline struct kprobe_group *to_kprobe_group(struct kprobe *p)
{
	return container_of(p, struct kprobe_group, kp);
}

/*
 * Flags change under kprobe_mutex while hits test them (kprobe_disabled()
 * and friends read them once, marked): each change is a single store.
 */
static void kprobe_flags_set(struct kprobe *p, u32 set)
{
	lockdep_assert_held(&kprobe_mutex);
	WRITE_ONCE(p->flags, p->flags | set);
}

static void kprobe_flags_clear(struct kprobe *p, u32 clear)
{
	lockdep_assert_held(&kprobe_mutex);
	WRITE_ONCE(p->flags, p->flags & ~clear);
}

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
	return __kprobe_site_at(addr, lockdep_is_held(&kprobe_mutex));
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

static int notrace kprobe_group_pre(struct kprobe *p, struct pt_regs *regs)
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
/* Out-of-line instruction slots                                          */
/* ---------------------------------------------------------------------- */

/*
 * Slots are carved out of chunks of executable pages the arch allocates.
 * There are two caches of them: KPROBE_INSN_SLOT_SIZE slots for the
 * breakpoint path's instruction copies, and (CONFIG_OPTPROBES)
 * KPROBE_OPTINSN_SLOT_SIZE slots for jump-optimization detours.  A slot is
 * free, in use, dirty (released by its probe but possibly still executed
 * by a task that was preempted inside it) or aging (dirty when the
 * collector started waiting).  Each cache's collector runs from a work
 * item: it turns dirty slots into aging ones, waits with
 * synchronize_rcu_tasks() until every task has passed a voluntary context
 * switch (so none is inside an aging slot any more), then frees them and
 * returns empty chunks.  Nobody else ever waits for that: allocation takes
 * a new chunk rather than block behind the collector.  The chunk lists are
 * RCU-readable because unwinders (is_kprobe_insn_slot(),
 * is_kprobe_optinsn_slot()) and /proc/kallsyms walk them without the lock.
 *
 * A chunk is one page, or, for a cache whose newest chunk is full, twice
 * as many pages as that one, up to KPROBE_CHUNK_MAX_PAGES.  Mapping
 * executable pages costs, on x86, an attribute change and a TLB flush on
 * every CPU per allocation; one page at a time that was a third of the
 * optimizer's time at 10,000 probes, while a cache serving a few probes
 * should not hold more than a page.
 */
#define KPROBE_CHUNK_MAX_PAGES	4

enum kprobe_slot_state {
	KPROBE_SLOT_FREE,
	KPROBE_SLOT_USED,
	KPROBE_SLOT_DIRTY,
	KPROBE_SLOT_AGING,
};

struct kprobe_slot_chunk {
	struct list_head list;
	void *base;
	unsigned int npages;
	unsigned int nslots;
	unsigned int nused;
	struct rcu_head rcu;
	u8 state[];	/* enum kprobe_slot_state, nslots of them */
};

/**
 * struct kprobe_slot_cache - one size of out-of-line slots
 * @sym: the chunks' name in /proc/kallsyms
 * @slot_size: bytes per slot (set at boot where the arch computes it)
 * @page_alloc: the arch's one-page allocator for this cache
 * @page_free: gives back what @page_alloc returned
 * @mutex: protects the slot states and membership of @chunks
 * @chunks: struct kprobe_slot_chunk list, newest chunk first; RCU-readable
 * @gc: the collector
 */
struct kprobe_slot_cache {
	const char *sym;
	unsigned int slot_size;
	void *(*page_alloc)(void);
	void (*page_free)(void *page);
	struct mutex mutex;	/* see the kernel-doc above */
	struct list_head chunks;
	struct delayed_work gc;
};

static void kprobe_slot_gc_work_fn(struct work_struct *work);

static struct kprobe_slot_cache kprobe_insn_slots = {
	.sym = "kprobe_insn_page",
	.slot_size = KPROBE_INSN_SLOT_SIZE,
	.page_alloc = alloc_insn_page,
	.page_free = free_insn_page,
	.mutex = __MUTEX_INITIALIZER(kprobe_insn_slots.mutex),
	.chunks = LIST_HEAD_INIT(kprobe_insn_slots.chunks),
	.gc = __DELAYED_WORK_INITIALIZER(kprobe_insn_slots.gc,
					 kprobe_slot_gc_work_fn, 0),
};

#ifdef CONFIG_OPTPROBES
/*
 * x86 knows its detour size at build time; arm and powerpc measure their
 * detour template (MAX_OPTINSN_SIZE, in instructions) at run time.
 */
#ifdef KPROBE_OPTINSN_SLOT_SIZE
#define KPROBE_OPTINSN_BYTES	KPROBE_OPTINSN_SLOT_SIZE
#else
#define KPROBE_OPTINSN_BYTES	(MAX_OPTINSN_SIZE * sizeof(kprobe_opcode_t))
#endif

static struct kprobe_slot_cache kprobe_optinsn_slots = {
	.sym = "kprobe_optinsn_page",
	.page_alloc = alloc_optinsn_page,
	.page_free = free_optinsn_page,
	.mutex = __MUTEX_INITIALIZER(kprobe_optinsn_slots.mutex),
	.chunks = LIST_HEAD_INIT(kprobe_optinsn_slots.chunks),
	.gc = __DELAYED_WORK_INITIALIZER(kprobe_optinsn_slots.gc,
					 kprobe_slot_gc_work_fn, 0),
};
#endif

void * __weak alloc_insn_page(void)
{
	return execmem_alloc(EXECMEM_KPROBES, PAGE_SIZE);
}

void __weak free_insn_page(void *page)
{
	execmem_free(page);
}

#ifdef CONFIG_OPTPROBES
void * __weak alloc_optinsn_page(void)
{
	return alloc_insn_page();
}

void __weak free_optinsn_page(void *page)
{
	free_insn_page(page);
}
#endif

/*
 * Several contiguous pages, given back with one execmem_free(); NULL
 * means "one page at a time, from the cache's own allocator".
 */
void * __weak arch_alloc_insn_pages(unsigned int npages)
{
	return NULL;
}

/* Give back a chunk's pages the way they came. */
static void kprobe_slot_chunk_unmap(struct kprobe_slot_cache *c,
				    struct kprobe_slot_chunk *chunk)
{
	if (chunk->npages > 1)
		execmem_free(chunk->base);
	else
		c->page_free(chunk->base);
}

static void kprobe_slot_chunk_free_rcu(struct rcu_head *head)
{
	kfree(container_of(head, struct kprobe_slot_chunk, rcu));
}

/* Move every slot in state @from to @to; returns how many moved. */
static unsigned int kprobe_slots_move(struct kprobe_slot_cache *c,
				      enum kprobe_slot_state from,
				      enum kprobe_slot_state to)
{
	struct kprobe_slot_chunk *chunk;
	unsigned int i, moved = 0;

	lockdep_assert_held(&c->mutex);
	list_for_each_entry(chunk, &c->chunks, list) {
		for (i = 0; i < chunk->nslots; i++) {
			if (chunk->state[i] != from)
				continue;
			chunk->state[i] = to;
			if (to == KPROBE_SLOT_FREE)
				chunk->nused--;
			moved++;
		}
	}
	return moved;
}

static void kprobe_slot_gc_work_fn(struct work_struct *work)
{
	struct kprobe_slot_cache *c =
		container_of(to_delayed_work(work), struct kprobe_slot_cache, gc);
	struct kprobe_slot_chunk *chunk, *next;
	unsigned int aging;

	mutex_lock(&c->mutex);
	aging = kprobe_slots_move(c, KPROBE_SLOT_DIRTY, KPROBE_SLOT_AGING);
	mutex_unlock(&c->mutex);
	if (!aging)
		return;

	synchronize_rcu_tasks();

	mutex_lock(&c->mutex);
	kprobe_slots_move(c, KPROBE_SLOT_AGING, KPROBE_SLOT_FREE);
	list_for_each_entry_safe(chunk, next, &c->chunks, list) {
		if (chunk->nused)
			continue;
		list_del_rcu(&chunk->list);
		perf_event_ksymbol(PERF_RECORD_KSYMBOL_TYPE_OOL,
				   (unsigned long)chunk->base,
				   chunk->npages * PAGE_SIZE, true, c->sym);
		/* Readers only look at the descriptor, never into the chunk. */
		kprobe_slot_chunk_unmap(c, chunk);
		call_rcu(&chunk->rcu, kprobe_slot_chunk_free_rcu);
	}
	mutex_unlock(&c->mutex);
}

static kprobe_opcode_t *kprobe_slot_take(struct kprobe_slot_cache *c)
{
	struct kprobe_slot_chunk *chunk;
	unsigned int i;

	lockdep_assert_held(&c->mutex);
	list_for_each_entry(chunk, &c->chunks, list) {
		if (chunk->nused == chunk->nslots)
			continue;
		for (i = 0; i < chunk->nslots; i++) {
			if (chunk->state[i] != KPROBE_SLOT_FREE)
				continue;
			chunk->state[i] = KPROBE_SLOT_USED;
			chunk->nused++;
			return chunk->base + i * c->slot_size;
		}
	}
	return NULL;
}

/* Pages for a new chunk of @c: see the top of this section. */
static unsigned int kprobe_slot_chunk_pages(struct kprobe_slot_cache *c)
{
	struct kprobe_slot_chunk *newest;

	newest = list_first_entry_or_null(&c->chunks, struct kprobe_slot_chunk,
					  list);
	if (!newest)
		return 1;
	return min(newest->npages * 2, KPROBE_CHUNK_MAX_PAGES);
}

static kprobe_opcode_t *kprobe_slot_get(struct kprobe_slot_cache *c)
{
	struct kprobe_slot_chunk *chunk;
	kprobe_opcode_t *slot;
	unsigned int npages, nslots;

	mutex_lock(&c->mutex);
	slot = kprobe_slot_take(c);
	if (slot)
		goto out;

	npages = kprobe_slot_chunk_pages(c);
	nslots = npages * PAGE_SIZE / c->slot_size;
	chunk = kzalloc(struct_size(chunk, state, nslots), GFP_KERNEL);
	if (!chunk)
		goto out;
	chunk->base = npages > 1 ? arch_alloc_insn_pages(npages) : NULL;
	/*
	 * Short of a large chunk, or the arch makes them one page at a time;
	 * the state array sized for @nslots is then merely too long.
	 */
	if (!chunk->base) {
		npages = 1;
		nslots = PAGE_SIZE / c->slot_size;
		chunk->base = c->page_alloc();
	}
	if (!chunk->base) {
		kfree(chunk);
		goto out;
	}
	chunk->npages = npages;
	chunk->nslots = nslots;
	chunk->state[0] = KPROBE_SLOT_USED;
	chunk->nused = 1;
	slot = chunk->base;
	list_add_rcu(&chunk->list, &c->chunks);
	/* perf and its decoders learn of new kernel text this way. */
	perf_event_ksymbol(PERF_RECORD_KSYMBOL_TYPE_OOL,
			   (unsigned long)chunk->base, npages * PAGE_SIZE,
			   false, c->sym);
out:
	mutex_unlock(&c->mutex);
	return slot;
}

static __always_inline bool
kprobe_slot_in_chunk(const struct kprobe_slot_chunk *chunk, unsigned long addr)
{
	return addr - (unsigned long)chunk->base < chunk->npages * PAGE_SIZE;
}

static void kprobe_slot_put(struct kprobe_slot_cache *c, kprobe_opcode_t *slot,
			    bool dirty)
{
	struct kprobe_slot_chunk *chunk;
	unsigned long idx;

	mutex_lock(&c->mutex);
	list_for_each_entry(chunk, &c->chunks, list) {
		if (!kprobe_slot_in_chunk(chunk, (unsigned long)slot))
			continue;
		idx = ((void *)slot - chunk->base) / c->slot_size;
		if (WARN_ON_ONCE(chunk->state[idx] != KPROBE_SLOT_USED))
			break;
		if (dirty) {
			chunk->state[idx] = KPROBE_SLOT_DIRTY;
		} else {
			chunk->state[idx] = KPROBE_SLOT_FREE;
			chunk->nused--;
		}
		break;
	}
	mutex_unlock(&c->mutex);
	if (dirty)
		schedule_delayed_work(&c->gc, HZ);
}

static bool kprobe_slot_chunk_of(struct kprobe_slot_cache *c, unsigned long addr)
{
	struct kprobe_slot_chunk *chunk;
	bool found = false;

	rcu_read_lock();
	list_for_each_entry_rcu(chunk, &c->chunks, list) {
		if (kprobe_slot_in_chunk(chunk, addr)) {
			found = true;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

NOKPROBE_SYMBOL(kprobe_slot_chunk_of);

/**
 * get_insn_slot() - allocate an out-of-line instruction slot
 *
 * Context: may sleep.
 * Return: a KPROBE_INSN_SLOT_SIZE byte executable slot (x86 fills fresh
 * pages with int3), or NULL.
 */
kprobe_opcode_t *get_insn_slot(void)
{
	return kprobe_slot_get(&kprobe_insn_slots);
}

/**
 * free_insn_slot() - release a slot from get_insn_slot()
 * @slot: the slot
 * @dirty: non-zero if the slot may have run: it is then reused only once
 *	no task can still be executing in it; zero for a slot that never
 *	held a live copy (an error path of arch_prepare_kprobe())
 *
 * Context: may sleep.
 */
void free_insn_slot(kprobe_opcode_t *slot, int dirty)
{
	kprobe_slot_put(&kprobe_insn_slots, slot, dirty);
}

/**
 * is_kprobe_insn_slot() - is @addr inside an out-of-line slot page
 * @addr: any address
 *
 * Context: any; lockless (RCU).
 * Return: true if it is.
 */
bool is_kprobe_insn_slot(unsigned long addr)
{
	return kprobe_slot_chunk_of(&kprobe_insn_slots, addr);
}

NOKPROBE_SYMBOL(is_kprobe_insn_slot);

#ifdef CONFIG_OPTPROBES
/**
 * get_optinsn_slot() - allocate a jump-optimization detour buffer
 *
 * Context: may sleep.
 * Return: an executable slot of the arch's detour size, or NULL.
 */
kprobe_opcode_t *get_optinsn_slot(void)
{
	return kprobe_slot_get(&kprobe_optinsn_slots);
}

/**
 * free_optinsn_slot() - release a slot from get_optinsn_slot()
 * @slot: the slot
 * @dirty: as for free_insn_slot()
 *
 * Context: may sleep.
 */
void free_optinsn_slot(kprobe_opcode_t *slot, int dirty)
{
	kprobe_slot_put(&kprobe_optinsn_slots, slot, dirty);
}

/**
 * is_kprobe_optinsn_slot() - is @addr in a jump-optimization detour page
 * @addr: any address
 *
 * Context: any; lockless (RCU).
 * Return: true if it is.
 */
bool is_kprobe_optinsn_slot(unsigned long addr)
{
	return kprobe_slot_chunk_of(&kprobe_optinsn_slots, addr);
}

NOKPROBE_SYMBOL(is_kprobe_optinsn_slot);
#endif

static struct kprobe_slot_cache * const kprobe_slot_caches[] = {
	&kprobe_insn_slots,
#ifdef CONFIG_OPTPROBES
	&kprobe_optinsn_slots,
#endif
};

/**
 * kprobe_get_kallsym() - name the slot chunks in /proc/kallsyms
 * @symnum: index among the kprobes pseudo-symbols
 * @value: returns the chunk's address
 * @type: returns the symbol type
 * @sym: returns the symbol name (KSYM_NAME_LEN bytes)
 *
 * Return: 0, or -ERANGE past the last chunk.
 */
int kprobe_get_kallsym(unsigned int symnum, unsigned long *value, char *type,
		       char *sym)
{
	struct kprobe_slot_cache *c;
	struct kprobe_slot_chunk *chunk;
	unsigned int i, n = 0;
	bool found = false;

	rcu_read_lock();
	for (i = 0; i < ARRAY_SIZE(kprobe_slot_caches) && !found; i++) {
		c = kprobe_slot_caches[i];
		list_for_each_entry_rcu(chunk, &c->chunks, list) {
			if (n++ == symnum) {
				found = true;
				*value = (unsigned long)chunk->base;
				strscpy(sym, c->sym, KSYM_NAME_LEN);
				break;
			}
		}
	}
	rcu_read_unlock();
	if (!found)
		return -ERANGE;
	*type = 't';
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Blacklist                                                              */
/* ---------------------------------------------------------------------- */

static bool kprobe_within_list(unsigned long addr)
{
	struct kprobe_blacklist_entry *ent;
	bool ret = false;

	rcu_read_lock();
	list_for_each_entry_rcu(ent, &kprobe_blacklist, list) {
		if (addr >= ent->start_addr && addr < ent->end_addr) {
			ret = true;
			break;
		}
	}
	rcu_read_unlock();
	return ret;
}

bool __weak arch_within_kprobe_blacklist(unsigned long addr)
{
	return false;
}

static bool kprobe_within_ranges(unsigned long addr)
{
	if (arch_within_kprobe_blacklist(addr))
		return true;
	if (addr >= (unsigned long)__kprobes_text_start &&
	    addr < (unsigned long)__kprobes_text_end)
		return true;
	if (addr >= (unsigned long)__noinstr_text_start &&
	    addr < (unsigned long)__noinstr_text_end)
		return true;
	return kprobe_within_list(addr);
}

struct kprobe_name_count {
	unsigned int count;
	unsigned long addr;
};

static int kprobe_count_symbol(void *data, unsigned long addr)
{
	struct kprobe_name_count *c = data;

	c->count++;
	c->addr = addr;
	return 0;
}

/*
 * The suffixes GCC gives what it splits off or clones from a function.
 * Others are the function itself renamed (LTO's NAME.llvm.N and
 * NAME.lto_priv.N), or not code.
 */
static bool kprobe_part_suffix(const char *suffix)
{
	return str_has_prefix(suffix, "cold") ||
	       str_has_prefix(suffix, "part.") ||
	       str_has_prefix(suffix, "constprop.") ||
	       str_has_prefix(suffix, "isra.");
}

/**
 * kprobe_clone_parent() - the function a compiler-made part was taken from
 * @addr: a kernel or module text address
 * @unique: fail with -ENOTUNIQ if several vmlinux functions are called NAME
 *	(counting them may sleep)
 * @parent: set to that function's address on success
 *
 * GCC splits cold paths off a function (NAME.cold), outlines parts of it
 * (NAME.part.N) and clones it for constant arguments (NAME.constprop.N,
 * NAME.isra.N).  Such a part runs NAME's code, so whatever holds for NAME
 * (blacklisted, notrace) holds for it, although it is in no NOKPROBE list
 * and a .cold part has no ftrace call.  NAME is looked up in the part's
 * own module.  In vmlinux static functions of several files may share it:
 * without @unique the first is taken.  Renamed functions (NAME.llvm.N)
 * are not parts.
 * Context: any, unless @unique (process context).
 * Return: 0; -ENOENT when @addr is in no such part or NAME is not known;
 * -ENOTUNIQ as above.
 */
int kprobe_clone_parent(unsigned long addr, bool unique,
			unsigned long *parent)
{
	char name[KSYM_NAME_LEN], *dot, *modname = NULL;
	struct kprobe_name_count found = { };
	unsigned long size, offset;
	size_t mlen, nlen;

	if (!kallsyms_lookup(addr, &size, &offset, &modname, name))
		return -ENOENT;
	dot = strchr(name, '.');
	if (!dot || dot == name || !kprobe_part_suffix(dot + 1))
		return -ENOENT;
	*dot = '\0';
	if (modname) {
		/* "MOD:NAME" */
		mlen = strlen(modname);
		nlen = dot - name;
		if (mlen + 1 + nlen >= sizeof(name))
			return -ENOENT;
		memmove(name + mlen + 1, name, nlen + 1);
		memcpy(name, modname, mlen);
		name[mlen] = ':';
	} else if (unique) {
		kallsyms_on_each_match_symbol(kprobe_count_symbol, name, &found);
		if (found.count > 1)
			return -ENOTUNIQ;
		*parent = found.addr;
		return found.count ? 0 : -ENOENT;
	}
	*parent = kallsyms_lookup_name(name);
	return *parent ? 0 : -ENOENT;
}

/**
 * within_kprobe_blacklist() - may no probe be placed at @addr
 * @addr: a kernel text address
 *
 * Covers NOKPROBE_SYMBOL() functions (kernel and modules), .kprobes.text,
 * noinstr text and the ranges the arch adds, and the parts the compiler
 * split off or cloned from such a function (see kprobe_clone_parent()).
 * Also used by hw_breakpoint and kgdb to keep their breakpoints out of
 * the same code.
 * Context: any (kgdb asks with every CPU stopped); never sleeps.
 * Return: true if @addr is in blacklisted text.
 */
bool within_kprobe_blacklist(unsigned long addr)
{
	unsigned long parent;

	if (kprobe_within_ranges(addr))
		return true;
	return !kprobe_clone_parent(addr, false, &parent) &&
	       kprobe_within_ranges(parent);
}

/*
 * Blacklist the function containing @addr.  Returns the address just past
 * it, or 0 when @addr is in no known function.
 */
static unsigned long kprobe_blacklist_function(unsigned long addr, int *err)
{
	struct kprobe_blacklist_entry *ent;
	unsigned long size, offset;

	*err = 0;
	if (!kernel_text_address(addr) ||
	    !kallsyms_lookup_size_offset(addr, &size, &offset))
		return 0;
	ent = kmalloc(sizeof(*ent), GFP_KERNEL);
	if (!ent) {
		*err = -ENOMEM;
		return 0;
	}
	*ent = (struct kprobe_blacklist_entry) {
		.start_addr = addr - offset,
		.end_addr = addr - offset + max(size, 1UL),
	};
	list_add_tail_rcu(&ent->list, &kprobe_blacklist);
	return ent->end_addr;
}

/**
 * kprobe_add_ksym_blacklist() - blacklist the whole function around @entry
 * @entry: an address inside a function (normally its start)
 *
 * Context: boot, or kprobe_mutex held.
 * Return: bytes from @entry to the function's end, or a negative errno.
 */
int kprobe_add_ksym_blacklist(unsigned long entry)
{
	unsigned long end;
	int err;

	end = kprobe_blacklist_function(entry, &err);
	if (err)
		return err;
	return end ? (int)(end - entry) : -EINVAL;
}

/**
 * kprobe_add_area_blacklist() - blacklist every function in [@start, @end)
 * @start: first byte
 * @end: first byte past the area
 *
 * One entry per function, so that debugfs names each of them.
 * Context: boot, or kprobe_mutex held.
 * Return: 0 or a negative errno.
 */
int kprobe_add_area_blacklist(unsigned long start, unsigned long end)
{
	unsigned long next;
	int err;

	while (start < end) {
		next = kprobe_blacklist_function(start, &err);
		if (err)
			return err;
		/* Gaps between functions have no symbol: step over them. */
		start = next > start ? next : start + 1;
	}
	return 0;
}

int __weak arch_populate_kprobe_blacklist(void)
{
	return 0;
}

static void kprobe_add_blacklist_table(unsigned long *start, unsigned long *end)
{
	unsigned long *iter;

	for (iter = start; iter < end; iter++) {
		if (kprobe_add_ksym_blacklist(*iter) < 0)
			pr_debug("no symbol at blacklisted address %lx\n", *iter);
	}
}

static int __init kprobe_populate_blacklist(void)
{
	/* Whole sections: the breakpoint path's own code and noinstr code. */
	const struct {
		char *start;
		char *end;
	} areas[] = {
		{ __kprobes_text_start, __kprobes_text_end },
		{ __noinstr_text_start, __noinstr_text_end },
	};
	int i, ret = 0;

	kprobe_add_blacklist_table(__start_kprobe_blacklist,
				   __stop_kprobe_blacklist);
	for (i = 0; i < ARRAY_SIZE(areas) && !ret; i++)
		ret = kprobe_add_area_blacklist((unsigned long)areas[i].start,
						(unsigned long)areas[i].end);
	return ret ? ret : arch_populate_kprobe_blacklist();
}

#ifdef CONFIG_MODULES
static void kprobe_add_module_blacklist(struct module *mod)
{
	unsigned long start;

	if (mod->kprobe_blacklist)
		kprobe_add_blacklist_table(mod->kprobe_blacklist,
					   mod->kprobe_blacklist +
					   mod->num_kprobe_blacklist);
	start = (unsigned long)mod->kprobes_text_start;
	if (start)
		kprobe_add_area_blacklist(start, start + mod->kprobes_text_size);
	start = (unsigned long)mod->noinstr_text_start;
	if (start)
		kprobe_add_area_blacklist(start, start + mod->noinstr_text_size);
}

/*
 * A module's blacklist is added while it is coming, by our notifier or
 * before it by the first registration on its text: the module is in the
 * module list, and its symbols and text can be found, from the moment it
 * is COMING, and notifiers of a higher priority, or other tasks, may
 * register probes on it before ours has run.  Whoever comes second finds
 * entries of the module in the list and adds nothing.  A module with no
 * entries is looked for in vain each time, only while it is coming.
 * kprobe_mutex held.
 */
static void kprobe_add_module_blacklist_once(struct module *mod)
{
	struct kprobe_blacklist_entry *ent;

	list_for_each_entry(ent, &kprobe_blacklist, list) {
		if (within_module(ent->start_addr, mod))
			return;
	}
	kprobe_add_module_blacklist(mod);
}

static void kprobe_remove_module_blacklist(struct module *mod)
{
	struct kprobe_blacklist_entry *ent, *next;
	LIST_HEAD(dead);

	list_for_each_entry_safe(ent, next, &kprobe_blacklist, list) {
		if (!within_module(ent->start_addr, mod))
			continue;
		list_del_rcu(&ent->list);
		list_add(&ent->list, &dead);
	}
	if (list_empty(&dead))
		return;
	synchronize_rcu();
	list_for_each_entry_safe(ent, next, &dead, list)
		kfree(ent);
}
#endif /* CONFIG_MODULES */

/* ---------------------------------------------------------------------- */
/* Arming                                                                 */
/* ---------------------------------------------------------------------- */

/* Whether @site has its breakpoint written; see "Life of a probe". */
static bool site_armed(struct kprobe *site)
{
	return !kprobes_all_disarmed && !kprobe_disabled(site);
}

/*
 * Does arch_unoptimize_retired() write the original bytes straight over a
 * jump?  The default passes through a breakpoint, whose hits a site still
 * in the table would take for its own: then only unregistered sites may
 * leave their jumps behind, and disarming puts the breakpoint back first.
 */
#ifndef KPROBE_OPT_DIRECT_UNJUMP
#define KPROBE_OPT_DIRECT_UNJUMP	0
#endif

#ifdef CONFIG_OPTPROBES
int sysctl_kprobes_optimization __read_mostly = 1;

/*
 * Jump optimization
 * -----------------
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
 * that ends candidacy drops the detour (site_drop_detour()), or, for an
 * optimized site that is unregistered, retires it with its jump
 * (site_retire_jump()).  The work frees dropped detours after another pair
 * of grace periods.
 */
#define KPROBE_OPTIMIZE_DELAY	5

/* How far back from an address a detour's bytes can reach, in opcodes. */
#ifndef KPROBE_OPT_REGION_MAX
#define KPROBE_OPT_REGION_MAX	MAX_INSN_SIZE
#endif

/* Detours taken from their sites, awaiting kprobe_opt_reap_fn(); kprobe_mutex. */
static LIST_HEAD(kprobe_opt_dropped);
/*
 * Detours of sites unregistered with their jumps in place; see
 * site_retire_jump().  kprobe_mutex.
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

static void kprobe_optimizer_kick(void)
{
	schedule_delayed_work(&kprobe_optimizer_work, KPROBE_OPTIMIZE_DELAY);
}

/* Should @site carry a jump?  kprobe_mutex held. */
static bool site_opt_candidate(struct kprobe *site)
{
	lockdep_assert_held(&kprobe_mutex);
	return sysctl_kprobes_optimization && site_armed(site) &&
	       !kprobe_ftrace(site) && !site->post_handler;
}

/* [OPTIMIZED] in debugfs "list"; see the top of this file.  kprobe_mutex. */
static bool site_listed_optimized(struct kprobe *site)
{
	return kprobe_optimized(site) || (site->opt && site_opt_candidate(site));
}

/*
 * A new site that will be a candidate once armed: the arch's checks of its
 * text run now, in the registering task, before this or any later probe
 * of a batch is armed.  The optimizer would run them with the whole batch
 * armed and hit every probe on the code they call.  kprobe_mutex held.
 */
static void site_opt_prescan(struct kprobe *site)
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
static void kprobe_opt_poke_sites(struct kprobe **sites, unsigned int n,
				  bool jump)
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
static void site_drop_detour(struct kprobe *site, bool poke)
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
static void site_retire_jump(struct kprobe *site)
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
static void kprobe_opt_unjump_retired(void)
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
static void kprobe_opt_forget_retired(bool (*inside)(unsigned long, void *),
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
static void kprobe_opt_clear_around(kprobe_opcode_t *addr)
{
	struct kprobe *site;
	unsigned int back;

	for (back = 1; back < KPROBE_OPT_REGION_MAX; back++) {
		site = get_kprobe(addr - back);
		if (site && site->opt &&
		    arch_within_optimized_kprobe(site->opt, addr))
			site_drop_detour(site, true);
	}
}

/*
 * A site is leaving @addr.  Of the arch's reasons to refuse a site, only
 * another probe inside the bytes its jump would cover can change while
 * the text stays: give the sites just before @addr another analysis.
 */
static void kprobe_opt_retry_near(kprobe_opcode_t *addr)
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
static int kprobe_opt_build(struct kprobe *site)
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
		if (!site_opt_candidate(site) ||
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
			ret = kprobe_opt_build(site);
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
	return !kprobe_optimized(site) && site_opt_candidate(site) &&
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

static void __init kprobe_sysctls_init(void)
{
	if (IS_ENABLED(CONFIG_SYSCTL))
		register_sysctl_init("debug", kprobe_sysctls);
}

#else
static void kprobe_optimizer_kick(void) { }
static bool site_opt_candidate(struct kprobe *site) { return false; }
static bool site_listed_optimized(struct kprobe *site) { return false; }
static void site_opt_prescan(struct kprobe *site) { }
static void site_drop_detour(struct kprobe *site, bool poke) { }
static void kprobe_opt_clear_around(kprobe_opcode_t *addr) { }
static void kprobe_opt_retry_near(kprobe_opcode_t *addr) { }
static void site_retire_jump(struct kprobe *site) { }
static void kprobe_opt_unjump_retired(void) { }
static void __init kprobe_sysctls_init(void) { }

static void kprobe_opt_forget_retired(bool (*inside)(unsigned long, void *),
				      void *arg)
{
}

static void kprobe_opt_poke_sites(struct kprobe **sites, unsigned int n,
				  bool jump)
{
}
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
	if (site_opt_candidate(site))
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
		site_retire_jump(site);
		return;
	}
	site_drop_detour(site, true);
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
			site_retire_jump(bps[i]);
		bps += nopt;
		nbps -= nopt;
	} else {
		/* The jumps become breakpoints again, removed with the others. */
		kprobe_opt_poke_sites(bps, nopt, false);
	}
	for (i = 0; i < nbps; i++)
		site_drop_detour(bps[i], false);

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
/* Address resolution and checks                                          */
/* ---------------------------------------------------------------------- */

/**
 * kprobe_lookup_name() - address of a symbol, as kprobes resolves it
 * @name: "symbol" or "module:symbol"
 * @offset: unused; the caller adds it
 *
 * powerpc replaces it (function descriptors, local entry points).
 *
 * Return: the symbol's address, or NULL.
 */
kprobe_opcode_t * __weak kprobe_lookup_name(const char *name,
					    unsigned int offset)
{
	return (kprobe_opcode_t *)kallsyms_lookup_name(name);
}

kprobe_opcode_t * __weak arch_adjust_kprobe_addr(unsigned long addr,
						 unsigned long offset,
						 bool *on_func_entry)
{
	*on_func_entry = !offset;
	return (kprobe_opcode_t *)(addr + offset);
}

/*
 * Turn (addr, symbol, offset) into the probed address.  Exactly one of
 * @addr and @sym must be given.  A given address is taken relative to its
 * function so that the arch can move a function-start probe past an ENDBR.
 */
static kprobe_opcode_t *kprobe_resolve(kprobe_opcode_t *addr, const char *sym,
				       unsigned long offset, bool *on_entry)
{
	unsigned long base, size, symoff;

	if (!!addr == !!sym)
		return ERR_PTR(-EINVAL);

	if (sym) {
		base = (unsigned long)kprobe_lookup_name(sym, 0);
		if (!base)
			return ERR_PTR(-ENOENT);
	} else {
		base = (unsigned long)addr;
	}

	/* Express the address as "function start + offset" when we can. */
	if (!kallsyms_lookup_size_offset(base + offset, &size, &symoff)) {
		*on_entry = false;
		return (kprobe_opcode_t *)(base + offset);
	}
	base = base + offset - symoff;
	return arch_adjust_kprobe_addr(base, symoff, on_entry);
}

/**
 * kprobe_on_func_entry() - does the location name a function's entry
 * @addr: an address, or NULL when @sym is given
 * @sym: a symbol ("sym" or "mod:sym"), or NULL
 * @offset: offset from @addr or @sym
 *
 * Return: 0 when it is the entry (on IBT kernels, the ENDBR counts as part
 * of it), -EINVAL when it is not, -ENOENT when @sym is unknown.
 */
int kprobe_on_func_entry(kprobe_opcode_t *addr, const char *sym,
			 unsigned long offset)
{
	kprobe_opcode_t *where;
	bool on_entry = false;

	where = kprobe_resolve(addr, sym, offset, &on_entry);
	if (IS_ERR(where))
		return PTR_ERR(where);
	return on_entry ? 0 : -EINVAL;
}

#ifdef CONFIG_MODULES
/*
 * Once a module is live its __init text is about to be freed (or already
 * is): its probes there have been retired and no new one may come.  Drops
 * the reference the caller took when refusing.
 */
static bool kprobe_module_init_retired(struct module *mod, unsigned long addr)
{
	if (mod->state != MODULE_STATE_LIVE || !within_module_init(addr, mod))
		return false;
	module_put(mod);
	return true;
}

/* The blacklist of a module still coming may not be in the list yet. */
static void kprobe_module_blacklist_ready(struct module *mod)
{
	if (mod && mod->state == MODULE_STATE_COMING)
		kprobe_add_module_blacklist_once(mod);
}
#else
static bool kprobe_module_init_retired(struct module *mod, unsigned long addr)
{
	return false;
}

static void kprobe_module_blacklist_ready(struct module *mod)
{
}
#endif

/*
 * Preambles that kCFI and call padding put before a function, each under
 * a symbol of its own: __cfi_NAME holds the type hash that every indirect
 * caller of NAME reads and compares (a jump written over it would fail
 * them all), __pfx_NAME the padding that call-depth tracking and FineIBT
 * patch at boot.  Nothing runs them as a function's code.
 */
static bool kprobe_in_preamble(unsigned long addr)
{
	char name[KSYM_NAME_LEN];

	if (lookup_symbol_name(addr, name))
		return false;
	return str_has_prefix(name, "__cfi_") || str_has_prefix(name, "__pfx_");
}

/*
 * Can a probe go to @addr at all?  Pins the module holding the address
 * (returned in @modp) so it cannot go away while registration finishes.
 */
static int kprobe_check_address(unsigned long addr, struct module **modp)
{
	struct module *mod;
	int ret = 0;

	*modp = NULL;
	if (!core_kernel_text(addr) && !is_module_text_address(addr))
		return -EINVAL;

	preempt_disable();
	mod = __module_text_address(addr);
	if (mod && !try_module_get(mod))
		ret = -ENOENT;
	else if (mod && kprobe_module_init_retired(mod, addr))
		ret = -ENOENT;
	preempt_enable();
	if (ret)
		return ret;

	kprobe_module_blacklist_ready(mod);
	if (within_kprobe_blacklist(addr) || kprobe_in_preamble(addr)) {
		ret = -EINVAL;
	} else {
		jump_label_lock();
		if (jump_label_text_reserved((void *)addr, (void *)addr) ||
		    static_call_text_reserved((void *)addr, (void *)addr))
			ret = -EBUSY;
		jump_label_unlock();
	}
	if (ret) {
		module_put(mod);
		return ret;
	}
	*modp = mod;
	return 0;
}

/*
 * Find the site @p is registered at, or NULL.  Gone sites count: a gone
 * probe is still registered.  kprobe_mutex held.
 */
static struct kprobe *kprobe_find_site(struct kprobe *p)
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

#ifdef CONFIG_KPROBES_ON_FTRACE
/*
 * ftrace-based sites are filtered into two ftrace_ops, see "ftrace-based
 * sites" at the top; each is registered while at least one site is
 * attached to it.  kprobe_mutex serialises both.
 */
struct kprobe_ftrace_user {
	struct ftrace_ops ops;
	unsigned int attached;
};

static struct kprobe_ftrace_user kprobe_ftrace_plain __read_mostly = {
	.ops = {
		.func = kprobe_ftrace_handler,
		.flags = FTRACE_OPS_FL_SAVE_REGS,
	},
};

static struct kprobe_ftrace_user kprobe_ftrace_steering __read_mostly = {
	.ops = {
		.func = kprobe_ftrace_handler,
		.flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY,
	},
};

static struct kprobe_ftrace_user *kprobe_ftrace_user_of(struct kprobe *site)
{
	return site->flags & KPROBE_FLAG_FTRACE_IPMODIFY ?
	       &kprobe_ftrace_steering : &kprobe_ftrace_plain;
}

static int kprobe_ftrace_arm(struct kprobe *site)
{
	unsigned long ip = (unsigned long)site->addr;
	struct kprobe_ftrace_user *user;
	int ret;

	lockdep_assert_held(&kprobe_mutex);
	/* The choice holds until the site is detached; see the top. */
	if (site->post_handler)
		kprobe_flags_set(site, KPROBE_FLAG_FTRACE_IPMODIFY);
	else
		kprobe_flags_clear(site, KPROBE_FLAG_FTRACE_IPMODIFY);
	user = kprobe_ftrace_user_of(site);
	/*
	 * After ftrace_kill() every ftrace call fails, and ftrace has said
	 * why already: the site is counted, not attached, and runs no
	 * handler either way.
	 */
	if (READ_ONCE(kprobe_ftrace_disabled)) {
		user->attached++;
		return 0;
	}
	ret = ftrace_set_filter_ip(&user->ops, ip, 0, 0);
	if (ret)
		return ret;
	if (!user->attached)
		ret = register_ftrace_function(&user->ops);
	if (ret) {
		ftrace_set_filter_ip(&user->ops, ip, 1, 0);
		return ret;
	}
	user->attached++;
	return 0;
}

static void kprobe_ftrace_detach(struct kprobe_ftrace_user *user,
				 unsigned long *ips, unsigned int n)
{
	if (WARN_ON_ONCE(n > user->attached))
		n = user->attached;
	if (!n)
		return;
	user->attached -= n;
	if (READ_ONCE(kprobe_ftrace_disabled))
		return;		/* as in kprobe_ftrace_arm() */
	if (!user->attached)
		WARN_ON_ONCE(unregister_ftrace_function(&user->ops));
	WARN_ON_ONCE(ftrace_set_filter_ips(&user->ops, ips, n, 1, 0));
}

static void kprobe_ftrace_disarm(struct kprobe *site)
{
	unsigned long ip = (unsigned long)site->addr;

	lockdep_assert_held(&kprobe_mutex);
	kprobe_ftrace_detach(kprobe_ftrace_user_of(site), &ip, 1);
}

/*
 * kprobe_ftrace_disarm() for @n sites with one filter update per ops:
 * ftrace walks all its call sites on every update, so one per site made
 * disabling 2,000 function-entry events take 17 s.  Reorders @sites.
 */
static void kprobe_ftrace_disarm_many(struct kprobe **sites, unsigned int n)
{
	unsigned int i, nsteer = 0;
	unsigned long *ips;

	lockdep_assert_held(&kprobe_mutex);
	ips = n > 1 ? kvmalloc_array(n, sizeof(*ips), GFP_KERNEL) : NULL;
	if (!ips) {
		for (i = 0; i < n; i++)
			kprobe_ftrace_disarm(sites[i]);
		return;
	}
	for (i = 0; i < n; i++) {
		if (sites[i]->flags & KPROBE_FLAG_FTRACE_IPMODIFY)
			swap(sites[i], sites[nsteer++]);
	}
	for (i = 0; i < n; i++)
		ips[i] = (unsigned long)sites[i]->addr;
	kprobe_ftrace_detach(&kprobe_ftrace_steering, ips, nsteer);
	kprobe_ftrace_detach(&kprobe_ftrace_plain, ips + nsteer, n - nsteer);
	kvfree(ips);
}

#else
static int kprobe_ftrace_arm(struct kprobe *site)
{
	return -ENODEV;
}

static void kprobe_ftrace_disarm(struct kprobe *site)
{
}

static void kprobe_ftrace_disarm_many(struct kprobe **sites, unsigned int n)
{
}
#endif

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
	    !READ_ONCE(kprobe_ftrace_disabled)) {
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
		site_drop_detour(site, true);
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
	if (site_opt_candidate(site) && !kprobe_optimized(site))
		kprobe_optimizer_kick();
	return 0;
}

static int __register_kprobe(struct kprobe *p)
{
	kprobe_opcode_t *addr, *given = p->addr;
	struct module *mod = NULL;
	struct kprobe *site;
	bool on_entry = false;
	int ret;

	if (!kprobes_initialized)
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
	site_opt_prescan(p);
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

/*
 * Sites an unregistration takes out of the table whose breakpoints are
 * still to be removed: all of them at once, so that thousands of probes
 * cost one synchronisation of the CPUs, not one each.  @sites may be NULL
 * (no memory): each site is then disarmed on its own.
 */
struct site_batch {
	struct kprobe **sites;
	unsigned int n;
};

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
 * site_batch_flush(), and the site stays in the table until then.
 * kprobe_mutex held.
 */
static void site_unhash(struct kprobe *site, bool was_armed,
			struct site_batch *batch)
{
	lockdep_assert_held(&kprobe_mutex);
	if (kprobe_optimized(site)) {
		site_retire_jump(site);
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
static void site_batch_init(struct site_batch *batch, int num)
{
	batch->n = 0;
	batch->sites = num > 1 ? kvmalloc_array(num, sizeof(*batch->sites),
						GFP_KERNEL) : NULL;
}

/* Disarm the sites left in @batch, take them out of the table, free it. */
static void site_batch_flush(struct site_batch *batch)
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
 * First half of unregistration: after it and site_batch_flush(), no new
 * hit reaches @p.  Returns false if @p was not registered.  @batch holds
 * room for one site per probe being unregistered, or is NULL.
 * kprobe_mutex held.
 */
static bool kprobe_detach(struct kprobe *p, struct site_batch *batch)
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
static void kprobe_release(struct kprobe *p)
{
	lockdep_assert_held(&kprobe_mutex);
	if (p->hlist.pprev) {
		/* A lone site: it owned its arch resources. */
		arch_remove_kprobe(p);
		INIT_HLIST_NODE(&p->hlist);
	}
	INIT_LIST_HEAD(&p->list);
}

static void kprobe_release_groups(void)
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
	struct site_batch batch;

	if (num <= 0)
		return;
	site_batch_init(&batch, num);
	mutex_lock(&kprobe_mutex);
	for (p = kps; p < end; p++) {
		/* Not registered: say so, as callers may check addr. */
		if (!kprobe_detach(*p, &batch))
			(*p)->addr = NULL;
	}
	site_batch_flush(&batch);
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
/* Kretprobes                                                             */
/* ---------------------------------------------------------------------- */

#ifdef CONFIG_KRETPROBES

static inline void *kretprobe_newest(struct kretprobe *rp);
static __always_inline struct kretprobe_instance *
kretprobe_pool_take(void *pool);
static struct kretprobe_instance *kretprobe_take_spare(struct kretprobe *rp,
						       void *tried);

/*
 * An instance for a call that is starting, from the newest pool in the
 * common case, else a spare (see "Instance supply" below); NULL, counted,
 * when there is none.
 */
static __always_inline struct kretprobe_instance *
kretprobe_take(struct kretprobe *rp)
{
	void *newest = kretprobe_newest(rp);
	struct kretprobe_instance *ri = kretprobe_pool_take(newest);

	if (likely(ri))
		return ri;
	ri = kretprobe_take_spare(rp, newest);
	if (unlikely(!ri)) {
		/* Racing CPUs may lose an increment: a statistic. */
		data_race(rp->nmissed_no_instance++);
		/* Racing CPUs may lose an increment: a statistic. */
		data_race(rp->nmissed++);
	}
	return ri;
}

#ifdef CONFIG_KRETPROBE_ON_RETHOOK

/*
 * A kretprobe is a kprobe on the function entry whose pre_handler takes an
 * instance from the kretprobe's rethook pool and diverts the return address
 * to the rethook trampoline.  The rethook keeps the real return address on
 * the task's shadow list, which is also what unwinders consult, so stack
 * traces through a diverted return still show the real caller.
 */
static int notrace kretprobe_entry(struct kprobe *p, struct pt_regs *regs)
{
	struct kretprobe *rp = container_of(p, struct kretprobe, kp);
	struct kretprobe_instance *ri = kretprobe_take(rp);
	bool follow;

	if (unlikely(!ri))
		return 0;
	ri->task = current;
	follow = !rp->entry_handler || !rp->entry_handler(ri, regs);
	if (follow)
		rethook_hook(&ri->node, regs, kprobe_ftrace(p));
	else
		rethook_recycle(&ri->node);
	return 0;
}

NOKPROBE_SYMBOL(kretprobe_entry);

/*
 * Called by rethook with preemption off when a followed call returns.  The
 * entry probe is this CPU's running probe meanwhile, so probes hit inside
 * the handler are only counted as missed.
 */
static void notrace kretprobe_return(struct rethook_node *rhn, void *data,
				     unsigned long ret_addr,
				     struct pt_regs *regs)
{
	struct kretprobe *rp = data;
	struct kprobe *outer;

	if (!rp || !rp->handler)
		return;
	/*
	 * A return inside another probe's handler must not recurse.  On
	 * powerpc the rethook trampoline is itself a probe, whose handler
	 * brings us here: that one does not count.
	 */
	outer = kprobe_running();
	if (unlikely(outer) &&
	    !is_rethook_trampoline((unsigned long)outer->addr)) {
		/* Racing CPUs may lose an increment: a statistic. */
		data_race(rp->nmissed_return_busy++);
		/* Racing CPUs may lose an increment: a statistic. */
		data_race(rp->nmissed++);
		return;
	}
	__this_cpu_write(current_kprobe, &rp->kp);
	rp->handler(container_of(rhn, struct kretprobe_instance, node), regs);
	__this_cpu_write(current_kprobe, outer);
}

NOKPROBE_SYMBOL(kretprobe_return);

/* A pool of @num instances for @rp, or an ERR_PTR(). */
static void *kretprobe_pool_new(struct kretprobe *rp, int num)
{
	return rethook_alloc(rp, kretprobe_return,
			     sizeof(struct kretprobe_instance) + rp->data_size,
			     num);
}

static inline void *kretprobe_newest(struct kretprobe *rp)
{
	return READ_ONCE(rp->rh);
}

/*
 * rethook_try_get() returns nothing from a stopped pool: its handler is
 * cleared first (see kretprobe_pool_stop()).
 */
static __always_inline struct kretprobe_instance *
kretprobe_pool_take(void *pool)
{
	struct rethook_node *rhn = rethook_try_get(pool);

	return rhn ? container_of(rhn, struct kretprobe_instance, node) : NULL;
}

/* The pool entries take from first. */
static void kretprobe_set_newest(struct kretprobe *rp, void *pool)
{
	WRITE_ONCE(rp->rh, pool);
}

NOKPROBE_SYMBOL(kretprobe_set_newest);

/* Returns still in flight through @pool skip the handler from now on. */
static void kretprobe_pool_stop(void *pool)
{
	struct rethook *rh = pool;

	rethook_stop(rh);
	WRITE_ONCE(rh->data, NULL);
}

/*
 * After a grace period since kretprobe_pool_stop(); instances still out
 * are freed by rethook when their calls return.
 */
static void kretprobe_pool_free(void *pool)
{
	rethook_free(pool);
}

#else /* !CONFIG_KRETPROBE_ON_RETHOOK */

/*
 * Architectures without rethook divert returns themselves.  Each
 * kretprobe owns a pool of instances (struct kretprobe_pool, an objpool:
 * lockless, usable from any context).  The entry probe takes one, lets
 * arch_prepare_kretprobe() save the real return address in it and point
 * the return at __kretprobe_trampoline, and pushes it on the calling
 * task's kretprobe_instances list.  That list is a stack only its own
 * task (and interrupts nested on it, which push and pop in pairs) ever
 * changes, so plain llist operations do.
 *
 * Instances outlive their kretprobe when calls are still in flight at
 * unregistration: pool->rp goes NULL first, and after a grace period the
 * pool is finished with objpool_fini().  An instance coming back later
 * is dropped instead of pushed (objpool_drop()), and the last one frees
 * the pool.  Whoever gives one back does so inside an RCU read-side
 * section, so it either saw pool->rp and pushed before the fini, or saw
 * NULL.
 */
struct kretprobe_pool {
	struct kretprobe __rcu *rp;
	struct objpool_head objpool;
};

/* parisc also puts the real return address back in a register here. */
void __weak arch_kretprobe_fixup_return(struct pt_regs *regs,
					kprobe_opcode_t *correct_ret_addr)
{
}

/* objpool's last reference is gone: the pool around it goes too. */
static int kretprobe_pool_release(struct objpool_head *head, void *unused)
{
	kfree(container_of(head, struct kretprobe_pool, objpool));
	return 0;
}

/**
 * kretprobe_of_instance() - the kretprobe an instance belongs to
 * @ri: an instance
 *
 * Context: RCU read side (kretprobe handlers qualify).
 * Return: the kretprobe, or NULL once it is being unregistered.
 */
struct kretprobe *kretprobe_of_instance(struct kretprobe_instance *ri)
{
	return rcu_dereference_check(ri->pool->rp, rcu_read_lock_any_held());
}

NOKPROBE_SYMBOL(kretprobe_of_instance);

/* Back to its pool, or to the pool's end if the kretprobe is gone. */
static void kretprobe_recycle(struct kretprobe_instance *ri)
{
	struct kretprobe_pool *pool = ri->pool;

	rcu_read_lock();
	if (rcu_dereference(pool->rp))
		objpool_push(ri, &pool->objpool);
	else
		objpool_drop(ri, &pool->objpool);
	rcu_read_unlock();
}

NOKPROBE_SYMBOL(kretprobe_recycle);

static int notrace kretprobe_entry(struct kprobe *p, struct pt_regs *regs)
{
	struct kretprobe *rp = container_of(p, struct kretprobe, kp);
	struct kretprobe_instance *ri = kretprobe_take(rp);

	if (unlikely(!ri))
		return 0;
	ri->task = current;
	if (rp->entry_handler && rp->entry_handler(ri, regs)) {
		objpool_push(ri, &ri->pool->objpool);
		return 0;
	}
	arch_prepare_kretprobe(ri, regs);
	__llist_add(&ri->llist, &current->kretprobe_instances);
	return 0;
}

NOKPROBE_SYMBOL(kretprobe_entry);

/*
 * The instance of the call returning now: the newest one made from
 * @frame_pointer, or simply the newest when the arch keeps no frame.
 * Newer ones with another frame belong to calls that will never return
 * through the trampoline (their frames were abandoned).
 */
static struct llist_node *kretprobe_match(struct llist_node *node,
					  void *frame_pointer)
{
	struct kretprobe_instance *ri;

	for (; node; node = node->next) {
		ri = container_of(node, struct kretprobe_instance, llist);
		if (!frame_pointer || ri->fp == frame_pointer)
			return node;
	}
	return NULL;
}

NOKPROBE_SYMBOL(kretprobe_match);

/**
 * __kretprobe_trampoline_handler() - run the handler of a diverted return
 * @regs: registers at the trampoline
 * @frame_pointer: the returning call's frame, as saved in @ri->fp, or NULL
 *
 * Sets regs' instruction pointer to the real return address for the
 * handler, runs it with the kretprobe as current_kprobe, and gives the
 * instance (and any abandoned newer ones) back.  Without a matching
 * instance the return address is lost, and the kernel cannot go on.
 * Context: the arch's trampoline path, preemption off; the caller has
 * marked this CPU busy (kretprobe_trampoline_handler()) or runs as a
 * probe handler itself.
 * Return: the real return address.
 */
unsigned long __kretprobe_trampoline_handler(struct pt_regs *regs,
					     void *frame_pointer)
{
	struct llist_head *stack = &current->kretprobe_instances;
	struct llist_node *node, *match, *next;
	struct kretprobe_instance *ri;
	struct kprobe *outer;
	struct kretprobe *rp;
	unsigned long ret;

	node = stack->first;
	match = kretprobe_match(node, frame_pointer);
	/* There is no way back to the caller without its address. */
	if (unlikely(!match))
		panic("kretprobe: a diverted return has no instance\n");
	ri = container_of(match, struct kretprobe_instance, llist);
	ret = (unsigned long)ri->ret_addr;

	instruction_pointer_set(regs, ret);
	arch_kretprobe_fixup_return(regs, ri->ret_addr);
	/*
	 * The instance stays on the list while the handler runs: a stack
	 * trace taken there unwinds through the trampoline with its help.
	 * No other instance can come or go meanwhile, as this CPU counts as
	 * running a probe.
	 */
	rp = kretprobe_of_instance(ri);
	if (rp && rp->handler) {
		outer = kprobe_running();
		__this_cpu_write(current_kprobe, &rp->kp);
		rp->handler(ri, regs);
		__this_cpu_write(current_kprobe, outer);
	}
	stack->first = match->next;

	for (; node != match->next; node = next) {
		next = node->next;
		kretprobe_recycle(container_of(node, struct kretprobe_instance,
					       llist));
	}
	return ret;
}

NOKPROBE_SYMBOL(__kretprobe_trampoline_handler);

/**
 * kretprobe_find_ret_addr() - the real return address behind a trampoline
 * @tsk: the task whose stack is being unwound (current, or one that
 *	cannot run meanwhile)
 * @fp: the frame the unwinder is at, or NULL to take the next instance
 * @cur: the unwinder's cursor: NULL to start with the newest instance;
 *	moved past the one found
 *
 * Return: the return address saved for the next diverted call made from
 * @fp, or 0 if there is none.
 */
unsigned long kretprobe_find_ret_addr(struct task_struct *tsk, void *fp,
				      struct llist_node **cur)
{
	struct llist_node *node;

	node = *cur ? (*cur)->next : READ_ONCE(tsk->kretprobe_instances.first);
	node = kretprobe_match(node, fp);
	if (!node)
		return 0;
	*cur = node;
	return (unsigned long)container_of(node, struct kretprobe_instance,
					   llist)->ret_addr;
}

NOKPROBE_SYMBOL(kretprobe_find_ret_addr);

/**
 * kprobe_flush_task() - give back the instances of an exiting task
 * @tk: a task that will never run again
 *
 * Context: called by kernel/exit.c when the task is freed.
 */
void kprobe_flush_task(struct task_struct *tk)
{
	struct llist_node *node, *next;

	node = llist_del_all(&tk->kretprobe_instances);
	for (; node; node = next) {
		next = node->next;
		kretprobe_recycle(container_of(node, struct kretprobe_instance,
					       llist));
	}
}

NOKPROBE_SYMBOL(kprobe_flush_task);

/* A pool of @num instances for @rp, or an ERR_PTR(). */
static void *kretprobe_pool_new(struct kretprobe *rp, int num)
{
	struct kretprobe_pool *pool;

	pool = kzalloc(sizeof(*pool), GFP_KERNEL);
	if (!pool)
		return ERR_PTR(-ENOMEM);
	RCU_INIT_POINTER(pool->rp, rp);
	if (objpool_init(&pool->objpool, num,
			 sizeof(struct kretprobe_instance) + rp->data_size,
			 GFP_KERNEL, NULL, NULL, kretprobe_pool_release)) {
		kfree(pool);
		return ERR_PTR(-ENOMEM);
	}
	return pool;
}

static inline void *kretprobe_newest(struct kretprobe *rp)
{
	return READ_ONCE(rp->pool);
}

static __always_inline struct kretprobe_instance *
kretprobe_pool_take(void *pool)
{
	struct kretprobe_pool *krp = pool;
	struct kretprobe_instance *ri = objpool_pop(&krp->objpool);

	if (ri)
		ri->pool = krp;
	return ri;
}

/* The pool entries take from first. */
static void kretprobe_set_newest(struct kretprobe *rp, void *pool)
{
	WRITE_ONCE(rp->pool, pool);
}

NOKPROBE_SYMBOL(kretprobe_set_newest);

/* Returns still in flight through @pool skip the handler from now on. */
static void kretprobe_pool_stop(void *pool)
{
	rcu_assign_pointer(((struct kretprobe_pool *)pool)->rp, NULL);
}

/*
 * After a grace period since kretprobe_pool_stop(); instances still out
 * are dropped as their calls return, and the last one frees the pool.
 */
static void kretprobe_pool_free(void *pool)
{
	objpool_fini(&((struct kretprobe_pool *)pool)->objpool);
}

#endif /* CONFIG_KRETPROBE_ON_RETHOOK */

/*
 * Instance supply.  A call is followed only with a free instance, and a
 * fixed pool of maxactive ones drops the returns of sleeping or deeply
 * recursive functions.  So a kretprobe has a list of pools: the first of
 * maxactive instances, then each new one as large as all before it (at
 * least KRETPROBE_MIN_SPARES), up to the limits below.
 *
 * Memory: a pool is an objpool, which takes, for every possible CPU, one
 * vmalloc'ed area (a page at least) for a ring of pointers to all of the
 * pool's objects (rounded up to a power of two) and that CPU's share of
 * the objects (kretprobe_pool_bytes()).  So every pool costs at least a
 * page per possible CPU, 1 MiB on 256 of them, whatever it holds:
 *  - the default maxactive, max(10, 2 * possible CPUs), is one pool,
 *    grown to as many instances as its pages hold anyway, and gets its
 *    reserve only when a call first finds it empty;
 *  - an explicit maxactive gets exactly that first pool, and a reserve of
 *    KRETPROBE_MIN_SPARES with it, as the caller asked for a small pool
 *    and expects growth;
 *  - growth stops once the pools would cost KRETPROBE_GROWTH_BUDGET more
 *    than those made at registration, or hold KRETPROBE_INSTANCE_LIMIT
 *    instances (or maxactive, if larger), or number KRETPROBE_MAX_POOLS.
 *
 * A hit takes from the newest pool (rp->rh or rp->pool), and only when it
 * is empty goes to kretprobe_take_spare(): older pools first, as their
 * instances come back to them, then the reserve, a pool made ready
 * beforehand.  The hit that takes the reserve makes it the newest pool
 * and kicks kretprobe_grow() (through an irq_work, as hits may come in
 * NMI) to allocate the next reserve in process context.  So no hit waits
 * for an allocation, and a call is missed only when demand outruns that
 * worker, or at the limit; such misses count in nmissed.
 *
 * The lock orders who takes the reserve, who publishes the next one and
 * the unregistration that closes the supply; it is held for a few stores,
 * never in the common hit path.
 */
#define KRETPROBE_MAX_POOLS	12
#define KRETPROBE_MIN_SPARES	16
#define KRETPROBE_INSTANCE_LIMIT	4096
#define KRETPROBE_GROWTH_BUDGET	SZ_1M

struct kretprobe_spares {
	struct kretprobe *rp;
	raw_spinlock_t lock;
	unsigned int nr_pools;		/* in use, oldest first */
	unsigned int nr_stopped;	/* stopped at unregistration */
	void *pools[KRETPROBE_MAX_POOLS];
	void *reserve;
	void *retired;			/* the reserve left at unregistration */
	int total;			/* instances in all pools and the reserve */
	int limit;
	size_t bytes;			/* what they cost (kretprobe_pool_bytes()) */
	size_t budget;			/* what they may cost */
	size_t each;			/* bytes of one instance */
	bool closing;
	bool full;			/* the limit is reached: no more kicks */
	struct irq_work kick;
	struct work_struct grow;
};

/*
 * With s->lock held: make the reserve the newest pool and take from it, or
 * take from the pool another CPU added since this one counted @nr.
 */
static struct kretprobe_instance *kretprobe_take_reserve(struct kretprobe *rp,
							 unsigned int nr)
{
	struct kretprobe_spares *s = rp->spares;
	void *pool = s->reserve;

	if (pool) {
		/* kretprobe_make_reserve() looks at it without the lock. */
		WRITE_ONCE(s->reserve, NULL);
		s->pools[s->nr_pools] = pool;
		/* Lockless readers below see the slot before the count. */
		smp_store_release(&s->nr_pools, s->nr_pools + 1);
		kretprobe_set_newest(rp, pool);
		return kretprobe_pool_take(pool);
	}
	if (s->nr_pools != nr)
		return kretprobe_pool_take(s->pools[s->nr_pools - 1]);
	return NULL;
}

NOKPROBE_SYMBOL(kretprobe_take_reserve);

static struct kretprobe_instance *kretprobe_take_spare(struct kretprobe *rp,
						       void *tried)
{
	struct kretprobe_spares *s = rp->spares;
	struct kretprobe_instance *ri = NULL;
	unsigned long flags;
	unsigned int i, nr;
	void *pool;

	/* Pairs with the release above: pools[] up to nr are filled in. */
	nr = smp_load_acquire(&s->nr_pools);
	for (i = nr; i-- > 0;) {
		pool = READ_ONCE(s->pools[i]);
		if (pool != tried) {
			ri = kretprobe_pool_take(pool);
			if (ri)
				return ri;
		}
	}
	/* An NMI may have interrupted the lock's holder: it only tries. */
	if (!in_nmi()) {
		raw_spin_lock_irqsave(&s->lock, flags);
		ri = kretprobe_take_reserve(rp, nr);
		raw_spin_unlock_irqrestore(&s->lock, flags);
	} else if (raw_spin_trylock_irqsave(&s->lock, flags)) {
		ri = kretprobe_take_reserve(rp, nr);
		raw_spin_unlock_irqrestore(&s->lock, flags);
	}
	/* Without irq_work (!SMP, !PRINTK) the supply stays as registered. */
	if (IS_ENABLED(CONFIG_IRQ_WORK) && !READ_ONCE(s->full))
		irq_work_queue(&s->kick);
	return ri;
}

NOKPROBE_SYMBOL(kretprobe_take_spare);

/*
 * What objpool_init() allocates for a pool of @num objects of @each bytes,
 * by the layout it documents: for every possible CPU, one vmalloc'ed area
 * with a ring of roundup_pow_of_two(@num) pointers after a small header,
 * and that CPU's share of the objects.  An estimate for sizing, not an
 * account: the header is taken as two pointers.
 */
static size_t kretprobe_pool_bytes(int num, size_t each)
{
	unsigned int cpus = num_possible_cpus();
	size_t area = (roundup_pow_of_two(num) + 2) * sizeof(void *) +
		      DIV_ROUND_UP(num, cpus) * ALIGN(each, sizeof(long));

	return cpus * PAGE_ALIGN(area);
}

/* @num, or more if a pool of more costs no more pages. */
static int kretprobe_fill_pool(int num, size_t each)
{
	while (num < KRETPROBE_INSTANCE_LIMIT &&
	       kretprobe_pool_bytes(2 * num, each) <=
	       kretprobe_pool_bytes(num, each))
		num *= 2;
	return num;
}

/*
 * Allocates a reserve of up to @num instances unless there is one, the
 * kretprobe is being unregistered, or the limit is reached.  Process
 * context.
 */
static int kretprobe_make_reserve(struct kretprobe_spares *s, int num)
{
	unsigned long flags;
	size_t bytes;
	void *pool;

	if (READ_ONCE(s->reserve) || READ_ONCE(s->closing))
		return 0;
	num = min(num, s->limit - s->total);
	if (num <= 0 || READ_ONCE(s->nr_pools) >= KRETPROBE_MAX_POOLS)
		goto full;
	/* A smaller pool may still fit the budget, down to the floor. */
	bytes = kretprobe_pool_bytes(num, s->each);
	while (num > KRETPROBE_MIN_SPARES && s->bytes + bytes > s->budget) {
		num /= 2;
		bytes = kretprobe_pool_bytes(num, s->each);
	}
	if (s->bytes + bytes > s->budget)
		goto full;
	pool = kretprobe_pool_new(s->rp, num);
	if (IS_ERR(pool))
		return PTR_ERR(pool);
	raw_spin_lock_irqsave(&s->lock, flags);
	if (!s->closing && !s->reserve) {
		s->total += num;
		s->bytes += bytes;
		WRITE_ONCE(s->reserve, pool);
		pool = NULL;
	}
	raw_spin_unlock_irqrestore(&s->lock, flags);
	if (pool)
		kretprobe_pool_free(pool);
	return 0;
full:
	WRITE_ONCE(s->full, true);
	return 0;
}

/* A failed allocation is tried again at the next miss. */
static void kretprobe_grow(struct work_struct *work)
{
	struct kretprobe_spares *s = container_of(work, struct kretprobe_spares,
						  grow);

	kretprobe_make_reserve(s, max(s->total, KRETPROBE_MIN_SPARES));
}

/*
 * A high priority worker: in a burst of new callers (thread creation,
 * recursion) an ordinary one competes with those very tasks for the CPU,
 * and the reserve ran dry before it was scheduled.
 */
static void kretprobe_kick(struct irq_work *work)
{
	queue_work(system_highpri_wq,
		   &container_of(work, struct kretprobe_spares, kick)->grow);
}

/* The first pool of @num instances, and a reserve of @spare (or none). */
static int kretprobe_alloc_instances(struct kretprobe *rp, int num, int spare)
{
	struct kretprobe_spares *s;
	void *pool;
	int ret = 0;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	pool = kretprobe_pool_new(rp, num);
	if (IS_ERR(pool)) {
		kfree(s);
		return PTR_ERR(pool);
	}
	s->rp = rp;
	raw_spin_lock_init(&s->lock);
	s->pools[0] = pool;
	s->nr_pools = 1;
	s->total = num;
	s->limit = max(num + spare, KRETPROBE_INSTANCE_LIMIT);
	s->each = sizeof(struct kretprobe_instance) + rp->data_size;
	s->bytes = kretprobe_pool_bytes(num, s->each);
	s->budget = s->bytes + KRETPROBE_GROWTH_BUDGET;
	init_irq_work(&s->kick, kretprobe_kick);
	INIT_WORK(&s->grow, kretprobe_grow);
	kretprobe_set_newest(rp, pool);
	rp->spares = s;
	if (spare) {
		s->budget += kretprobe_pool_bytes(spare, s->each);
		ret = kretprobe_make_reserve(s, spare);
	}
	if (ret) {
		kretprobe_pool_free(pool);
		kfree(s);
		rp->spares = NULL;
		kretprobe_set_newest(rp, NULL);
	}
	return ret;
}

/*
 * Returns still in flight skip the handler from now on, and no pool is
 * added any more.  Hits may still be running: one that took the reserve
 * just before may add a pool after this; kretprobe_free_instances() stops
 * that one.
 */
static void kretprobe_stop_instances(struct kretprobe *rp)
{
	struct kretprobe_spares *s = rp->spares;
	unsigned long flags;
	unsigned int i, nr;

	if (!s)
		return;
	raw_spin_lock_irqsave(&s->lock, flags);
	WRITE_ONCE(s->closing, true);
	if (s->reserve) {
		s->retired = s->reserve;
		WRITE_ONCE(s->reserve, NULL);
	}
	nr = s->nr_pools;
	raw_spin_unlock_irqrestore(&s->lock, flags);
	/* Outside the lock: a probe on the stop functions may hit. */
	for (i = s->nr_stopped; i < nr; i++)
		kretprobe_pool_stop(s->pools[i]);
	s->nr_stopped = nr;
}

/* After a grace period since kretprobe_stop_instances(): no hit runs. */
static void kretprobe_free_instances(struct kretprobe *rp)
{
	struct kretprobe_spares *s = rp->spares;
	unsigned int i;

	if (!s)
		return;
	if (IS_ENABLED(CONFIG_IRQ_WORK))
		irq_work_sync(&s->kick);
	cancel_work_sync(&s->grow);
	if (s->nr_stopped != s->nr_pools) {
		/* A pool added past the first stop: its handlers may run. */
		kretprobe_stop_instances(rp);
		synchronize_rcu();
	}
	for (i = 0; i < s->nr_pools; i++)
		kretprobe_pool_free(s->pools[i]);
	if (s->retired)
		kretprobe_pool_free(s->retired);
	kfree(s);
	rp->spares = NULL;
	kretprobe_set_newest(rp, NULL);
}

bool __weak arch_kretprobe_blacklisted(unsigned long addr)
{
	return false;
}

static int kretprobe_prepare(struct kretprobe *rp)
{
	int num, spare = KRETPROBE_MIN_SPARES, ret;
	bool on_entry = false;
	kprobe_opcode_t *addr;

	addr = kprobe_resolve(rp->kp.addr, rp->kp.symbol_name, rp->kp.offset,
			      &on_entry);
	if (IS_ERR(addr))
		return PTR_ERR(addr);
	if (!on_entry || arch_kretprobe_blacklisted((unsigned long)addr))
		return -EINVAL;
	if (rp->data_size > KRETPROBE_MAX_DATA_SIZE)
		return -E2BIG;

	num = rp->maxactive;
	if (num <= 0) {
		/* See the instance supply's memory above. */
		num = kretprobe_fill_pool(max_t(int, 10, 2 * num_possible_cpus()),
					  sizeof(struct kretprobe_instance) +
					  rp->data_size);
		spare = 0;
	}
	ret = kretprobe_alloc_instances(rp, num, spare);
	if (ret)
		return ret;
	rp->nmissed = 0;
	rp->nmissed_no_instance = 0;
	rp->nmissed_return_busy = 0;
	rp->kp.pre_handler = kretprobe_entry;
	rp->kp.post_handler = NULL;
	return 0;
}

static void kretprobe_discard(struct kretprobe *rp)
{
	kretprobe_stop_instances(rp);
	kretprobe_free_instances(rp);
}

/**
 * register_kretprobe() - register a probe on a function's return
 * @rp: the kretprobe; rp->kp names the function entry
 *
 * Context: may sleep.
 * Return: 0, -EINVAL if rp->kp is not a function entry (or is refused by
 * the arch), -E2BIG for too much instance data, or an error of
 * register_kprobe().
 */
int register_kretprobe(struct kretprobe *rp)
{
	int ret;

	mutex_lock(&kprobe_mutex);
	/* A registered kretprobe's instance pool must not be replaced. */
	if (kprobe_find_site(&rp->kp)) {
		ret = -EINVAL;
		goto out;
	}
	ret = kretprobe_prepare(rp);
	if (ret)
		goto out;
	ret = __register_kprobe(&rp->kp);
	if (ret)
		kretprobe_discard(rp);
out:
	mutex_unlock(&kprobe_mutex);
	return ret;
}
EXPORT_SYMBOL_GPL(register_kretprobe);

/**
 * register_kretprobes() - register several kretprobes, all or none
 * @rps: the kretprobes
 * @num: how many
 *
 * Context: may sleep.
 * Return: 0, or the first error; then none of them is registered.
 */
int register_kretprobes(struct kretprobe **rps, int num)
{
	int i, ret = num > 0 ? 0 : -EINVAL;

	for (i = 0; i < num && !ret; i++)
		ret = register_kretprobe(rps[i]);
	if (ret && i > 1)
		unregister_kretprobes(rps, i - 1);
	return ret;
}
EXPORT_SYMBOL_GPL(register_kretprobes);

/* Is @rps[@i] listed before, at a lower index? */
static bool kretprobe_listed_before(struct kretprobe **rps, int i)
{
	int j;

	for (j = 0; j < i; j++)
		if (rps[j] == rps[i])
			return true;
	return false;
}

/*
 * First half of unregistering @rps: no new entry hits, and returns still
 * pending skip their handlers from then on.  The instances are stopped
 * only once the breakpoints are gone, so that no entry takes one after.
 * Not registered: clear addr, as for kprobes.  A kretprobe listed twice
 * is detached by its first entry; the second finds no site, and must not
 * clear the addr that tells the stop below it was registered: its
 * returns would then run the handler past the grace period.
 * kprobe_mutex held.
 */
static void kretprobes_detach(struct kretprobe **rps, int num)
{
	struct site_batch batch;
	int i;

	site_batch_init(&batch, num);
	for (i = 0; i < num; i++)
		if (!kprobe_detach(&rps[i]->kp, &batch) &&
		    !kretprobe_listed_before(rps, i))
			rps[i]->kp.addr = NULL;
	site_batch_flush(&batch);
	for (i = 0; i < num; i++)
		if (rps[i]->kp.addr)
			kretprobe_stop_instances(rps[i]);
}

/**
 * unregister_kretprobes() - unregister several kretprobes
 * @rps: the kretprobes
 * @num: how many
 *
 * On return no CPU runs their handlers.  Calls still in flight return
 * normally to their callers later; their instances are freed then.
 * Context: may sleep.
 */
void unregister_kretprobes(struct kretprobe **rps, int num)
{
	struct kretprobe **rp, **end = rps + num;

	if (num <= 0)
		return;
	mutex_lock(&kprobe_mutex);
	kretprobes_detach(rps, num);
	synchronize_rcu();
	for (rp = rps; rp < end; rp++) {
		kprobe_release(&(*rp)->kp);
		kretprobe_discard(*rp);
	}
	kprobe_release_groups();
	mutex_unlock(&kprobe_mutex);
}
EXPORT_SYMBOL_GPL(unregister_kretprobes);

/**
 * unregister_kretprobe() - unregister a kretprobe
 * @rp: the kretprobe
 *
 * Context: may sleep.
 */
void unregister_kretprobe(struct kretprobe *rp)
{
	unregister_kretprobes(&rp, 1);
}
EXPORT_SYMBOL_GPL(unregister_kretprobe);

static bool __maybe_unused kprobe_is_kretprobe(struct kprobe *p)
{
	return p->pre_handler == kretprobe_entry;
}

#else /* !CONFIG_KRETPROBES */

static bool __maybe_unused kprobe_is_kretprobe(struct kprobe *p)
{
	return false;
}

#endif /* CONFIG_KRETPROBES */

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

	site_drop_detour(site, pokeable);
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

#ifdef CONFIG_KPROBES_ON_FTRACE
/**
 * kprobe_ftrace_kill() - ftrace is dead; stop using it
 *
 * New probes on ftrace call sites fall back on breakpoints, the ftrace
 * handler stops running the handlers of probes attached through it, and
 * arming or disarming those probes no longer calls into ftrace, which
 * would refuse.  Only a flag is written: ftrace_kill() may be called in
 * any context, so a hit already past the flag's check finishes its
 * handlers.
 * Context: any (called from ftrace_kill()).
 */
void kprobe_ftrace_kill(void)
{
	WRITE_ONCE(kprobe_ftrace_disabled, true);
}
#endif

/* ---------------------------------------------------------------------- */
/* debugfs                                                                */
/* ---------------------------------------------------------------------- */

#ifdef CONFIG_DEBUG_FS

#define KPROBE_ADDR_WIDTH	((int)(2 * sizeof(unsigned long)))

/* ---------------------------------------------------------------------- */
/* Global arm/disarm (debugfs "enabled")                                  */
/* ---------------------------------------------------------------------- */

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
static int kprobes_set_all_disarmed(bool disarm)
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

/*
 * What one line of "list" or "missed" says about a probe, copied under
 * kprobe_mutex.
 */
struct kprobe_list_line {
	unsigned long addr;
	bool kretprobe;
	bool gone;
	bool disabled;
	bool optimized;
	bool ftrace;
	unsigned long recursion;
	unsigned long hits_disabled;
	unsigned long no_instance;
	unsigned long return_busy;
};

static void kprobe_list_take(struct kprobe_list_line *line, struct kprobe *p,
			     struct kprobe *site)
{
	line->addr = (unsigned long)p->addr;
	line->kretprobe = kprobe_is_kretprobe(p);
	line->gone = kprobe_gone(p);
	line->disabled = kprobe_disabled(p);
	/* How the address is probed is a property of the site. */
	line->optimized = site_listed_optimized(site);
	line->ftrace = kprobe_ftrace(site);
	line->recursion = READ_ONCE(p->nmissed);
	line->hits_disabled = READ_ONCE(p->nhits_disabled);
	line->no_instance = 0;
	line->return_busy = 0;
#ifdef CONFIG_KRETPROBES
	if (line->kretprobe) {
		struct kretprobe *rp = container_of(p, struct kretprobe, kp);

		line->no_instance = READ_ONCE(rp->nmissed_no_instance);
		line->return_busy = READ_ONCE(rp->nmissed_return_busy);
	}
#endif
}

/* Probes in the table, the members of a group each.  kprobe_mutex held. */
static size_t kprobe_list_count(void)
{
	struct kprobe *site;
	size_t count = 0;
	unsigned int b;

	lockdep_assert_held(&kprobe_mutex);

	for (b = 0; b < KPROBE_TABLE_SIZE; b++)
		hlist_for_each_entry(site, &kprobe_table[b], hlist)
			count += kprobe_is_group(site) ?
				 list_count_nodes(&to_kprobe_group(site)->members) : 1;
	return count;
}

/*
 * Copy the table, one line per probe, into a new array of *@n lines: NULL
 * for an empty table, an ERR_PTR() when out of memory.  The symbol lookups
 * are the slow part of a read, seconds at thousands of probes, and run on
 * the copy: registrations and the optimizer wait for kprobe_mutex.
 */
static struct kprobe_list_line *kprobe_list_copy(size_t *n)
{
	struct kprobe_list_line *lines = NULL;
	struct kprobe *site, *member;
	size_t count, i = 0;
	unsigned int b;

	mutex_lock(&kprobe_mutex);
	count = kprobe_list_count();
	if (count) {
		lines = kvmalloc_array(count, sizeof(*lines), GFP_KERNEL);
		if (!lines) {
			mutex_unlock(&kprobe_mutex);
			return ERR_PTR(-ENOMEM);
		}
	}
	for (b = 0; lines && b < KPROBE_TABLE_SIZE; b++) {
		hlist_for_each_entry(site, &kprobe_table[b], hlist) {
			if (!kprobe_is_group(site)) {
				kprobe_list_take(&lines[i++], site, site);
				continue;
			}
			list_for_each_entry(member, &to_kprobe_group(site)->members,
					    list)
				kprobe_list_take(&lines[i++], member, site);
		}
	}
	mutex_unlock(&kprobe_mutex);
	*n = count;
	return lines;
}

/* "ADDR  TYPE  SYM+OFF  MOD " or "ADDR  TYPE  ADDR ", as "list" has it. */
static void kprobe_list_print_probe(struct seq_file *m,
				    const struct kprobe_list_line *line)
{
	unsigned long addr = 0, size, offset;
	char namebuf[KSYM_NAME_LEN];
	const char *sym, *type;
	char *modname;

	type = line->kretprobe ? "r" : "k";
	if (kallsyms_show_value(m->file->f_cred))
		addr = line->addr;
	/* @modname points into the module, which RCU keeps from being freed. */
	rcu_read_lock();
	sym = kallsyms_lookup(line->addr, &size, &offset, &modname, namebuf);
	/* Addresses are printed in full, zero-padded, like %px would. */
	if (sym)
		seq_printf(m, "%0*lx  %s  %s+0x%lx  %s ", KPROBE_ADDR_WIDTH,
			   addr, type, sym, offset, modname ? modname : " ");
	else
		seq_printf(m, "%0*lx  %s  %0*lx ", KPROBE_ADDR_WIDTH, addr, type,
			   KPROBE_ADDR_WIDTH, addr);
	rcu_read_unlock();
}

static void kprobe_list_print(struct seq_file *m,
			      const struct kprobe_list_line *line)
{
	kprobe_list_print_probe(m, line);
	if (line->gone)
		seq_puts(m, "[GONE]");
	else if (line->disabled)
		seq_puts(m, "[DISABLED]");
	if (line->optimized)
		seq_puts(m, "[OPTIMIZED]");
	if (line->ftrace)
		seq_puts(m, "[FTRACE]");
	seq_putc(m, '\n');
}

/*
 * "missed": each probe as "list" names it, then its skipped hits by cause.
 * recursion (the probe's nmissed): another probe's handler was running on
 * the CPU; disabled: the probe was disabled, its address still armed (not
 * a miss: not in nmissed); no_instance, return_busy (kretprobes): no free
 * instance at entry, another handler running at the return.
 */
static void kprobe_missed_print(struct seq_file *m,
				const struct kprobe_list_line *line)
{
	kprobe_list_print_probe(m, line);
	seq_printf(m, "recursion=%lu disabled=%lu no_instance=%lu return_busy=%lu\n",
		   line->recursion, line->hits_disabled, line->no_instance,
		   line->return_busy);
}

/* "list" and "missed": the table's lines, printed by m->private. */
static int kprobe_lines_show(struct seq_file *m, void *unused)
{
	void (*print)(struct seq_file *m, const struct kprobe_list_line *line) =
		m->private;
	struct kprobe_list_line *lines;
	size_t n, i;

	lines = kprobe_list_copy(&n);
	if (IS_ERR(lines))
		return PTR_ERR(lines);
	for (i = 0; i < n; i++)
		print(m, &lines[i]);
	kvfree(lines);
	return 0;
}

/*
 * Room for the whole table at once: seq_file would otherwise run the show
 * again for every doubling of its buffer, lookups and all.
 */
#define KPROBE_LINE_GUESS	192

static int kprobe_lines_open(struct inode *inode, struct file *file)
{
	size_t count;

	mutex_lock(&kprobe_mutex);
	count = kprobe_list_count();
	mutex_unlock(&kprobe_mutex);
	return single_open_size(file, kprobe_lines_show, inode->i_private,
				(count + 1) * KPROBE_LINE_GUESS);
}

static const struct file_operations kprobe_lines_fops = {
	.owner = THIS_MODULE,
	.open = kprobe_lines_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};

/* perf parses this file: "0x<start>-0x<end>\t<symbol>" per range. */
static int kprobe_blacklist_show(struct seq_file *m, void *unused)
{
	bool show = kallsyms_show_value(m->file->f_cred);
	struct kprobe_blacklist_entry *ent;

	rcu_read_lock();
	list_for_each_entry_rcu(ent, &kprobe_blacklist, list) {
		seq_printf(m, "0x%0*lx-0x%0*lx\t%ps\n",
			   KPROBE_ADDR_WIDTH, show ? ent->start_addr : 0,
			   KPROBE_ADDR_WIDTH, show ? ent->end_addr : 0,
			   (void *)ent->start_addr);
	}
	rcu_read_unlock();
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kprobe_blacklist);

static ssize_t kprobe_enabled_read(struct file *file, char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	char buf[2] = { READ_ONCE(kprobes_all_disarmed) ? '0' : '1', '\n' };

	return simple_read_from_buffer(ubuf, count, ppos, buf, sizeof(buf));
}

static ssize_t kprobe_enabled_write(struct file *file, const char __user *ubuf,
				    size_t count, loff_t *ppos)
{
	bool enable;
	int ret;

	ret = kstrtobool_from_user(ubuf, count, &enable);
	if (ret)
		return ret;
	ret = kprobes_set_all_disarmed(!enable);
	return ret ? ret : count;
}

static const struct file_operations kprobe_enabled_fops = {
	.read = kprobe_enabled_read,
	.write = kprobe_enabled_write,
	.llseek = default_llseek,
};

struct kprobe_debugfs_file {
	const char *name;
	umode_t mode;
	const struct file_operations *fops;
	void (*print)(struct seq_file *m, const struct kprobe_list_line *line);
};

static const struct kprobe_debugfs_file kprobe_debugfs_files[] __initconst = {
	{ "blacklist",	0400,	&kprobe_blacklist_fops },
	{ "enabled",	0600,	&kprobe_enabled_fops },
	{ "list",	0400,	&kprobe_lines_fops,	kprobe_list_print },
	{ "missed",	0400,	&kprobe_lines_fops,	kprobe_missed_print },
};

static int __init kprobes_debugfs_init(void)
{
	struct dentry *dir = debugfs_create_dir("kprobes", NULL);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kprobe_debugfs_files); i++)
		debugfs_create_file(kprobe_debugfs_files[i].name,
				    kprobe_debugfs_files[i].mode, dir,
				    kprobe_debugfs_files[i].print,
				    kprobe_debugfs_files[i].fops);
	return 0;
}
late_initcall(kprobes_debugfs_init);

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

#ifdef CONFIG_OPTPROBES
	kprobe_optinsn_slots.slot_size = KPROBE_OPTINSN_BYTES;
#endif

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
