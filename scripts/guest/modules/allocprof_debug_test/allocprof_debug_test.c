// SPDX-License-Identifier: GPL-2.0
/*
 * allocprof_debug_test: a deliberate mistake for the debug checks of
 * memory allocation profiling.  Loading it calls kmalloc_noprof()
 * directly, without alloc_hooks() and so without an allocation tag,
 * from allocprof_debug_untagged_alloc(); a kernel built with
 * CONFIG_MEM_ALLOC_PROFILING_DEBUG and profiling on must warn, with a
 * stack naming that function.  Loading only succeeds if the allocation
 * did.
 */
#include <linux/module.h>
#include <linux/slab.h>

static noinline int allocprof_debug_untagged_alloc(void)
{
	void *p = kmalloc_noprof(64, GFP_KERNEL);

	if (!p)
		return -ENOMEM;
	kfree(p);
	return 0;
}

static int __init allocprof_debug_test_init(void)
{
	return allocprof_debug_untagged_alloc();
}

static void __exit allocprof_debug_test_exit(void)
{
}

module_init(allocprof_debug_test_init);
module_exit(allocprof_debug_test_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Allocates without an allocation tag, to trigger a debug warning");
