// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Out-of-line instruction slots for kernel probes.
 *
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

#include <linux/execmem.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "internal.h"

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

/* Pages for a new chunk of @c: see the top of this file. */
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

/* The detour size of arm and powerpc is known only at run time. */
void __init kprobe_slots_init(void)
{
#ifdef CONFIG_OPTPROBES
	kprobe_optinsn_slots.slot_size = KPROBE_OPTINSN_BYTES;
#endif
}
