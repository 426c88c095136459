// SPDX-License-Identifier: GPL-2.0
/*
 * allocprof_percpu_test: allocate through each profiled per-CPU
 * allocator entry point, each from its own source line, and report in
 * /proc/allocprof_percpu_test what /proc/allocinfo must show for those
 * lines:
 *
 *   <file>:<line> <bytes> <calls> <api>
 *
 * An area is charged with its size, rounded up to the allocator's 4-byte
 * granule, times the number of possible CPUs.  The areas are small, so
 * on an idle system they come from the first chunk.
 *
 * Commands written to /proc/allocprof_percpu_test:
 *   free   free everything (expected values become 0 0)
 *   alloc  free everything, then allocate again
 *   stash  hand every live area to allocprof_keeper (which must
 *          be loaded); they stay charged to this module's lines, so
 *          unloading this module afterwards leaves areas allocated.
 */
#include <linux/cpumask.h>
#include <linux/gfp.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/string.h>

#include "allocprof_ctl.h"

#define NR_LOOP 3

struct triple {
	u64 a, b, c;
};

struct item {
	const char *api;
	unsigned int line;
	size_t size;		/* per CPU, as charged */
	unsigned int want;	/* areas allocated from the line */
	unsigned int nr;	/* of them live */
	void __percpu *p[NR_LOOP];
};

#define NR_ITEMS 8
static struct item items[NR_ITEMS];
static unsigned int nr_items;

/* Not a compile-time constant, and not a multiple of the 4-byte granule */
static size_t odd_size = 13;
module_param(odd_size, ulong, 0444);

static struct item *new_item(const char *api, unsigned int line, size_t size)
{
	struct item *it = &items[nr_items++];

	memset(it, 0, sizeof(*it));
	it->api = api;
	it->line = line;
	it->size = ALIGN(size, 4);
	it->want = 1;
	return it;
}

/* ITEM(api, size, call): run @call from the line of the ITEM. */
#define ITEM(api, size, call) do {					\
	struct item *_it = new_item(api, __LINE__, size);		\
	_it->p[0] = (void __percpu *)(call);				\
	_it->nr = !!_it->p[0];						\
} while (0)

static void test_free(void)
{
	unsigned int i, j;

	for (i = 0; i < nr_items; i++) {
		for (j = 0; j < items[i].nr; j++)
			free_percpu(items[i].p[j]);
		items[i].nr = 0;
	}
}

static int test_alloc(void)
{
	struct item *it;
	unsigned int i;

	nr_items = 0;
	ITEM("alloc_percpu", sizeof(struct triple), alloc_percpu(struct triple));
	ITEM("alloc_percpu_gfp", sizeof(u64), alloc_percpu_gfp(u64, GFP_KERNEL));
	ITEM("__alloc_percpu", 100, __alloc_percpu(100, 8));
	ITEM("__alloc_percpu_gfp", 200, __alloc_percpu_gfp(200, 16, GFP_KERNEL));
	ITEM("__alloc_percpu-odd", odd_size, __alloc_percpu(odd_size, 4));

	/* Several areas from one line: one row, NR_LOOP calls */
	it = new_item("alloc_percpu-loop", 0, sizeof(int));
	it->want = NR_LOOP;
	it->line = __LINE__; for (i = 0; i < NR_LOOP; i++) it->p[i] = alloc_percpu(int);
	for (i = 0; i < NR_LOOP && it->p[i]; i++)
		it->nr++;

	for (i = 0; i < nr_items; i++)
		if (items[i].nr != items[i].want) {
			test_free();
			return -ENOMEM;
		}
	return 0;
}

/* Exported by allocprof_keeper, looked up at run time. */
int allocprof_keeper_stash_percpu(void __percpu *p);

static int test_stash(void)
{
	int (*stash)(void __percpu *p);
	unsigned int i;
	int ret = 0;

	stash = symbol_get(allocprof_keeper_stash_percpu);
	if (!stash)
		return -ENOENT;
	for (i = 0; i < nr_items && !ret; i++) {
		while (items[i].nr && !ret) {
			ret = stash(items[i].p[items[i].nr - 1]);
			if (!ret)
				items[i].nr--;
		}
	}
	symbol_put(allocprof_keeper_stash_percpu);
	return ret;
}

static int ctl_show(struct seq_file *m)
{
	unsigned int i;

	for (i = 0; i < nr_items; i++) {
		struct item *it = &items[i];

		ctl_row(m, __FILE__, it->line,
			it->size * num_possible_cpus() * it->nr, it->nr,
			it->api);
	}
	return 0;
}

static int ctl_command(const char *cmd, const char __user *ubuf, size_t len)
{
	if (sysfs_streq(cmd, "free")) {
		test_free();
		return 0;
	}
	if (sysfs_streq(cmd, "alloc")) {
		test_free();
		return test_alloc();
	}
	if (sysfs_streq(cmd, "stash"))
		return test_stash();
	return -EINVAL;
}

static int __init allocprof_percpu_test_init(void)
{
	int ret;

	mutex_lock(&ctl_lock);
	ret = test_alloc();
	mutex_unlock(&ctl_lock);
	if (!ret) {
		ret = ctl_create();
		if (ret)
			test_free();
	}
	return ret;
}

static void __exit allocprof_percpu_test_exit(void)
{
	ctl_remove();
	test_free();	/* stashed areas stay with allocprof_keeper */
}

module_init(allocprof_percpu_test_init);
module_exit(allocprof_percpu_test_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Allocates through each profiled per-CPU entry point");
