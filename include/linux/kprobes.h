/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Kernel probes: breakpoints placed on kernel instructions that call back
 * into handlers registered at run time.  Documentation/trace/kprobes.rst is
 * the user-facing specification; kernel/kprobes.c describes the design.
 *
 * Who includes this header, and what they rely on, in every configuration
 * (keep all of them building when changing anything here):
 *
 *  arch/x86/kernel/traps.c      kprobe_int3_handler(), kprobe_running(),
 *                               kprobe_fault_handler()
 *  arch/x86/mm/fault.c          kprobe_page_fault()
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
 */
#ifndef _LINUX_KPROBES_H
#define _LINUX_KPROBES_H

#include <linux/compiler.h>
#include <linux/linkage.h>
#include <linux/list.h>
#include <linux/notifier.h>
#include <linux/smp.h>
#include <linux/bug.h>
#include <linux/percpu.h>
#include <linux/spinlock.h>
#include <linux/rcupdate.h>
#include <linux/mutex.h>
#include <linux/ftrace.h>
#include <linux/rethook.h>
#include <asm/kprobes.h>

#ifdef CONFIG_KPROBES
/* Per-CPU probe state, as reported by the arch's struct kprobe_ctlblk. */
#define KPROBE_HIT_ACTIVE	0x00000001	/* pre_handler running */
#define KPROBE_HIT_SS		0x00000002	/* probed insn running out of line */
#define KPROBE_HIT_SSDONE	0x00000008	/* post_handler running */
#else
/* Architectures without kprobes still see complete types below. */
typedef u8 kprobe_opcode_t;
struct arch_specific_insn {
	int unused;
};
#endif

struct kprobe;
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
 * @fault_handler: called first when a fault is raised while this probe's
 *	handlers or its probed instruction run; returning 1 claims the fault
 * @nmissed: hits whose handlers were skipped because another probe's
 *	handler was already running on that CPU
 * @hlist: link in the probe table while this probe owns its address; unhashed
 *	when it is not registered or shares the address with other probes
 * @list: link in the member list of the probe group sharing its address;
 *	empty when the probe is alone at its address or not registered
 * @opcode: the original byte the breakpoint replaced
 * @ainsn: architecture state (out-of-line copy, emulation data)
 *
 * Callers fill in @symbol_name or @addr, @offset, the handlers and optionally
 * KPROBE_FLAG_DISABLED in @flags, zero everything else, and must not touch
 * the structure again until it is unregistered.
 */
struct kprobe {
	kprobe_opcode_t *addr;
	const char *symbol_name;
	unsigned int offset;
	u32 flags;

	kprobe_pre_handler_t pre_handler;
	kprobe_post_handler_t post_handler;
	kprobe_fault_handler_t fault_handler;
	unsigned long nmissed;

	/* Owned by the kprobes core while registered. */
	struct hlist_node hlist;
	struct list_head list;
	kprobe_opcode_t opcode;
	struct arch_specific_insn ainsn;
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

/* Flag tests; a gone probe also counts as disabled. */
static inline bool kprobe_gone(struct kprobe *p) { return p->flags & KPROBE_FLAG_GONE; }
static inline bool kprobe_optimized(struct kprobe *p) { return p->flags & KPROBE_FLAG_OPTIMIZED; }
static inline bool kprobe_ftrace(struct kprobe *p) { return p->flags & KPROBE_FLAG_FTRACE; }
static inline bool kprobe_disabled(struct kprobe *p)
{
	return kprobe_gone(p) || (p->flags & KPROBE_FLAG_DISABLED);
}

/**
 * struct kretprobe - a probe on a function's return
 * @kp: the entry probe; set @kp.symbol_name or @kp.addr (the function start)
 * @entry_handler: optional; called on entry, a non-zero return means this
 *	call is not followed to its return
 * @handler: called when the probed function returns, with its return
 *	registers (regs_return_value() is the return value)
 * @data_size: bytes of private data in each struct kretprobe_instance
 * @maxactive: number of calls that can be followed at once; <= 0 means the
 *	default, max(10, 2 * number of possible CPUs)
 * @nmissed: entries that found no free instance, and returns whose handler
 *	was skipped because another probe handler was running
 * @rh: the return hook the instances come from (kprobes core only)
 */
struct kretprobe {
	struct kprobe kp;
	kretprobe_handler_t entry_handler;
	kretprobe_handler_t handler;
	size_t data_size;
	int maxactive;
	int nmissed;
#ifdef CONFIG_KRETPROBE_ON_RETHOOK
	struct rethook *rh;
#endif
};

#define KRETPROBE_MAX_DATA_SIZE	4096

/**
 * struct kretprobe_instance - one followed call of a kretprobed function
 * @node: the return-hook record holding the real return address
 * @task: the task that made the call
 * @data: @data_size bytes, private to the kretprobe's handlers
 */
struct kretprobe_instance {
#ifdef CONFIG_KRETPROBE_ON_RETHOOK
	struct rethook_node node;
#endif
	struct task_struct *task;
	char data[];
};

/**
 * struct kprobe_blacklist_entry - a text range no kprobe may be placed in
 * @list: link in the blacklist
 * @start_addr: first byte of the range
 * @end_addr: first byte past the range
 */
struct kprobe_blacklist_entry {
	struct list_head list;
	unsigned long start_addr;
	unsigned long end_addr;
};

#ifdef CONFIG_KPROBES

DECLARE_PER_CPU(struct kprobe *, current_kprobe);

/* NOKPROBE_SYMBOL() addresses, collected by the linker. */
extern unsigned long __start_kprobe_blacklist[];
extern unsigned long __stop_kprobe_blacklist[];

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

static inline void reset_current_kprobe(void)
{
	__this_cpu_write(current_kprobe, NULL);
}

void kprobe_busy_begin(void);
void kprobe_busy_end(void);

int register_kprobe(struct kprobe *p);
void unregister_kprobe(struct kprobe *p);
int register_kprobes(struct kprobe **kps, int num);
void unregister_kprobes(struct kprobe **kps, int num);
int enable_kprobe(struct kprobe *kp);
int disable_kprobe(struct kprobe *kp);

kprobe_opcode_t *kprobe_lookup_name(const char *name, unsigned int offset);
int kprobe_on_func_entry(kprobe_opcode_t *addr, const char *sym,
			 unsigned long offset);
bool within_kprobe_blacklist(unsigned long addr);
int kprobe_add_ksym_blacklist(unsigned long entry);
int kprobe_add_area_blacklist(unsigned long start, unsigned long end);

struct kprobe *get_kprobe(void *addr);
void kprobes_inc_nmissed_count(struct kprobe *p);
bool is_kprobe_insn_slot(unsigned long addr);
int kprobe_get_kallsym(unsigned int symnum, unsigned long *value, char *type,
		       char *sym);
void kprobe_free_init_mem(void);
int kprobe_int3_handler(struct pt_regs *regs);
int kprobe_fault_handler(struct pt_regs *regs, int trapnr);

/*
 * Architecture hooks.  The generic core calls these with kprobe_mutex held
 * unless stated otherwise; everything that knows an instruction set lives
 * behind them.
 *
 * arch_adjust_kprobe_addr(addr, offset, on_func_entry)
 *	Map "symbol start + offset" to the address a probe really goes to
 *	(x86 IBT: past the ENDBR) and say whether that is the function entry.
 * arch_prepare_kprobe(p)
 *	Check @p->addr is an instruction the arch can probe, save @p->opcode,
 *	set up @p->ainsn (out-of-line slot, emulation).  -EILSEQ when @p->addr
 *	is not an instruction boundary, -EOPNOTSUPP for an instruction that
 *	can be neither run out of line nor emulated.
 * arch_arm_kprobe(p) / arch_disarm_kprobe(p)
 *	Write / remove the breakpoint; on return every CPU sees the new text.
 * arch_remove_kprobe(p)
 *	Release what arch_prepare_kprobe() set up; no CPU can still be using it.
 * arch_populate_kprobe_blacklist()
 *	Add arch-specific ranges at boot (entry code, thunks, ...).
 * arch_within_kprobe_blacklist(addr)
 *	Cheap section checks done before the blacklist list is searched.
 * arch_kretprobe_blacklisted(func)
 *	Functions that may carry a kprobe but no kretprobe (x86: __switch_to,
 *	which returns on another task's stack).
 * arch_prepare_kprobe_ftrace(p)             (CONFIG_KPROBES_ON_FTRACE)
 *	Attach @p, which sits on an ftrace call site, through ftrace instead
 *	of a breakpoint; -EOPNOTSUPP means "use a breakpoint".
 * arch_prepare_optimized_kprobe(p)          (CONFIG_OPTPROBES)
 *	Offered, by the optimizer work, each armed breakpoint site without a
 *	post_handler: check that a jump may replace the instructions at
 *	@p->addr and build the detour it will jump to, in @p->ainsn.opt.
 *	Once the detour is written (at the latest in the next call below),
 *	the breakpoint path runs its copy of those instructions.  Any error
 *	means "stay a breakpoint".
 * arch_publish_optimized_kprobes()          (CONFIG_OPTPROBES)
 *	Called before kprobe_mutex is dropped after a series of
 *	arch_prepare_optimized_kprobe() calls, for an arch that writes the
 *	detours in one go: until then their breakpoints may still run the
 *	old way.  Optional.
 * arch_prescan_optimized_kprobe(p)          (CONFIG_OPTPROBES)
 *	Called at registration for a new site that will be offered to
 *	arch_prepare_optimized_kprobe() once armed: do now, and remember in
 *	@p->ainsn, the checks that depend on the text alone.  Optional.
 * arch_optimize_kprobe(p) / arch_unoptimize_kprobe(p)
 *	Queue the write of the jump over @p's breakpoint, or of the
 *	breakpoint and original bytes over its jump; text_mutex held, and
 *	arch_optimize_kprobes_flush() writes what was queued.
 * arch_unoptimize_detour(op)
 *	Likewise queue the original bytes, with no breakpoint, over the jump
 *	of a detour whose site is gone from the table (op->addr, op->orig).
 * arch_free_optimized_insn(op)
 *	Release a detour no CPU can be running any more.
 * alloc_insn_page()
 *	One page of executable memory for out-of-line slots, from execmem
 *	(the core gives it back with execmem_free()).  Optional: the core's
 *	default takes it from execmem as it comes.
 * arch_alloc_insn_pages(npages)
 *	Optional, and used instead of alloc_insn_page(): @npages contiguous
 *	pages of the same, given back with one execmem_free(); without it the
 *	slot caches grow a page at a time.
 * kprobe_int3_handler(regs), kprobe_fault_handler(regs, trapnr)
 *	Entry points from the arch's trap code.
 *
 * The arch also provides, in <asm/kprobes.h>: kprobe_opcode_t,
 * struct arch_specific_insn, MAX_INSN_SIZE and KPROBE_INSN_SLOT_SIZE.
 */
kprobe_opcode_t *arch_adjust_kprobe_addr(unsigned long addr,
					 unsigned long offset,
					 bool *on_func_entry);
int arch_prepare_kprobe(struct kprobe *p);
void arch_arm_kprobe(struct kprobe *p);
void arch_disarm_kprobe(struct kprobe *p);
void arch_remove_kprobe(struct kprobe *p);
int arch_populate_kprobe_blacklist(void);
bool arch_within_kprobe_blacklist(unsigned long addr);
bool arch_kretprobe_blacklisted(unsigned long func);
int arch_prepare_kprobe_ftrace(struct kprobe *p);
int arch_prepare_optimized_kprobe(struct kprobe *p);
void arch_publish_optimized_kprobes(void);
void arch_prescan_optimized_kprobe(struct kprobe *p);
void *alloc_insn_page(void);
void *arch_alloc_insn_pages(unsigned int npages);

/* Out-of-line slots, handed out by the core to arch_prepare_kprobe(). */
kprobe_opcode_t *get_insn_slot(void);
void free_insn_slot(kprobe_opcode_t *slot);

#ifdef CONFIG_OPTPROBES
extern int sysctl_kprobes_optimization;
void wait_for_kprobe_optimizer(void);
bool is_kprobe_optinsn_slot(unsigned long addr);
void kprobe_optimization_set(int on);
void arch_optimize_kprobe(struct kprobe *p);
void arch_unoptimize_kprobe(struct kprobe *p);
void arch_unoptimize_detour(struct arch_optimized_insn *op);
void arch_optimize_kprobes_flush(void);
void arch_free_optimized_insn(struct arch_optimized_insn *op);

/* Detour buffers, a second slot cache (KPROBE_OPTINSN_SLOT_SIZE slots). */
kprobe_opcode_t *get_optinsn_slot(void);
void free_optinsn_slot(kprobe_opcode_t *slot);
#else
static inline void wait_for_kprobe_optimizer(void) { }
static inline bool is_kprobe_optinsn_slot(unsigned long addr)
{
	return false;
}
#endif

#ifdef CONFIG_KPROBES_ON_FTRACE
/* Set by kprobe_ftrace_kill(); read by the arch's ftrace handler. */
extern bool kprobe_ftrace_disabled;
void kprobe_ftrace_kill(void);
#else
static inline void kprobe_ftrace_kill(void) { }
#endif

#ifdef CONFIG_KRETPROBE_ON_RETHOOK
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
static inline int enable_kprobe(struct kprobe *kp) { return -EOPNOTSUPP; }
static inline bool within_kprobe_blacklist(unsigned long addr) { return true; }
static inline bool is_kprobe_insn_slot(unsigned long addr) { return false; }
static inline bool is_kprobe_optinsn_slot(unsigned long addr) { return false; }
static inline int kprobe_fault_handler(struct pt_regs *regs, int trapnr) { return 0; }
static inline void kprobe_free_init_mem(void) { }
static inline void kprobe_ftrace_kill(void) { }
static inline void wait_for_kprobe_optimizer(void) { }

static inline int kprobe_get_kallsym(unsigned int symnum, unsigned long *value,
				     char *type, char *sym)
{
	return -ERANGE;
}

#endif /* CONFIG_KPROBES */

/*
 * Return probes are built on rethook only; an architecture without it (or a
 * kernel without KRETPROBES) gets these refusals.
 */
#if !defined(CONFIG_KPROBES) || !defined(CONFIG_KRETPROBE_ON_RETHOOK)
static inline int register_kretprobe(struct kretprobe *rp) { return -EOPNOTSUPP; }
static inline void unregister_kretprobe(struct kretprobe *rp) { }
static inline int register_kretprobes(struct kretprobe **rps, int num) { return -EOPNOTSUPP; }
static inline void unregister_kretprobes(struct kretprobe **rps, int num) { }
#endif

/* A kretprobe is switched on and off through its entry probe. */
static inline int disable_kretprobe(struct kretprobe *rp) { return disable_kprobe(&rp->kp); }
static inline int enable_kretprobe(struct kretprobe *rp) { return enable_kprobe(&rp->kp); }

/*
 * kretprobe instances live on the task's rethook list; nothing is left for
 * the task exit path to flush here.
 */
static inline void kprobe_flush_task(struct task_struct *tk) { }

#if defined(CONFIG_KRETPROBES) && defined(CONFIG_KRETPROBE_ON_RETHOOK)
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
#else
static inline bool is_kretprobe_trampoline(unsigned long addr) { return false; }
static inline struct kretprobe *get_kretprobe(struct kretprobe_instance *ri) { return NULL; }
static inline unsigned long get_kretprobe_retaddr(struct kretprobe_instance *ri) { return 0; }
#endif

/**
 * kprobe_page_fault() - give a running probe the first look at a page fault
 * @regs: registers at the fault
 * @trapnr: the trap number
 *
 * Only kernel-mode faults with preemption off can belong to a probe (and
 * only then does kprobe_running() answer for this CPU).
 * Return: true when a probe's fault handler resolved the fault.
 */
static nokprobe_inline bool kprobe_page_fault(struct pt_regs *regs,
					      unsigned int trapnr)
{
	return IS_ENABLED(CONFIG_KPROBES) && !user_mode(regs) &&
	       !preemptible() && kprobe_running() &&
	       kprobe_fault_handler(regs, trapnr);
}

#endif /* _LINUX_KPROBES_H */
