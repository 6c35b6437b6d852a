// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Where a kernel probe goes.
 *
 * A caller names a location as an address or a symbol, plus an offset.
 * It is resolved relative to its function, so that the arch can move a
 * probe on a function's first instruction past what runs before the body
 * proper (an ENDBR).  The address must then be kernel or module text,
 * outside the blacklist and the compiler's preambles, and not reserved by
 * a jump label or a static call; the module holding it is pinned so that
 * it cannot go away while registration finishes.
 */

#include <linux/err.h>
#include <linux/jump_label.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/static_call.h>
#include <linux/string.h>

#include "internal.h"

/**
 * kprobe_lookup_name() - address of a symbol, as kprobes resolves it
 * @name: "symbol" or "module:symbol"
 * @offset: the offset the caller will add to the result
 *
 * powerpc replaces it: with function descriptors it finds the code, and on
 * ABIv2 it moves a probe on the symbol itself (@offset 0) to the local
 * entry point, while a nonzero @offset stays relative to the global one.
 *
 * Return: the symbol's address, or NULL.
 */
kprobe_opcode_t * __weak kprobe_lookup_name(const char *name,
					    unsigned int offset)
{
	return (kprobe_opcode_t *)kallsyms_lookup_name(name);
}

/*
 * @addr is a function's start, @offset into it.  x86 (ENDBR) and powerpc
 * (the local entry point) count more than the first byte as the entry.
 */
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
kprobe_opcode_t *kprobe_resolve(kprobe_opcode_t *addr, const char *sym,
				unsigned long offset, bool *on_entry)
{
	unsigned long base, symoff;

	if (!!addr == !!sym)
		return ERR_PTR(-EINVAL);

	if (sym) {
		base = (unsigned long)kprobe_lookup_name(sym, offset);
		if (!base)
			return ERR_PTR(-ENOENT);
	} else {
		base = (unsigned long)addr;
	}

	/* Express the address as "function start + offset" when we can. */
	if (!kallsyms_lookup_size_offset(base + offset, NULL, &symoff)) {
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
 * Called under kprobe_mutex, which the module's blacklist needs and which
 * comes before jump_label_mutex.  Returns 0, -EINVAL (not text, or text no
 * probe may go to), -ENOENT (a module going away, or __init text freed) or
 * -EBUSY (a jump label's or static call's site).
 */
int kprobe_check_address(unsigned long addr, struct module **modp)
{
	struct module *mod;
	int ret = 0;

	lockdep_assert_held(&kprobe_mutex);
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
