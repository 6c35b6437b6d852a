// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kretprobes: registration, and the supply of instances.
 *
 * A kretprobe is a kprobe on a function's entry whose pre_handler,
 * kretprobe_entry(), takes an instance for the call and diverts its
 * return so that the kretprobe's handler runs when it returns.  How the
 * return is diverted, and what a pool of instances is, belongs to one of
 * two backends: kretprobe_rethook.c where the arch has rethook, else
 * kretprobe_trampoline.c.  This file decides how many instances there
 * are, in which pools, and when they go.
 */

#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/export.h>
#include <linux/irq_work.h>
#include <linux/kprobes.h>
#include <linux/slab.h>
#include <linux/sizes.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "internal.h"

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
static notrace struct kretprobe_instance *
kretprobe_take_reserve(struct kretprobe *rp, unsigned int nr)
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

/*
 * An entry found the newest pool (@tried) empty: a spare instance, or NULL,
 * counted as a missed call, when there is none.
 */
notrace struct kretprobe_instance *
kretprobe_take_spare(struct kretprobe *rp, void *tried)
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
	if (unlikely(!ri)) {
		/* Racing CPUs may lose an increment: a statistic. */
		data_race(rp->nmissed_no_instance++);
		/* Racing CPUs may lose an increment: a statistic. */
		data_race(rp->nmissed++);
	}
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
	struct kprobe_site_batch batch;
	int i;

	kprobe_site_batch_init(&batch, num);
	for (i = 0; i < num; i++)
		if (!kprobe_detach(&rps[i]->kp, &batch) &&
		    !kretprobe_listed_before(rps, i))
			rps[i]->kp.addr = NULL;
	kprobe_site_batch_flush(&batch);
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
