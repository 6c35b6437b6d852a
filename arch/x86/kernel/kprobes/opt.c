// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * x86 jump optimization for kprobes (CONFIG_OPTPROBES).
 *
 * The core offers every armed breakpoint site without a post_handler to
 * arch_prepare_optimized_kprobe().  Replacing a breakpoint by a jump into a
 * detour buffer needs the whole-function safety analysis, the detour
 * buffers and the batched, RCU-synchronised patching described in the next
 * issue; until those exist this file declines every site, so each probe
 * keeps working as a breakpoint probe and is never listed [OPTIMIZED].
 */

#include <linux/kprobes.h>

/**
 * arch_prepare_optimized_kprobe() - try to replace a site's breakpoint
 * @p: an armed site without a post_handler
 *
 * Context: kprobe_mutex held.
 * Return: -EOPNOTSUPP: the site stays a breakpoint site.
 */
int arch_prepare_optimized_kprobe(struct kprobe *p)
{
	return -EOPNOTSUPP;
}
