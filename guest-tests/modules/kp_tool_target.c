// SPDX-License-Identifier: GPL-2.0
/*
 * A module function that tools probe by name (guest-tests/kprobe_tools_*):
 * each write of a number N to /sys/module/kp_tool_target/parameters/call
 * calls kp_tool_target(N) once, which returns 2 * N + 1, so a tool's
 * counts, arguments and return values can be checked exactly.
 */

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/kernel.h>

static unsigned long calls;
module_param(calls, ulong, 0444);
MODULE_PARM_DESC(calls, "how often kp_tool_target() ran");

/* Global, so that no clone renames it; declared for -Wmissing-prototypes. */
long kp_tool_target(long n);

noinline long kp_tool_target(long n)
{
	/* The barrier keeps the call and its argument as written. */
	barrier();
	calls++;
	return 2 * n + 1;
}

/*
 * A part of kp_tool_target() as GCC names what it splits off a function
 * (NAME.suffix: a function symbol of its own), here without an ftrace
 * call, as a .cold part has none; never run.  An event on it is judged by
 * kp_tool_target(), which is traced (guest-tests/kprobe_notrace_event.sh).
 * Not named .cold: objtool follows a .cold part only from its function's
 * jumps into it, and there are none.
 */
asm(".pushsection .text, \"ax\"\n"
	".type kp_tool_target.part.0, @function\n"
	"kp_tool_target.part.0:\n\t"
	"movl %edi, %eax\n\t"
	"ud2\n"
	".size kp_tool_target.part.0, . - kp_tool_target.part.0\n"
	".popsection\n");

static int kp_tool_call_set(const char *val, const struct kernel_param *kp)
{
	long n;
	int ret = kstrtol(val, 0, &n);

	if (ret)
		return ret;
	kp_tool_target(n);
	return 0;
}

static const struct kernel_param_ops kp_tool_call_ops = {
	.set	= kp_tool_call_set,
};
module_param_cb(call, &kp_tool_call_ops, NULL, 0200);
MODULE_PARM_DESC(call, "write N: call kp_tool_target(N) once");

MODULE_DESCRIPTION("kprobes tool tests: a module function to probe");
MODULE_LICENSE("GPL");
