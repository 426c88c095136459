/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The control file every allocprof test module exposes as
 * /proc/<module name>: reading it runs the module's ctl_show(), writing
 * a command word to it runs ctl_command(), both under ctl_lock.
 *
 * A module includes this header once (its Kbuild adds
 * -I$(src)/../include), defines
 *
 *   static int ctl_show(struct seq_file *m);
 *   static int ctl_command(const char *cmd, const char __user *ubuf,
 *                          size_t len);
 *
 * and calls ctl_create() at the end of its init and ctl_remove() first
 * thing in its exit.  ctl_command() gets the command word with
 * surrounding white space trimmed, plus the whole user buffer for
 * commands that use it; it returns 0 or a negative errno, -EINVAL for
 * words it does not know.
 */
#ifndef ALLOCPROF_CTL_H
#define ALLOCPROF_CTL_H

#include <linux/minmax.h>
#include <linux/mutex.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/uaccess.h>

static DEFINE_MUTEX(ctl_lock);

static int ctl_show(struct seq_file *m);
static int ctl_command(const char *cmd, const char __user *ubuf, size_t len);

/* One expected /proc/allocinfo row: "<file>:<line> <bytes> <calls> <api>" */
static inline void ctl_row(struct seq_file *m, const char *file,
			   unsigned int line, unsigned long bytes,
			   unsigned long calls, const char *api)
{
	seq_printf(m, "%s:%u %lu %lu %s\n", file, line, bytes, calls, api);
}

static int ctl_seq_show(struct seq_file *m, void *v)
{
	int ret;

	mutex_lock(&ctl_lock);
	ret = ctl_show(m);
	mutex_unlock(&ctl_lock);
	return ret;
}

static int ctl_open(struct inode *inode, struct file *file)
{
	return single_open(file, ctl_seq_show, NULL);
}

static ssize_t ctl_write(struct file *file, const char __user *ubuf,
			 size_t len, loff_t *off)
{
	char buf[16] = "";
	int ret;

	if (copy_from_user(buf, ubuf, min(len, sizeof(buf) - 1)))
		return -EFAULT;
	mutex_lock(&ctl_lock);
	ret = ctl_command(strim(buf), ubuf, len);
	mutex_unlock(&ctl_lock);
	return ret ? ret : len;
}

static const struct proc_ops ctl_ops = {
	.proc_open	= ctl_open,
	.proc_read	= seq_read,
	.proc_lseek	= seq_lseek,
	.proc_release	= single_release,
	.proc_write	= ctl_write,
};

static inline int ctl_create(void)
{
	return proc_create(KBUILD_MODNAME, 0600, NULL, &ctl_ops) ? 0 : -ENOMEM;
}

static inline void ctl_remove(void)
{
	remove_proc_entry(KBUILD_MODNAME, NULL);
}

#endif /* ALLOCPROF_CTL_H */
