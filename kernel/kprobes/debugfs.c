// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The debugfs files of kernel probes, in /sys/kernel/debug/kprobes/:
 *  - list: every registered probe, one line each, in the format tools
 *    parse (address, k or r, symbol+offset, module, then its state:
 *    [GONE] or [DISABLED], [OPTIMIZED], [FTRACE]);
 *  - missed: the same probes with their skipped hits by cause;
 *  - blacklist: the ranges no probe may go to, as perf parses them;
 *  - enabled: 0 disarms every probe at once, 1 arms them again.
 */

#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/debugfs.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/rculist.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "internal.h"

#define KPROBE_ADDR_WIDTH	((int)(2 * sizeof(unsigned long)))

/*
 * What one line of "list" or "missed" says about a probe, copied under
 * kprobe_mutex.
 */
struct kprobe_list_line {
	unsigned long addr;
	bool kretprobe;
	bool gone;
	bool disabled;
	bool optimized;
	bool ftrace;
	unsigned long recursion;
	unsigned long hits_disabled;
	unsigned long no_instance;
	unsigned long return_busy;
};

static void kprobe_list_take(struct kprobe_list_line *line, struct kprobe *p,
			     struct kprobe *site)
{
	line->addr = (unsigned long)p->addr;
	line->kretprobe = kprobe_is_kretprobe(p);
	line->gone = kprobe_gone(p);
	line->disabled = kprobe_disabled(p);
	/* How the address is probed is a property of the site. */
	line->optimized = kprobe_site_listed_optimized(site);
	line->ftrace = kprobe_ftrace(site);
	line->recursion = READ_ONCE(p->nmissed);
	line->hits_disabled = READ_ONCE(p->nhits_disabled);
	line->no_instance = 0;
	line->return_busy = 0;
#ifdef CONFIG_KRETPROBES
	if (line->kretprobe) {
		struct kretprobe *rp = container_of(p, struct kretprobe, kp);

		line->no_instance = READ_ONCE(rp->nmissed_no_instance);
		line->return_busy = READ_ONCE(rp->nmissed_return_busy);
	}
#endif
}

/* Probes in the table, the members of a group each.  kprobe_mutex held. */
static size_t kprobe_list_count(void)
{
	struct kprobe *site;
	size_t count = 0;
	unsigned int b;

	lockdep_assert_held(&kprobe_mutex);

	for (b = 0; b < KPROBE_TABLE_SIZE; b++)
		hlist_for_each_entry(site, &kprobe_table[b], hlist)
			count += kprobe_is_group(site) ?
				 list_count_nodes(&to_kprobe_group(site)->members) : 1;
	return count;
}

/*
 * Copy the table, one line per probe, into a new array of *@n lines: NULL
 * for an empty table, an ERR_PTR() when out of memory.  The symbol lookups
 * are the slow part of a read, seconds at thousands of probes, and run on
 * the copy: registrations and the optimizer wait for kprobe_mutex.
 */
static struct kprobe_list_line *kprobe_list_copy(size_t *n)
{
	struct kprobe_list_line *lines = NULL;
	struct kprobe *site, *member;
	size_t count, i = 0;
	unsigned int b;

	mutex_lock(&kprobe_mutex);
	count = kprobe_list_count();
	if (count) {
		lines = kvmalloc_array(count, sizeof(*lines), GFP_KERNEL);
		if (!lines) {
			mutex_unlock(&kprobe_mutex);
			return ERR_PTR(-ENOMEM);
		}
	}
	for (b = 0; lines && b < KPROBE_TABLE_SIZE; b++) {
		hlist_for_each_entry(site, &kprobe_table[b], hlist) {
			if (!kprobe_is_group(site)) {
				kprobe_list_take(&lines[i++], site, site);
				continue;
			}
			list_for_each_entry(member, &to_kprobe_group(site)->members,
					    list)
				kprobe_list_take(&lines[i++], member, site);
		}
	}
	mutex_unlock(&kprobe_mutex);
	*n = count;
	return lines;
}

/* "ADDR  TYPE  SYM+OFF  MOD " or "ADDR  TYPE  ADDR ", as "list" has it. */
static void kprobe_list_print_probe(struct seq_file *m,
				    const struct kprobe_list_line *line)
{
	unsigned long addr = 0, size, offset;
	char namebuf[KSYM_NAME_LEN];
	const char *sym, *type;
	char *modname;

	type = line->kretprobe ? "r" : "k";
	if (kallsyms_show_value(m->file->f_cred))
		addr = line->addr;
	/* @modname points into the module, which RCU keeps from being freed. */
	rcu_read_lock();
	sym = kallsyms_lookup(line->addr, &size, &offset, &modname, namebuf);
	/* Addresses are printed in full, zero-padded, like %px would. */
	if (sym)
		seq_printf(m, "%0*lx  %s  %s+0x%lx  %s ", KPROBE_ADDR_WIDTH,
			   addr, type, sym, offset, modname ? modname : " ");
	else
		seq_printf(m, "%0*lx  %s  %0*lx ", KPROBE_ADDR_WIDTH, addr, type,
			   KPROBE_ADDR_WIDTH, addr);
	rcu_read_unlock();
}

static void kprobe_list_print(struct seq_file *m,
			      const struct kprobe_list_line *line)
{
	kprobe_list_print_probe(m, line);
	if (line->gone)
		seq_puts(m, "[GONE]");
	else if (line->disabled)
		seq_puts(m, "[DISABLED]");
	if (line->optimized)
		seq_puts(m, "[OPTIMIZED]");
	if (line->ftrace)
		seq_puts(m, "[FTRACE]");
	seq_putc(m, '\n');
}

/*
 * "missed": each probe as "list" names it, then its skipped hits by cause.
 * recursion (the probe's nmissed): another probe's handler was running on
 * the CPU; disabled: the probe was disabled, its address still armed (not
 * a miss: not in nmissed); no_instance, return_busy (kretprobes): no free
 * instance at entry, another handler running at the return.
 */
static void kprobe_missed_print(struct seq_file *m,
				const struct kprobe_list_line *line)
{
	kprobe_list_print_probe(m, line);
	seq_printf(m, "recursion=%lu disabled=%lu no_instance=%lu return_busy=%lu\n",
		   line->recursion, line->hits_disabled, line->no_instance,
		   line->return_busy);
}

/* "list" and "missed": the table's lines, printed by m->private. */
static int kprobe_lines_show(struct seq_file *m, void *unused)
{
	void (*print)(struct seq_file *m, const struct kprobe_list_line *line) =
		m->private;
	struct kprobe_list_line *lines;
	size_t n, i;

	lines = kprobe_list_copy(&n);
	if (IS_ERR(lines))
		return PTR_ERR(lines);
	for (i = 0; i < n; i++)
		print(m, &lines[i]);
	kvfree(lines);
	return 0;
}

/*
 * Room for the whole table at once: seq_file would otherwise run the show
 * again for every doubling of its buffer, lookups and all.
 */
#define KPROBE_LINE_GUESS	192

static int kprobe_lines_open(struct inode *inode, struct file *file)
{
	size_t count;

	mutex_lock(&kprobe_mutex);
	count = kprobe_list_count();
	mutex_unlock(&kprobe_mutex);
	return single_open_size(file, kprobe_lines_show, inode->i_private,
				(count + 1) * KPROBE_LINE_GUESS);
}

static const struct file_operations kprobe_lines_fops = {
	.owner = THIS_MODULE,
	.open = kprobe_lines_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};

/* perf parses this file: "0x<start>-0x<end>\t<symbol>" per range. */
static int kprobe_blacklist_show(struct seq_file *m, void *unused)
{
	bool show = kallsyms_show_value(m->file->f_cred);
	struct kprobe_blacklist_entry *ent;

	rcu_read_lock();
	list_for_each_entry_rcu(ent, &kprobe_blacklist, list) {
		seq_printf(m, "0x%0*lx-0x%0*lx\t%ps\n",
			   KPROBE_ADDR_WIDTH, show ? ent->start_addr : 0,
			   KPROBE_ADDR_WIDTH, show ? ent->end_addr : 0,
			   (void *)ent->start_addr);
	}
	rcu_read_unlock();
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kprobe_blacklist);

static ssize_t kprobe_enabled_read(struct file *file, char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	char buf[2] = { READ_ONCE(kprobes_all_disarmed) ? '0' : '1', '\n' };

	return simple_read_from_buffer(ubuf, count, ppos, buf, sizeof(buf));
}

static ssize_t kprobe_enabled_write(struct file *file, const char __user *ubuf,
				    size_t count, loff_t *ppos)
{
	bool enable;
	int ret;

	ret = kstrtobool_from_user(ubuf, count, &enable);
	if (ret)
		return ret;
	ret = kprobes_set_all_disarmed(!enable);
	return ret ? ret : count;
}

static const struct file_operations kprobe_enabled_fops = {
	.read = kprobe_enabled_read,
	.write = kprobe_enabled_write,
	.llseek = default_llseek,
};

struct kprobe_debugfs_file {
	const char *name;
	umode_t mode;
	const struct file_operations *fops;
	void (*print)(struct seq_file *m, const struct kprobe_list_line *line);
};

static const struct kprobe_debugfs_file kprobe_debugfs_files[] __initconst = {
	{ "blacklist",	0400,	&kprobe_blacklist_fops },
	{ "enabled",	0600,	&kprobe_enabled_fops },
	{ "list",	0400,	&kprobe_lines_fops,	kprobe_list_print },
	{ "missed",	0400,	&kprobe_lines_fops,	kprobe_missed_print },
};

static int __init kprobes_debugfs_init(void)
{
	struct dentry *dir = debugfs_create_dir("kprobes", NULL);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kprobe_debugfs_files); i++)
		debugfs_create_file(kprobe_debugfs_files[i].name,
				    kprobe_debugfs_files[i].mode, dir,
				    kprobe_debugfs_files[i].print,
				    kprobe_debugfs_files[i].fops);
	return 0;
}
late_initcall(kprobes_debugfs_init);
