// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Where no kernel probe may go.
 *
 * The blacklist is a list of text ranges: the functions named by
 * NOKPROBE_SYMBOL() in the kernel and in each module (added while the
 * module comes, removed when it goes), the .kprobes.text and noinstr
 * sections, and what the arch adds.  A probe there would recurse into
 * the breakpoint path or run where instrumentation is not allowed.
 */

#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <asm/sections.h>

#include "internal.h"

/* Text ranges no probe may go to; RCU-readable for within_kprobe_blacklist(). */
LIST_HEAD(kprobe_blacklist);

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

int __init kprobe_populate_blacklist(void)
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
void kprobe_add_module_blacklist_once(struct module *mod)
{
	struct kprobe_blacklist_entry *ent;

	list_for_each_entry(ent, &kprobe_blacklist, list) {
		if (within_module(ent->start_addr, mod))
			return;
	}
	kprobe_add_module_blacklist(mod);
}

void kprobe_remove_module_blacklist(struct module *mod)
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

