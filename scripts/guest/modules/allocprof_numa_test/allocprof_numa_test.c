// SPDX-License-Identifier: GPL-2.0
/*
 * allocprof_numa_test: allocate pages and slab objects on chosen NUMA
 * nodes from known lines, and report in /proc/allocprof_numa_test what
 * /proc/allocinfo_numa must show for them:
 *
 *   <file>:<line> <node> <bytes> <calls> <api>
 *
 * Each call site allocates on every online node, node N taking N + 1
 * objects, so that a charge on the wrong node cannot go unnoticed.  The
 * node of each object is checked against the requested one.
 *
 * Commands written to /proc/allocprof_numa_test:
 *   free   free everything (expected values become 0 0)
 *   alloc  free everything, then allocate again
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/nodemask.h>
#include <linux/slab.h>

#include "allocprof_ctl.h"

#define MAX_NODES	4
#define PER_NODE	MAX_NODES	/* node N allocates N + 1 objects */
#define PAGE_ORDER	1
#define OBJ_SIZE	200
#define THISNODE	(GFP_KERNEL | __GFP_THISNODE | __GFP_NOWARN)

struct site {
	const char *api;
	unsigned int line;
	unsigned long bytes;		/* per object */
	unsigned int nr[MAX_NODES];	/* live objects per node */
	void *objs[MAX_NODES][PER_NODE];
};

static struct site pages = { .api = "alloc_pages_node" };
static struct site slab = { .api = "kmalloc_node" };

static int nodes(void)
{
	return min_t(int, nr_node_ids, MAX_NODES);
}

static void test_free(void)
{
	int nid, i;

	for (nid = 0; nid < MAX_NODES; nid++) {
		for (i = 0; i < pages.nr[nid]; i++)
			__free_pages(pages.objs[nid][i], PAGE_ORDER);
		for (i = 0; i < slab.nr[nid]; i++)
			kfree(slab.objs[nid][i]);
		pages.nr[nid] = 0;
		slab.nr[nid] = 0;
	}
}

/* Fails if the object did not land on @nid. */
static int keep(struct site *s, int nid, void *obj, int obj_nid)
{
	if (!obj)
		return -ENOMEM;
	s->objs[nid][s->nr[nid]++] = obj;
	if (obj_nid != nid) {
		pr_err("%s: object on node %d instead of %d\n", s->api,
		       obj_nid, nid);
		return -EIO;
	}
	return 0;
}

static int alloc_on(int nid)
{
	struct page *page;
	void *obj;
	int i, ret;

	for (i = 0; i <= nid; i++) {
		page = alloc_pages_node(nid, THISNODE, PAGE_ORDER); pages.line = __LINE__;
		ret = keep(&pages, nid, page, page ? page_to_nid(page) : nid);
		if (ret)
			return ret;
		obj = kmalloc_node(OBJ_SIZE, THISNODE, nid); slab.line = __LINE__;
		ret = keep(&slab, nid, obj, obj ? page_to_nid(virt_to_page(obj)) : nid);
		if (ret)
			return ret;
	}
	return 0;
}

static int test_alloc(void)
{
	int nid, ret;

	pages.bytes = PAGE_SIZE << PAGE_ORDER;
	slab.bytes = kmalloc_size_roundup(OBJ_SIZE);
	for (nid = 0; nid < nodes(); nid++) {
		if (!node_online(nid))
			continue;
		ret = alloc_on(nid);
		if (ret)
			return ret;
	}
	return 0;
}

static void show_site(struct seq_file *m, struct site *s)
{
	int nid;

	for (nid = 0; nid < nodes(); nid++)
		seq_printf(m, "%s:%u %d %lu %u %s\n", __FILE__, s->line, nid,
			   s->bytes * s->nr[nid], s->nr[nid], s->api);
}

static int ctl_show(struct seq_file *m)
{
	show_site(m, &pages);
	show_site(m, &slab);
	return 0;
}

static int ctl_command(const char *cmd, const char __user *ubuf, size_t len)
{
	bool alloc = sysfs_streq(cmd, "alloc");

	if (!alloc && !sysfs_streq(cmd, "free"))
		return -EINVAL;
	test_free();
	return alloc ? test_alloc() : 0;
}

static int __init allocprof_numa_test_init(void)
{
	return ctl_create();
}

static void __exit allocprof_numa_test_exit(void)
{
	ctl_remove();
	test_free();
}

module_init(allocprof_numa_test_init);
module_exit(allocprof_numa_test_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Allocates pages and slab objects on chosen NUMA nodes");
