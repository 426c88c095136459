// SPDX-License-Identifier: GPL-2.0
/*
 * allocprof_stats_test: churn and failures from known lines, for the
 * lifetime counts of CONFIG_MEM_ALLOC_PROFILING_STATS.  Each run (at
 * load, and on every "run" written to /proc/allocprof_stats_test)
 * allocates and frees CHURN_N objects of CHURN_SIZE bytes from one line
 * and makes one kmalloc() fail on another.  "hold" allocates HOLD_N
 * objects of CHURN_SIZE bytes from a third line and keeps them until
 * "release": from a task whose slab vectors fail (failslab), some are not
 * charged.  Reading the file tells what the rows of those lines must show:
 *
 *   churn <file>:<line> <runs> <objects per run> <size> <size class>
 *   fail <file>:<line> <runs>
 *   hold <file>:<line> <objects held> <size> <size class>
 */
#include <linux/module.h>
#include <linux/slab.h>

#include "allocprof_ctl.h"

#define CHURN_N		10
#define CHURN_SIZE	100
#define HOLD_N		512

static unsigned int churn_line, fail_line, hold_line, runs;
static void *held[HOLD_N];
/* Not a constant, so that the compiler does not see the failure coming */
static unsigned long huge_size = KMALLOC_MAX_SIZE + 1;
module_param(huge_size, ulong, 0444);

static int test_run(void)
{
	void *objs[CHURN_N], *p;
	int i;

	for (i = 0; i < CHURN_N; i++) {
		objs[i] = kmalloc(CHURN_SIZE, GFP_KERNEL); churn_line = __LINE__;
		if (!objs[i])
			break;
	}
	while (i--)
		kfree(objs[i]);
	p = kmalloc(huge_size, GFP_KERNEL | __GFP_NOWARN); fail_line = __LINE__;
	kfree(p);
	runs++;
	return p ? -EINVAL : 0;
}

static void hold_release(void)
{
	int i;

	for (i = 0; i < HOLD_N; i++) {
		kfree(held[i]);
		held[i] = NULL;
	}
}

static int hold(void)
{
	int i;

	hold_release();
	for (i = 0; i < HOLD_N; i++) {
		held[i] = kmalloc(CHURN_SIZE, GFP_KERNEL); hold_line = __LINE__;
		if (!held[i])
			return -ENOMEM;
	}
	return 0;
}

static unsigned int nr_held(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < HOLD_N; i++)
		n += !!held[i];
	return n;
}

static int ctl_show(struct seq_file *m)
{
	seq_printf(m, "churn %s:%u %u %u %u %zu\n", __FILE__, churn_line, runs,
		   CHURN_N, CHURN_SIZE, kmalloc_size_roundup(CHURN_SIZE));
	seq_printf(m, "fail %s:%u %u\n", __FILE__, fail_line, runs);
	seq_printf(m, "hold %s:%u %u %u %zu\n", __FILE__, hold_line, nr_held(),
		   CHURN_SIZE, kmalloc_size_roundup(CHURN_SIZE));
	return 0;
}

static int ctl_command(const char *cmd, const char __user *ubuf, size_t len)
{
	if (sysfs_streq(cmd, "run"))
		return test_run();
	if (sysfs_streq(cmd, "hold"))
		return hold();
	if (sysfs_streq(cmd, "release")) {
		hold_release();
		return 0;
	}
	return -EINVAL;
}

static int __init allocprof_stats_test_init(void)
{
	int ret = test_run();

	return ret ? ret : ctl_create();
}

static void __exit allocprof_stats_test_exit(void)
{
	ctl_remove();
	hold_release();
}

module_init(allocprof_stats_test_init);
module_exit(allocprof_stats_test_exit);

MODULE_LICENSE("GPL");
