// SPDX-License-Identifier: GPL-2.0
/*
 * allocprof_oneliner_test: one call site with a known size mix, for the
 * user guide's perf and bpftrace one-liners.  Writing "alloc" to
 * /proc/allocprof_oneliner_test frees what the last "alloc" left and
 * allocates one kmalloc() object per entry of sizes[], all from one line
 * of oneliner_alloc(); "free" frees them.  Reading the file tells the
 * call site and the expected charges:
 *
 *   <file> <line> <function> <bytes> <calls>
 *   size <size class> <objects>      (one line per distinct size)
 */
#include <linux/module.h>
#include <linux/slab.h>

#include "allocprof_ctl.h"

/* Size classes of their own, one, two and three objects */
static const size_t sizes[] = { 64, 256, 256, 1024, 1024, 1024 };
static void *objs[ARRAY_SIZE(sizes)];
static unsigned int alloc_line;

static void oneliner_free(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(objs); i++) {
		kfree(objs[i]);
		objs[i] = NULL;
	}
}

/* Not inlined: perf's stacks must name it. */
static noinline int oneliner_alloc(void)
{
	int i;

	oneliner_free();
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		objs[i] = kmalloc(sizes[i], GFP_KERNEL); alloc_line = __LINE__;
		if (!objs[i])
			return -ENOMEM;
	}
	return 0;
}

static int ctl_show(struct seq_file *m)
{
	size_t bytes = 0;
	int i, n;

	for (i = 0; i < ARRAY_SIZE(sizes); i++)
		bytes += kmalloc_size_roundup(sizes[i]);
	seq_printf(m, "%s %u oneliner_alloc %zu %zu\n", __FILE__, alloc_line,
		   bytes, ARRAY_SIZE(sizes));
	for (i = 0; i < ARRAY_SIZE(sizes); i += n) {
		for (n = 1; i + n < ARRAY_SIZE(sizes); n++)
			if (sizes[i + n] != sizes[i])
				break;
		seq_printf(m, "size %zu %d\n", kmalloc_size_roundup(sizes[i]), n);
	}
	return 0;
}

static int ctl_command(const char *cmd, const char __user *ubuf, size_t len)
{
	if (sysfs_streq(cmd, "alloc"))
		return oneliner_alloc();
	if (sysfs_streq(cmd, "free")) {
		oneliner_free();
		return 0;
	}
	return -EINVAL;
}

static int __init allocprof_oneliner_test_init(void)
{
	return ctl_create();
}

static void __exit allocprof_oneliner_test_exit(void)
{
	ctl_remove();
	oneliner_free();
}

module_init(allocprof_oneliner_test_init);
module_exit(allocprof_oneliner_test_exit);

MODULE_LICENSE("GPL");
