// SPDX-License-Identifier: GPL-2.0
/*
 * Harness canary: a module whose only job is to prove that the harness
 * notices a kernel warning.  Loading it with warn=1 fires one WARN_ON; the
 * console scan must then fail the run.  It is never loaded otherwise.
 */
#include <linux/module.h>
#include <linux/bug.h>

static bool warn;
module_param(warn, bool, 0444);
MODULE_PARM_DESC(warn, "fire a WARN_ON at load time");

static int __init kp_canary_init(void)
{
	WARN_ON(warn);
	return 0;
}

static void __exit kp_canary_exit(void)
{
}

module_init(kp_canary_init);
module_exit(kp_canary_exit);
MODULE_DESCRIPTION("kprobes harness canary");
MODULE_LICENSE("GPL");
