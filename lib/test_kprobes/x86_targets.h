/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The hand-written x86-64 functions of x86_targets.c, which the suites
 * probe at every instruction they list.  Built on x86-64 only.
 *
 * For each function fn, fn_sites[] holds the offsets of its recorded
 * instructions, in order, ended by ~0U; kpt_site() turns one into an
 * address.  Functions without a table are only ever probed by name.
 */
#ifndef _TEST_KPROBES_X86_TARGETS_H
#define _TEST_KPROBES_X86_TARGETS_H

#include <linux/jump_label.h>
#include <linux/types.h>

/*
 * Instructions the breakpoint path copies, emulates or refuses (mostly
 * x86_insn.c), and the targets of the registration, handler and fault
 * cases (registration.c, handlers.c).  What each computes is said beside
 * its code.
 */
unsigned long kpt_asm_riprel(unsigned long x);
extern const u32 kpt_asm_riprel_sites[];
unsigned long kpt_asm_jmp(unsigned long x);
extern const u32 kpt_asm_jmp_sites[];
unsigned long kpt_asm_helper(unsigned long x);
extern const u32 kpt_asm_helper_sites[];
unsigned long kpt_asm_call(unsigned long x);
extern const u32 kpt_asm_call_sites[];
unsigned long kpt_asm_icall(unsigned long x);
extern const u32 kpt_asm_icall_sites[];
unsigned long kpt_asm_jcc(unsigned long x);
extern const u32 kpt_asm_jcc_sites[];
unsigned long kpt_asm_jcc_all(unsigned long x, unsigned long y);
extern const u32 kpt_asm_jcc_all_sites[];
unsigned long kpt_asm_loop(unsigned long n);
extern const u32 kpt_asm_loop_sites[];
unsigned long kpt_asm_pushpop(unsigned long x);
extern const u32 kpt_asm_pushpop_sites[];
unsigned long kpt_asm_flags(unsigned long x, unsigned long y);
extern const u32 kpt_asm_flags_sites[];
unsigned long kpt_asm_retimm_callee(unsigned long x);
extern const u32 kpt_asm_retimm_callee_sites[];
unsigned long kpt_asm_retimm(unsigned long x);
extern const u32 kpt_asm_retimm_sites[];
unsigned long kpt_asm_refused(unsigned long x);
extern const u32 kpt_asm_refused_sites[];
unsigned long kpt_asm_regs(unsigned long x);
extern const u32 kpt_asm_regs_sites[];
unsigned long kpt_asm_load(const unsigned long *p);
extern const u32 kpt_asm_load_sites[];
unsigned long kpt_asm_store(unsigned long *p, unsigned long x);
extern const u32 kpt_asm_store_sites[];
unsigned long kpt_asm_locked(unsigned long *p);
extern const u32 kpt_asm_locked_sites[];
unsigned long kpt_asm_gp(void);
extern const u32 kpt_asm_gp_sites[];
unsigned long kpt_asm_nokp(unsigned long x);
unsigned long kpt_asm_padded(unsigned long x);

/*
 * The jump optimizer's regions (optimizer.c).  kpt_asm_early is probed by
 * an early initcall; kpt_asm_optkey's jump label is also refused in the
 * kprobes_text_reserved suite.
 */
unsigned long kpt_asm_opt(unsigned long x);
extern const u32 kpt_asm_opt_sites[];
unsigned long kpt_asm_early(unsigned long x);
extern const u32 kpt_asm_early_sites[];
unsigned long kpt_asm_optjt(unsigned long x);
extern const u32 kpt_asm_optjt_sites[];
unsigned long kpt_asm_optex(const unsigned long *p);
extern const u32 kpt_asm_optex_sites[];
unsigned long kpt_asm_optfx(unsigned long x, const unsigned long *p);
extern const u32 kpt_asm_optfx_sites[];
unsigned long kpt_asm_optind(unsigned long x, unsigned long y);
extern const u32 kpt_asm_optind_sites[];
unsigned long kpt_asm_optirq(unsigned long x);
extern const u32 kpt_asm_optirq_sites[];
unsigned long kpt_asm_optnop(unsigned long x);
extern const u32 kpt_asm_optnop_sites[];
unsigned long kpt_asm_optkey(unsigned long x);
extern const u32 kpt_asm_optkey_sites[];
unsigned long kpt_asm_optjl(unsigned long x);
extern const u32 kpt_asm_optjl_sites[];
unsigned long kpt_asm_optcold(unsigned long x);
extern const u32 kpt_asm_optcold_sites[];
unsigned long kpt_asm_optcold2(unsigned long x);
extern const u32 kpt_asm_optcold2_sites[];
unsigned long kpt_asm_optac(unsigned long x);
extern const u32 kpt_asm_optac_sites[];

/* The keys of kpt_asm_optkey's and kpt_asm_optjl's jump labels. */
DECLARE_STATIC_KEY_FALSE(kpt_opt_key);
DECLARE_STATIC_KEY_FALSE(kpt_opt_jl_key);

unsigned int kpt_nr_sites(const u32 *sites);
void *kpt_site(void *fn, const u32 *sites, unsigned int i);

#endif /* _TEST_KPROBES_X86_TARGETS_H */
