// SPDX-License-Identifier: GPL-2.0
/*
 * allocprof_keeper: holds page blocks, per-CPU areas and kmalloc objects
 * handed over by the test modules (allocprof_test, allocprof_percpu_test,
 * allocprof_stacks_test), so that a
 * test module can be unloaded while memory charged to its allocation
 * tags is still allocated.  Reading /proc/allocprof_keeper gives how
 * many it holds; writing "free" to it, or unloading it, frees them;
 * writing "drain" frees them one by one, about half a millisecond apart,
 * so that the frees overlap an unload running on another CPU.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/slab.h>

#include "allocprof_ctl.h"

#define MAX_KEPT 64

struct kept {
	struct page *page;		/* a block of 2^order pages, or */
	unsigned int order;
	void __percpu *percpu;		/* a per-CPU area, or */
	void *obj;			/* a kmalloc object */
};

static struct kept kept[MAX_KEPT];
static unsigned int nr_kept;

static int keep(struct kept k)
{
	int ret = -ENOSPC;

	mutex_lock(&ctl_lock);
	if (nr_kept < MAX_KEPT) {
		kept[nr_kept++] = k;
		ret = 0;
	}
	mutex_unlock(&ctl_lock);
	return ret;
}

/* Take ownership of a block of 2^order pages; it is freed with __free_pages(). */
int allocprof_keeper_stash(struct page *page, unsigned int order)
{
	return keep((struct kept){ .page = page, .order = order });
}
EXPORT_SYMBOL_GPL(allocprof_keeper_stash);

/* Take ownership of a per-CPU area; it is freed with free_percpu(). */
int allocprof_keeper_stash_percpu(void __percpu *p)
{
	return keep((struct kept){ .percpu = p });
}
EXPORT_SYMBOL_GPL(allocprof_keeper_stash_percpu);

/* Take ownership of a kmalloc object; it is freed with kfree(). */
int allocprof_keeper_stash_kmalloc(void *obj)
{
	return keep((struct kept){ .obj = obj });
}
EXPORT_SYMBOL_GPL(allocprof_keeper_stash_kmalloc);

static void free_kept(struct kept *k)
{
	if (k->page)
		__free_pages(k->page, k->order);
	else if (k->obj)
		kfree(k->obj);
	else
		free_percpu(k->percpu);
}

static void free_all(void)
{
	while (nr_kept)
		free_kept(&kept[--nr_kept]);
}

static void drain(void)
{
	while (nr_kept) {
		free_kept(&kept[--nr_kept]);
		usleep_range(400, 600);
	}
}

static int ctl_show(struct seq_file *m)
{
	seq_printf(m, "%u\n", nr_kept);
	return 0;
}

static int ctl_command(const char *cmd, const char __user *ubuf, size_t len)
{
	if (!strcmp(cmd, "drain")) {
		drain();
		return 0;
	}
	if (strcmp(cmd, "free"))
		return -EINVAL;
	free_all();
	return 0;
}

static int __init keeper_init(void)
{
	return ctl_create();
}

static void __exit keeper_exit(void)
{
	ctl_remove();
	free_all();
}

module_init(keeper_init);
module_exit(keeper_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Keeps memory for the allocprof test modules across their unload");
