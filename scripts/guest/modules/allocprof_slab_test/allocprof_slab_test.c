// SPDX-License-Identifier: GPL-2.0
/*
 * allocprof_slab_test: allocate through each profiled slab entry point,
 * each from its own source line, and report in /proc/allocprof_slab_test
 * what /proc/allocinfo must show for those lines:
 *
 *   <file>:<line> <bytes> <calls> <api>
 *
 * Slab objects are charged with the object size of their cache (the
 * size class for kmalloc), large kmallocs with the pages they use.
 *
 * Commands written to /proc/allocprof_slab_test:
 *   free   free everything (expected values become 0 0)
 *   alloc  free everything, then allocate again
 *   lru    check that list_lru files objects under the writer's memory
 *          cgroup (write fails with EIO if not, see lru_test())
 *   census allocate CENSUS_N objects from an unaccounted cache and as
 *          many from a SLAB_ACCOUNT one, log how many slabs they took
 *          and how many of those have an object extension vector, and
 *          free them (memory cgroup kernels only, see census())
 *
 * With kfence_tries=N, one line allocates up to N times, a millisecond
 * apart, until KFENCE samples the object: its row is "kmalloc-kfence",
 * with 1 call if it got one.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/kfence.h>
#include <linux/list_lru.h>
#include <linux/memcontrol.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "allocprof_ctl.h"

#define BULK_N		8
#define LARGE_SIZE	(20 * 1024)	/* > KMALLOC_MAX_CACHE_SIZE */
#define CACHE_SIZE	72

/* How an item is freed */
enum kind { K_KFREE, K_CACHE, K_CACHE_BULK, K_KFREE_BULK, K_KVFREE };

struct item {
	const char *api;
	unsigned int line;
	enum kind kind;
	unsigned long bytes;	/* per object */
	unsigned int nr;	/* objects */
	bool live;
	void *objs[BULK_N];
};

#define NR_ITEMS 32
static struct item items[NR_ITEMS];
static unsigned int nr_items;
static struct kmem_cache *cache;
static struct kmem_cache *lru_cache;

/* Sizes not known to the compiler take the non-inlined kmalloc paths */
static size_t runtime_size = 700;
module_param(runtime_size, ulong, 0444);
static size_t runtime_large = 3 * PAGE_SIZE + 1;
module_param(runtime_large, ulong, 0444);
static unsigned int kfence_tries;
module_param(kfence_tries, uint, 0444);

static struct item *new_item(const char *api, unsigned int line,
			     enum kind kind, unsigned long bytes)
{
	struct item *it = &items[nr_items++];

	memset(it, 0, sizeof(*it));
	it->api = api;
	it->line = line;
	it->kind = kind;
	it->bytes = bytes;
	it->nr = 1;
	return it;
}

static unsigned long large_bytes(size_t size)
{
	return PAGE_SIZE << get_order(size);
}

/*
 * ITEM(api, kind, bytes, call): run @call from the line of the ITEM and
 * store the object.  The allocation macro inside @call expands on that
 * line, so its tag carries the line recorded here.
 */
#define ITEM(api, kind, bytes, call) do {				\
	struct item *_it = new_item(api, __LINE__, kind, bytes);	\
	_it->objs[0] = (call);						\
	_it->live = !!_it->objs[0];					\
} while (0)

/*
 * A KFENCE object has a slab of its own, whose vector has one entry.
 * Allocate from one line until KFENCE samples an object, freeing the
 * others, and keep that one.
 */
static void kfence_item(void)
{
	struct item *it;
	unsigned int i;
	void *p;

	if (!kfence_tries)
		return;
	it = new_item("kmalloc-kfence", 0, K_KFREE, kmalloc_size_roundup(96));
	it->nr = 0;
	for (i = 0; i < kfence_tries; i++) {
		it->line = __LINE__; p = kmalloc(96, GFP_KERNEL_ACCOUNT);
		if (!p)
			return;
		if (is_kfence_address(p)) {
			it->objs[0] = p;
			it->nr = 1;
			it->live = true;
			return;
		}
		kfree(p);
		msleep(1);
	}
}

static int test_alloc(void)
{
	struct item *it, *from, *to;
	void *p, *q;
	int i;

	nr_items = 0;
	ITEM("kmalloc", K_KFREE, kmalloc_size_roundup(100), kmalloc(100, GFP_KERNEL));
	ITEM("kmalloc-runtime", K_KFREE, kmalloc_size_roundup(runtime_size), kmalloc(runtime_size, GFP_KERNEL));
	ITEM("kzalloc", K_KFREE, kmalloc_size_roundup(64), kzalloc(64, GFP_KERNEL));
	ITEM("kcalloc", K_KFREE, kmalloc_size_roundup(10 * 24), kcalloc(10, 24, GFP_KERNEL));
	ITEM("kmalloc_array", K_KFREE, kmalloc_size_roundup(3 * 100), kmalloc_array(3, 100, GFP_KERNEL));
	ITEM("kmalloc_node", K_KFREE, kmalloc_size_roundup(200), kmalloc_node(200, GFP_KERNEL, NUMA_NO_NODE));
	ITEM("kzalloc_node", K_KFREE, kmalloc_size_roundup(32), kzalloc_node(32, GFP_KERNEL, NUMA_NO_NODE));
	ITEM("kcalloc_node", K_KFREE, kmalloc_size_roundup(4 * 8), kcalloc_node(4, 8, GFP_KERNEL, NUMA_NO_NODE));
	ITEM("kmalloc_array_node", K_KFREE, kmalloc_size_roundup(2 * 500), kmalloc_array_node(2, 500, GFP_KERNEL, NUMA_NO_NODE));
	ITEM("kmalloc-account", K_KFREE, kmalloc_size_roundup(96), kmalloc(96, GFP_KERNEL_ACCOUNT));
	ITEM("kmalloc-large", K_KFREE, large_bytes(LARGE_SIZE), kmalloc(LARGE_SIZE, GFP_KERNEL));
	ITEM("kmalloc-large-runtime", K_KFREE, large_bytes(runtime_large), kmalloc(runtime_large, GFP_KERNEL));
	ITEM("kmalloc_node-large", K_KFREE, large_bytes(LARGE_SIZE), kmalloc_node(LARGE_SIZE, GFP_KERNEL, NUMA_NO_NODE));
	ITEM("kvmalloc", K_KVFREE, kmalloc_size_roundup(300), kvmalloc(300, GFP_KERNEL));
	ITEM("kvzalloc", K_KVFREE, kmalloc_size_roundup(40), kvzalloc(40, GFP_KERNEL));
	ITEM("kmem_cache_alloc", K_CACHE, kmem_cache_size(cache), kmem_cache_alloc(cache, GFP_KERNEL));
	ITEM("kmem_cache_zalloc", K_CACHE, kmem_cache_size(cache), kmem_cache_zalloc(cache, GFP_KERNEL));
	ITEM("kmem_cache_alloc_node", K_CACHE, kmem_cache_size(cache), kmem_cache_alloc_node(cache, GFP_KERNEL, NUMA_NO_NODE));
	ITEM("kmem_cache_alloc_lru", K_CACHE, kmem_cache_size(cache), kmem_cache_alloc_lru(cache, NULL, GFP_KERNEL));
	ITEM("kmem_cache_alloc-account", K_CACHE, kmem_cache_size(cache), kmem_cache_alloc(cache, GFP_KERNEL_ACCOUNT));

	/* krealloc within the size class: the charge stays with kmalloc */
	from = new_item("krealloc-inplace-from", 0, K_KFREE, kmalloc_size_roundup(100));
	p = kmalloc(100, GFP_KERNEL); from->line = __LINE__;
	to = new_item("krealloc-inplace", 0, K_KFREE, 0);
	q = krealloc(p, 120, GFP_KERNEL); to->line = __LINE__;
	to->nr = 0;
	from->objs[0] = q ? q : p;
	from->live = !!from->objs[0];

	/* krealloc out of the size class: the object moves, so does the charge */
	from = new_item("krealloc-moved-from", 0, K_KFREE, 0);
	p = kmalloc(16, GFP_KERNEL); from->line = __LINE__;
	to = new_item("krealloc-moved", 0, K_KFREE, kmalloc_size_roundup(3000));
	q = krealloc(p, 3000, GFP_KERNEL); to->line = __LINE__;
	from->nr = 0;
	if (!q)
		kfree(p);
	to->objs[0] = q;
	to->live = !!q;

	it = new_item("kmem_cache_alloc_bulk", 0, K_CACHE_BULK, kmem_cache_size(cache));
	i = kmem_cache_alloc_bulk(cache, GFP_KERNEL, BULK_N, it->objs); it->line = __LINE__;
	it->nr = i;
	it->live = i > 0;

	/* kmalloc objects of mixed sizes, freed together with kfree_bulk() */
	it = new_item("kfree_bulk", 0, K_KFREE_BULK, 0);
	it->line = __LINE__; for (i = 0; i < 4; i++) it->objs[i] = kmalloc(64 << i, GFP_KERNEL);
	for (i = 0; i < 4; i++) {
		if (!it->objs[i])
			return -ENOMEM;
		it->bytes += kmalloc_size_roundup(64 << i);
	}
	it->nr = 4;
	it->live = true;

	/* Accounted to the memory cgroup of the writer, if any */
	it = new_item("kmalloc-account-8k", 0, K_KFREE_BULK, 0);
	it->line = __LINE__; for (i = 0; i < BULK_N; i++) it->objs[i] = kmalloc(8192, GFP_KERNEL_ACCOUNT);
	for (i = 0; i < BULK_N; i++) {
		if (!it->objs[i])
			return -ENOMEM;
		it->bytes += kmalloc_size_roundup(8192);
	}
	it->nr = BULK_N;
	it->live = true;

	kfence_item();

	for (i = 0; i < nr_items; i++)
		if (items[i].nr && !items[i].live)
			return -ENOMEM;
	return 0;
}

static void test_free(void)
{
	unsigned int i;

	for (i = 0; i < nr_items; i++) {
		struct item *it = &items[i];

		if (!it->live)
			continue;
		switch (it->kind) {
		case K_KFREE:
			kfree(it->objs[0]);
			break;
		case K_KVFREE:
			kvfree(it->objs[0]);
			break;
		case K_CACHE:
			kmem_cache_free(cache, it->objs[0]);
			break;
		case K_CACHE_BULK:
			kmem_cache_free_bulk(cache, it->nr, it->objs);
			break;
		case K_KFREE_BULK:
			kfree_bulk(it->nr, it->objs);
			break;
		}
		it->live = false;
	}
}

/*
 * list_lru finds an item's memory cgroup from the item's address, which
 * lies inside its object: here at the end of a 200-byte object, a size
 * of which few slabs' offsets in memory are a multiple (1040's biased
 * index is off by one for such an address unless the offset is a
 * multiple, or nearly one).  Every other object is freed
 * before the rest are listed, so that an entry taken from a neighbour
 * (no memory cgroup) files an object on the wrong list.
 */
#define LRU_N		32
#define LRU_OBJ_SIZE	200

struct lru_obj {
	char data[LRU_OBJ_SIZE - sizeof(struct list_head)];
	struct list_head item;
};

static struct lru_obj *lru_objs[2 * LRU_N];

static unsigned long lru_count_memcg(struct list_lru *lru,
				     struct mem_cgroup *memcg)
{
	unsigned long listed = 0;
	int nid;

	/* Without memory cgroups, every item is on its node's list */
	for_each_node(nid)
		listed += memcg ? list_lru_count_one(lru, nid, memcg) :
				  list_lru_count_node(lru, nid);
	return listed;
}

static int lru_test(void)
{
	struct mem_cgroup *memcg;
	unsigned long listed;
	struct list_lru lru;
	int i, n, ret;

	ret = list_lru_init_memcg(&lru, NULL);
	if (ret)
		return ret;
	for (n = 0; n < 2 * LRU_N; n++) {
		lru_objs[n] = kmem_cache_alloc_lru(lru_cache, &lru,
						   GFP_KERNEL_ACCOUNT);
		if (!lru_objs[n])
			break;
	}
	for (i = 1; i < n; i += 2)
		kmem_cache_free(lru_cache, lru_objs[i]);
	for (i = 0; i < n; i += 2) {
		INIT_LIST_HEAD(&lru_objs[i]->item);
		list_lru_add(&lru, &lru_objs[i]->item);
	}
	memcg = get_mem_cgroup_from_mm(current->mm);
	listed = lru_count_memcg(&lru, memcg);
	mem_cgroup_put(memcg);
	for (i = 0; i < n; i += 2) {
		list_lru_del(&lru, &lru_objs[i]->item);
		kmem_cache_free(lru_cache, lru_objs[i]);
	}
	list_lru_destroy(&lru);
	if (n < 2 * LRU_N)
		return -ENOMEM;
	if (listed != LRU_N) {
		pr_err("%lu of %d objects on their memory cgroup's list\n",
		       listed, LRU_N);
		return -EIO;
	}
	return 0;
}

#ifdef CONFIG_MEMCG
#define CENSUS_N	1024
#define CENSUS_SIZE	256

/* A constructor keeps the census caches from being merged with others */
static void census_ctor(void *obj)
{
}

/*
 * Objects of a new cache fill its slabs in turn: count the slabs as the
 * changes of slab from one object to the next.  A slab's vector hangs off
 * the word memcg calls memcg_data.  KFENCE objects, whose slab is KFENCE's
 * and always has its one-entry vector, are left out.
 */
static int census_cache(slab_flags_t flags, unsigned int *slabs,
			unsigned int *with_vector)
{
	struct kmem_cache *s;
	struct page *last = NULL;
	void **objs;
	int i, ret = 0;

	*slabs = *with_vector = 0;
	objs = kvcalloc(CENSUS_N, sizeof(*objs), GFP_KERNEL);
	s = kmem_cache_create(flags ? "allocprof_census_cg" : "allocprof_census",
			      CENSUS_SIZE, 0, flags, census_ctor);
	if (!objs || !s) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < CENSUS_N; i++) {
		struct page *page;

		objs[i] = kmem_cache_alloc(s, GFP_KERNEL);
		if (!objs[i]) {
			ret = -ENOMEM;
			goto out;
		}
		if (is_kfence_address(objs[i]))
			continue;
		page = virt_to_head_page(objs[i]);
		if (page == last)
			continue;
		last = page;
		(*slabs)++;
		if (READ_ONCE(page->memcg_data))
			(*with_vector)++;
	}
out:
	for (i = 0; objs && i < CENSUS_N && objs[i]; i++)
		kmem_cache_free(s, objs[i]);
	kmem_cache_destroy(s);
	kvfree(objs);
	return ret;
}

static int census(void)
{
	unsigned int slabs, vectors, acct_slabs, acct_vectors;
	int ret;

	ret = census_cache(0, &slabs, &vectors);
	if (!ret)
		ret = census_cache(SLAB_ACCOUNT, &acct_slabs, &acct_vectors);
	if (!ret)
		pr_info("census: unaccounted %u slabs %u with a vector, accounted %u slabs %u with a vector\n",
			slabs, vectors, acct_slabs, acct_vectors);
	return ret;
}
#else
static int census(void)
{
	return -EOPNOTSUPP;
}
#endif

static int ctl_show(struct seq_file *m)
{
	unsigned int i;

	for (i = 0; i < nr_items; i++) {
		struct item *it = &items[i];
		unsigned long bytes = 0, calls = 0;

		if (it->live) {
			calls = it->nr;
			/* kfree_bulk's bytes already sum up its objects */
			bytes = it->kind == K_KFREE_BULK ? it->bytes :
				it->bytes * it->nr;
		}
		ctl_row(m, __FILE__, it->line, bytes, calls, it->api);
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
	if (sysfs_streq(cmd, "lru"))
		return lru_test();
	if (sysfs_streq(cmd, "census"))
		return census();
	return -EINVAL;
}

static int __init allocprof_slab_test_init(void)
{
	int ret;

	cache = kmem_cache_create("allocprof_slab_test", CACHE_SIZE, 0, 0, NULL);
	if (!cache)
		return -ENOMEM;
	lru_cache = kmem_cache_create("allocprof_slab_lru",
				      sizeof(struct lru_obj), 0, 0, NULL);
	if (!lru_cache) {
		kmem_cache_destroy(cache);
		return -ENOMEM;
	}
	mutex_lock(&ctl_lock);
	ret = test_alloc();
	mutex_unlock(&ctl_lock);
	if (!ret)
		ret = ctl_create();
	if (ret) {
		test_free();
		kmem_cache_destroy(lru_cache);
		kmem_cache_destroy(cache);
	}
	return ret;
}

static void __exit allocprof_slab_test_exit(void)
{
	ctl_remove();
	test_free();
	kmem_cache_destroy(lru_cache);
	kmem_cache_destroy(cache);
}

module_init(allocprof_slab_test_init);
module_exit(allocprof_slab_test_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Allocates through each profiled slab entry point");
