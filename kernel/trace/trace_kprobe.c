// SPDX-License-Identifier: GPL-2.0
/*
 * Kprobe-based dynamic events: the kprobe_events and kprobe_profile files,
 * the kprobe flavour of dynamic_events, the kprobe_event= boot parameter,
 * the in-kernel command builder and the perf/BPF attachment of kprobes.
 * Documentation/trace/kprobetrace.rst is the specification.
 *
 * Objects
 * -------
 * A struct kp_event is one probe point: a struct kretprobe (whose embedded
 * kprobe is used alone for an entry probe) plus the struct trace_probe that
 * the shared probe-event code (trace_probe.c) parses arguments into.  Every
 * kp_event hangs off a struct trace_probe_event, which owns the event call
 * (events/GRP/EVENT/) and may be shared by several kp_events appended under
 * one name; the first of them is the "primary" whose argument layout the
 * event's format and printer use (all siblings have the same layout).
 *
 * Each kp_event is also a struct dyn_event on the global dynamic event list;
 * kprobe_events and kprobe_profile are views of that list filtered to our
 * operations.
 *
 * Locking
 * -------
 *  - dyn_event_ops_mutex is held around parsing a new definition, because
 *    the shared error log (trace_probe_log_*) lives under it.
 *  - event_mutex protects the dynamic event list, the event calls, the
 *    sibling lists and the registration state of every kp_event; enabling
 *    and disabling (the class ->reg callback) run under it, and so does the
 *    module notifier.
 *  - Order: dyn_event_ops_mutex -> event_mutex -> kpev_retire_lock -> the
 *    kprobes core's own locks (taken inside register/enable/disable/
 *    unregister).
 *  - The probe handlers read only the trace_probe flags and the event file
 *    links (RCU); everything they use stays until the kprobe is unregistered,
 *    which waits for running handlers to finish.
 *
 * Lifetime of a kp_event
 * ----------------------
 * A definition allocates the kp_event, parses its arguments, links it to a
 * new or existing event and registers its kprobe or kretprobe disabled.
 * A probe on a module that is not loaded is kept without a registration
 * ("pending") and registered by the module notifier when the module comes.
 * When the probed text goes away (module unloaded, __init text freed) the
 * kprobes core marks the probe gone; it stays registered and harmless until
 * the module comes back, when it is registered afresh.  Enabling the event
 * enables the kprobe of every sibling that is live; the others follow the
 * event's state whenever they get registered.  Deleting a kp_event (refused
 * while the event is enabled or in use) unregisters its probe, which waits
 * for running handlers, and then frees it, together with the event when it
 * was the last probe of it; the deletions of one system call share that
 * wait (see "Deleting events in bulk").
 *
 * perf can also open a kprobe by itself (perf_event_open() with the kprobe
 * PMU): create_local_trace_kprobe() makes a kp_event for it that is on no
 * list and has no trace event files; perf owns it until
 * destroy_local_trace_kprobe().
 */
#define pr_fmt(fmt)	"trace_kprobe: " fmt

#include <linux/bpf.h>
#include <linux/error-injection.h>
#include <linux/ftrace.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/rculist.h>
#include <linux/security.h>
#include <linux/string.h>
#include <linux/task_work.h>
#include <linux/uaccess.h>

#include <asm/setup.h>	/* COMMAND_LINE_SIZE */

#include "trace_dynevent.h"
#include "trace_probe.h"
#include "trace_probe_tmpl.h"

#define KPEV_DEFAULT_GROUP	"kprobes"
/* Largest MAXACTIVE accepted in "rN:" */
#define KPEV_MAXACTIVE_LIMIT	4096

/**
 * struct kp_event - one kprobe or kretprobe behind a kprobe event
 * @devent: link in the dynamic event list
 * @rp: the probe; only @rp.kp is registered for an entry probe
 * @hits: per-CPU number of times the handler ran
 * @symbol: "[MOD:]SYM" as given, or NULL for a probe on an address
 * @where: the address given instead of @symbol
 * @offs: offset from @symbol
 * @retprobe: a return probe
 * @live: @rp (or @rp.kp) is registered with the kprobes core
 * @boot: defined by the kprobe_event= boot parameter
 * @disabling: link in kpev_disabling while its probes wait to be disabled
 * @retiring: link in kpev_retiring once deleted, until it is freed
 * @tp: arguments and event link, shared code; must stay the last member
 */
struct kp_event {
	struct dyn_event	devent;
	struct kretprobe	rp;
	unsigned long __percpu	*hits;
	char			*symbol;
	unsigned long		where;
	unsigned long		offs;
	bool			retprobe;
	bool			live;
	bool			boot;
	struct list_head	disabling;
	struct list_head	retiring;
	struct trace_probe	tp;
};

/* Our type of dynamic event; defined with its methods further down. */
static struct dyn_event_operations kpev_dyn_ops;

static inline struct kp_event *dyn_to_kpev(struct dyn_event *ev)
{
	if (ev->ops != &kpev_dyn_ops)
		return NULL;
	return container_of(ev, struct kp_event, devent);
}

static struct kp_event *kpev_of_call(struct trace_event_call *call)
{
	struct trace_probe *tp = trace_probe_primary_from_call(call);

	return tp ? container_of(tp, struct kp_event, tp) : NULL;
}

static struct kprobe *kpev_kprobe(struct kp_event *kev)
{
	return &kev->rp.kp;
}

static unsigned long kpev_nhits(struct kp_event *kev)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		/* Hits go on meanwhile: a statistic may be a hit behind. */
		sum += data_race(*per_cpu_ptr(kev->hits, cpu));
	}
	return sum;
}

static unsigned long kpev_nmissed(struct kp_event *kev)
{
	/* Misses go on meanwhile: a statistic may be one behind. */
	unsigned long missed = data_race(kev->rp.kp.nmissed);

	if (kev->retprobe) {
		/* As above. */
		missed += data_race(kev->rp.nmissed);
	}
	return missed;
}

/* Length of "MOD" in "MOD:SYM", or 0 when the symbol names no module. */
static size_t kpev_modname_len(struct kp_event *kev)
{
	const char *colon;

	if (!kev->symbol)
		return 0;
	colon = strchr(kev->symbol, ':');
	return colon ? colon - kev->symbol : 0;
}

#ifdef CONFIG_MODULES
/* Is the module that @kev names loaded?  Callers hold event_mutex. */
static bool kpev_module_loaded(struct kp_event *kev)
{
	size_t len = kpev_modname_len(kev);
	char name[MODULE_NAME_LEN];
	bool found;

	if (!len || len >= MODULE_NAME_LEN)
		return false;
	memcpy(name, kev->symbol, len);
	name[len] = '\0';
	rcu_read_lock_sched();
	found = !!find_module(name);
	rcu_read_unlock_sched();
	return found;
}
#else
static bool kpev_module_loaded(struct kp_event *kev)
{
	return false;
}
#endif

/* The address @kev probes, as best known now; 0 if unknown. */
static unsigned long kpev_address(struct kp_event *kev)
{
	unsigned long base;

	if (kev->live)
		return (unsigned long)kev->rp.kp.addr;
	if (!kev->symbol)
		return kev->where + kev->offs;
	base = kallsyms_lookup_name(kev->symbol);
	return base ? base + kev->offs : 0;
}

/* ------------------------------------------------------------------ */
/* Argument fetching, called by the trace_probe_tmpl.h helpers          */
/* ------------------------------------------------------------------ */

/*
 * Where user and kernel addresses cannot be confused (x86), a plain
 * dereference or string of a user pointer, as in +0($arg2):string on a
 * syscall's path argument, reads user memory.
 */
static nokprobe_inline bool kpev_user_addr(unsigned long addr)
{
	return IS_ENABLED(CONFIG_ARCH_HAS_NON_OVERLAPPING_ADDRESS_SPACE) &&
	       addr < TASK_SIZE;
}

static nokprobe_inline int probe_mem_read_user(void *dest, void *src,
					       size_t size)
{
	const void __user *from = (const void __force __user *)src;

	return copy_from_user_nofault(dest, from, size);
}

static nokprobe_inline int probe_mem_read(void *dest, void *src, size_t size)
{
	if (kpev_user_addr((unsigned long)src))
		return probe_mem_read_user(dest, src, size);
	return copy_from_kernel_nofault(dest, src, size);
}

/* Bytes needed (trailing NUL included) to store the user string at @addr. */
static nokprobe_inline int fetch_store_strlen_user(unsigned long addr)
{
	const void __user *uaddr = (const void __force __user *)addr;

	return strnlen_user_nofault(uaddr, MAX_STRING_SIZE);
}

/* Bytes needed (trailing NUL included) to store the string at @addr. */
static nokprobe_inline int fetch_store_strlen(unsigned long addr)
{
	int n;
	u8 c;

	if (kpev_user_addr(addr))
		return fetch_store_strlen_user(addr);

	for (n = 0; n < MAX_STRING_SIZE; n++) {
		if (copy_from_kernel_nofault(&c, (void *)(addr + n), 1))
			return n ? n : -EFAULT;
		if (!c)
			return n + 1;
	}
	return MAX_STRING_SIZE;
}

/*
 * Store a NUL-terminated string into the dynamic area @dest describes (its
 * u32 holds the room left and where it starts, relative to @base) and make
 * @dest describe what was stored.
 */
static nokprobe_inline int kpev_store_str(unsigned long addr, void *dest,
					  void *base, bool user)
{
	u32 room = get_loc_len(*(u32 *)dest);
	char *to;
	long got;

	if (unlikely(!room))
		return -ENOMEM;
	to = get_loc_data(dest, base);
	if (user)
		got = strncpy_from_user_nofault(to, (const void __force __user *)addr,
						room);
	else
		got = strncpy_from_kernel_nofault(to, (void *)addr, room);
	/* A fault stores an empty string, which prints as "(fault)". */
	*(u32 *)dest = make_data_loc(got < 0 ? 0 : got, (u8 *)to - (u8 *)base);
	return got;
}

static nokprobe_inline int
fetch_store_string_user(unsigned long addr, void *dest, void *base)
{
	return kpev_store_str(addr, dest, base, true);
}

static nokprobe_inline int
fetch_store_string(unsigned long addr, void *dest, void *base)
{
	return kpev_store_str(addr, dest, base, kpev_user_addr(addr));
}

/* The first stage of a fetch: where the value comes from. */
static nokprobe_inline int kpev_fetch_source(struct fetch_insn *insn,
					     struct pt_regs *regs, void *edata,
					     unsigned long *out)
{
	switch (insn->op) {
	case FETCH_OP_REG:
		*out = regs_get_register(regs, insn->param);
		return 0;
	case FETCH_OP_STACKP:
		*out = kernel_stack_pointer(regs);
		return 0;
	case FETCH_OP_STACK:
		*out = regs_get_kernel_stack_nth(regs, insn->param);
		return 0;
	case FETCH_OP_RETVAL:
		*out = regs_return_value(regs);
		return 0;
#ifdef CONFIG_HAVE_FUNCTION_ARG_ACCESS_API
	case FETCH_OP_ARG:
		*out = regs_get_kernel_argument(regs, insn->param);
		return 0;
	case FETCH_OP_EDATA:
		*out = *(unsigned long *)((u8 *)edata + insn->offset);
		return 0;
#endif
	default:
		return process_common_fetch_insn(insn, out);
	}
}

static int
process_fetch_insn(struct fetch_insn *code, void *rec, void *edata,
		   void *dest, void *base)
{
	unsigned long v = 0;
	int err;

	/* A symbol placeholder only keeps the name; its IMM follows. */
	if (code->op == FETCH_NOP_SYMBOL)
		code++;
	err = kpev_fetch_source(code, rec, edata, &v);
	if (err < 0)
		return err;
	return process_fetch_insn_bottom(code + 1, v, dest, base);
}

NOKPROBE_SYMBOL(process_fetch_insn)

/* ------------------------------------------------------------------ */
/* Recording hits                                                       */
/* ------------------------------------------------------------------ */

/*
 * Both record layouts start with the common trace_entry followed by one
 * (entry probe: the probed address) or two (return probe: the function
 * and the address it returned to) words; the arguments follow.
 */
static nokprobe_inline size_t kpev_head_size(struct kp_event *kev)
{
	return kev->retprobe ? sizeof(struct kretprobe_trace_entry_head) :
			       sizeof(struct kprobe_trace_entry_head);
}

static nokprobe_inline void kpev_fill_head(struct kp_event *kev, void *rec,
					   unsigned long ret_ip)
{
	if (kev->retprobe) {
		struct kretprobe_trace_entry_head *r = rec;

		r->func = (unsigned long)kev->rp.kp.addr;
		r->ret_ip = ret_ip;
	} else {
		struct kprobe_trace_entry_head *e = rec;

		e->ip = (unsigned long)kev->rp.kp.addr;
	}
}

/* Write one record of a hit into the ring buffer of @file. */
static nokprobe_inline void kpev_record(struct kp_event *kev,
					struct pt_regs *regs, void *edata,
					unsigned long ret_ip,
					struct trace_event_file *file)
{
	size_t head = kpev_head_size(kev);
	struct trace_event_buffer fbuf;
	int dyn;
	u8 *rec;

	if (trace_trigger_soft_disabled(file))
		return;

	dyn = __get_data_size(&kev->tp, regs, edata);
	/* In line: a patch of this series to kernel/trace/trace.h. */
	rec = trace_event_buffer_reserve_inline(&fbuf, file,
						head + kev->tp.size + dyn);
	if (!rec)
		return;
	fbuf.regs = regs;
	kpev_fill_head(kev, rec, ret_ip);
	store_trace_args(rec + head, &kev->tp, regs, edata, head, dyn);
	trace_event_buffer_commit(&fbuf);
}

static nokprobe_inline void kpev_record_all(struct kp_event *kev,
					    struct pt_regs *regs, void *edata,
					    unsigned long ret_ip)
{
	struct event_file_link *link;

	/*
	 * Handlers run with preemption off, which the grace period before
	 * trace_probe_remove_file() frees a link waits for: no
	 * rcu_read_lock() to pay for on every hit.
	 */
	trace_probe_for_each_link_rcu(link, &kev->tp)
		kpev_record(kev, regs, edata, ret_ip, link->file);
}

#ifdef CONFIG_PERF_EVENTS
/*
 * Hand a hit to BPF, then to the perf events of this CPU.  Return 1 when a
 * BPF program moved the instruction pointer (bpf_override_return() on an
 * entry probe): the probed instruction must then be skipped.
 */
static nokprobe_inline int kpev_perf(struct kp_event *kev,
				     struct pt_regs *regs, void *edata,
				     unsigned long ret_ip)
{
	struct trace_event_call *call = trace_probe_event_call(&kev->tp);
	unsigned long ip_before = instruction_pointer(regs);
	size_t head = kpev_head_size(kev);
	struct hlist_head *listeners;
	int dyn, len, rctx;
	u8 *rec;

	if (bpf_prog_array_valid(call)) {
		unsigned int keep = trace_call_bpf(call, regs);

		if (!kev->retprobe && instruction_pointer(regs) != ip_before)
			return 1;
		if (!keep)
			return 0;
	}

	listeners = this_cpu_ptr(call->perf_events);
	if (hlist_empty(listeners))
		return 0;

	dyn = __get_data_size(&kev->tp, regs, edata);
	/* perf puts a u32 size in front: keep the sample u64 aligned */
	len = ALIGN(head + kev->tp.size + dyn + sizeof(u32), sizeof(u64)) -
	      sizeof(u32);
	rec = perf_trace_buf_alloc(len, NULL, &rctx);
	if (!rec)
		return 0;
	memset(rec + head, 0, len - head);
	kpev_fill_head(kev, rec, ret_ip);
	store_trace_args(rec + head, &kev->tp, regs, edata, head, dyn);
	perf_trace_buf_submit(rec, len, rctx, call->event.type, 1, regs,
			      listeners, NULL);
	return 0;
}
#else
static inline int kpev_perf(struct kp_event *kev, struct pt_regs *regs,
			    void *edata, unsigned long ret_ip)
{
	return 0;
}
#endif /* CONFIG_PERF_EVENTS */

/* Record a hit wherever the event is enabled; see kpev_perf() for 1. */
static nokprobe_inline int kpev_dispatch(struct kp_event *kev,
					 struct pt_regs *regs, void *edata,
					 unsigned long ret_ip)
{
	unsigned int users = trace_probe_load_flag(&kev->tp);
	int skip = 0;

	raw_cpu_inc(*kev->hits);
	if (users & TP_FLAG_TRACE)
		kpev_record_all(kev, regs, edata, ret_ip);
	if (users & TP_FLAG_PROFILE)
		skip = kpev_perf(kev, regs, edata, ret_ip);
	return skip;
}

/* pre_handler of an entry probe */
static int kpev_on_hit(struct kprobe *kp, struct pt_regs *regs)
{
	return kpev_dispatch(container_of(kp, struct kp_event, rp.kp), regs,
			     NULL, 0);
}

NOKPROBE_SYMBOL(kpev_on_hit);

/* entry_handler of a return probe that reads $argN: save them for later */
static int kpev_on_call(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kretprobe *rp = get_kretprobe(ri);

	if (unlikely(!rp))
		return 1;	/* being unregistered: do not follow */
	store_trace_entry_data(ri->data,
			       &container_of(rp, struct kp_event, rp)->tp, regs);
	return 0;
}

NOKPROBE_SYMBOL(kpev_on_call);

/* handler of a return probe */
static int kpev_on_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kretprobe *rp = get_kretprobe(ri);

	if (likely(rp))
		kpev_dispatch(container_of(rp, struct kp_event, rp), regs,
			      ri->data, get_kretprobe_retaddr(ri));
	return 0;
}

NOKPROBE_SYMBOL(kpev_on_return);

/* ------------------------------------------------------------------ */
/* Event output and format                                              */
/* ------------------------------------------------------------------ */

/* "EVENT: (sym+off/size) args" or "EVENT: (caller+off/size <- func) args" */
static enum print_line_t kpev_print(struct trace_iterator *iter, int flags,
				    struct trace_event *event)
{
	struct kp_event *kev =
		kpev_of_call(container_of(event, struct trace_event_call, event));
	unsigned long symflags = flags | TRACE_ITER_SYM_OFFSET;
	struct trace_seq *s = &iter->seq;
	u8 *args;

	if (unlikely(!kev))
		return trace_handle_return(s);

	trace_seq_printf(s, "%s: (", trace_probe_name(&kev->tp));
	if (kev->retprobe) {
		struct kretprobe_trace_entry_head *r = (void *)iter->ent;

		seq_print_ip_sym(s, r->ret_ip, symflags);
		trace_seq_puts(s, " <- ");
		seq_print_ip_sym(s, r->func, symflags & ~TRACE_ITER_SYM_OFFSET);
		args = (u8 *)(r + 1);
	} else {
		struct kprobe_trace_entry_head *e = (void *)iter->ent;

		seq_print_ip_sym(s, e->ip, symflags);
		args = (u8 *)(e + 1);
	}
	trace_seq_putc(s, ')');
	if (!trace_probe_print_args(s, kev->tp.args, kev->tp.nr_args, args,
				    iter->ent))
		trace_seq_putc(s, '\n');
	return trace_handle_return(s);
}

static int kpev_add_word_field(struct trace_event_call *call,
			       const char *name, size_t offset)
{
	return trace_define_field(call, "unsigned long", name, offset,
				  sizeof(unsigned long), 0, FILTER_OTHER);
}

/* __probe_ip, or __probe_func and __probe_ret_ip, then the arguments */
static int kpev_define_fields(struct trace_event_call *call)
{
	struct kp_event *kev = kpev_of_call(call);
	size_t word = sizeof(struct trace_entry);
	int err;

	if (WARN_ON_ONCE(!kev))
		return -ENODEV;

	/* The words after the common header, as kpev_fill_head() writes them */
	BUILD_BUG_ON(offsetof(struct kprobe_trace_entry_head, ip) != word);
	BUILD_BUG_ON(offsetof(struct kretprobe_trace_entry_head, ret_ip) !=
		     word + sizeof(unsigned long));
	if (kev->retprobe) {
		err = kpev_add_word_field(call, FIELD_STRING_FUNC, word);
		if (!err)
			err = kpev_add_word_field(call, FIELD_STRING_RETIP,
						  word + sizeof(unsigned long));
	} else {
		err = kpev_add_word_field(call, FIELD_STRING_IP, word);
	}
	if (err)
		return err;
	return traceprobe_define_arg_fields(call, kpev_head_size(kev), &kev->tp);
}

static struct trace_event_functions kpev_output = {
	.trace	= kpev_print,
};

static struct trace_event_fields kpev_fields[] = {
	{ .type = TRACE_FUNCTION_TYPE, .define_fields = kpev_define_fields },
	{}
};

/* ------------------------------------------------------------------ */
/* Registration with the kprobes core                                   */
/* ------------------------------------------------------------------ */

/* Resolve "@SYM" arguments; they may name module data. */
static int kpev_resolve_args(struct kp_event *kev)
{
	int i, err;

	for (i = 0; i < kev->tp.nr_args; i++) {
		err = traceprobe_update_arg(&kev->tp.args[i]);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Unless CONFIG_KPROBE_EVENTS_ON_NOTRACE allows it, events stay out of
 * functions built without the ftrace call at their entry: tracing itself
 * and what it calls are built that way, and an event there could recurse
 * into its own recording.  Is @addr in such a function?
 */
#if defined(CONFIG_DYNAMIC_FTRACE) && !defined(CONFIG_KPROBE_EVENTS_ON_NOTRACE)
static bool kpev_func_untraced(unsigned long addr)
{
	unsigned long size, offs;

	if (!addr || !kallsyms_lookup_size_offset(addr, &size, &offs) || !size)
		return false;
	return !ftrace_location_range(addr - offs, addr - offs + size - 1);
}

/*
 * A part the compiler split off a function (NAME.cold) has no ftrace call
 * of its own: it is judged by NAME, when NAME says which function that
 * is.  (Clones, NAME.constprop.N, have one if NAME has.)
 */
static bool kpev_in_notrace_func(unsigned long addr)
{
	unsigned long parent;

	if (!kpev_func_untraced(addr))
		return false;
	return kprobe_clone_parent(addr, true, &parent) ||
	       kpev_func_untraced(parent);
}
#else
/* Allowed, or without dynamic ftrace's records no way to tell. */
static bool kpev_in_notrace_func(unsigned long addr)
{
	return false;
}
#endif

/*
 * Register @kev's probe, disabled unless its event is enabled.  Return
 * -ENOENT for a symbol that is not there (yet), -EINVAL for a
 * notrace function, -EPERM under lockdown.  event_mutex held.
 */
static int kpev_arm(struct kp_event *kev)
{
	struct kprobe *kp = kpev_kprobe(kev);
	int err;

	if (kev->live)
		return 0;

	/*
	 * Checked here rather than when the file is opened: the perf PMU,
	 * BPF, the boot parameter and in-kernel users reach this without
	 * tracefs, and a module event arms long after it was written.
	 */
	err = security_locked_down(LOCKDOWN_KPROBES);
	if (err)
		return err;

	err = kpev_resolve_args(kev);
	if (err)
		return err;
	if (kpev_in_notrace_func(kpev_address(kev)))
		return -EINVAL;

	/* The core fills in addr: start again from what the user gave. */
	INIT_HLIST_NODE(&kp->hlist);
	INIT_LIST_HEAD(&kp->list);
	kp->nmissed = 0;
	if (kev->symbol) {
		kp->addr = NULL;
		kp->symbol_name = kev->symbol;
		kp->offset = kev->offs;
	} else {
		kp->addr = (kprobe_opcode_t *)(kev->where + kev->offs);
		kp->symbol_name = NULL;
		kp->offset = 0;
	}
	kp->flags = trace_probe_is_enabled(&kev->tp) ? 0 : KPROBE_FLAG_DISABLED;

	if (kev->retprobe) {
		kev->rp.handler = kpev_on_return;
		err = register_kretprobe(&kev->rp);
	} else {
		kp->pre_handler = kpev_on_hit;
		err = register_kprobe(kp);
	}
	if (!err)
		kev->live = true;
	return err;
}

/*
 * Unregister @kev's probe, waiting for its handlers.  event_mutex held, or
 * @kev is retiring and on no other list.
 */
static void kpev_disarm(struct kp_event *kev)
{
	if (!kev->live)
		return;
	if (kev->retprobe)
		unregister_kretprobe(&kev->rp);
	else
		unregister_kprobe(kpev_kprobe(kev));
	kev->live = false;
}

/*
 * Have @fn run when the current task returns to user space, once however
 * often this is asked before.  Return false if that cannot be arranged
 * (a kernel thread, no memory): the caller then does the work itself.
 */
static bool kpev_work_on_return(task_work_func_t fn)
{
	struct callback_head *cb;

	if (current->flags & (PF_KTHREAD | PF_IO_WORKER))
		return false;
	cb = task_work_cancel_func(current, fn);
	if (!cb) {
		cb = kmalloc(sizeof(*cb), GFP_KERNEL);
		if (!cb)
			return false;
		init_task_work(cb, fn);
	}
	if (task_work_add(current, cb, TWA_RESUME)) {
		kfree(cb);
		return false;
	}
	return true;
}

/*
 * Disabling events in bulk
 * ------------------------
 * "echo 0 > events/GRP/enable" turns the events of a group off one by
 * one, and disabling each probe writes the text and synchronises all CPUs.
 * When the last trace file of an event goes, the event now joins
 * kpev_disabling with its probes still enabled, and kpev_disable_flush()
 * disables the probes of all such events with one disable_kprobes(), before
 * the task returns to user space.  Until then a hit finds no user in the
 * event's flags and records nothing.  An event enabled again meanwhile is
 * skipped.  perf's last user and kernel threads disable at once.  The list
 * is under event_mutex; an event on it is flushed before it is deleted.
 */
static LIST_HEAD(kpev_disabling);

static int kpev_switch_probes(struct trace_probe *tp, bool on);

/* Disable the probes of every event on kpev_disabling.  event_mutex held. */
static void kpev_disable_flush(void)
{
	struct kp_event *kev, *next, *sib;
	struct kprobe **kps;
	int n = 0;

	lockdep_assert_held(&event_mutex);
	if (list_empty(&kpev_disabling))
		return;
	list_for_each_entry(kev, &kpev_disabling, disabling)
		list_for_each_entry(sib, trace_probe_probe_list(&kev->tp), tp.list)
			n++;
	kps = kvmalloc_array(n, sizeof(*kps), GFP_KERNEL);
	n = 0;
	list_for_each_entry_safe(kev, next, &kpev_disabling, disabling) {
		list_del_init(&kev->disabling);
		if (trace_probe_is_enabled(&kev->tp))
			continue;
		if (!kps) {
			kpev_switch_probes(&kev->tp, false);
			continue;
		}
		list_for_each_entry(sib, trace_probe_probe_list(&kev->tp), tp.list)
			if (sib->live && !kprobe_gone(kpev_kprobe(sib)))
				kps[n++] = kpev_kprobe(sib);
	}
	disable_kprobes(kps, n);
	kvfree(kps);
}

static void kpev_disable_task_work(struct callback_head *cb)
{
	kfree(cb);
	guard(mutex)(&event_mutex);
	kpev_disable_flush();
}

/*
 * Leave the probes of @tp's event to kpev_disable_flush().  Return false
 * if they must be disabled now.  event_mutex held.
 */
static bool kpev_disable_later(struct trace_probe *tp)
{
	struct kp_event *kev = container_of(tp, struct kp_event, tp);

	if (!list_empty(&kev->disabling))
		return true;
	if (!kpev_work_on_return(kpev_disable_task_work))
		return false;
	list_add_tail(&kev->disabling, &kpev_disabling);
	return true;
}

/* Switch the probes of an event on or off.  event_mutex held. */
static int kpev_switch_probes(struct trace_probe *tp, bool on)
{
	struct kp_event *kev;
	int err = 0;

	list_for_each_entry(kev, trace_probe_probe_list(tp), tp.list) {
		struct kprobe *kp = kpev_kprobe(kev);

		/* Pending or gone probes catch up when they are registered. */
		if (!kev->live || kprobe_gone(kp))
			continue;
		if (on)
			err = enable_kprobe(kp);
		else
			disable_kprobe(kp);
		if (err)
			break;
	}
	if (err) {
		list_for_each_entry(kev, trace_probe_probe_list(tp), tp.list)
			if (kev->live && !kprobe_gone(kpev_kprobe(kev)))
				disable_kprobe(kpev_kprobe(kev));
	}
	return err;
}

/* Forget one user of the event: a trace file, or perf when @file is NULL. */
static void kpev_drop_user(struct trace_probe *tp, struct trace_event_file *file)
{
	if (file)
		trace_probe_remove_file(tp, file);
	else
		trace_probe_clear_flag(tp, TP_FLAG_PROFILE);
}

/* Enable the event for @file (tracing) or, when @file is NULL, for perf. */
static int kpev_event_on(struct trace_event_call *call,
			 struct trace_event_file *file)
{
	struct trace_probe *tp = trace_probe_primary_from_call(call);
	bool first;
	int err;

	if (WARN_ON_ONCE(!tp))
		return -ENODEV;

	first = !trace_probe_is_enabled(tp);
	if (file) {
		err = trace_probe_add_file(tp, file);
		if (err)
			return err;
	} else {
		trace_probe_set_flag(tp, TP_FLAG_PROFILE);
	}
	/* Probes run once per hit, however many users the event has. */
	err = first ? kpev_switch_probes(tp, true) : 0;
	if (err)
		kpev_drop_user(tp, file);
	return err;
}

static void kpev_event_off(struct trace_event_call *call,
			   struct trace_event_file *file)
{
	struct trace_probe *tp = trace_probe_primary_from_call(call);
	bool user;

	if (WARN_ON_ONCE(!tp))
		return;

	user = file ? !!trace_probe_get_file_link(tp, file) :
		      trace_probe_test_flag(tp, TP_FLAG_PROFILE);
	if (!user)
		return;
	kpev_drop_user(tp, file);
	if (trace_probe_is_enabled(tp))
		return;
	if (!file || !kpev_disable_later(tp))
		kpev_switch_probes(tp, false);
}

/* The class ->reg callback; event_mutex held. */
static int kpev_reg(struct trace_event_call *call, enum trace_reg type,
		    void *data)
{
#ifdef CONFIG_PERF_EVENTS
	/* perf counts as one user, without a trace file */
	if (type == TRACE_REG_PERF_REGISTER)
		return kpev_event_on(call, NULL);
	if (type == TRACE_REG_PERF_UNREGISTER) {
		kpev_event_off(call, NULL);
		return 0;
	}
#endif
	if (type == TRACE_REG_REGISTER)
		return kpev_event_on(call, data);
	if (type == TRACE_REG_UNREGISTER)
		kpev_event_off(call, data);
	return 0;
}

static void kpev_setup_call(struct kp_event *kev)
{
	struct trace_event_call *call = trace_probe_event_call(&kev->tp);

	call->event.funcs = &kpev_output;
	call->class->fields_array = kpev_fields;
	call->flags = TRACE_EVENT_FL_KPROBE;
	call->class->reg = kpev_reg;
}

/* ------------------------------------------------------------------ */
/* Allocation                                                           */
/* ------------------------------------------------------------------ */

static void kpev_free(struct kp_event *kev)
{
	if (!kev)
		return;
	trace_probe_cleanup(&kev->tp);
	free_percpu(kev->hits);
	kfree(kev->symbol);
	kfree(kev);
}

static struct kp_event *kpev_alloc(const char *group, const char *event,
				   const char *symbol, unsigned long where,
				   unsigned long offs, int maxactive,
				   int nargs, bool retprobe)
{
	struct kp_event *kev;
	int err;

	kev = kzalloc(struct_size(kev, tp.args, nargs), GFP_KERNEL);
	if (!kev)
		return ERR_PTR(-ENOMEM);

	kev->hits = alloc_percpu(unsigned long);
	if (!kev->hits)
		goto nomem;
	if (symbol) {
		kev->symbol = kstrdup(symbol, GFP_KERNEL);
		if (!kev->symbol)
			goto nomem;
	}
	kev->where = where;
	kev->offs = offs;
	kev->retprobe = retprobe;
	kev->rp.maxactive = maxactive;
	INIT_HLIST_NODE(&kev->rp.kp.hlist);
	INIT_LIST_HEAD(&kev->rp.kp.list);
	INIT_LIST_HEAD(&kev->disabling);

	err = trace_probe_init(&kev->tp, event, group, false, nargs);
	if (err) {
		free_percpu(kev->hits);
		kfree(kev->symbol);
		kfree(kev);
		return ERR_PTR(err);
	}
	dyn_event_init(&kev->devent, &kpev_dyn_ops);
	return kev;

nomem:
	free_percpu(kev->hits);
	kfree(kev->symbol);
	kfree(kev);
	return ERR_PTR(-ENOMEM);
}

static struct kp_event *kpev_lookup(const char *event, const char *group)
{
	struct dyn_event *pos;
	struct kp_event *kev;

	for_each_dyn_event(pos) {
		kev = dyn_to_kpev(pos);
		if (kev && !strcmp(trace_probe_name(&kev->tp), event) &&
		    !strcmp(trace_probe_group_name(&kev->tp), group))
			return kev;
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Adding and removing probes on events                                 */
/* ------------------------------------------------------------------ */

/*
 * Register a freshly parsed probe.  A probe on a module that is not loaded
 * waits for it; any other failure is logged against the location.
 */
static int kpev_arm_new(struct kp_event *kev)
{
	int err = kpev_arm(kev);

	if (!err)
		return 0;
	if (err == -ENOENT && kpev_modname_len(kev) && !kpev_module_loaded(kev))
		return 0;

	trace_probe_log_set_index(1);
	switch (err) {
	case -ENOENT:
		trace_probe_log_err(0, BAD_PROBE_ADDR);
		break;
	case -EILSEQ:
		trace_probe_log_err(0, BAD_INSN_BNDRY);
		break;
	default:
		trace_probe_log_err(0, FAIL_REG_PROBE);
		break;
	}
	return err;
}

/* Do @a and @b probe the same place with the same arguments? */
static bool kpev_same(struct kp_event *a, struct kp_event *b)
{
	int i;

	if (!!a->symbol != !!b->symbol || a->offs != b->offs)
		return false;
	if (a->symbol ? strcmp(a->symbol, b->symbol) : a->where != b->where)
		return false;
	for (i = 0; i < a->tp.nr_args; i++) {
		if (strcmp(a->tp.args[i].comm, b->tp.args[i].comm))
			return false;
	}
	return true;
}

/* Add @kev as one more probe of the event @to.  event_mutex held. */
static int kpev_join(struct kp_event *kev, struct kp_event *to)
{
	struct kp_event *sib;
	int diff, err;

	if (kev->retprobe != to->retprobe) {
		trace_probe_log_set_index(0);
		trace_probe_log_err(0, DIFF_PROBE_TYPE);
		return -EEXIST;
	}
	diff = trace_probe_compare_arg_type(&kev->tp, &to->tp);
	if (diff) {
		trace_probe_log_set_index(diff + 1);
		trace_probe_log_err(0, DIFF_ARG_TYPE);
		return -EEXIST;
	}
	list_for_each_entry(sib, trace_probe_probe_list(&to->tp), tp.list) {
		if (kpev_same(kev, sib)) {
			trace_probe_log_set_index(0);
			trace_probe_log_err(0, SAME_PROBE);
			return -EEXIST;
		}
	}

	err = trace_probe_append(&kev->tp, &to->tp);
	if (err)
		return err;

	err = kpev_arm_new(kev);
	if (err) {
		trace_probe_unlink(&kev->tp);
		return err;
	}
	dyn_event_add(&kev->devent, trace_probe_event_call(&kev->tp));
	return 0;
}

/* Make @kev a new event, or a sibling of the existing one of its name. */
static int kpev_install(struct kp_event *kev)
{
	struct kp_event *old;
	int err;

	guard(mutex)(&event_mutex);

	old = kpev_lookup(trace_probe_name(&kev->tp),
			  trace_probe_group_name(&kev->tp));
	if (old)
		return kpev_join(kev, old);

	kpev_setup_call(kev);
	err = traceprobe_set_print_fmt(&kev->tp, kev->retprobe ?
				       PROBE_PRINT_RETURN : PROBE_PRINT_NORMAL);
	if (err)
		return err;

	err = trace_probe_register_event_call(&kev->tp);
	if (err) {
		if (err == -EEXIST) {
			trace_probe_log_set_index(0);
			trace_probe_log_err(0, EVENT_EXIST);
		}
		return err;
	}

	err = kpev_arm_new(kev);
	if (err) {
		trace_probe_unregister_event_call(&kev->tp);
		return err;
	}
	dyn_event_add(&kev->devent, trace_probe_event_call(&kev->tp));
	return 0;
}

/*
 * Deleting events in bulk
 * -----------------------
 * Unregistering a probe waits for a grace period, which is most of what
 * deleting an event costs; a truncation of kprobe_events or a write of
 * many "-:" lines used to wait once per event.  A deleted event is now
 * taken off every list at once, its event call unregistered and its
 * kp_event put on kpev_retiring with its probe still registered; the
 * probes of all retiring events are then unregistered together, with one
 * wait, and the kp_events freed (kpev_retire_flush()).
 *
 * This is safe in between because an event can only be deleted disabled:
 * its probe is disarmed, and a hit or a pending kretprobe return that
 * still reaches the handler finds no user in the event's flags and only
 * counts itself.  The event call and the flags stay allocated until the
 * flush, as the handler reads them.  Only an event deleted whole is
 * retired this way; a probe leaving siblings behind is unregistered at
 * once, as their shared list must not hold a half-gone member.
 *
 * The flush runs before the deleting task returns to user space (a
 * task_work), so when write(2) or open(O_TRUNC) of dynamic_events, or an
 * open(O_TRUNC) of kprobe_events, returns, no handler of a deleted event
 * runs and its memory is freed, as before; kernel threads and in-kernel
 * callers flush at once.  A write(2) to kprobe_events leaves the flush
 * to the close of that file instead: tools delete one event per write on
 * one open file ("perf probe -d"), and would otherwise wait once per
 * event.  In between, the deleted events are gone from every list a tool
 * reads but debugfs kprobes/list; while the file stays open,
 * kpev_retire_work flushes them within a second of the first deletion.
 * kpev_retire_lock is held across a whole flush, so a task whose events
 * another task's flush took returns only after they are gone.
 * Order: event_mutex -> kpev_retire_lock -> the kprobes core's locks.
 */
static LIST_HEAD(kpev_retiring);
static DEFINE_MUTEX(kpev_retire_lock);

/* Unregister the probes of every retiring event with one wait; free them. */
static void kpev_retire_flush(void)
{
	struct kretprobe **rps = NULL;
	struct kprobe **kps = NULL;
	struct kp_event *kev, *next;
	int n = 0, nk = 0, nr = 0;

	guard(mutex)(&kpev_retire_lock);
	list_for_each_entry(kev, &kpev_retiring, retiring)
		n++;
	if (!n)
		return;
	kps = kvmalloc_array(n, sizeof(*kps), GFP_KERNEL);
	rps = kvmalloc_array(n, sizeof(*rps), GFP_KERNEL);
	list_for_each_entry(kev, &kpev_retiring, retiring) {
		if (!kev->live)
			continue;
		if (!kps || !rps) {
			/* No room for a batch: one wait each, still correct. */
			kpev_disarm(kev);
			continue;
		}
		if (kev->retprobe)
			rps[nr++] = &kev->rp;
		else
			kps[nk++] = kpev_kprobe(kev);
		kev->live = false;
	}
	if (nk)
		unregister_kprobes(kps, nk);
	if (nr)
		unregister_kretprobes(rps, nr);
	kvfree(kps);
	kvfree(rps);

	list_for_each_entry_safe(kev, next, &kpev_retiring, retiring) {
		list_del(&kev->retiring);
		kpev_free(kev);
	}
}

static void kpev_retire_task_work(struct callback_head *cb)
{
	kfree(cb);
	kpev_retire_flush();
}

static void kpev_retire_work_fn(struct work_struct *work)
{
	kpev_retire_flush();
}

static DECLARE_DELAYED_WORK(kpev_retire_work, kpev_retire_work_fn);

/*
 * After a write to kprobe_events: leave what it deleted to the close of
 * @file (or to kpev_retire_work) rather than to the return of the write.
 */
static void kpev_retire_at_close(struct file *file)
{
	struct seq_file *m = file->private_data;
	struct callback_head *cb;

	cb = task_work_cancel_func(current, kpev_retire_task_work);
	if (!cb)
		return;
	kfree(cb);
	m->private = file;
	schedule_delayed_work(&kpev_retire_work, HZ);
}

/* Remove one probe; its event goes with its last probe.  event_mutex held. */
static int kpev_remove(struct kp_event *kev)
{
	int err;

	if (trace_probe_is_enabled(&kev->tp))
		return -EBUSY;
	if (trace_event_dyn_busy(trace_probe_event_call(&kev->tp)))
		return -EBUSY;
	/* Its event may be on kpev_disabling, by any of its probes. */
	kpev_disable_flush();

	if (trace_probe_has_sibling(&kev->tp)) {
		kpev_disarm(kev);
		dyn_event_remove(&kev->devent);
		trace_probe_unlink(&kev->tp);
		kpev_free(kev);
		return 0;
	}

	err = trace_probe_unregister_event_call(&kev->tp);
	if (err)
		return err;
	dyn_event_remove(&kev->devent);
	mutex_lock(&kpev_retire_lock);
	list_add_tail(&kev->retiring, &kpev_retiring);
	mutex_unlock(&kpev_retire_lock);
	if (!kpev_work_on_return(kpev_retire_task_work))
		kpev_retire_flush();
	return 0;
}

/* ------------------------------------------------------------------ */
/* Parsing a definition                                                 */
/* ------------------------------------------------------------------ */

/* Parsed head of a definition */
struct kpev_head {
	const char	*group;
	const char	*event;
	char		*symbol;	/* NULL for an address */
	unsigned long	where;
	unsigned long	offs;
	int		maxactive;
	bool		retprobe;
};

/* argv[0]: "p[:[GRP/][EVENT]]" or "r[MAXACTIVE][:[GRP/][EVENT]]" */
static int kpev_parse_command(const char *cmd, struct kpev_head *h,
			      char *groupbuf)
{
	const char *name = strchr(cmd, ':');
	size_t ndigits;
	char num[16];

	h->retprobe = cmd[0] == 'r';
	ndigits = name ? name - (cmd + 1) : strlen(cmd + 1);
	if (ndigits) {
		unsigned long val;

		if (!h->retprobe) {
			trace_probe_log_err(1, BAD_MAXACT_TYPE);
			return -EINVAL;
		}
		if (ndigits >= sizeof(num)) {
			trace_probe_log_err(1, BAD_MAXACT);
			return -EINVAL;
		}
		memcpy(num, cmd + 1, ndigits);
		num[ndigits] = '\0';
		if (kstrtoul(num, 0, &val)) {
			trace_probe_log_err(1, BAD_MAXACT);
			return -EINVAL;
		}
		if (val > KPEV_MAXACTIVE_LIMIT) {
			trace_probe_log_err(1, MAXACT_TOO_BIG);
			return -EINVAL;
		}
		h->maxactive = val;
	}

	h->group = KPEV_DEFAULT_GROUP;
	h->event = NULL;
	if (!name)
		return 0;

	h->event = name + 1;
	return traceprobe_parse_event_name(&h->event, &h->group, groupbuf,
					   h->event - cmd);
}

/* argv[1]: "[MOD:]SYM[+offs][%return]" or "MEMADDR" */
static int kpev_parse_place(char *place, struct kpev_head *h)
{
	char *suffix;
	long offs = 0;

	if (isdigit(place[0])) {
		if (kstrtoul(place, 0, &h->where)) {
			trace_probe_log_err(0, BAD_PROBE_ADDR);
			return -EINVAL;
		}
		return 0;
	}

	suffix = strchr(place, '%');
	if (suffix) {
		if (strcmp(suffix, "%return")) {
			trace_probe_log_err(suffix - place, BAD_ADDR_SUFFIX);
			return -EINVAL;
		}
		*suffix = '\0';
		h->retprobe = true;
	}

	if (traceprobe_split_symbol_offset(place, &offs) || offs < 0 ||
	    offs > UINT_MAX || !place[0]) {
		trace_probe_log_err(0, BAD_PROBE_ADDR);
		return -EINVAL;
	}
	/*
	 * A return probe goes on a function's entry, which "SYM+OFFS" can
	 * still name (perf probe writes "_text+OFFS").  An unknown symbol
	 * is left to registration to report.
	 */
	if (h->retprobe && offs &&
	    kprobe_on_func_entry(NULL, place, offs) == -EINVAL) {
		trace_probe_log_err(0, BAD_RETPROBE);
		return -EINVAL;
	}
	h->symbol = place;
	h->offs = offs;
	return 0;
}

/* Counting the symbols that carry one name, stopping at two */
struct kpev_sym_count {
	const char	*name;
	unsigned int	seen;
};

static int kpev_count_core(void *data, unsigned long addr)
{
	struct kpev_sym_count *c = data;

	return ++c->seen > 1;
}

static int kpev_count_module(void *data, const char *name, unsigned long addr)
{
	struct kpev_sym_count *c = data;

	if (strcmp(name, c->name))
		return 0;
	return ++c->seen > 1;
}

/* How many symbols (0, 1, or 2 for "several") does "[MOD:]SYM" name? */
static unsigned int kpev_symbol_count(const char *sym)
{
	struct kpev_sym_count c = { .name = sym };
	const char *colon = strchr(sym, ':');
	char mod[MODULE_NAME_LEN];

	if (colon) {
		size_t len = colon - sym;

		if (len >= sizeof(mod))
			return 0;
		memcpy(mod, sym, len);
		mod[len] = '\0';
		c.name = colon + 1;
		module_kallsyms_on_each_symbol(mod, kpev_count_module, &c);
		return c.seen;
	}
	kallsyms_on_each_match_symbol(kpev_count_core, sym, &c);
	if (c.seen < 2)
		module_kallsyms_on_each_symbol(NULL, kpev_count_module, &c);
	return c.seen;
}

/* Is the place the entry of a function, as far as we can tell now? */
static bool kpev_head_on_entry(struct kpev_head *h)
{
	int ret;

	if (h->symbol)
		ret = kprobe_on_func_entry(NULL, h->symbol, h->offs);
	else
		ret = kprobe_on_func_entry((kprobe_opcode_t *)h->where, NULL, 0);
	/* An unloaded module's symbol: trust a zero offset. */
	if (ret == -ENOENT)
		return h->symbol && !h->offs;
	return ret == 0;
}

/*
 * The function whose entry @addr is, for the argument parser, which finds
 * a function's BTF by name: a kmalloc()ed name, NULL if kallsyms knows
 * none or several functions carry it (BTF could then describe another
 * one), or an ERR_PTR().
 */
static char *kpev_entry_function(unsigned long addr)
{
	unsigned long size, offs;
	char *modname, *name;

	name = kmalloc(KSYM_NAME_LEN, GFP_KERNEL);
	if (!name)
		return ERR_PTR(-ENOMEM);
	if (!kallsyms_lookup(addr, &size, &offs, &modname, name) ||
	    kpev_symbol_count(name) != 1) {
		kfree(name);
		return NULL;
	}
	return name;
}

static void kpev_default_name(struct kpev_head *h, char *buf)
{
	char kind = h->retprobe ? 'r' : 'p';
	char *c;

	if (h->symbol)
		snprintf(buf, MAX_EVENT_NAME_LEN, "%c_%s_%lu", kind, h->symbol,
			 h->offs);
	else
		snprintf(buf, MAX_EVENT_NAME_LEN, "%c_0x%lx", kind, h->where);
	/* "mod:sym" and "func.isra.0" must still make a valid name */
	for (c = buf; *c; c++)
		if (!isalnum(*c) && *c != '_')
			*c = '_';
	h->event = buf;
}

static int kpev_parse_args(struct kp_event *kev, int argc, const char **argv,
			   struct traceprobe_parse_context *ctx)
{
	int i, err;

	for (i = 0; i < argc; i++) {
		trace_probe_log_set_index(i + 2);
		err = traceprobe_parse_probe_arg(&kev->tp, i, argv[i], ctx);
		if (err)
			return err;
	}
	if (kev->retprobe) {
		int need = traceprobe_get_entry_data_size(&kev->tp);

		if (need > 0) {
			kev->rp.entry_handler = kpev_on_call;
			kev->rp.data_size = need;
		}
	}
	return 0;
}

/* Set while the kprobe_event= parameter is being applied. */
static bool kpev_booting;

/*
 * Expand "$arg*" (BTF) and ":%pd"/":%pD" arguments.  Returns a private
 * array of @*nargs strings; *@dentbuf holds the rewritten dentry arguments.
 */
static const char **kpev_expand_args(int argc, const char *argv[], int *nargs,
				     char *metabuf, char **dentbuf,
				     struct traceprobe_parse_context *ctx)
{
	const char **args;
	int err;

	args = traceprobe_expand_meta_args(argc, argv, nargs, metabuf,
					   MAX_BTF_ARGS_LEN, ctx);
	if (IS_ERR(args))
		return args;
	if (!args && argc) {
		args = kmemdup(argv, argc * sizeof(*argv), GFP_KERNEL);
		if (!args)
			return ERR_PTR(-ENOMEM);
	}
	err = traceprobe_expand_dentry_args(*nargs, args, dentbuf);
	if (err) {
		kfree(args);
		return ERR_PTR(err);
	}
	return args;
}

static int kpev_define(int argc, const char *argv[])
{
	struct traceprobe_parse_context ctx = { .flags = TPARG_FL_KERNEL };
	struct kp_event *kev = NULL;
	char groupbuf[MAX_EVENT_NAME_LEN];
	char namebuf[MAX_EVENT_NAME_LEN];
	char metabuf[MAX_BTF_ARGS_LEN];
	char *entry_func = NULL;
	const char **args = NULL;
	char *dentbuf = NULL;
	struct kpev_head h = { };
	char *place = NULL;
	int nargs = 0, err;
	bool on_entry;

	trace_probe_log_init("trace_kprobe", argc, argv);
	/* "p", "p:NAME", "r2:G/E" and no place: say so, past the first word. */
	if (argc < 2) {
		trace_probe_log_err(strlen(argv[0]), BAD_PROBE_ADDR);
		trace_probe_log_clear();
		return -EINVAL;
	}

	err = kpev_parse_command(argv[0], &h, groupbuf);
	if (err)
		goto out;

	trace_probe_log_set_index(1);
	place = kstrdup(argv[1], GFP_KERNEL);
	if (!place) {
		err = -ENOMEM;
		goto out;
	}
	err = kpev_parse_place(place, &h);
	if (err)
		goto out;
	/* "SYM" must say which function: refuse a name several ones carry */
	if (h.symbol && kpev_symbol_count(h.symbol) > 1) {
		trace_probe_log_err(0, NON_UNIQ_SYMBOL);
		err = -EADDRNOTAVAIL;
		goto out;
	}
	if (!h.event)
		kpev_default_name(&h, namebuf);

	on_entry = kpev_head_on_entry(&h);
	/* "r 0xADDR": as for "r SYM+OFFS", the address must be an entry. */
	if (h.retprobe && !h.symbol && !on_entry) {
		if (kallsyms_lookup_size_offset(h.where, NULL, NULL))
			trace_probe_log_err(0, BAD_RETPROBE);
		else
			trace_probe_log_err(0, BAD_PROBE_ADDR);
		err = -EINVAL;
		goto out;
	}
	if (h.retprobe)
		ctx.flags |= TPARG_FL_RETURN;
	else if (on_entry)
		ctx.flags |= TPARG_FL_FENTRY;
	ctx.funcname = h.symbol;
	if (!h.symbol && on_entry) {
		entry_func = kpev_entry_function(h.where);
		if (IS_ERR(entry_func)) {
			err = PTR_ERR(entry_func);
			entry_func = NULL;
			goto out;
		}
		ctx.funcname = entry_func;
	}
	/*
	 * With BTF arguments, an entry or a return without a function name
	 * would refuse every name, and $retval, without a word in error_log:
	 * such a place is read as any other address, which says why.
	 */
	if (!ctx.funcname && IS_ENABLED(CONFIG_PROBE_EVENTS_BTF_ARGS))
		ctx.flags &= ~(TPARG_FL_RETURN | TPARG_FL_FENTRY);

	args = kpev_expand_args(argc - 2, argv + 2, &nargs, metabuf, &dentbuf,
				&ctx);
	if (IS_ERR(args)) {
		err = PTR_ERR(args);
		args = NULL;
		goto out_ctx;
	}
	if (nargs > MAX_TRACE_ARGS) {
		err = -E2BIG;
		goto out_ctx;
	}

	kev = kpev_alloc(h.group, h.event, h.symbol, h.where, h.offs,
			 h.maxactive, nargs, h.retprobe);
	if (IS_ERR(kev)) {
		err = PTR_ERR(kev);
		goto out_ctx;
	}
	ctx.event = trace_probe_event_call(&kev->tp);

	err = kpev_parse_args(kev, nargs, args, &ctx);
	if (err)
		goto out_ctx;

	kev->boot = kpev_booting;
	err = kpev_install(kev);
	if (!err)
		kev = NULL;	/* now owned by the dynamic event list */

out_ctx:
	if (!IS_ERR_OR_NULL(kev))
		kpev_free(kev);
	traceprobe_finish_parse(&ctx);
	kfree(dentbuf);
	kfree(args);
out:
	kfree(entry_func);
	kfree(place);
	trace_probe_log_clear();
	return err;
}

/* ------------------------------------------------------------------ */
/* dynamic_events operations                                            */
/* ------------------------------------------------------------------ */

/*
 * dynamic_events offers each "p" and "r" line to every probe type: leave
 * uprobes theirs, "PATH:OFFSET".  No kprobe place has a '/', and what
 * follows "MOD:" is a symbol, which never starts with a digit.
 */
static bool kpev_uprobe_place(const char *cmd)
{
	const char *place = skip_spaces(cmd + strcspn(cmd, " \t"));
	size_t len = strcspn(place, " \t");
	const char *colon = strnchr(place, len, ':');

	return strnchr(place, len, '/') || (colon && isdigit(colon[1]));
}

/* Called with dyn_event_ops_mutex held. */
static int kpev_create(const char *raw_command, bool dynamic_events)
{
	const char *cmd = skip_spaces(raw_command);

	/* A blank line defines nothing and is no error. */
	if (!*cmd)
		return 0;
	if (*cmd != 'p' && *cmd != 'r')
		return -ECANCELED;
	if (dynamic_events && kpev_uprobe_place(cmd))
		return -ECANCELED;
	return trace_probe_create(cmd, kpev_define);
}

static int kpev_dyn_create(const char *raw_command)
{
	return kpev_create(raw_command, true);
}

static int kpev_file_create(const char *raw_command)
{
	return kpev_create(raw_command, false);
}

/*
 * What kprobe_events writes: every line is ours there, so it goes through
 * dyn_event_create() (for its mutex) with this create and no other.
 */
static struct dyn_event_operations kpev_file_create_ops = {
	.create = kpev_file_create,
};

/* Write the place the way it was given (offset 0 omitted). */
static void kpev_show_place(struct seq_file *m, struct kp_event *kev)
{
	if (!kev->symbol)
		seq_printf(m, "0x%lx", kev->where);
	else if (kev->offs)
		seq_printf(m, "%s+%lu", kev->symbol, kev->offs);
	else
		seq_puts(m, kev->symbol);
}

static int kpev_dyn_show(struct seq_file *m, struct dyn_event *ev)
{
	struct kp_event *kev = dyn_to_kpev(ev);
	int i;

	if (!kev)
		return 0;

	seq_putc(m, kev->retprobe ? 'r' : 'p');
	if (kev->retprobe && kev->rp.maxactive)
		seq_printf(m, "%d", kev->rp.maxactive);
	seq_printf(m, ":%s/%s ", trace_probe_group_name(&kev->tp),
		   trace_probe_name(&kev->tp));
	kpev_show_place(m, kev);
	for (i = 0; i < kev->tp.nr_args; i++)
		seq_printf(m, " %s=%s", kev->tp.args[i].name,
			   kev->tp.args[i].comm);
	seq_putc(m, '\n');
	return 0;
}

static bool kpev_dyn_busy(struct dyn_event *ev)
{
	struct kp_event *kev = dyn_to_kpev(ev);

	return kev && trace_probe_is_enabled(&kev->tp);
}

static int kpev_dyn_free(struct dyn_event *ev)
{
	struct kp_event *kev = dyn_to_kpev(ev);

	return kev ? kpev_remove(kev) : -EINVAL;
}

/* Does @spec ("SYM", "SYM+OFFS", "MOD:SYM+OFFS" or "0xADDR") name @kev's place? */
static bool kpev_place_is(struct kp_event *kev, const char *spec)
{
	char buf[KSYM_NAME_LEN + 32];
	char *sym;
	long offs = 0;

	if (!kev->symbol) {
		unsigned long addr;

		return !kstrtoul(spec, 0, &addr) && addr == kev->where;
	}
	if (strscpy(buf, spec, sizeof(buf)) < 0)
		return false;
	sym = buf;
	if (traceprobe_split_symbol_offset(sym, &offs))
		return false;
	return !strcmp(sym, kev->symbol) && offs == kev->offs;
}

static bool kpev_dyn_match(const char *system, const char *event,
			   int argc, const char **argv, struct dyn_event *ev)
{
	struct kp_event *kev = dyn_to_kpev(ev);

	if (!kev)
		return false;
	if (event[0] && strcmp(trace_probe_name(&kev->tp), event))
		return false;
	if (system && strcmp(trace_probe_group_name(&kev->tp), system))
		return false;
	if (!argc)
		return true;
	if (!kpev_place_is(kev, argv[0]))
		return false;
	return trace_probe_match_command_args(&kev->tp, argc - 1, argv + 1);
}

/* ------------------------------------------------------------------ */
/* kprobe_events and kprobe_profile                                     */
/* ------------------------------------------------------------------ */

static struct dyn_event_operations kpev_dyn_ops = {
	.match		= kpev_dyn_match,
	.free		= kpev_dyn_free,
	.show		= kpev_dyn_show,
	.create		= kpev_dyn_create,
	.is_busy	= kpev_dyn_busy,
};

static int kpev_command(const char *raw_command)
{
	int err;

	if (*skip_spaces(raw_command) == '-')
		return dyn_event_release(skip_spaces(raw_command), &kpev_dyn_ops);

	err = dyn_event_create(raw_command, &kpev_file_create_ops);
	return err == -ECANCELED ? -EINVAL : err;
}

static int kpev_list_show(struct seq_file *m, void *v)
{
	struct dyn_event *ev = v;

	return dyn_to_kpev(ev) ? kpev_dyn_show(m, ev) : 0;
}

/* Both files walk the dynamic event list and show only our entries. */
static const struct seq_operations kpev_list_seq_ops = {
	.show	= kpev_list_show,
	.start	= dyn_event_seq_start,
	.stop	= dyn_event_seq_stop,
	.next	= dyn_event_seq_next,
};

static int kpev_events_open(struct inode *inode, struct file *file)
{
	int err;

	err = security_locked_down(LOCKDOWN_TRACEFS);
	if (err)
		return err;

	if ((file->f_mode & FMODE_WRITE) && (file->f_flags & O_TRUNC)) {
		err = dyn_events_release_all(&kpev_dyn_ops);
		if (err < 0)
			return err;
	}
	return seq_open(file, &kpev_list_seq_ops);
}

static ssize_t kpev_events_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	ssize_t ret;

	ret = trace_parse_run_command(file, ubuf, count, ppos, kpev_command);
	kpev_retire_at_close(file);
	return ret;
}

static int kpev_events_release(struct inode *inode, struct file *file)
{
	struct seq_file *m = file->private_data;

	/* This file deleted events: they are gone when close() returns. */
	if (m->private)
		kpev_retire_flush();
	return seq_release(inode, file);
}

static const struct file_operations kpev_events_fops = {
	.open		= kpev_events_open,
	.write		= kpev_events_write,
	.read		= seq_read,
	.release	= kpev_events_release,
	.llseek		= seq_lseek,
	.owner		= THIS_MODULE,
};

static int kpev_profile_show(struct seq_file *m, void *v)
{
	struct kp_event *kev = dyn_to_kpev(v);

	if (kev)
		seq_printf(m, "  %-44s %15lu %15lu\n",
			   trace_probe_name(&kev->tp), kpev_nhits(kev),
			   kpev_nmissed(kev));
	return 0;
}

static const struct seq_operations kpev_profile_seq_ops = {
	.show	= kpev_profile_show,
	.start	= dyn_event_seq_start,
	.stop	= dyn_event_seq_stop,
	.next	= dyn_event_seq_next,
};

static int kpev_profile_open(struct inode *inode, struct file *file)
{
	int err = security_locked_down(LOCKDOWN_TRACEFS);

	return err ? err : seq_open(file, &kpev_profile_seq_ops);
}

static const struct file_operations kpev_profile_fops = {
	.open		= kpev_profile_open,
	.read		= seq_read,
	.release	= seq_release,
	.llseek		= seq_lseek,
	.owner		= THIS_MODULE,
};

/* ------------------------------------------------------------------ */
/* In-kernel command builder                                            */
/* ------------------------------------------------------------------ */

static int kpev_run_cmd(struct dynevent_cmd *cmd)
{
	return kpev_command(seq_buf_str(&cmd->seq));
}

/**
 * kprobe_event_cmd_init - prepare a command that defines a kprobe event
 * @cmd: the command object to set up
 * @buf: the buffer the command text is built in
 * @maxlen: the size of @buf
 *
 * Follow with kprobe_event_gen_cmd_start() or
 * kretprobe_event_gen_cmd_start(), optionally kprobe_event_add_fields(),
 * and run it with kprobe_event_gen_cmd_end().
 */
void kprobe_event_cmd_init(struct dynevent_cmd *cmd, char *buf, int maxlen)
{
	dynevent_cmd_init(cmd, buf, maxlen, DYNEVENT_TYPE_KPROBE, kpev_run_cmd);
}
EXPORT_SYMBOL_GPL(kprobe_event_cmd_init);

/* Append each string of a NULL-terminated list as one argument. */
static int kpev_cmd_add_list(struct dynevent_cmd *cmd, va_list list)
{
	struct dynevent_arg word;
	const char *str;
	int err;

	while ((str = va_arg(list, const char *)) != NULL) {
		dynevent_arg_init(&word, ' ');
		word.str = str;
		err = dynevent_arg_add(cmd, &word, NULL);
		if (err)
			return err;
	}
	return 0;
}

/**
 * __kprobe_event_gen_cmd_start - start a kprobe event definition
 * @cmd: a command set up by kprobe_event_cmd_init()
 * @kretprobe: define a return probe
 * @name: the event name; the group is "kprobes"
 * @loc: the probed place, "[MOD:]SYM[+offs]" or an address
 * @...: fetch arguments as strings, terminated by NULL
 *
 * Usually called through kprobe_event_gen_cmd_start() or
 * kretprobe_event_gen_cmd_start(), which add the NULL.
 *
 * Return: 0, or -EINVAL for a bad @cmd, @name or @loc, -E2BIG when the
 * command does not fit its buffer.
 */
int __kprobe_event_gen_cmd_start(struct dynevent_cmd *cmd, bool kretprobe,
				 const char *name, const char *loc, ...)
{
	va_list list;
	int err;

	if (cmd->type != DYNEVENT_TYPE_KPROBE || !name || !loc)
		return -EINVAL;

	if (seq_buf_printf(&cmd->seq, "%c:%s/%s %s", kretprobe ? 'r' : 'p',
			   KPEV_DEFAULT_GROUP, name, loc))
		return -E2BIG;
	cmd->event_name = name;

	va_start(list, loc);
	err = kpev_cmd_add_list(cmd, list);
	va_end(list);
	return err;
}
EXPORT_SYMBOL_GPL(__kprobe_event_gen_cmd_start);

/**
 * __kprobe_event_add_fields - add fetch arguments to a kprobe event command
 * @cmd: a command started with __kprobe_event_gen_cmd_start()
 * @...: fetch arguments as strings, terminated by NULL
 *
 * Usually called through kprobe_event_add_fields(), which adds the NULL.
 *
 * Return: 0, or -EINVAL for a bad @cmd, -E2BIG when the command does not
 * fit its buffer.
 */
int __kprobe_event_add_fields(struct dynevent_cmd *cmd, ...)
{
	va_list list;
	int err;

	if (cmd->type != DYNEVENT_TYPE_KPROBE)
		return -EINVAL;

	va_start(list, cmd);
	err = kpev_cmd_add_list(cmd, list);
	va_end(list);
	return err;
}
EXPORT_SYMBOL_GPL(__kprobe_event_add_fields);

/**
 * kprobe_event_delete - delete a kprobe event
 * @name: the event name, optionally "GROUP/NAME"; the group defaults to
 *	"kprobes"
 *
 * Return: 0, -ENOENT if there is no such event, -EBUSY if it is in use.
 */
int kprobe_event_delete(const char *name)
{
	char cmd[MAX_EVENT_NAME_LEN * 2 + 4];
	int err;

	if (!name)
		return -EINVAL;
	if (snprintf(cmd, sizeof(cmd), "-:%s", name) >= sizeof(cmd))
		return -E2BIG;
	err = kpev_command(cmd);
	/* The caller may free what the handlers touched once this returns. */
	kpev_retire_flush();
	return err;
}
EXPORT_SYMBOL_GPL(kprobe_event_delete);

/* ------------------------------------------------------------------ */
/* perf and BPF                                                         */
/* ------------------------------------------------------------------ */

/**
 * trace_kprobe_on_func_entry - is a kprobe event on a function's entry
 * @call: the event (its primary probe is looked at)
 *
 * Return: true if the probe sits on the first instruction of a function.
 */
bool trace_kprobe_on_func_entry(struct trace_event_call *call)
{
	struct kp_event *kev = kpev_of_call(call);

	if (!kev)
		return false;
	if (kev->symbol)
		return !kprobe_on_func_entry(NULL, kev->symbol, kev->offs);
	return !kprobe_on_func_entry((kprobe_opcode_t *)kev->where, NULL,
				     kev->offs);
}

/**
 * trace_kprobe_error_injectable - may BPF override a kprobe event's function
 * @call: the event (its primary probe is looked at)
 *
 * Return: true if the probed function is on the error injection list.
 */
bool trace_kprobe_error_injectable(struct trace_event_call *call)
{
	struct kp_event *kev = kpev_of_call(call);
	unsigned long addr;

	if (!kev)
		return false;
	addr = kpev_address(kev);
	return addr && within_error_injection_list(addr);
}

#ifdef CONFIG_PERF_EVENTS
/**
 * bpf_get_kprobe_info - describe the kprobe behind a perf event
 * @event: a perf event on a kprobe event or a perf-local kprobe
 * @fd_type: set to BPF_FD_TYPE_KPROBE or BPF_FD_TYPE_KRETPROBE
 * @symbol: set to the probed symbol, or NULL for an address
 * @probe_offset: set to the offset from @symbol
 * @probe_addr: set to the probed address, if the caller may see it
 * @missed: set to the number of missed hits
 * @perf_type_tracepoint: @event was opened as a tracepoint event
 *
 * Return: 0, or -EINVAL when @event carries no kprobe.
 */
int bpf_get_kprobe_info(const struct perf_event *event, u32 *fd_type,
			const char **symbol, u64 *probe_offset,
			u64 *probe_addr, unsigned long *missed,
			bool perf_type_tracepoint)
{
	struct kp_event *kev = kpev_of_call(event->tp_event);

	if (!kev)
		return -EINVAL;

	*fd_type = kev->retprobe ? BPF_FD_TYPE_KRETPROBE : BPF_FD_TYPE_KPROBE;
	*symbol = kev->symbol;
	*probe_offset = kev->symbol ? kev->offs : 0;
	*probe_addr = kallsyms_show_value(current_cred()) ?
		      kpev_address(kev) : 0;
	*missed = kpev_nmissed(kev);
	return 0;
}

/**
 * create_local_trace_kprobe - a kprobe event private to one perf event
 * @func: the symbol to probe, or NULL to probe @addr
 * @addr: the address to probe when @func is NULL
 * @offs: offset from @func; ignored with @addr, since perf_event_attr
 *	carries the address and the offset in one field
 * @is_return: probe the function's return
 *
 * The event is not listed anywhere and has no arguments.
 * Return: its event call, or an ERR_PTR().
 */
struct trace_event_call *
create_local_trace_kprobe(char *func, void *addr, unsigned long offs,
			  bool is_return)
{
	struct kp_event *kev;
	int err;

	if (!func && !addr)
		return ERR_PTR(-EINVAL);

	kev = kpev_alloc(KPEV_DEFAULT_GROUP, "perf_local_kprobe", func,
			 (unsigned long)addr, func ? offs : 0, 0, 0, is_return);
	if (IS_ERR(kev))
		return ERR_CAST(kev);

	kpev_setup_call(kev);
	err = traceprobe_set_print_fmt(&kev->tp, is_return ?
				       PROBE_PRINT_RETURN : PROBE_PRINT_NORMAL);
	if (!err) {
		mutex_lock(&event_mutex);
		err = kpev_arm(kev);
		mutex_unlock(&event_mutex);
	}
	if (err) {
		kpev_free(kev);
		return ERR_PTR(err);
	}
	return trace_probe_event_call(&kev->tp);
}

/**
 * destroy_local_trace_kprobe - release what create_local_trace_kprobe() made
 * @event_call: its event call, no longer enabled
 */
void destroy_local_trace_kprobe(struct trace_event_call *event_call)
{
	struct kp_event *kev = kpev_of_call(event_call);

	if (WARN_ON_ONCE(!kev))
		return;
	if (WARN_ON_ONCE(trace_probe_is_enabled(&kev->tp)))
		return;

	mutex_lock(&event_mutex);
	kpev_disarm(kev);
	mutex_unlock(&event_mutex);
	kpev_free(kev);
}
#endif /* CONFIG_PERF_EVENTS */

/* ------------------------------------------------------------------ */
/* Modules                                                              */
/* ------------------------------------------------------------------ */

#ifdef CONFIG_MODULES
/* Does @kev name a symbol of @mod ("MOD:SYM")? */
static bool kpev_names_module(struct kp_event *kev, struct module *mod)
{
	size_t len = kpev_modname_len(kev);

	return len && !strncmp(kev->symbol, mod->name, len) &&
	       mod->name[len] == '\0';
}

/*
 * A module is coming: register the probes waiting for it, and those left
 * gone by an earlier instance of it.
 */
static int kpev_module_event(struct notifier_block *nb, unsigned long state,
			     void *data)
{
	struct module *mod = data;
	struct dyn_event *pos;
	struct kp_event *kev;
	int err;

	if (state != MODULE_STATE_COMING)
		return NOTIFY_DONE;

	mutex_lock(&event_mutex);
	for_each_dyn_event(pos) {
		kev = dyn_to_kpev(pos);
		if (!kev || !kpev_names_module(kev, mod))
			continue;
		if (kev->live && !kprobe_gone(kpev_kprobe(kev)))
			continue;
		kpev_disarm(kev);
		err = kpev_arm(kev);
		if (err)
			pr_warn("cannot probe %s of module %s for %s/%s: %d\n",
				kev->symbol, mod->name,
				trace_probe_group_name(&kev->tp),
				trace_probe_name(&kev->tp), err);
	}
	mutex_unlock(&event_mutex);
	return NOTIFY_DONE;
}

/* After the kprobes core, which prepares the module's blacklist. */
static struct notifier_block kpev_module_nb = {
	.notifier_call	= kpev_module_event,
	.priority	= -1,
};

static int __init kpev_module_init(void)
{
	return register_module_notifier(&kpev_module_nb);
}
#else
static int __init kpev_module_init(void)
{
	return 0;
}
#endif /* CONFIG_MODULES */

/* ------------------------------------------------------------------ */
/* Boot parameter and initialisation                                    */
/* ------------------------------------------------------------------ */

static char kpev_boot_cmdline[COMMAND_LINE_SIZE] __initdata;

static int __init kpev_boot_param(char *str)
{
	strscpy(kpev_boot_cmdline, str, sizeof(kpev_boot_cmdline));
	/* The startup selftests would wipe what the boot probes record. */
	disable_tracing_selftest("running kprobe events");
	return 1;
}

/* documented in Documentation/admin-guide/kernel-parameters.txt */
__setup_param("kprobe_event=", kpev_boot_param, kpev_boot_param, 0);

/* Define each "kprobe_event=" probe, then enable what was defined. */
static void __init kpev_boot_events(void)
{
	struct trace_array *top = top_trace_array();
	char *rest = kpev_boot_cmdline;
	struct trace_event_file *file;
	struct dyn_event *pos;
	struct kp_event *kev;
	char *def;
	int err;

	kpev_booting = true;
	while ((def = strsep(&rest, ";")) != NULL) {
		if (!*def)
			continue;
		strreplace(def, ',', ' ');
		err = dyn_event_create(def, &kpev_dyn_ops);
		if (err)
			pr_warn("kprobe_event: cannot add \"%s\": %d\n", def, err);
	}
	kpev_booting = false;

	if (!top)
		return;

	mutex_lock(&event_mutex);
	for_each_dyn_event(pos) {
		kev = dyn_to_kpev(pos);
		if (!kev || !kev->boot)
			continue;
		kev->boot = false;
		file = find_event_file(top, trace_probe_group_name(&kev->tp),
				       trace_probe_name(&kev->tp));
		if (file && trace_event_enable_disable(file, 1, 0))
			pr_warn("kprobe_event: cannot enable %s\n",
				trace_probe_name(&kev->tp));
	}
	mutex_unlock(&event_mutex);
}

/* The operations must exist before anyone (boot-time tracing) uses them. */
static __init int kpev_early_init(void)
{
	int err = dyn_event_register(&kpev_dyn_ops);

	if (err)
		return err;
	err = kpev_module_init();
	if (err)
		pr_warn("no module notifier: %d\n", err);
	return 0;
}
core_initcall(kpev_early_init);

static __init int kpev_init(void)
{
	int err = tracing_init_dentry();

	if (err)
		return 0;

	trace_create_file("kprobe_events", TRACE_MODE_WRITE, NULL, NULL,
			  &kpev_events_fops);
	trace_create_file("kprobe_profile", TRACE_MODE_READ, NULL, NULL,
			  &kpev_profile_fops);

	kpev_boot_events();
	return 0;
}
fs_initcall(kpev_init);
