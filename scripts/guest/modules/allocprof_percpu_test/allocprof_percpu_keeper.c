// SPDX-License-Identifier: GPL-2.0
/*
 * allocprof_percpu_keeper: holds per-CPU areas handed over by
 * allocprof_percpu_test, so that the test module can be unloaded while
 * areas charged to its allocation tags are still allocated, and frees
 * them on request ("free" written to /proc/allocprof_percpu_keeper) or
 * when unloaded.
 */
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#define MAX_KEPT 16

static void __percpu *kept[MAX_KEPT];
static unsigned int nr_kept;
static DEFINE_MUTEX(keeper_lock);

/* Take ownership of a per-CPU area; it is freed with free_percpu(). */
int allocprof_percpu_keeper_stash(void __percpu *p)
{
	int ret = -ENOSPC;

	mutex_lock(&keeper_lock);
	if (nr_kept < MAX_KEPT) {
		kept[nr_kept++] = p;
		ret = 0;
	}
	mutex_unlock(&keeper_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(allocprof_percpu_keeper_stash);

static void keeper_free_all(void)
{
	mutex_lock(&keeper_lock);
	while (nr_kept)
		free_percpu(kept[--nr_kept]);
	mutex_unlock(&keeper_lock);
}

static int keeper_show(struct seq_file *m, void *v)
{
	mutex_lock(&keeper_lock);
	seq_printf(m, "%u\n", nr_kept);
	mutex_unlock(&keeper_lock);
	return 0;
}

static int keeper_open(struct inode *inode, struct file *file)
{
	return single_open(file, keeper_show, NULL);
}

static ssize_t keeper_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	char buf[16] = { };

	if (count >= sizeof(buf) || copy_from_user(buf, ubuf, count))
		return -EINVAL;
	if (strcmp(strim(buf), "free"))
		return -EINVAL;
	keeper_free_all();
	return count;
}

static const struct proc_ops keeper_ops = {
	.proc_open	= keeper_open,
	.proc_read	= seq_read,
	.proc_lseek	= seq_lseek,
	.proc_release	= single_release,
	.proc_write	= keeper_write,
};

static int __init keeper_init(void)
{
	if (!proc_create("allocprof_percpu_keeper", 0600, NULL, &keeper_ops))
		return -ENOMEM;
	return 0;
}

static void __exit keeper_exit(void)
{
	remove_proc_entry("allocprof_percpu_keeper", NULL);
	keeper_free_all();
}

module_init(keeper_init);
module_exit(keeper_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Keeps per-CPU areas for the allocprof_percpu_test module");
