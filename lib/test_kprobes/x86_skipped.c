// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * KUnit suites "kprobes_x86_insn" and "kprobes_optimizer" where they
 * cannot run (every architecture but x86-64): their cases need the
 * hand-written x86 instruction targets, and the optimizer's x86 jumps.
 * Each suite stands for itself as one skipped case, with the reason.
 */

#include <kunit/test.h>

#include "kpt.h"

static void kprobe_x86_insn_cases(struct kunit *test)
{
	kunit_skip(test, "x86-64 only: probes on hand-written x86 instructions");
}

static void kprobe_x86_opt_cases(struct kunit *test)
{
	kunit_skip(test, "x86-64 built-in only: jump optimization");
}

static struct kunit_case kprobes_x86_insn_cases[] = {
	KUNIT_CASE(kprobe_x86_insn_cases),
	{}
};

static struct kunit_suite kprobes_x86_insn_suite = {
	.name = "kprobes_x86_insn",
	.init = kpt_test_init,
	.test_cases = kprobes_x86_insn_cases,
};

static struct kunit_case kprobes_optimizer_cases[] = {
	KUNIT_CASE(kprobe_x86_opt_cases),
	{}
};

static struct kunit_suite kprobes_optimizer_suite = {
	.name = "kprobes_optimizer",
	.init = kpt_test_init,
	.test_cases = kprobes_optimizer_cases,
};

kunit_test_suites(&kprobes_x86_insn_suite, &kprobes_optimizer_suite);
