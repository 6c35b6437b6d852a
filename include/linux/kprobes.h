/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Kernel probes: breakpoints placed on kernel instructions that call back
 * into handlers registered at run time.  Documentation/trace/kprobes.rst is
 * the user-facing specification; kernel/kprobes/core.c describes the
 * design.
 *
 * Who includes this header, and what they rely on, in every configuration
 * (keep all of them building when changing anything here):
 *
 *  arch/x86/kernel/traps.c      kprobe_running(); kprobe_int3_handler() and
 *                               kprobe_fault_handler() come from
 *                               <asm/kprobes.h>
 *  arch/{x86,arm64,...}/mm/fault.c
 *                               kprobe_page_fault(), which calls the arch's
 *                               own kprobe_fault_handler()
 *  arch/x86/kernel/hw_breakpoint.c, include/linux/kgdb.h
 *                               within_kprobe_blacklist() (true without
 *                               KPROBES, so nothing is ever allowed there)
 *  arch/x86/kernel/rethook.c    arch/x86/kernel/kprobes/common.h register
 *                               save/restore strings
 *  kernel/extable.c             is_kprobe_insn_slot(), is_kprobe_optinsn_slot()
 *  kernel/kallsyms.c            kprobe_get_kallsym()
 *  kernel/exit.c                kprobe_flush_task()
 *  init/main.c                  kprobe_free_init_mem()
 *  kernel/trace/ftrace.c        kprobe_ftrace_kill()
 *  kernel/trace/fprobe.c        kprobe_running(), kprobe_busy_begin/end()
 *  kernel/trace/bpf_trace.c     kprobe_running(), KPROBE_FLAG_ON_FUNC_ENTRY
 *  kernel/trace/trace_output.c  is_kretprobe_trampoline()
 *  kernel/trace/trace_kprobe.c  the registration API, kprobe_gone(),
 *                               kprobe_on_func_entry(), kprobe_lookup_name(),
 *                               get_kretprobe(), get_kretprobe_retaddr(),
 *                               wait_for_kprobe_optimizer(), and the
 *                               hlist/list members of struct kprobe to tell
 *                               whether a probe is registered
 *  kernel/fail_function.c, drivers/misc/lkdtm, lib/longest_symbol_kunit.c
 *                               struct kprobe as a complete type and the
 *                               registration API, also without KPROBES
 *  ~35 files                    NOKPROBE_SYMBOL(), __kprobes, nokprobe_inline
 *                               (from <asm-generic/kprobes.h>)
 *  arch/{arm,arm64,...}         every other architecture's own backend: see
 *                               "The architecture contract" in
 *                               Documentation/trace/kprobes.rst for what
 *                               each one takes from here and kernel/kprobes/
 */
#ifndef _LINUX_KPROBES_H
#define _LINUX_KPROBES_H

#include <linux/compiler.h>
#include <linux/linkage.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/notifier.h>
#include <linux/smp.h>
#include <linux/bug.h>
#include <linux/percpu.h>
#include <linux/spinlock.h>
#include <linux/rcupdate.h>
#include <linux/rculist.h>
#include <linux/mutex.h>
#include <linux/hash.h>
#include <linux/ftrace.h>
#include <linux/rethook.h>
#include <asm/sections.h>
#include <asm/kprobes.h>

#ifdef CONFIG_KPROBES
/*
 * Per-CPU probe state, kept by the arch in its struct kprobe_ctlblk.  The
 * core never reads it; the values are shared so that every backend spells
 * them the same way.
 */
#define KPROBE_HIT_ACTIVE	0x00000001	/* pre_handler running */
#define KPROBE_HIT_SS		0x00000002	/* probed insn running out of line */
#define KPROBE_REENTER		0x00000004	/* a probe hit inside a handler */
#define KPROBE_HIT_SSDONE	0x00000008	/* post_handler running */

/*
 * Bytes per out-of-line instruction slot.  An arch that keeps more than
 * the copied instruction in a slot (x86: a second copy with a jump back)
 * says how much in <asm/kprobes.h>.
 */
#ifndef KPROBE_INSN_SLOT_SIZE
#define KPROBE_INSN_SLOT_SIZE	(MAX_INSN_SIZE * sizeof(kprobe_opcode_t))
#endif
#else
/* Architectures without kprobes still see complete types below. */
typedef u8 kprobe_opcode_t;
struct arch_specific_insn {
	int unused;
};
#endif

struct kprobe;
struct optimized_kprobe;
struct kretprobe_pool;
struct kretprobe_spares;
struct pt_regs;
struct task_struct;
struct kretprobe;
struct kretprobe_instance;

typedef int (*kprobe_pre_handler_t)(struct kprobe *, struct pt_regs *);
typedef void (*kprobe_post_handler_t)(struct kprobe *, struct pt_regs *,
				      unsigned long flags);
typedef int (*kprobe_fault_handler_t)(struct kprobe *, struct pt_regs *,
				      int trapnr);
typedef int (*kretprobe_handler_t)(struct kretprobe_instance *,
				   struct pt_regs *);

/**
 * struct kprobe - one breakpoint on a kernel instruction
 * @hlist: link in the probe table while this probe owns its address; unhashed
 *	when it is not registered or shares the address with other probes
 * @addr: probed address; filled in by registration from @symbol_name and
 *	@offset (on IBT kernels a function's start means past its ENDBR)
 * @symbol_name: symbol to probe, "sym" or "module:sym"; NULL when @addr is
 *	given instead
 * @offset: byte offset from @symbol_name
 * @flags: KPROBE_FLAG_*; only the kprobes core writes them after registration
 * @pre_handler: called before the probed instruction runs, preemption off;
 *	a non-zero return means the handler redirected regs->ip and the probed
 *	instruction (and @post_handler) must be skipped
 * @post_handler: called after the probed instruction ran, with the registers
 *	it left behind
 * @fault_handler: called first when a trap other than a page fault is
 *	raised while this probe's handlers or its probed instruction run;
 *	returning 1 claims it.  Page faults go to the exception table.
 * @nmissed: hits whose handlers were skipped because another probe's
 *	handler was already running on that CPU
 * @nhits_disabled: hits that ran no handler because this probe was
 *	disabled while its address stayed armed (for other probes there, or
 *	until the disarm completed); not misses, so not in @nmissed
 * @list: link in the member list of the probe group sharing its address;
 *	empty when the probe is alone at its address or not registered
 * @opcode: the original instruction (x86: byte) the breakpoint replaced
 * @ainsn: architecture state (out-of-line copy, emulation data)
 * @opt: the site's jump-optimization detour, or NULL (CONFIG_OPTPROBES;
 *	kprobes core only, RCU-readable by the arch's breakpoint path)
 *
 * Callers fill in @symbol_name or @addr, @offset, the handlers and optionally
 * KPROBE_FLAG_DISABLED in @flags, zero everything else, and must not touch
 * the structure again until it is unregistered.
 */
struct kprobe {
	/*
	 * First, and followed by @addr: an address lookup walks the bucket
	 * without an offset to undo and finds the key in the same line.
	 */
	struct hlist_node hlist;
	kprobe_opcode_t *addr;
	const char *symbol_name;
	unsigned int offset;
	u32 flags;

	kprobe_pre_handler_t pre_handler;
	kprobe_post_handler_t post_handler;
	kprobe_fault_handler_t fault_handler;
	unsigned long nmissed;
	unsigned long nhits_disabled;

	/* Owned by the kprobes core while registered (so is @hlist). */
	struct list_head list;
	kprobe_opcode_t opcode;
	struct arch_specific_insn ainsn;
#ifdef CONFIG_OPTPROBES
	struct optimized_kprobe *opt;
#endif
};

/* The probed text went away (module unloaded, __init text freed). */
#define KPROBE_FLAG_GONE		BIT(0)
/* Registered but not armed. */
#define KPROBE_FLAG_DISABLED		BIT(1)
/* A jump replaces the breakpoint (jump optimization). */
#define KPROBE_FLAG_OPTIMIZED		BIT(2)
/* Attached through an ftrace_ops instead of a breakpoint. */
#define KPROBE_FLAG_FTRACE		BIT(3)
/* The probe sits on a function's entry (read by bpf_get_func_ip). */
#define KPROBE_FLAG_ON_FUNC_ENTRY	BIT(4)
/* Jump optimization was refused for this address; kprobes core only. */
#define KPROBE_FLAG_OPT_REFUSED		BIT(5)
/* Leaving the table with a batch of other sites; kprobes core only. */
#define KPROBE_FLAG_LEAVING		BIT(6)
/*
 * Attached through the ftrace_ops that declares it may move regs->ip, which
 * ftrace lets only one owner of a function hold (livepatch is another);
 * kprobes core only.
 */
#define KPROBE_FLAG_FTRACE_IPMODIFY	BIT(7)

/*
 * Flag tests; a gone probe also counts as disabled.  Hits and readers of
 * debugfs test the flags without kprobe_mutex while the core, holding it,
 * changes them (one writer at a time, each change one store), hence the
 * marked accesses on both sides.
 */
static inline bool kprobe_gone(struct kprobe *p)
{
	return READ_ONCE(p->flags) & KPROBE_FLAG_GONE;
}

static inline bool kprobe_optimized(struct kprobe *p)
{
	return READ_ONCE(p->flags) & KPROBE_FLAG_OPTIMIZED;
}

static inline bool kprobe_ftrace(struct kprobe *p)
{
	return READ_ONCE(p->flags) & KPROBE_FLAG_FTRACE;
}

static inline bool kprobe_disabled(struct kprobe *p)
{
	return READ_ONCE(p->flags) & (KPROBE_FLAG_GONE | KPROBE_FLAG_DISABLED);
}

/**
 * struct kretprobe - a probe on a function's return
 * @kp: the entry probe; set @kp.symbol_name or @kp.addr (the function start)
 * @entry_handler: optional; called on entry, a non-zero return means this
 *	call is not followed to its return
 * @handler: called when the probed function returns, with its return
 *	registers (regs_return_value() is the return value)
 * @data_size: bytes of private data in each struct kretprobe_instance
 * @maxactive: instances allocated at registration, each following one
 *	call until it returns; <= 0 means the default, max(10, 2 * number of
 *	possible CPUs), or more where the pool's pages hold more.  More are
 *	added as calls need them, within the bounds that
 *	Documentation/trace/kprobes.rst gives
 * @nmissed: entries that found no free instance, and returns whose handler
 *	was skipped because another probe handler was running: the sum of
 *	the next two
 * @nmissed_no_instance: entries that found no free instance
 * @nmissed_return_busy: returns whose handler was skipped because another
 *	probe handler was running on that CPU
 * @rh: the return hook entries take instances from first, the newest
 *	(kprobes core only; CONFIG_KRETPROBE_ON_RETHOOK)
 * @pool: the same, on architectures that divert returns themselves
 *	(kprobes core only; !CONFIG_KRETPROBE_ON_RETHOOK)
 * @spares: all instance pools, the reserve and what grows them (kprobes
 *	core only)
 */
struct kretprobe {
	struct kprobe kp;
	kretprobe_handler_t entry_handler;
	kretprobe_handler_t handler;
	size_t data_size;
	int maxactive;
	int nmissed;
	unsigned long nmissed_no_instance;
	unsigned long nmissed_return_busy;
#ifdef CONFIG_KRETPROBE_ON_RETHOOK
	struct rethook *rh;
#else
	struct kretprobe_pool *pool;
#endif
	struct kretprobe_spares *spares;
};

#define KRETPROBE_MAX_DATA_SIZE	4096

/**
 * struct kretprobe_instance - one followed call of a kretprobed function
 * @node: the return-hook record holding the real return address
 *	(CONFIG_KRETPROBE_ON_RETHOOK; first, as rethook's pool hands out
 *	nodes)
 * @ret_addr: the real return address; the arch saves it in
 *	arch_prepare_kretprobe() (architectures without rethook, as below)
 * @fp: the caller's frame address as the arch sees it, or NULL; tells
 *	instances apart when returns are matched to calls
 * @pool: the pool the instance goes back to (kprobes core only)
 * @llist: link in the calling task's list of diverted returns, newest
 *	first
 * @task: the task that made the call
 * @data: @data_size bytes, private to the kretprobe's handlers
 */
struct kretprobe_instance {
#ifdef CONFIG_KRETPROBE_ON_RETHOOK
	struct rethook_node node;
	struct task_struct *task;
#else
	kprobe_opcode_t *ret_addr;
	void *fp;
	struct task_struct *task;
	struct kretprobe_pool *pool;
	struct llist_node llist;
#endif
	char data[];
};

/**
 * struct kprobe_blacklist_entry - a text range no kprobe may be placed in
 * @start_addr: first byte of the range
 * @end_addr: first byte past the range
 * @list: link in the blacklist
 */
struct kprobe_blacklist_entry {
	unsigned long start_addr;
	unsigned long end_addr;
	struct list_head list;
};

#ifdef CONFIG_KPROBES

/* NOKPROBE_SYMBOL() addresses, collected by the linker. */
extern unsigned long __start_kprobe_blacklist[];
extern unsigned long __stop_kprobe_blacklist[];

/*
 * Each arch defines both: the probe running on each CPU, and its own
 * struct kprobe_ctlblk, whose kprobe_status holds a KPROBE_HIT_* value.
 */
DECLARE_PER_CPU(struct kprobe *, current_kprobe);
DECLARE_PER_CPU(struct kprobe_ctlblk, kprobe_ctlblk);

/**
 * kprobe_running() - the probe whose handler or step runs on this CPU
 *
 * Context: preemption disabled, or the answer may belong to another CPU.
 * Return: the running probe (a group, or a placeholder set by
 * kprobe_busy_begin()), or NULL.
 */
static inline struct kprobe *kprobe_running(void)
{
	return __this_cpu_read(current_kprobe);
}

/**
 * get_kprobe_ctlblk() - this CPU's breakpoint-path state
 *
 * Context: preemption disabled.
 * Return: the arch's per-CPU struct kprobe_ctlblk.
 */
static inline struct kprobe_ctlblk *get_kprobe_ctlblk(void)
{
	return this_cpu_ptr(&kprobe_ctlblk);
}

/* The arch is done with this CPU's probe: kprobe_running() is NULL again. */
static inline void reset_current_kprobe(void)
{
	__this_cpu_write(current_kprobe, NULL);
}

void kprobe_busy_begin(void);
void kprobe_busy_end(void);

#if IS_BUILTIN(CONFIG_KPROBES_SANITY_TEST)
void kprobes_test_set_ready(bool ready);
#endif

/*
 * The table of live sites, hashed by address.  Only kernel/kprobes/
 * changes it; it is declared here for kprobe_site_at() alone, which
 * built-in arch code may use (the table is not exported to modules).
 */
#define KPROBE_TABLE_BITS	10
#define KPROBE_TABLE_SIZE	BIT(KPROBE_TABLE_BITS)
extern struct hlist_head kprobe_table[KPROBE_TABLE_SIZE];

/**
 * kprobe_site_at() - get_kprobe(), inlined into a hit path
 * @addr: the probed address
 *
 * Every ftrace-based or optimized hit looks its site up once.  A call
 * and its return (through the return thunk where retbleed mitigations
 * are on) cost about as much as the walk of a short bucket, so the paths
 * that run on every hit walk it themselves.
 *
 * Context: preemption or interrupts off (an RCU read side).
 * Return: the live site at @addr (lone probe or group), or NULL.
 */
static __always_inline struct kprobe *kprobe_site_at(void *addr)
{
	struct hlist_head *bucket = &kprobe_table[hash_ptr(addr, KPROBE_TABLE_BITS)];
	struct kprobe *site;

	hlist_for_each_entry_rcu(site, bucket, hlist) {
		if (site->addr == addr && !kprobe_gone(site))
			return site;
	}
	return NULL;
}

int register_kprobe(struct kprobe *p);
void unregister_kprobe(struct kprobe *p);
int register_kprobes(struct kprobe **kps, int num);
void unregister_kprobes(struct kprobe **kps, int num);
int enable_kprobe(struct kprobe *kp);
int disable_kprobe(struct kprobe *kp);
void disable_kprobes(struct kprobe **kps, int num);

kprobe_opcode_t *kprobe_lookup_name(const char *name, unsigned int offset);
int kprobe_on_func_entry(kprobe_opcode_t *addr, const char *sym,
			 unsigned long offset);
bool within_kprobe_blacklist(unsigned long addr);
int kprobe_clone_parent(unsigned long addr, bool unique, unsigned long *parent);
int kprobe_add_ksym_blacklist(unsigned long entry);
int kprobe_add_area_blacklist(unsigned long start, unsigned long end);

struct kprobe *get_kprobe(void *addr);
void kprobes_inc_nmissed_count(struct kprobe *p);
void kprobes_inc_disabled_count(struct kprobe *p);
void dump_kprobe(struct kprobe *kp);
bool is_kprobe_insn_slot(unsigned long addr);
int kprobe_get_kallsym(unsigned int symnum, unsigned long *value, char *type,
		       char *sym);
void kprobe_free_init_mem(void);

/*
 * Architecture hooks.  Documentation/trace/kprobes.rst ("The architecture
 * contract") lists them all, with which architectures provide which, the
 * context each is called in and the locks held; in short:
 *
 * arch_prepare_kprobe(p)      check @p->addr, save @p->opcode, set up
 *                             @p->ainsn (zeroed by the core: slot,
 *                             emulation)
 * arch_arm_kprobe(p)          write / remove the breakpoint; every CPU
 * arch_disarm_kprobe(p)       sees the new text on return
 * arch_disarm_kprobes(ps, n)  optional: remove @n breakpoints at once
 *                             (these: kprobe_mutex, cpus_read_lock()
 *                             and text_mutex held)
 * arch_remove_kprobe(p)       release what arch_prepare_kprobe() set up
 *                             (sparc makes it a macro: no prototype then)
 * arch_init_kprobes()         once, when the core is ready for probes
 * kprobe_exceptions_notify()  the die notifier, for arches whose traps
 *                             reach kprobes through notify_die()
 * arch_adjust_kprobe_addr(), kprobe_lookup_name(),
 * arch_populate_kprobe_blacklist(), arch_within_kprobe_blacklist(),
 * arch_kretprobe_blacklisted(), alloc_insn_page(), free_insn_page(),
 * alloc_optinsn_page(), free_optinsn_page(), arch_alloc_insn_pages()
 *                             optional; the core has a default for each
 * arch_prepare_kprobe_ftrace(p)   (CONFIG_KPROBES_ON_FTRACE) set up @p,
 *                             which sits on an ftrace call site, for the
 *                             arch's kprobe_ftrace_handler()
 * arch_prepare_kretprobe(ri, regs)   (!CONFIG_KRETPROBE_ON_RETHOOK) save
 *                             the return address and frame in @ri and
 *                             send the return to __kretprobe_trampoline
 * the optprobe hooks          (CONFIG_OPTPROBES) below
 */
kprobe_opcode_t *arch_adjust_kprobe_addr(unsigned long addr,
					 unsigned long offset,
					 bool *on_func_entry);
int arch_prepare_kprobe(struct kprobe *p);
void arch_arm_kprobe(struct kprobe *p);
void arch_disarm_kprobe(struct kprobe *p);
void arch_disarm_kprobes(struct kprobe **sites, unsigned int n);
#ifndef arch_remove_kprobe
void arch_remove_kprobe(struct kprobe *p);
#endif
int arch_init_kprobes(void);
int arch_trampoline_kprobe(struct kprobe *p);
int kprobe_exceptions_notify(struct notifier_block *self, unsigned long val,
			     void *data);
int arch_populate_kprobe_blacklist(void);
bool arch_within_kprobe_blacklist(unsigned long addr);
bool arch_kretprobe_blacklisted(unsigned long func);

/*
 * powerpc, s390 and sparc still define an (empty) kretprobe_blacklist[]
 * of these; the core asks arch_kretprobe_blacklisted() instead.
 */
struct kretprobe_blackpoint {
	const char *name;	/* the function's symbol */
	void *addr;		/* its address, once looked up */
};

void *alloc_insn_page(void);
void free_insn_page(void *page);
void *arch_alloc_insn_pages(unsigned int npages);

/*
 * Out-of-line slots, handed out by the core to arch_prepare_kprobe().
 * @dirty: the slot may have been executed, so it is reused only once no
 * task can still be inside it; a slot that never held a live copy may
 * be reused at once.
 */
kprobe_opcode_t *get_insn_slot(void);
void free_insn_slot(kprobe_opcode_t *slot, int dirty);

int arch_prepare_kprobe_ftrace(struct kprobe *p);
#ifdef CONFIG_KPROBES_ON_FTRACE
/* The arch's ftrace callback; the core registers the ftrace_ops. */
void kprobe_ftrace_handler(unsigned long ip, unsigned long parent_ip,
			   struct ftrace_ops *ops, struct ftrace_regs *fregs);
/* Set by kprobe_ftrace_kill(); read by the arch's ftrace handler. */
extern bool kprobe_ftrace_disabled;
void kprobe_ftrace_kill(void);
#else
static inline void kprobe_ftrace_kill(void) { }
#endif

#ifdef CONFIG_OPTPROBES
/**
 * struct optimized_kprobe - a site's jump-optimization detour
 * @kp: the arch's view of the site: @kp.addr, @kp.opcode and @kp.ainsn
 *	are copied from the site when the detour is made, and
 *	KPROBE_FLAG_DISABLED is set in @kp.flags once the detour is dropped,
 *	so that a CPU still inside it runs no handler.  The arch passes @kp
 *	to opt_pre_handler(), kprobes_inc_nmissed_count() and as
 *	current_kprobe.
 * @list: link in the batches given to arch_optimize_kprobes() and
 *	arch_unoptimize_kprobes(), and in the core's own lists
 * @epoch: kprobes core: optimizer epoch in which the detour was built
 * @optinsn: the arch's part (its struct arch_optimized_insn)
 *
 * The core allocates one per site it optimizes and keeps it from
 * @kp's site (struct kprobe::opt, RCU-readable); the arch fills @optinsn
 * in arch_prepare_optimized_kprobe() and releases what it holds in
 * arch_remove_optimized_kprobe().
 */
struct optimized_kprobe {
	struct kprobe kp;
	struct list_head list;
	unsigned long epoch;
	struct arch_optimized_insn optinsn;
};

extern int sysctl_kprobes_optimization;
void wait_for_kprobe_optimizer(void);
bool is_kprobe_optinsn_slot(unsigned long addr);
void kprobe_optimization_set(int on);

/*
 * The optprobe hooks.  kprobe_mutex held for all; text_mutex and
 * cpus_read_lock() too for the three that write text.
 *
 * arch_prepared_optinsn(optinsn)   does @optinsn hold a built detour
 * arch_check_optimized_kprobe(op)  0 if no other probe sits in the bytes
 *                                  the jump would cover
 * arch_prepare_optimized_kprobe(op, orig)
 *                                  build the detour for the site @orig
 *                                  (copied in @op->kp, whose @ainsn is
 *                                  copied again afterwards); an error keeps
 *                                  the site a breakpoint
 * arch_optimize_kprobes(list)      write the jumps of the detours on @list,
 *                                  taking each one off it
 * arch_unoptimize_kprobe(op)       put the breakpoint back over a jump
 * arch_unoptimize_kprobes(list, done)
 *                                  the same for each, moving it to @done
 * arch_within_optimized_kprobe(op, addr)
 *                                  is @addr among the bytes the jump covers
 * arch_remove_optimized_kprobe(op) free the detour; no CPU is inside it
 *
 * Optional, with empty defaults:
 * arch_prescan_optimized_kprobe(p) at registration of a candidate site,
 *                                  the checks that depend on text alone
 * arch_publish_optimized_kprobes() before kprobe_mutex is dropped after a
 *                                  series of preparations: write out the
 *                                  detours an arch batches
 * arch_unoptimize_retired(list)    write the original bytes, with no
 *                                  breakpoint, over the jumps of detours
 *                                  whose sites left the table; the default
 *                                  puts the breakpoint back, then removes it
 */
int arch_prepared_optinsn(struct arch_optimized_insn *optinsn);
int arch_check_optimized_kprobe(struct optimized_kprobe *op);
int arch_prepare_optimized_kprobe(struct optimized_kprobe *op,
				  struct kprobe *orig);
void arch_remove_optimized_kprobe(struct optimized_kprobe *op);
void arch_optimize_kprobes(struct list_head *oplist);
void arch_unoptimize_kprobes(struct list_head *oplist,
			     struct list_head *done_list);
void arch_unoptimize_kprobe(struct optimized_kprobe *op);
int arch_within_optimized_kprobe(struct optimized_kprobe *op,
				 kprobe_opcode_t *addr);
void arch_prescan_optimized_kprobe(struct kprobe *p);
void arch_publish_optimized_kprobes(void);
void arch_unoptimize_retired(struct list_head *oplist);
int opt_pre_handler(struct kprobe *p, struct pt_regs *regs);

/* Detour buffers, a second slot cache; same rules as the first. */
kprobe_opcode_t *get_optinsn_slot(void);
void free_optinsn_slot(kprobe_opcode_t *slot, int dirty);
void *alloc_optinsn_page(void);
void free_optinsn_page(void *page);
#else
static inline void wait_for_kprobe_optimizer(void) { }
static inline bool is_kprobe_optinsn_slot(unsigned long addr)
{
	return false;
}
#endif

#ifdef CONFIG_KRETPROBES
int register_kretprobe(struct kretprobe *rp);
void unregister_kretprobe(struct kretprobe *rp);
int register_kretprobes(struct kretprobe **rps, int num);
void unregister_kretprobes(struct kretprobe **rps, int num);
#endif

#else /* !CONFIG_KPROBES */

/*
 * Without kprobes nothing can be registered, no probe is ever running, and
 * every address is off limits to the other breakpoint users.
 */
static inline struct kprobe *kprobe_running(void) { return NULL; }
static inline struct kprobe *get_kprobe(void *addr) { return NULL; }
static inline void kprobe_busy_begin(void) { }
static inline void kprobe_busy_end(void) { }
static inline int register_kprobe(struct kprobe *p) { return -EOPNOTSUPP; }
static inline void unregister_kprobe(struct kprobe *p) { }
static inline int register_kprobes(struct kprobe **kps, int num) { return -EOPNOTSUPP; }
static inline void unregister_kprobes(struct kprobe **kps, int num) { }
static inline int disable_kprobe(struct kprobe *kp) { return -EOPNOTSUPP; }
static inline void disable_kprobes(struct kprobe **kps, int num) { }
static inline int enable_kprobe(struct kprobe *kp) { return -EOPNOTSUPP; }
static inline bool within_kprobe_blacklist(unsigned long addr) { return true; }
static inline int kprobe_clone_parent(unsigned long a, bool u, unsigned long *p) { return -ENOENT; }
static inline bool is_kprobe_insn_slot(unsigned long addr) { return false; }
static inline bool is_kprobe_optinsn_slot(unsigned long addr) { return false; }
static inline void kprobe_free_init_mem(void) { }
static inline void kprobe_ftrace_kill(void) { }
static inline void wait_for_kprobe_optimizer(void) { }

static inline int kprobe_get_kallsym(unsigned int symnum, unsigned long *value,
				     char *type, char *sym)
{
	return -ERANGE;
}

#endif /* CONFIG_KPROBES */

/* Without KRETPROBES a return probe is refused. */
#if !defined(CONFIG_KPROBES) || !defined(CONFIG_KRETPROBES)
static inline int register_kretprobe(struct kretprobe *rp) { return -EOPNOTSUPP; }
static inline void unregister_kretprobe(struct kretprobe *rp) { }
static inline int register_kretprobes(struct kretprobe **rps, int num) { return -EOPNOTSUPP; }
static inline void unregister_kretprobes(struct kretprobe **rps, int num) { }
#endif

/* A kretprobe is switched on and off through its entry probe. */
static inline int disable_kretprobe(struct kretprobe *rp) { return disable_kprobe(&rp->kp); }
static inline int enable_kretprobe(struct kretprobe *rp) { return enable_kprobe(&rp->kp); }

#if defined(CONFIG_KRETPROBES) && defined(CONFIG_KRETPROBE_ON_RETHOOK)
/*
 * kretprobe instances live on the task's rethook list; nothing is left for
 * the task exit path to flush here.
 */
static inline void kprobe_flush_task(struct task_struct *tk) { }

/**
 * is_kretprobe_trampoline() - is @addr the address returns are diverted to
 * @addr: a text address, typically read from a stack
 *
 * Return: true if it is the kretprobe trampoline.
 */
static nokprobe_inline bool is_kretprobe_trampoline(unsigned long addr)
{
	return is_rethook_trampoline(addr);
}

/**
 * get_kretprobe() - the kretprobe an instance belongs to
 * @ri: the instance passed to a kretprobe handler
 *
 * Return: the kretprobe, or NULL if it is being unregistered (its handlers
 * may still be running on other CPUs, but it must not be used any more).
 */
static nokprobe_inline struct kretprobe *get_kretprobe(struct kretprobe_instance *ri)
{
	return READ_ONCE(ri->node.rethook->data);
}

/**
 * get_kretprobe_retaddr() - the real return address of a followed call
 * @ri: the instance passed to a kretprobe handler
 *
 * Return: where the probed function would have returned to.
 */
static nokprobe_inline unsigned long get_kretprobe_retaddr(struct kretprobe_instance *ri)
{
	return ri->node.ret_addr;
}

/*
 * For unwinders: rethook keeps the diverted returns, so it answers.  Same
 * contract as the !CONFIG_KRETPROBE_ON_RETHOOK version below.
 */
static nokprobe_inline unsigned long
kretprobe_find_ret_addr(struct task_struct *tsk, void *fp,
			struct llist_node **cur)
{
	return rethook_find_ret_addr(tsk, (unsigned long)fp, cur);
}

#elif defined(CONFIG_KRETPROBES)
/*
 * Architectures without rethook divert returns themselves: the entry probe
 * calls arch_prepare_kretprobe(), which saves the real return address in
 * the instance and points the return at __kretprobe_trampoline; the arch's
 * trampoline code then calls kretprobe_trampoline_handler() (or, from a
 * probe handler of its own, __kretprobe_trampoline_handler()) and resumes
 * at the address it returns.  Unwinders that meet the trampoline's address
 * on a stack ask kretprobe_find_ret_addr() for the real one.
 */
void __kretprobe_trampoline(void);
void arch_prepare_kretprobe(struct kretprobe_instance *ri,
			    struct pt_regs *regs);
unsigned long __kretprobe_trampoline_handler(struct pt_regs *regs,
					     void *frame_pointer);
unsigned long kretprobe_find_ret_addr(struct task_struct *tsk, void *fp,
				      struct llist_node **cur);
void kprobe_flush_task(struct task_struct *tk);
struct kretprobe *kretprobe_of_instance(struct kretprobe_instance *ri);
void arch_kretprobe_fixup_return(struct pt_regs *regs,
				 kprobe_opcode_t *correct_ret_addr);

/**
 * kretprobe_trampoline_addr() - the address diverted returns go to
 *
 * Return: the entry of __kretprobe_trampoline (not a descriptor, on the
 * architectures that have function descriptors).
 */
static nokprobe_inline unsigned long kretprobe_trampoline_addr(void)
{
	return (unsigned long)dereference_kernel_function_descriptor(__kretprobe_trampoline);
}

/**
 * kretprobe_trampoline_handler() - a diverted return has arrived
 * @regs: registers at the trampoline, return value included
 * @frame_pointer: the frame the call returns from, as the arch saved it in
 *	@ri->fp at entry, or NULL when the arch keeps none
 *
 * Runs the kretprobe's handler with this CPU marked busy, so that probes
 * hit by the handler only count as missed.
 * Context: the arch's trampoline path, preemption or interrupts off.
 * Return: the real return address, for the arch to resume at.
 */
static nokprobe_inline unsigned long
kretprobe_trampoline_handler(struct pt_regs *regs, void *frame_pointer)
{
	unsigned long ret;

	kprobe_busy_begin();
	ret = __kretprobe_trampoline_handler(regs, frame_pointer);
	kprobe_busy_end();
	return ret;
}

static nokprobe_inline bool is_kretprobe_trampoline(unsigned long addr)
{
	return addr == kretprobe_trampoline_addr();
}

static nokprobe_inline struct kretprobe *get_kretprobe(struct kretprobe_instance *ri)
{
	return kretprobe_of_instance(ri);
}

static nokprobe_inline unsigned long get_kretprobe_retaddr(struct kretprobe_instance *ri)
{
	return (unsigned long)ri->ret_addr;
}

#else
static inline void kprobe_flush_task(struct task_struct *tk) { }
static inline bool is_kretprobe_trampoline(unsigned long addr) { return false; }
static inline struct kretprobe *get_kretprobe(struct kretprobe_instance *ri) { return NULL; }
static inline unsigned long get_kretprobe_retaddr(struct kretprobe_instance *ri) { return 0; }
static inline unsigned long kretprobe_find_ret_addr(struct task_struct *tsk,
						    void *fp,
						    struct llist_node **cur)
{
	return 0;
}
#endif

#ifdef CONFIG_KPROBES
/**
 * kprobe_page_fault() - give a running probe the first look at a page fault
 * @regs: registers at the fault
 * @trapnr: the trap number, or whatever the arch's kprobe_fault_handler()
 *	(declared by each arch, with its own types) wants to see
 *
 * Only kernel-mode faults with preemption off can belong to a probe (and
 * only then does kprobe_running() answer for this CPU).
 * Return: true when a probe's fault handler resolved the fault.
 */
static nokprobe_inline bool kprobe_page_fault(struct pt_regs *regs,
					      unsigned int trapnr)
{
	return !user_mode(regs) && !preemptible() && kprobe_running() &&
	       kprobe_fault_handler(regs, trapnr);
}
#else
static nokprobe_inline bool kprobe_page_fault(struct pt_regs *regs,
					      unsigned int trapnr)
{
	return false;
}
#endif

#endif /* _LINUX_KPROBES_H */
