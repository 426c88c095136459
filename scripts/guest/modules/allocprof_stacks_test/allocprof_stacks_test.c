// SPDX-License-Identifier: GPL-2.0
/*
 * allocprof_stacks_test: one allocating line with two callers, for the
 * stacks of an armed call site.  /proc/allocprof_stacks_test shows
 *
 *   site <file>:<line>
 *   <caller> <bytes> <calls>      (one line per caller)
 *
 * the line to arm, then what each caller holds.  Commands: "alloc"
 * frees everything, then allocates ONE_N objects through
 * stacks_caller_one() and TWO_N through stacks_caller_two(); "free"
 * frees everything; "stash" hands the objects to allocprof_keeper, so
 * that they outlive this module.
 */
#include <linux/module.h>
#include <linux/slab.h>

#include "allocprof_ctl.h"

#define OBJ_SIZE	256	/* a kmalloc size class: charged exactly */
#define ONE_N		3
#define TWO_N		5

static void *one[ONE_N], *two[TWO_N];
static unsigned int helper_line;

static noinline void *stacks_helper(gfp_t gfp)
{
	helper_line = __LINE__ + 1;
	return kmalloc(OBJ_SIZE, gfp);
}

/*
 * The result is used after the call, so that no tail call drops the
 * frame, and the two callers differ, so that the compiler cannot fold
 * them into one function.
 */
static noinline void *stacks_caller_one(void)
{
	void *p = stacks_helper(GFP_KERNEL);

	OPTIMIZER_HIDE_VAR(p);
	return p;
}

static noinline void *stacks_caller_two(void)
{
	void *p = stacks_helper(GFP_KERNEL | __GFP_ZERO);

	OPTIMIZER_HIDE_VAR(p);
	return p;
}

static void free_all(void)
{
	unsigned int i;

	for (i = 0; i < ONE_N; i++) {
		kfree(one[i]);
		one[i] = NULL;
	}
	for (i = 0; i < TWO_N; i++) {
		kfree(two[i]);
		two[i] = NULL;
	}
}

static int alloc_all(void)
{
	unsigned int i, n_one = ONE_N, n_two = TWO_N;

	free_all();
	/* Counts the compiler cannot see: no unrolling into more callers */
	OPTIMIZER_HIDE_VAR(n_one);
	OPTIMIZER_HIDE_VAR(n_two);
	for (i = 0; i < n_one; i++)
		one[i] = stacks_caller_one();
	for (i = 0; i < n_two; i++)
		two[i] = stacks_caller_two();
	for (i = 0; i < ONE_N; i++)
		if (!one[i])
			return -ENOMEM;
	for (i = 0; i < TWO_N; i++)
		if (!two[i])
			return -ENOMEM;
	return 0;
}

/* Exported by allocprof_keeper, looked up at run time. */
int allocprof_keeper_stash_kmalloc(void *obj);

static int stash_all(void)
{
	int (*stash)(void *obj) = symbol_get(allocprof_keeper_stash_kmalloc);
	unsigned int i;
	int ret = 0;

	if (!stash)
		return -ENOENT;
	for (i = 0; i < ONE_N && !ret; i++)
		if (one[i] && !(ret = stash(one[i])))
			one[i] = NULL;
	for (i = 0; i < TWO_N && !ret; i++)
		if (two[i] && !(ret = stash(two[i])))
			two[i] = NULL;
	symbol_put(allocprof_keeper_stash_kmalloc);
	return ret;
}

static int ctl_show(struct seq_file *m)
{
	seq_printf(m, "site %s:%u\n", __FILE__, helper_line);
	seq_printf(m, "stacks_caller_one %u %u\n",
		   one[0] ? ONE_N * OBJ_SIZE : 0, one[0] ? ONE_N : 0);
	seq_printf(m, "stacks_caller_two %u %u\n",
		   two[0] ? TWO_N * OBJ_SIZE : 0, two[0] ? TWO_N : 0);
	return 0;
}

static int ctl_command(const char *cmd, const char __user *ubuf, size_t len)
{
	if (!strcmp(cmd, "free")) {
		free_all();
		return 0;
	}
	if (!strcmp(cmd, "alloc"))
		return alloc_all();
	if (!strcmp(cmd, "stash"))
		return stash_all();
	return -EINVAL;
}

static int __init allocprof_stacks_test_init(void)
{
	/* Learn the helper's line without keeping anything */
	kfree(stacks_helper(GFP_KERNEL));
	return ctl_create();
}

static void __exit allocprof_stacks_test_exit(void)
{
	ctl_remove();
	free_all();
}

module_init(allocprof_stacks_test_init);
module_exit(allocprof_stacks_test_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("allocprof test: one allocating line, two callers");
