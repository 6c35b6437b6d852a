/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the files of the kprobes KUnit suites share (common.c): the probes
 * that count what their handlers saw, the registration helpers that queue
 * each unregistration as a KUnit action, and the C targets more than one
 * suite probes.  Names start with kpt_.
 */
#ifndef _TEST_KPROBES_KPT_H
#define _TEST_KPROBES_KPT_H

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/kprobes.h>
#include <linux/types.h>

/*
 * kprobe_running() and the return trampoline are not exported to modules:
 * a modular build of the suites leaves out the checks that need them.
 */
#define KPT_BUILTIN	IS_BUILTIN(CONFIG_KPROBES_SANITY_TEST)

/* Room for the stack traces the handlers save. */
#define KPT_TRACE_MAX	32

/* Bumped by handlers and targets to record in which order they ran. */
extern int kpt_seq;

int kpt_test_init(struct kunit *test);
int kpt_wait_for_stop(void);
struct kprobe *kpt_running(void);
unsigned long kpt_entry_addr(const void *fn);
bool kpt_trace_has(const unsigned long *trace, unsigned int len,
		   unsigned long addr);

/*
 * __noipa is empty with clang, which removes a call whose result goes
 * unused when it can see that the function has no side effect: cases that
 * call a target only to hit its probe would then hit nothing.  A volatile
 * asm is a side effect to both compilers.
 */
static __always_inline void kpt_keep_calls(void)
{
	asm volatile("");
}

/*
 * Targets probed by more than one file.  Targets are noinline and __noipa,
 * so they are real calls that keep their names in kallsyms and are neither
 * cloned nor folded into their callers; each file keeps its own others.
 */
unsigned long kpt_target_add(unsigned long a, unsigned long b);
unsigned long kpt_target_outer(unsigned long x);
unsigned long kpt_target_inner(unsigned long x);
unsigned long kpt_target_spin(unsigned long x);
unsigned long kpt_nokprobe_target(unsigned long x);

/* kpt_seq when kpt_target_add()'s body last ran. */
extern int kpt_add_body_seq;
/* Data, not text: a probe there is refused, a data breakpoint fires. */
extern unsigned long kpt_data_word;

int kpt_register(struct kunit *test, struct kprobe *kp);
int kpt_defer_unregister(struct kunit *test, struct kprobe *kp);
void kpt_unregister(struct kunit *test, struct kprobe *kp);
int kpt_register_many(struct kunit *test, struct kprobe **kps, int num);
void kpt_unregister_many(struct kunit *test, struct kprobe **kps, int num);
int kpt_register_ret(struct kunit *test, struct kretprobe *rp);
void kpt_unregister_ret(struct kunit *test, struct kretprobe *rp);
int kpt_register_rets(struct kunit *test, struct kretprobe **rps, int num);
void kpt_unregister_rets(struct kunit *test, struct kretprobe **rps, int num);

/* A kprobe that counts and remembers what its handlers saw. */
struct kpt_probe {
	struct kprobe kp;
	unsigned int pre_hits;
	unsigned int post_hits;
	int pre_seq;
	int post_seq;
	struct kprobe *pre_running;
	struct kprobe *post_running;
	bool pre_preemptible;
	unsigned long pre_ax;
	unsigned long post_ax;
	unsigned long post_ip;
	/* If set, pre_handler moves regs->ip here and returns 1. */
	unsigned long new_ip;
	/* If set, pre_handler calls this (to hit a probe from a handler). */
	unsigned long (*call_in_pre)(unsigned long x);
	unsigned long call_result;
	/* An argument for the handlers of the fault tests. */
	unsigned long arg;
	/* fault_handler bookkeeping */
	unsigned int fault_hits;
	int fault_trapnr;
	unsigned long fault_ip;
	unsigned int fault_len;
};

static inline struct kpt_probe *to_kpt_probe(struct kprobe *kp)
{
	return container_of(kp, struct kpt_probe, kp);
}

struct kpt_probe *kpt_probe_new(struct kunit *test, void *addr,
				bool with_post);

/* What a kpt_rprobe's entry_handler leaves in its instance's data. */
struct kpt_data {
	unsigned long arg;
	unsigned long cookie;
};

/* A kretprobe that counts and remembers what its handlers saw. */
struct kpt_rprobe {
	struct kretprobe rp;
	atomic_t entry_hits;
	atomic_t ret_hits;
	int entry_ret;			/* what entry_handler returns */
	bool use_data;			/* entry_handler fills struct kpt_data */
	atomic_t data_ok;		/* return handlers that found it intact */
	unsigned long retval;
	unsigned long ret_addr;
	struct kretprobe *seen_rp;
	bool save_trace;
	unsigned long trace[KPT_TRACE_MAX];
	unsigned int trace_len;
	unsigned long (*call_in_ret)(unsigned long x);
	unsigned long call_result;
};

struct kpt_rprobe *kpt_rprobe_new(struct kunit *test, void *addr,
				  int maxactive);

#endif /* _TEST_KPROBES_KPT_H */
