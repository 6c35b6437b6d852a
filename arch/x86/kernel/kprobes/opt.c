// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * x86-64 jump optimization for kprobes (CONFIG_OPTPROBES).
 *
 * A breakpoint probe costs a trap per hit.  For a site without a
 * post_handler, the optimizer in kernel/kprobes/ asks us to replace the
 * int3 and the following bytes by a 5-byte jmp into a detour buffer of
 * KPROBE_OPTINSN_SLOT_SIZE bytes:
 *
 *   [0]   data: the probed address + 1 (regs->ip for the handlers)
 *   [8]   call kprobe_opt_common
 *   [13]  popfq
 *   [14]  copies of the whole instructions the jmp covers (the "region",
 *         at least 5 bytes): RIP-relative operands rewritten, relative
 *         jumps re-encoded with 32-bit displacements, a call turned into
 *         a push of its return address in the text and a jmp
 *   [..]  jmp to the first byte after the region, unless the copies end
 *         in a jmp, call or ret
 *
 * kprobe_opt_common(), in kernel text and shared by every detour, saves
 * the registers as a struct pt_regs, calls kprobe_opt_callback() and
 * restores them; its return lands on the popfq, which gives the probed
 * code its flags back right before the copies.  Keeping the register
 * code out of the buffers makes a detour 40 bytes rather than a few
 * hundred, and gives the code that calls the handlers ORC data.
 *
 * The callback presents the registers exactly as the breakpoint path does
 * (regs->ip is the probed address + 1, regs->sp the stack pointer at the
 * probed instruction) and runs the site's pre_handlers through the same
 * __kprobe_run_pre().  A pre_handler cannot redirect execution from here:
 * its change of regs->ip is ignored and the copies run.
 *
 * A site is refused (it stays a working breakpoint probe) unless all of
 * this can be proven from the text of its function, found through
 * kallsyms and decoded from its start:
 *  - the region lies inside the function, and its instructions can run
 *    from the detour (kprobe_opt_movable()): nothing the breakpoint path
 *    refuses but sti, and that never as the last instruction run (its
 *    interrupt shadow would cover the jmp back), no loop/jrcxz or
 *    indirect call, a call only as the last instruction (its callee
 *    returns to the text) and never with call depth tracking, rewritten
 *    displacements that still fit; past a jmp or a ret the region's bytes
 *    are never run and only need to decode;
 *  - no instruction in the region has an exception-table entry (a fault
 *    in the copy would not be fixed up) and no exception fixup lands
 *    inside the region;
 *  - no relative jump or call in the function (or in any of its .cold
 *    parts) targets a byte of the region other than its first: the jmp's
 *    bytes would be executed as instructions;
 *  - no indirect jump may land inside the region: with IBT, no ENDBR
 *    lies there (see KPROBE_OPT_ENDBR_TARGETS); without, the function
 *    contains no indirect jump (ff /4, or a jmp to an __x86_indirect_*
 *    retpoline thunk);
 *  - no jump label, static call or ftrace site, no lock prefix that
 *    alternatives may still rewrite, and no other probe, lies in the
 *    region.
 * 32-bit kernels are refused altogether.
 */

#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/kprobes.h>
#include <linux/extable.h>
#include <linux/ctype.h>
#include <linux/ftrace.h>
#include <linux/jhash.h>
#include <linux/jump_label.h>
#include <linux/kallsyms.h>
#include <linux/memory.h>
#include <linux/module.h>
#include <linux/perf_event.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/static_call.h>
#include <linux/string.h>

#include <kunit/visibility.h>
#include <linux/linkage.h>
#include <linux/objtool.h>

#include <asm/alternative.h>
#include <asm/insn.h>
#include <asm/orc_types.h>
#include <asm/sections.h>
#include <asm/segment.h>
#include <asm/text-patching.h>
#include <asm/unwind_hints.h>

#include "common.h"

#ifdef CONFIG_X86_64

/* Where things are in a detour; see the top of this file. */
#define KPROBE_OPT_DATA_IP	0
#define KPROBE_OPT_ENTRY	8
#define KPROBE_OPT_RETURN	(KPROBE_OPT_ENTRY + CALL_INSN_SIZE)
#define KPROBE_OPT_COPY		(KPROBE_OPT_RETURN + 1)

/*
 * Entered by the call at KPROBE_OPT_ENTRY of a detour: the return address
 * is the detour's popfq, and the stack above it is the probed code's.
 * Once the pt_regs is complete it is described to objtool as a register
 * frame: an unwind from a handler continues at regs->ip in
 * the probed function, never through the detour, which has no ORC data.
 * A direct call reaches this, never an indirect one, hence no ENDBR.
 *
 * The probed code may be inside a user access region (stac ... clac) or
 * have set the direction flag; the handlers must run as they would from
 * the breakpoint's trap entry, with SMAP enforced and DF clear.  The
 * probed code's flags are saved in the pt_regs first.  AC and DF are
 * cleared with a popfq, and only when set: objtool assumes a function
 * starts with both clear, and takes a cld or clac here for a mistake (and
 * stops following the code).
 *
 * The flags go back by the detour's popfq, after the return: the return
 * may change them (with call-depth tracking, retbleed=stuff, the return
 * thunk's shift sets the arithmetic flags), and a jcc among the copies
 * reads them.  On the way out the return address moves one slot down
 * (into the ss slot, which nothing reads any more) and the flags take its
 * place, where the popfq finds them once the ret has popped it; the stack
 * pointer is then the probed code's again.
 */
#define KPROBE_OPT_CLEAN_FLAGS	0x40400	/* X86_EFLAGS_AC | X86_EFLAGS_DF */
static_assert(KPROBE_OPT_CLEAN_FLAGS == (X86_EFLAGS_AC | X86_EFLAGS_DF));

asm("	.pushsection .text, \"ax\"\n"
	"	.type kprobe_opt_common, @function\n"
	"kprobe_opt_common:\n"
	ANNOTATE_NOENDBR
	KPROBE_CALLED_SAVE
	"	testl $" __stringify(KPROBE_OPT_CLEAN_FLAGS) ", "
		__stringify(KPROBE_REGS_FLAGS) "(%rsp)\n"
	"	jz 1f\n"
	"	pushfq\n"
	"	andl $~" __stringify(KPROBE_OPT_CLEAN_FLAGS) ", (%rsp)\n"
	"	popfq\n"
	"1:\n"
	"	movq " __stringify(KPROBE_CALLED_RET) "(%rsp), %rsi\n"
	"	movq " __stringify(KPROBE_OPT_DATA_IP - KPROBE_OPT_RETURN)
		"(%rsi), %rax\n"
	"	movq %rax, " __stringify(KPROBE_REGS_IP) "(%rsp)\n"
	"	leaq " __stringify(KPROBE_OPT_COPY - KPROBE_OPT_RETURN)
		"(%rsi), %rsi\n"
	"	movq %rsp, %rdi\n"
	UNWIND_HINT(UNWIND_HINT_TYPE_REGS, ORC_REG_SP, 0, 1)
	"	call kprobe_opt_callback\n"
	UNWIND_HINT(UNWIND_HINT_TYPE_CALL, ORC_REG_SP, KPROBE_CALLED_SP, 0)
	"	movq " __stringify(KPROBE_CALLED_RET) "(%rsp), %rax\n"
	"	movq %rax, " __stringify(KPROBE_REGS_SS) "(%rsp)\n"
	UNWIND_HINT(UNWIND_HINT_TYPE_CALL, ORC_REG_SP, KPROBE_REGS_SS + 8, 0)
	"	movq " __stringify(KPROBE_REGS_FLAGS) "(%rsp), %rax\n"
	"	movq %rax, " __stringify(KPROBE_CALLED_RET) "(%rsp)\n"
	RESTORE_REGS_STRING
	"	leaq " __stringify(KPROBE_REGS_SS - KPROBE_REGS_FLAGS)
		"(%rsp), %rsp\n"
	UNWIND_HINT_FUNC
	ASM_RET
	"	.size kprobe_opt_common, . - kprobe_opt_common\n"
	"	.popsection\n"
);

NOKPROBE_SYMBOL(kprobe_opt_common);

/*
 * Called from kprobe_opt_common() with the registers of the probed code
 * and @copy, the copies of the detour the CPU came through.  Preemption
 * is disabled, as on the ftrace path: that keeps the per-CPU state ours
 * and makes the handlers an RCU read-side section for unregistration to
 * wait on.  Interrupts keep the state the probed code had: restoring the
 * flag (popf or sti) would cost more than the rest of the callback, and
 * an interrupt that hits a probe meanwhile finds this one running and is
 * counted missed, as in any other handler.
 *
 * The site is looked up, and its handlers run only if that detour is
 * still the site's: a CPU can be held up between the jump and here
 * (preempted, or a long interrupt) past the grace period of an
 * unregistration and the registration of a new probe at the address,
 * whose handlers must not run from a detour that was never theirs (a
 * breakpoint site's post_handler would not follow).  Such a hit runs only
 * the copies.
 */
__visible void notrace kprobe_opt_callback(struct pt_regs *regs,
					   kprobe_opcode_t *copy)
{
	void *addr = (void *)(regs->ip - INT3_INSN_SIZE);
	struct optimized_kprobe *op;
	struct kprobe *p;

	preempt_disable_notrace();
	p = kprobe_site_at(addr);
	op = p ? READ_ONCE(p->opt) : NULL;
	if (op && READ_ONCE(op->optinsn.copy) == copy &&
	    __kprobe_run_pre(p, regs) == KPROBE_PRE_RAN)
		reset_current_kprobe();
	preempt_enable_notrace();
}

NOKPROBE_SYMBOL(kprobe_opt_callback);

/* Is @target inside a retpoline thunk, i.e. is a jmp to it indirect? */
static bool kprobe_opt_is_thunk(unsigned long target)
{
	unsigned long size, offset;
	char name[KSYM_NAME_LEN];

	if (!kallsyms_lookup(target, &size, &offset, NULL, name))
		return false;
	return strstarts(name, "__x86_indirect_");
}

/* Where a relative branch goes, or 0 if @insn is not one. */
static unsigned long kprobe_opt_branch_target(struct insn *insn,
					      unsigned long pos)
{
	u8 op = insn->opcode.bytes[0];

	switch (op) {
	case 0x70 ... 0x7f:			/* jcc rel8 */
	case 0xe0 ... 0xe3:			/* loop*, jrcxz */
	case 0xe8:				/* call rel32 */
	case 0xe9: case 0xeb:			/* jmp rel32, rel8 */
		break;
	case 0x0f:
		if (insn->opcode.bytes[1] >= 0x80 &&
		    insn->opcode.bytes[1] <= 0x8f)	/* jcc rel32 */
			break;
		return 0;
	default:
		return 0;
	}
	return pos + insn->length + insn->immediate.value;
}

static unsigned long kprobe_opt_ex_insn(const struct exception_table_entry *e)
{
	return (unsigned long)&e->insn + e->insn;
}

/*
 * Refuse (-EOPNOTSUPP) if an instruction in [@start, @end) with an
 * exception-table entry lies in the region (@addr, @len), or has its fixup
 * in the region past the first byte.  One binary search per range: looking
 * up each instruction costs a search of every table, for every candidate.
 * kprobe_mutex held, which keeps a module's text and table in place.
 */
static int kprobe_opt_check_extable(unsigned long start, unsigned long end,
				    unsigned long addr, unsigned int len)
{
	const struct exception_table_entry *tbl = __start___ex_table;
	size_t lo = 0, n = __stop___ex_table - __start___ex_table, hi, mid;
	unsigned long insn, fixup;
	struct module *mod;

	if (!core_kernel_text(start)) {
		preempt_disable();
		mod = __module_text_address(start);
		preempt_enable();
		if (!mod)
			return -EOPNOTSUPP;
		tbl = mod->extable;
		n = mod->num_exentries;
	}
	for (hi = n; lo < hi;) {
		mid = lo + (hi - lo) / 2;
		if (kprobe_opt_ex_insn(&tbl[mid]) < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && (insn = kprobe_opt_ex_insn(&tbl[lo])) < end; lo++) {
		if (insn >= addr && insn < addr + len)
			return -EOPNOTSUPP;
		fixup = (unsigned long)&tbl[lo].fixup + tbl[lo].fixup;
		if (fixup > addr && fixup < addr + len)
			return -EOPNOTSUPP;
	}
	return 0;
}

/*
 * Refuse (-EOPNOTSUPP) if a jump label may jump into (@addr, @addr + @len):
 * while it is a nop the decoder sees no target, and its key may turn it
 * into a jump at any time, with no word to us.  A site on a module still
 * coming is put off (-EAGAIN) and tried again once the module is live.
 */
static int kprobe_opt_check_jump_labels(unsigned long addr, unsigned int len)
{
	int ret = jump_label_text_entered((void *)addr + 1,
					  (void *)addr + len - 1);

	return ret > 0 ? -EOPNOTSUPP : ret;
}

/*
 * Where can an indirect jump land?  A kernel built for IBT compiles every
 * target an indirect jump of C code may reach (the labels of a computed
 * goto; switch tables are off) with an ENDBR in front, and objtool makes
 * assembly do the same: a region without an ENDBR inside receives none,
 * whatever the function's indirect jumps and retpoline tail calls.
 * Without IBT the whole function is refused if it has one.
 */
#define KPROBE_OPT_ENDBR_TARGETS	IS_ENABLED(CONFIG_X86_KERNEL_IBT)

/*
 * Decode [@start, @end) and refuse (-EOPNOTSUPP) if anything in it may
 * transfer control into (@addr, @addr + @len), or jumps indirectly where
 * that is not known (KPROBE_OPT_ENDBR_TARGETS).
 */
static int kprobe_opt_scan(unsigned long start, unsigned long end,
			   unsigned long addr, unsigned int len)
{
	unsigned long pos, target;
	u8 buf[MAX_INSN_SIZE];
	struct insn insn;

	for (pos = start; pos < end; pos += insn.length) {
		if (kprobe_decode_at(&insn, buf, pos))
			return -EOPNOTSUPP;
		if (!KPROBE_OPT_ENDBR_TARGETS && insn.opcode.bytes[0] == 0xff &&
		    X86_MODRM_REG(insn.modrm.bytes[0]) == 4)
			return -EOPNOTSUPP;	/* jmp *... */
		target = kprobe_opt_branch_target(&insn, pos);
		if (target > addr && target < addr + len)
			return -EOPNOTSUPP;
		if (!KPROBE_OPT_ENDBR_TARGETS && target &&
		    (target < start || target >= end) &&
		    insn.opcode.bytes[0] != 0xe8 && kprobe_opt_is_thunk(target))
			return -EOPNOTSUPP;
	}
	return kprobe_opt_check_extable(start, end, addr, len);
}

/*
 * GCC splits the unlikely code of a function NAME off into NAME.cold (or
 * NAME.cold.N), placed far away; the two jump into each other, anywhere.
 * So the jumps of every part count as the function's own: for a region
 * in NAME, its cold parts are scanned too, and for a region in a cold
 * part, NAME and the other parts.  Names are not unique (two static
 * functions of one name, in two files), so every part of that name is
 * scanned: one of another function cannot jump into the region either,
 * and scanning it only costs time.
 *
 * kprobe_opt_cold_base() tells whether @sym names a cold part, and the
 * length of the NAME it belongs to.
 */
static size_t kprobe_opt_cold_base(const char *sym)
{
	const char *cold = NULL, *p = sym, *end;

	while ((p = strstr(p, ".cold")))
		cold = p++;
	if (!cold || cold == sym)
		return 0;
	end = cold + strlen(".cold");
	if (*end == '.' && isdigit(end[1]))
		for (end++; isdigit(*end); end++)
			;
	return *end ? 0 : cold - sym;
}

/* Scan the part that starts at @part. */
static int kprobe_opt_scan_part(unsigned long part, unsigned long addr,
				unsigned int len)
{
	unsigned long size, offset;

	if (!kallsyms_lookup_size_offset(part, &size, &offset) || offset)
		return -EOPNOTSUPP;
	return kprobe_opt_scan(part, part + size, addr, len);
}

/* Where a function's parts are scanned from. */
struct kprobe_opt_parts {
	const char *name;	/* NAME, without a .cold suffix */
	size_t len;
	unsigned long func;	/* the part the region is in, scanned already */
	unsigned long addr;	/* the region */
	unsigned int region_len;
};

/*
 * The cold parts of vmlinux, found by one walk of its symbols at the first
 * need (tens of thousands of names: too many to walk per probe), sorted
 * by the hash of their NAME.  A hash shared with other names only adds
 * parts to scan.  Built and read under kprobe_mutex; vmlinux's symbols
 * never change.
 */
struct kprobe_opt_cold {
	u32 hash;
	unsigned long addr;
};

static struct kprobe_opt_cold *kprobe_opt_colds;
static unsigned int kprobe_opt_ncolds, kprobe_opt_colds_max;
static bool kprobe_opt_colds_ok;

static int kprobe_opt_cold_add(void *unused, const char *sym,
			       unsigned long addr)
{
	size_t base = kprobe_opt_cold_base(sym);
	struct kprobe_opt_cold *grown;
	unsigned int max;

	if (!base)
		return 0;
	if (kprobe_opt_ncolds == kprobe_opt_colds_max) {
		max = max(2 * kprobe_opt_colds_max, 256U);
		grown = kvmalloc_array(max, sizeof(*grown), GFP_KERNEL);
		if (!grown)
			return -ENOMEM;
		if (kprobe_opt_colds)
			memcpy(grown, kprobe_opt_colds,
			       kprobe_opt_ncolds * sizeof(*grown));
		kvfree(kprobe_opt_colds);
		kprobe_opt_colds = grown;
		kprobe_opt_colds_max = max;
	}
	kprobe_opt_colds[kprobe_opt_ncolds].hash = jhash(sym, base, 0);
	kprobe_opt_colds[kprobe_opt_ncolds++].addr = addr;
	return 0;
}

static int kprobe_opt_cold_cmp(const void *a, const void *b)
{
	const struct kprobe_opt_cold *x = a, *y = b;

	return x->hash < y->hash ? -1 : x->hash > y->hash;
}

/*
 * Short of memory for the index, the sites judged meanwhile are refused
 * (and stay breakpoints); the next site judged tries again.  Called
 * before text_mutex is taken (arch_prescan_optimized_kprobe(),
 * arch_prepare_optimized_kprobe()): the walk takes a while, and text
 * patching elsewhere would wait for it.  kprobe_mutex held.
 */
static bool kprobe_opt_colds_ready(void)
{
	if (kprobe_opt_colds_ok)
		return true;
	kprobe_opt_ncolds = 0;
	if (kallsyms_on_each_symbol(kprobe_opt_cold_add, NULL)) {
		kvfree(kprobe_opt_colds);
		kprobe_opt_colds = NULL;
		kprobe_opt_ncolds = 0;
		kprobe_opt_colds_max = 0;
		return false;
	}
	sort(kprobe_opt_colds, kprobe_opt_ncolds, sizeof(*kprobe_opt_colds),
	     kprobe_opt_cold_cmp, NULL);
	kprobe_opt_colds_ok = true;
	return true;
}

/*
 * A part of that name that is not live text (a data symbol, freed __init
 * text) cannot jump anywhere: skipped, rather than refusing the site.
 */
static int kprobe_opt_scan_named(void *data, unsigned long part)
{
	struct kprobe_opt_parts *w = data;
	bool text;

	if (part == w->func)
		return 0;
	preempt_disable();
	text = core_kernel_text(part) || __module_text_address(part);
	preempt_enable();
	if (!text)
		return 0;
	return kprobe_opt_scan_part(part, w->addr, w->region_len);
}

static int kprobe_opt_scan_vmlinux_parts(struct kprobe_opt_parts *w)
{
	unsigned int lo = 0, hi = kprobe_opt_ncolds, mid;
	char name[KSYM_NAME_LEN];
	int ret;
	u32 hash;

	if (!kprobe_opt_colds_ready())
		return -EOPNOTSUPP;
	strscpy(name, w->name, min(sizeof(name), w->len + 1));
	ret = kallsyms_on_each_match_symbol(kprobe_opt_scan_named, name, w);
	hash = jhash(name, w->len, 0);
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (kprobe_opt_colds[mid].hash < hash)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; !ret && lo < kprobe_opt_ncolds &&
	     kprobe_opt_colds[lo].hash == hash; lo++)
		ret = kprobe_opt_scan_named(w, kprobe_opt_colds[lo].addr);
	return ret;
}

/*
 * A module's symbols are walked for each function (with module_mutex,
 * under text_mutex): once per probe at registration, the cost of one
 * pass over its names.
 */
static int kprobe_opt_scan_module_part(void *data, const char *sym,
				       unsigned long part)
{
	struct kprobe_opt_parts *w = data;
	size_t base = kprobe_opt_cold_base(sym);

	if (!base)
		base = strlen(sym);
	if (base != w->len || strncmp(sym, w->name, base))
		return 0;
	return kprobe_opt_scan_named(w, part);
}

static int kprobe_opt_scan_parts(unsigned long func, unsigned long addr,
				 unsigned int len)
{
	struct kprobe_opt_parts w = { .name = NULL };
	char name[KSYM_NAME_LEN], *modname = NULL;
	unsigned long size, offset;
	size_t base;

	if (!kallsyms_lookup(func, &size, &offset, &modname, name))
		return -EOPNOTSUPP;
	base = kprobe_opt_cold_base(name);
	w.name = name;
	w.len = base ?: strlen(name);
	w.func = func;
	w.addr = addr;
	w.region_len = len;
	if (!modname)
		return kprobe_opt_scan_vmlinux_parts(&w);
	return module_kallsyms_on_each_symbol(modname,
					      kprobe_opt_scan_module_part, &w);
}

/*
 * Could @insn be a site another subsystem patches?  On x86 a jump label
 * site is a jmp or a 2- or 5-byte nop, a static call site a call, jmp,
 * jcc, ret or 5-byte nop, an ftrace site a call or a 5-byte nop.  The
 * branches are flagged by kprobe_opt_movable(); this is for the nops.
 */
static bool kprobe_opt_may_be_patched(struct insn *insn)
{
	u8 op = insn->opcode.bytes[0];

	return op == 0x90 || (op == 0x0f && insn->opcode.bytes[1] == 0x1f);
}

static bool kprobe_opt_is_sti(struct insn *insn)
{
	return insn->opcode.bytes[0] == 0xfb && !insn->prefixes.nbytes;
}

static bool kprobe_opt_is_endbr(struct insn *insn)
{
	return insn->opcode.bytes[0] == 0x0f && insn->opcode.bytes[1] == 0x1e &&
	       insn->modrm.bytes[0] == 0xfa;
}

/*
 * How an instruction of a region is carried over into the detour.  The
 * breakpoint path emulates branches, calls, returns and flag changes
 * because it single-steps its copy; a detour's copies run as ordinary
 * code, so only what would go somewhere else from the detour than from
 * the text is rewritten.
 */
enum kprobe_opt_move {
	KPROBE_OPT_MOVE_AS_IS,	/* RIP-relative operand rewritten, if any */
	KPROBE_OPT_MOVE_BRANCH,	/* jcc, jmp: re-encoded with a rel32 */
	KPROBE_OPT_MOVE_CALL,	/* call: push the return address, jmp */
	KPROBE_OPT_MOVE_LAST,	/* ret, jmp *%reg: copied, nothing follows */
};

/*
 * Can @insn, at @pos in the region that starts at @addr, run from a
 * detour?  Returns an enum kprobe_opt_move or -EOPNOTSUPP.  Sets *@ends
 * if control never goes on to the next byte, *@patchable if it may be a
 * site of jump labels, static calls or ftrace (kprobe_opt_reserved() then
 * looks).
 */
static int kprobe_opt_movable(struct insn *insn, unsigned long pos,
			      unsigned long addr, bool *ends, bool *patchable)
{
	struct arch_specific_insn ai = { };

	/*
	 * The breakpoint path cannot step sti (its interrupt shadow would
	 * cover the trap); a copy runs it as the text would, provided the
	 * instruction after it is copied too (kprobe_opt_region()).
	 */
	if (kprobe_opt_is_sti(insn))
		return KPROBE_OPT_MOVE_AS_IS;
	if (kprobe_classify(insn, &ai, pos))
		return -EOPNOTSUPP;
	switch (ai.action) {
	case KPROBE_X86_STEP:
		*patchable |= kprobe_opt_may_be_patched(insn);
		return KPROBE_OPT_MOVE_AS_IS;
	case KPROBE_X86_CLI:
	case KPROBE_X86_PUSHF:
	case KPROBE_X86_POPF:
		return KPROBE_OPT_MOVE_AS_IS;
	case KPROBE_X86_IJMP:
		*ends = true;
		return KPROBE_OPT_MOVE_LAST;
	}
	/* A prefix on a branch is a hint or a change of operand size. */
	if (insn->prefixes.nbytes)
		return -EOPNOTSUPP;
	/* Of the jcc, only the rel32 form is a static call's tail call. */
	if (ai.action != KPROBE_X86_JCC || insn->opcode.bytes[0] == 0x0f)
		*patchable = true;
	switch (ai.action) {
	case KPROBE_X86_JMP:
		*ends = true;
		fallthrough;
	case KPROBE_X86_JCC:
		return KPROBE_OPT_MOVE_BRANCH;
	case KPROBE_X86_CALL:
		/*
		 * The callee returns to the text, after the jump's bytes: the
		 * call must be the region's last instruction.  An unwind from
		 * the callee then sees the probed function as its caller.
		 */
		if (pos + insn->length < addr + JMP32_INSN_SIZE)
			return -EOPNOTSUPP;
		/*
		 * Call depth tracking counts the RSB entries each call makes
		 * in the callee's thunk; a push and a jmp make none, and the
		 * count would hide an RSB underflow.
		 */
		if (cpu_feature_enabled(X86_FEATURE_CALL_DEPTH))
			return -EOPNOTSUPP;
		*ends = true;
		return KPROBE_OPT_MOVE_CALL;
	case KPROBE_X86_RET:
		*ends = true;
		return KPROBE_OPT_MOVE_LAST;
	}
	/* loop, jrcxz: rel8 only.  call *%reg: it would return into the detour. */
	return -EOPNOTSUPP;
}

/*
 * Find the region at @addr and copy its original bytes to @code.  Sets
 * *@patchable if the region holds something other subsystems may patch.
 * Past a jmp or a ret the region's bytes are only covered by the jump,
 * never run: they need not be movable, and are looked up as patchable.
 * Returns the region's length or an error.  text_mutex held.
 */
static int kprobe_opt_region(unsigned long addr, u8 *code, bool *patchable)
{
	unsigned long size, offset, pos;
	bool ends = false, shadow = false;
	u8 buf[MAX_INSN_SIZE];
	unsigned int len = 0;
	struct insn insn;

	if (!kallsyms_lookup_size_offset(addr, &size, &offset))
		return -EOPNOTSUPP;

	for (pos = addr; len < JMP32_INSN_SIZE; pos += insn.length) {
		if (kprobe_decode_at(&insn, buf, pos))
			return -EOPNOTSUPP;
		if (pos + insn.length > addr - offset + size)
			return -EOPNOTSUPP;
		if (!ends) {
			if (kprobe_opt_movable(&insn, pos, addr, &ends,
					       patchable) < 0)
				return -EOPNOTSUPP;
			shadow = kprobe_opt_is_sti(&insn);
		} else {
			/* An indirect jump may land there; see kprobe_opt_scan(). */
			if (kprobe_opt_is_endbr(&insn))
				return -EOPNOTSUPP;
			*patchable = true;
		}
		memcpy(code + len, buf, insn.length);
		len += insn.length;
	}
	/*
	 * An sti's interrupt shadow covers the instruction after it (sti;
	 * hlt must not take an interrupt in between): as the last copy it
	 * would cover the detour's jmp back instead.
	 */
	if (shadow)
		return -EOPNOTSUPP;
	return len;
}

/*
 * Find the region at @p->addr, copy its original bytes to @code and check
 * the function around it: does anything jump into the region, does it
 * hold or receive exception fixups.  Sets *@patchable as
 * kprobe_opt_region() does.  All of this depends on the text alone, so
 * the verdict is kept in @p->ainsn.opt_scan, with the region's length: a
 * later pass only copies the bytes.  Besides kprobes' own breakpoints and
 * jumps (which kprobe_read_text() sees through), only jump labels, static
 * calls and ftrace rewrite the function while the site lives, and the
 * lock prefixes of a kernel booted on one CPU (refused at every pass).
 * Their sites are nops, branches, calls or returns, the same length
 * whatever the state: a region holding one of those is looked up in their
 * tables at every pass (kprobe_opt_reserved()), whatever it has turned
 * into since.  A jump
 * label elsewhere that is a nop when the function is scanned hides its
 * target from the decoder: the jump table names it
 * (kprobe_opt_check_jump_labels()).  Returns the region's length or an
 * error.  text_mutex held.
 */
static int kprobe_opt_fit(struct kprobe *p, u8 *code, bool *patchable)
{
	unsigned long addr = (unsigned long)p->addr, size, offset, start;
	int len, ret = -EOPNOTSUPP;

	switch (p->ainsn.opt_scan) {
	case KPROBE_OPT_SCAN_REFUSED:
		return -EOPNOTSUPP;
	case KPROBE_OPT_SCAN_FIT:
	case KPROBE_OPT_SCAN_FIT_PATCHABLE:
		len = p->ainsn.opt_len;
		if (kprobe_read_text(code, addr, len) != len)
			return -EOPNOTSUPP;
		*patchable = p->ainsn.opt_scan == KPROBE_OPT_SCAN_FIT_PATCHABLE;
		return len;
	}

	len = kprobe_opt_region(addr, code, patchable);
	if (len < 0) {
		ret = len;
	} else if (kallsyms_lookup_size_offset(addr, &size, &offset)) {
		start = addr - offset;
		ret = kprobe_opt_scan(start, start + size, addr, len);
		if (!ret)
			ret = kprobe_opt_scan_parts(start, addr, len);
		if (!ret)
			ret = kprobe_opt_check_jump_labels(addr, len);
	}
	/* Not yet is not a verdict. */
	if (ret == -EAGAIN)
		return ret;
	if (ret) {
		p->ainsn.opt_scan = KPROBE_OPT_SCAN_REFUSED;
		return ret;
	}
	p->ainsn.opt_scan = *patchable ? KPROBE_OPT_SCAN_FIT_PATCHABLE :
					 KPROBE_OPT_SCAN_FIT;
	p->ainsn.opt_len = len;
	return len;
}

/*
 * kprobe_opt_fit(), and no other probe inside the region: the copy would
 * skip its breakpoint.  text_mutex held.
 */
static int kprobe_opt_analyze(struct kprobe *p, u8 *code, bool *patchable)
{
	unsigned long addr = (unsigned long)p->addr, pos;
	int len = kprobe_opt_fit(p, code, patchable);

	for (pos = addr + 1; len > 0 && pos < addr + len; pos++) {
		if (get_kprobe((void *)pos))
			return -EOPNOTSUPP;
	}
	return len;
}

/**
 * arch_prescan_optimized_kprobe() - check a new site's text for a jump
 * @p: a breakpoint site being registered, not yet in the table or armed
 *
 * Runs, and keeps the verdict of, the part of
 * arch_prepare_optimized_kprobe() that depends on the text alone.  Run by
 * the optimizer instead, it would be run with every probe of a batch
 * armed, and the decoder and kallsyms it calls would hit the breakpoints
 * of whichever of them are probed, once per instruction of the function.
 * Context: kprobe_mutex held; may sleep.
 */
void arch_prescan_optimized_kprobe(struct kprobe *p)
{
	u8 code[KPROBE_OPT_REGION_MAX];
	bool patchable = false;

	kprobe_opt_colds_ready();
	mutex_lock(&text_mutex);
	kprobe_opt_fit(p, code, &patchable);
	mutex_unlock(&text_mutex);
}

#ifdef CONFIG_DYNAMIC_FTRACE
static bool kprobe_opt_ftrace_site(unsigned long start, unsigned long last)
{
	return ftrace_location_range(start, last);
}
#else
static bool kprobe_opt_ftrace_site(unsigned long start, unsigned long last)
{
	return false;
}
#endif

/*
 * Text other subsystems patch on their own: their tables, looked up at
 * every pass since a site may have changed since the scan.  The lookups
 * decode a jump label's length from the text, where a key being flipped
 * leaves an int3 for a while; jump_label_lock() keeps keys still.
 * kprobe_mutex held.
 */
static bool kprobe_opt_reserved(unsigned long addr, unsigned int len)
{
	unsigned long last = addr + len - 1;
	bool ret;

	jump_label_lock();
	ret = jump_label_text_reserved((void *)addr, (void *)last) ||
	      static_call_text_reserved((void *)addr, (void *)last);
	jump_label_unlock();
	return ret || kprobe_opt_ftrace_site(addr, last);
}

/* Built detours not yet written; see arch_publish_optimized_kprobes(). */
#define KPROBE_OPT_STAGE_MAX	32
static u8 kprobe_opt_stage[KPROBE_OPT_STAGE_MAX][KPROBE_OPTINSN_SLOT_SIZE];
static struct arch_optimized_insn *kprobe_opt_staged[KPROBE_OPT_STAGE_MAX];
static unsigned int kprobe_opt_nstaged;

/* Write @op, then "@to - end of the instruction" as a rel32, at @image[*@at]. */
static int kprobe_opt_emit_rel32(u8 *image, unsigned long image_addr,
				 unsigned int *at, const u8 *op,
				 unsigned int oplen, unsigned long to)
{
	unsigned int end = *at + oplen + sizeof(s32);
	s64 rel = (s64)to - (s64)(image_addr + end);
	s32 rel32 = rel;

	if (end > KPROBE_OPTINSN_SLOT_SIZE)
		return -E2BIG;
	if (rel != rel32)
		return -ERANGE;
	memcpy(image + *at, op, oplen);
	memcpy(image + *at + oplen, &rel32, sizeof(rel32));
	*at = end;
	return 0;
}

/*
 * Carry the instruction @insn, at @pos in the text, over into @image (to
 * be placed at @image_addr) at *@at, as @move says.
 */
static int kprobe_opt_emit_insn(u8 *image, unsigned long image_addr,
				unsigned int *at, struct insn *insn,
				const u8 *bytes, unsigned long pos, int move)
{
	unsigned long next = pos + insn->length;
	unsigned long target = kprobe_opt_branch_target(insn, pos);
	u8 op[2];
	s32 ret32;

	switch (move) {
	case KPROBE_OPT_MOVE_BRANCH:
		if (insn->opcode.bytes[0] == 0xe9 || insn->opcode.bytes[0] == 0xeb) {
			op[0] = JMP32_INSN_OPCODE;
			return kprobe_opt_emit_rel32(image, image_addr, at, op,
						     1, target);
		}
		/* jcc rel8 (7x) or rel32 (0f 8x): the condition is the low nibble */
		op[0] = 0x0f;
		op[1] = 0x80 | (insn->opcode.bytes[insn->opcode.nbytes - 1] & 0xf);
		return kprobe_opt_emit_rel32(image, image_addr, at, op, 2, target);
	case KPROBE_OPT_MOVE_CALL:
		/* push imm32 sign-extends: kernel and module text are in its reach */
		ret32 = next;
		if ((unsigned long)(long)ret32 != next)
			return -ERANGE;
		if (*at + 1 + sizeof(ret32) > KPROBE_OPTINSN_SLOT_SIZE)
			return -E2BIG;
		image[*at] = 0x68;
		memcpy(image + *at + 1, &ret32, sizeof(ret32));
		*at += 1 + sizeof(ret32);
		op[0] = JMP32_INSN_OPCODE;
		return kprobe_opt_emit_rel32(image, image_addr, at, op, 1, target);
	}
	if (*at + insn->length > KPROBE_OPTINSN_SLOT_SIZE)
		return -E2BIG;
	memcpy(image + *at, bytes, insn->length);
	if (kprobe_fix_riprel(insn, image + *at, pos, image_addr + *at))
		return -ERANGE;
	*at += insn->length;
	return 0;
}

/* Build the detour @op->buf for the region @code of @op->len bytes at @addr. */
static int kprobe_opt_build(struct arch_optimized_insn *op, unsigned long addr,
			    const u8 *code)
{
	unsigned long buf = (unsigned long)op->buf;
	unsigned long ip = addr + INT3_INSN_SIZE;
	u8 image[KPROBE_OPTINSN_SLOT_SIZE];
	unsigned int off, at = KPROBE_OPT_ENTRY;
	u8 call = CALL_INSN_OPCODE, jmp = JMP32_INSN_OPCODE;
	bool ends = false, patchable = false;
	struct insn insn;
	int move, ret;
	s64 rel;

	if (op->len > KPROBE_OPT_REGION_MAX)
		return -E2BIG;

	memset(image, INT3_INSN_OPCODE, sizeof(image));
	memcpy(image + KPROBE_OPT_DATA_IP, &ip, sizeof(ip));
	ret = kprobe_opt_emit_rel32(image, buf, &at, &call, 1,
				    (unsigned long)kprobe_opt_common);
	if (ret)
		return ret;
	image[at++] = 0x9d;			/* popfq, at KPROBE_OPT_RETURN */

	for (off = 0; off < op->len && !ends; off += insn.length) {
		if (insn_decode(&insn, code + off, op->len - off,
				INSN_MODE_KERN) < 0)
			return -EILSEQ;
		move = kprobe_opt_movable(&insn, addr + off, addr, &ends,
					  &patchable);
		if (move < 0)
			return move;
		ret = kprobe_opt_emit_insn(image, buf, &at, &insn, code + off,
					   addr + off, move);
		if (ret)
			return ret;
	}
	if (!ends) {
		ret = kprobe_opt_emit_rel32(image, buf, &at, &jmp, 1,
					    addr + op->len);
		if (ret)
			return ret;
	}
	/* The jump in the probed text must reach the detour too. */
	rel = (s64)(buf + KPROBE_OPT_ENTRY) - (s64)(addr + JMP32_INSN_SIZE);
	if (rel != (s32)rel)
		return -ERANGE;

	if (kprobe_opt_nstaged == KPROBE_OPT_STAGE_MAX)
		arch_publish_optimized_kprobes();
	memcpy(kprobe_opt_stage[kprobe_opt_nstaged], image, sizeof(image));
	kprobe_opt_staged[kprobe_opt_nstaged++] = op;
	return 0;
}

/**
 * arch_publish_optimized_kprobes() - write out the detours built so far
 *
 * Detours are staged by arch_prepare_optimized_kprobe() and written here
 * with one text_poke_copy() per run of adjacent slots: one per detour
 * cost a page mapped, written and unmapped each, a tenth of the
 * optimizer's time at 10,000 probes.  Each detour's @copy is published
 * after its text, and only then does the breakpoint path use it.
 * Context: kprobe_mutex held, as for the preparation.
 */
void arch_publish_optimized_kprobes(void)
{
	unsigned int i, first = 0;

	for (i = 1; i <= kprobe_opt_nstaged; i++) {
		if (i < kprobe_opt_nstaged &&
		    kprobe_opt_staged[i]->buf ==
		    kprobe_opt_staged[i - 1]->buf + KPROBE_OPTINSN_SLOT_SIZE)
			continue;
		text_poke_copy(kprobe_opt_staged[first]->buf,
			       kprobe_opt_stage[first],
			       (i - first) * KPROBE_OPTINSN_SLOT_SIZE);
		first = i;
	}
	for (i = 0; i < kprobe_opt_nstaged; i++) {
		perf_event_text_poke(kprobe_opt_staged[i]->buf, NULL, 0,
				     kprobe_opt_stage[i],
				     KPROBE_OPTINSN_SLOT_SIZE);
		/* Pairs with the acquire in kprobe_carry_out(). */
		smp_store_release(&kprobe_opt_staged[i]->copy,
				  kprobe_opt_staged[i]->buf + KPROBE_OPT_COPY);
	}
	kprobe_opt_nstaged = 0;
}

/**
 * arch_prepare_optimized_kprobe() - build a detour for a breakpoint site
 * @op: the detour the core allocated for the site
 * @orig: the site itself, an armed breakpoint site without a post_handler;
 *	the text's verdict is kept in its @ainsn
 *
 * On success @op->optinsn is set up and the detour staged; once
 * arch_publish_optimized_kprobes() has written it, the breakpoint path runs
 * the detour's copy of the region.
 * Context: kprobe_mutex held; may sleep.
 * Return: 0, -EOPNOTSUPP for a site that cannot be proven safe (see the top
 * of this file), -EAGAIN while its module is still coming, -ENOMEM, or
 * -ERANGE when the detour is out of reach.
 */
int arch_prepare_optimized_kprobe(struct optimized_kprobe *op,
				  struct kprobe *orig)
{
	struct arch_optimized_insn *oi = &op->optinsn;
	unsigned long addr = (unsigned long)orig->addr;
	u8 code[KPROBE_OPT_REGION_MAX];
	bool patchable = false;
	int len, ret;

	/* The cold parts' index, outside text_mutex: see there. */
	kprobe_opt_colds_ready();
	mutex_lock(&text_mutex);
	len = kprobe_opt_analyze(orig, code, &patchable);
	/* As in arch_prepare_kprobe(), for every instruction the detour copies. */
	if (len > 0 &&
	    alternatives_text_reserved(orig->addr, orig->addr + len - 1))
		len = -EOPNOTSUPP;
	mutex_unlock(&text_mutex);
	if (len < 0)
		return len;
	/*
	 * The jump label and static call checks decode every site in the
	 * kernel, which at thousands of probes is most of the optimizer's
	 * time; a region without a nop or a branch cannot hold a site.
	 */
	if (patchable && kprobe_opt_reserved(addr, len))
		return -EOPNOTSUPP;

	oi->buf = get_optinsn_slot();
	if (!oi->buf)
		return -ENOMEM;
	oi->len = len;
	memcpy(oi->orig, code, JMP32_INSN_SIZE);
	ret = kprobe_opt_build(oi, addr, code);
	if (ret) {
		free_optinsn_slot(oi->buf, 0);
		oi->buf = NULL;
	}
	return ret;
}

/**
 * arch_prepared_optinsn() - does @optinsn hold a detour
 * @optinsn: the x86 part of a detour
 *
 * Return: non-zero once arch_prepare_optimized_kprobe() succeeded.
 */
int arch_prepared_optinsn(struct arch_optimized_insn *optinsn)
{
	return !!optinsn->buf;
}

/**
 * arch_check_optimized_kprobe() - other probes in the region
 * @op: a detour being made
 *
 * arch_prepare_optimized_kprobe() looks for them while it decodes the
 * region, so there is nothing left to do here.
 * Return: 0.
 */
int arch_check_optimized_kprobe(struct optimized_kprobe *op)
{
	return 0;
}

/**
 * arch_within_optimized_kprobe() - does the detour's jump cover @addr
 * @op: a detour
 * @addr: any address
 *
 * Return: non-zero if @addr is one of the bytes the detour runs copies of.
 */
int arch_within_optimized_kprobe(struct optimized_kprobe *op,
				 kprobe_opcode_t *addr)
{
	return addr >= op->kp.addr && addr < op->kp.addr + op->optinsn.len;
}

/* The decoder in text_poke_queue() may look at MAX_INSN_SIZE bytes. */
static void kprobe_opt_jmp_insn(struct optimized_kprobe *op,
				u8 insn[MAX_INSN_SIZE])
{
	s32 rel = (long)(op->optinsn.buf + KPROBE_OPT_ENTRY) -
		  (long)(op->kp.addr + JMP32_INSN_SIZE);

	memset(insn, INT3_INSN_OPCODE, MAX_INSN_SIZE);
	insn[0] = JMP32_INSN_OPCODE;
	memcpy(insn + 1, &rel, sizeof(rel));
}

/*
 * Jumps going in over a breakpoint, and breakpoints going back over a
 * jump, of registered sites.  Such a site's first byte is an int3 that
 * our own handler sends to the detour, so text_poke_bp()'s three steps
 * (int3 in, tail, first byte) come down to two: with the int3 there,
 * write the tail, sync every CPU, write the first byte, sync.  A batch
 * shares the syncs.  A retired jump has no site left to catch its int3
 * and goes through text_poke_queue() instead.
 */
#define KPROBE_OPT_WRITE_BATCH	256

struct kprobe_opt_write {
	u8 *addr;
	u8 text[JMP32_INSN_SIZE];
	u8 old[JMP32_INSN_SIZE];	/* for the perf text_poke record */
	bool jump;
};

static struct kprobe_opt_write kprobe_opt_writes[KPROBE_OPT_WRITE_BATCH];
static unsigned int kprobe_opt_nwrites;

/* A jump writes its tail first, a breakpoint its first byte. */
static void kprobe_opt_write_step(const struct kprobe_opt_write *w,
				  bool first)
{
	if (w->jump == first)
		text_poke(w->addr + INT3_INSN_SIZE, w->text + INT3_INSN_SIZE,
			  JMP32_INSN_SIZE - INT3_INSN_SIZE);
	else
		text_poke(w->addr, w->text, INT3_INSN_SIZE);
}

static void kprobe_opt_write_out(void)
{
	unsigned int i;

	if (!kprobe_opt_nwrites)
		return;
	for (i = 0; i < kprobe_opt_nwrites; i++)
		kprobe_opt_write_step(&kprobe_opt_writes[i], true);
	text_poke_sync();
	/*
	 * As text_poke_bp() does it: from now on, until the second step,
	 * the int3 is the only way in, so a decoder may take either the old
	 * bytes or the new ones as what runs.
	 */
	for (i = 0; i < kprobe_opt_nwrites; i++)
		perf_event_text_poke(kprobe_opt_writes[i].addr,
				     kprobe_opt_writes[i].old, JMP32_INSN_SIZE,
				     kprobe_opt_writes[i].text, JMP32_INSN_SIZE);
	for (i = 0; i < kprobe_opt_nwrites; i++)
		kprobe_opt_write_step(&kprobe_opt_writes[i], false);
	text_poke_sync();
	kprobe_opt_nwrites = 0;
}

static void kprobe_opt_queue_write(u8 *addr, const u8 *text, bool jump)
{
	struct kprobe_opt_write *w;

	lockdep_assert_held(&text_mutex);
	if (kprobe_opt_nwrites == KPROBE_OPT_WRITE_BATCH)
		kprobe_opt_write_out();
	w = &kprobe_opt_writes[kprobe_opt_nwrites++];
	w->addr = addr;
	memcpy(w->old, addr, JMP32_INSN_SIZE);
	memcpy(w->text, text, JMP32_INSN_SIZE);
	w->jump = jump;
}

/* Write out what kprobe_opt_queue_write() and text_poke_queue() hold. */
static void kprobe_opt_flush(void)
{
	kprobe_opt_write_out();
	text_poke_finish();
}

/**
 * arch_optimize_kprobes() - write the jumps over sites' breakpoints
 * @oplist: detours published for a grace period, sorted by address; each
 *	is taken off the list
 *
 * Until a jump is complete, hits on the breakpoint go to the detour, as
 * the jump will send them.
 * Context: kprobe_mutex, cpus_read_lock() and text_mutex held.
 */
void arch_optimize_kprobes(struct list_head *oplist)
{
	struct optimized_kprobe *op, *next;
	u8 jmp[MAX_INSN_SIZE];

	list_for_each_entry_safe(op, next, oplist, list) {
		kprobe_opt_jmp_insn(op, jmp);
		/* The core only asks for armed sites; cheap to be sure of. */
		if (WARN_ON_ONCE(*op->kp.addr != INT3_INSN_OPCODE))
			text_poke_queue(op->kp.addr, jmp, JMP32_INSN_SIZE, NULL);
		else
			kprobe_opt_queue_write(op->kp.addr, jmp, true);
		list_del_init(&op->list);
	}
	kprobe_opt_flush();
}

/* Queue the int3, and the original bytes after it, over @op's jump. */
static void kprobe_opt_queue_breakpoint(struct optimized_kprobe *op)
{
	u8 text[JMP32_INSN_SIZE];

	memcpy(text, op->optinsn.orig, JMP32_INSN_SIZE);
	text[0] = INT3_INSN_OPCODE;
	kprobe_opt_queue_write(op->kp.addr, text, false);
}

/**
 * arch_unoptimize_kprobe() - put the breakpoint back over a site's jump
 * @op: the detour of an optimized site
 *
 * The detour stays published meanwhile: hits on the new int3 go there.
 * Context: as arch_optimize_kprobes().
 */
void arch_unoptimize_kprobe(struct optimized_kprobe *op)
{
	kprobe_opt_queue_breakpoint(op);
	kprobe_opt_flush();
}

/**
 * arch_unoptimize_kprobes() - put the breakpoints back over several jumps
 * @oplist: detours of optimized sites, sorted by address
 * @done_list: where each one goes once queued
 *
 * Context: as arch_optimize_kprobes().
 */
void arch_unoptimize_kprobes(struct list_head *oplist,
			     struct list_head *done_list)
{
	struct optimized_kprobe *op, *next;

	list_for_each_entry_safe(op, next, oplist, list) {
		kprobe_opt_queue_breakpoint(op);
		list_move_tail(&op->list, done_list);
	}
	kprobe_opt_flush();
}

/**
 * arch_unoptimize_retired() - write the original bytes back over jumps
 * @oplist: detours whose sites were unregistered while their jumps stayed,
 *	sorted by address; left on the list
 *
 * No breakpoint is left behind: the text becomes what it was before any
 * probe.  Meanwhile the detours find no probe and just run their copies,
 * and text_poke's own int3 handler sends hits there while the bytes
 * change.
 * Context: as arch_optimize_kprobes().
 */
void arch_unoptimize_retired(struct list_head *oplist)
{
	u8 jmp[MAX_INSN_SIZE], text[MAX_INSN_SIZE];
	struct optimized_kprobe *op;

	list_for_each_entry(op, oplist, list) {
		kprobe_opt_jmp_insn(op, jmp);
		memset(text, INT3_INSN_OPCODE, sizeof(text));
		memcpy(text, op->optinsn.orig, JMP32_INSN_SIZE);
		text_poke_queue(op->kp.addr, text, JMP32_INSN_SIZE, jmp);
	}
	text_poke_finish();
}

/**
 * arch_remove_optimized_kprobe() - free a detour's buffer
 * @op: a detour no CPU can be running or about to run
 *
 * Context: may sleep; the core frees @op itself.
 */
void arch_remove_optimized_kprobe(struct optimized_kprobe *op)
{
	if (!op->optinsn.buf)
		return;
	perf_event_text_poke(op->optinsn.buf, op->optinsn.buf,
			     KPROBE_OPTINSN_SLOT_SIZE, NULL, 0);
	free_optinsn_slot(op->optinsn.buf, 1);
	op->optinsn.buf = NULL;
}

#else /* !CONFIG_X86_64 */

/*
 * 32-bit kernels keep breakpoint probes: the register-saving detour is
 * only written for x86-64.
 */
int arch_prepare_optimized_kprobe(struct optimized_kprobe *op,
				  struct kprobe *orig)
{
	return -EOPNOTSUPP;
}

int arch_prepared_optinsn(struct arch_optimized_insn *optinsn)
{
	return 0;
}

int arch_check_optimized_kprobe(struct optimized_kprobe *op)
{
	return 0;
}

int arch_within_optimized_kprobe(struct optimized_kprobe *op,
				 kprobe_opcode_t *addr)
{
	return 0;
}

void arch_prescan_optimized_kprobe(struct kprobe *p) { }
void arch_optimize_kprobes(struct list_head *oplist) { }
void arch_unoptimize_kprobe(struct optimized_kprobe *op) { }
void arch_unoptimize_retired(struct list_head *oplist) { }
void arch_remove_optimized_kprobe(struct optimized_kprobe *op) { }

void arch_unoptimize_kprobes(struct list_head *oplist,
			     struct list_head *done_list)
{
	list_splice_tail_init(oplist, done_list);
}

#endif /* CONFIG_X86_64 */
