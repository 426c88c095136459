// SPDX-License-Identifier: GPL-2.0
/*
 * allocprof_leak_test: leaks LEAK_N kmalloc() objects of LEAK_SIZE bytes
 * for each "leak" written to /proc/allocprof_leak_test, so that a guest
 * can show its kmemleak scan finds leaks (50-kmemleak.sh) before it
 * trusts the scan to find none of profiling's own.  Several, because a
 * stale copy of a pointer (in a cached kernel stack, say) hides its
 * object from the scan.  Reading the file gives LEAK_SIZE and the number
 * of objects leaked.
 */
#include <linux/module.h>
#include <linux/slab.h>

#include "allocprof_ctl.h"

#define LEAK_SIZE	1234
#define LEAK_N		16

static unsigned int leaked;

static noinline void leak_one(void)
{
	char *p = kmalloc(LEAK_SIZE, GFP_KERNEL);

	if (p) {
		memset(p, 0x5a, LEAK_SIZE);
		leaked++;
	}
}

static int ctl_show(struct seq_file *m)
{
	seq_printf(m, "%u %u\n", LEAK_SIZE, leaked);
	return 0;
}

static int ctl_command(const char *cmd, const char __user *ubuf, size_t len)
{
	int i;

	if (!sysfs_streq(cmd, "leak"))
		return -EINVAL;
	for (i = 0; i < LEAK_N; i++)
		leak_one();
	return 0;
}

static int __init allocprof_leak_test_init(void)
{
	return ctl_create();
}

static void __exit allocprof_leak_test_exit(void)
{
	ctl_remove();
}

module_init(allocprof_leak_test_init);
module_exit(allocprof_leak_test_exit);

MODULE_LICENSE("GPL");
