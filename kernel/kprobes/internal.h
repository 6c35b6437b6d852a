/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the files of kernel/kprobes/ share, and nobody else sees.  The
 * design, the states of a probe and the locking rules are described at the
 * top of core.c; each declaration here names the file that defines it.
 */
#ifndef _KERNEL_KPROBES_INTERNAL_H
#define _KERNEL_KPROBES_INTERNAL_H

#include <linux/hash.h>
#include <linux/kprobes.h>
#include <linux/mutex.h>
#include <linux/rculist.h>

struct module;

/* core.c: the table, groups and arming */

extern struct mutex kprobe_mutex;
extern bool kprobes_all_disarmed;

static nokprobe_inline struct hlist_head *kprobe_bucket(const void *addr)
{
	return &kprobe_table[hash_ptr(addr, KPROBE_TABLE_BITS)];
}

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

int kprobe_group_pre(struct kprobe *p, struct pt_regs *regs);

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
static inline void kprobe_flags_set(struct kprobe *p, u32 set)
{
	lockdep_assert_held(&kprobe_mutex);
	WRITE_ONCE(p->flags, p->flags | set);
}

static inline void kprobe_flags_clear(struct kprobe *p, u32 clear)
{
	lockdep_assert_held(&kprobe_mutex);
	WRITE_ONCE(p->flags, p->flags & ~clear);
}

/* Whether @site has its breakpoint written; see "Life of a probe". */
static inline bool site_armed(struct kprobe *site)
{
	return !kprobes_all_disarmed && !kprobe_disabled(site);
}

/*
 * Sites an unregistration takes out of the table whose breakpoints are
 * still to be removed: all of them at once, so that thousands of probes
 * cost one synchronisation of the CPUs, not one each.  @sites may be NULL
 * (no memory): each site is then disarmed on its own.
 */
struct kprobe_site_batch {
	struct kprobe **sites;
	unsigned int n;
};

void kprobe_site_batch_init(struct kprobe_site_batch *batch, int num);
void kprobe_site_batch_flush(struct kprobe_site_batch *batch);
struct kprobe *kprobe_find_site(struct kprobe *p);
int __register_kprobe(struct kprobe *p);
bool kprobe_detach(struct kprobe *p, struct kprobe_site_batch *batch);
void kprobe_release(struct kprobe *p);
void kprobe_release_groups(void);
int kprobes_set_all_disarmed(bool disarm);

/* address.c */

kprobe_opcode_t *kprobe_resolve(kprobe_opcode_t *addr, const char *sym,
				unsigned long offset, bool *on_entry);
int kprobe_check_address(unsigned long addr, struct module **modp);

/* slots.c */

void __init kprobe_slots_init(void);

/* blacklist.c */

extern struct list_head kprobe_blacklist;

int __init kprobe_populate_blacklist(void);
#ifdef CONFIG_MODULES
void kprobe_add_module_blacklist_once(struct module *mod);
void kprobe_remove_module_blacklist(struct module *mod);
#endif

/* optimizer.c (CONFIG_OPTPROBES) */

#ifdef CONFIG_OPTPROBES
void kprobe_optimizer_kick(void);
bool kprobe_site_opt_candidate(struct kprobe *site);
bool kprobe_site_listed_optimized(struct kprobe *site);
void kprobe_site_opt_prescan(struct kprobe *site);
void kprobe_site_drop_detour(struct kprobe *site, bool poke);
void kprobe_site_retire_jump(struct kprobe *site);
void kprobe_opt_clear_around(kprobe_opcode_t *addr);
void kprobe_opt_retry_near(kprobe_opcode_t *addr);
void kprobe_opt_unjump_retired(void);
void kprobe_opt_forget_retired(bool (*inside)(unsigned long, void *),
			       void *arg);
void kprobe_opt_poke_sites(struct kprobe **sites, unsigned int n, bool jump);
void __init kprobe_sysctls_init(void);
#else
static inline void kprobe_optimizer_kick(void) { }
static inline bool kprobe_site_opt_candidate(struct kprobe *site)
{
	return false;
}

static inline bool kprobe_site_listed_optimized(struct kprobe *site)
{
	return false;
}

static inline void kprobe_site_opt_prescan(struct kprobe *site) { }
static inline void kprobe_site_drop_detour(struct kprobe *site, bool poke) { }
static inline void kprobe_site_retire_jump(struct kprobe *site) { }
static inline void kprobe_opt_clear_around(kprobe_opcode_t *addr) { }
static inline void kprobe_opt_retry_near(kprobe_opcode_t *addr) { }
static inline void kprobe_opt_unjump_retired(void) { }
static inline void
kprobe_opt_forget_retired(bool (*inside)(unsigned long, void *), void *arg)
{
}

static inline void kprobe_opt_poke_sites(struct kprobe **sites,
					 unsigned int n, bool jump)
{
}

static inline void kprobe_sysctls_init(void) { }
#endif

/* ftrace.c (CONFIG_KPROBES_ON_FTRACE) */

#ifdef CONFIG_KPROBES_ON_FTRACE
int kprobe_ftrace_arm(struct kprobe *site);
void kprobe_ftrace_disarm(struct kprobe *site);
void kprobe_ftrace_disarm_many(struct kprobe **sites, unsigned int n);

/* ftrace died: nothing is attached through it any more. */
static inline bool kprobe_ftrace_dead(void)
{
	return READ_ONCE(kprobe_ftrace_disabled);
}
#else
static inline int kprobe_ftrace_arm(struct kprobe *site)
{
	return -ENODEV;
}

static inline void kprobe_ftrace_disarm(struct kprobe *site) { }

static inline void kprobe_ftrace_disarm_many(struct kprobe **sites,
					     unsigned int n)
{
}

static inline bool kprobe_ftrace_dead(void)
{
	return false;
}
#endif

/*
 * kretprobe.c (CONFIG_KRETPROBES): registration and the instance supply.
 * The instances themselves come from one of two backends, which implement
 * the kretprobe_pool_*() calls and the entry handler: kretprobe_rethook.c
 * (CONFIG_KRETPROBE_ON_RETHOOK) or kretprobe_trampoline.c (the arches that
 * divert returns themselves).  A pool is opaque to kretprobe.c.
 */
#ifdef CONFIG_KRETPROBES
int kretprobe_entry(struct kprobe *p, struct pt_regs *regs);

static inline bool kprobe_is_kretprobe(struct kprobe *p)
{
	return p->pre_handler == kretprobe_entry;
}

struct kretprobe_instance *kretprobe_take_spare(struct kretprobe *rp,
						void *tried);
void *kretprobe_pool_new(struct kretprobe *rp, int num);
struct kretprobe_instance *kretprobe_pool_take(void *pool);
void kretprobe_set_newest(struct kretprobe *rp, void *pool);
void kretprobe_pool_stop(void *pool);
void kretprobe_pool_free(void *pool);
#else
static inline bool kprobe_is_kretprobe(struct kprobe *p)
{
	return false;
}
#endif

#endif /* _KERNEL_KPROBES_INTERNAL_H */
