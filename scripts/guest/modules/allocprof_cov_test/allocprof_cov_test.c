// SPDX-License-Identifier: GPL-2.0
/*
 * allocprof_cov_test: call each allocation API that allocation
 * profiling charges to its caller beyond kmalloc and the page allocator
 * (vmalloc, kvmalloc, string and user-copy helpers, mempool, rhashtable,
 * kfifo, device-managed allocations, the DMA API), each from its own source line, and report in
 * /proc/allocprof_cov_test what /proc/allocinfo must show for it:
 *
 *   <file>:<line> <bytes> <calls> <api>
 *
 * What a row counts:
 *  - kmalloc-backed helpers: one call, the kmalloc size class;
 *  - vmalloc family: one call and PAGE_SIZE bytes per page of the area,
 *    plus one call for the page array with its kmalloc size class; an
 *    array larger than a page is itself a vmalloc area, counted the
 *    same way (see vm_charge()); an area vmalloc backed with huge pages
 *    (kvmalloc of 2 MiB or more) counts all its small pages;
 *  - mempool_create*(): the pool, its element array and the reserved
 *    elements; mempool_init*(): the array and the elements;
 *    mempool_alloc(): the element, when the element allocator supplied it;
 *  - rhashtable_init(): the bucket table in use, also after resizes;
 *  - kfifo_alloc(): the buffer, element count rounded up to a power of 2;
 *  - devm_*() and devres_alloc(): one call, the kmalloc size class of
 *    the size plus devres' header; devm_get_free_pages(): the pages
 *    (its own small devres record is charged to drivers/base/devres.c);
 *  - the DMA API on the direct path (see dma_charge()): the pages of the
 *    buffer; dmam_*() also its devres record; dma_alloc_noncontiguous()
 *    only the pages (its sg_table is the DMA code's).
 *
 * Commands written to /proc/allocprof_cov_test:
 *   alloc\0  free everything, then allocate again; the user-copy helpers
 *           copy the written bytes, so the write must end with a NUL
 *   grow    insert objects into the rhashtable so its worker resizes it
 *   free    free everything (expected values become 0 0)
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/kfifo.h>
#include <linux/mempool.h>
#include <linux/module.h>
#include <linux/rhashtable.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "allocprof_ctl.h"

#define POOL_MIN	3
#define ELEM_SIZE	100
#define RHT_OBJS	100
#define RHT_DEFAULT	64	/* HASH_DEFAULT_SIZE in lib/rhashtable.c */

enum kind {
	K_KFREE, K_KFREE_CONST, K_KVFREE, K_VFREE, K_POOL_ELEM, K_POOL,
	K_POOL_EXIT, K_RHT, K_RHLT, K_KFIFO, K_KFIFO_U32, K_DEVM, K_DEVM_PAGES,
	K_DEVRES, K_DMA_COHERENT, K_DMA_WC, K_DMAM, K_DMA_PAGES,
	K_DMA_NONCOHERENT, K_DMA_NONCONTIG,
};

struct item {
	const char *api;
	unsigned int line;
	enum kind kind;
	unsigned long bytes;
	unsigned long calls;
	bool live;
	void *obj;
	void *aux;
	size_t size;
	dma_addr_t dma;
};

#define NR_ITEMS 112
static struct item items[NR_ITEMS];
static unsigned int nr_items;

static struct kmem_cache *cache;
static struct device *dev;
static mempool_t pools[5];
static struct rhashtable rht;
static struct rhltable rhlt;
static struct kfifo fifo;
static DECLARE_KFIFO_PTR(fifo_u32, u32);

struct rht_obj {
	u32 key;
	struct rhash_head node;
};

static struct rht_obj rht_objs[RHT_OBJS];
static unsigned int rht_nelems;

static const struct rhashtable_params rht_params = {
	.key_len	= sizeof(u32),
	.key_offset	= offsetof(struct rht_obj, key),
	.head_offset	= offsetof(struct rht_obj, node),
};

/* A string in module data, so kstrdup_const() has to copy it */
static char text[] = "allocprof coverage";

static struct item *new_item(const char *api, unsigned int line,
			     enum kind kind)
{
	struct item *it = &items[nr_items++];

	memset(it, 0, sizeof(*it));
	it->api = api;
	it->line = line;
	it->kind = kind;
	return it;
}

static void km_charge(struct item *it, size_t size)
{
	it->bytes += kmalloc_size_roundup(size);
	it->calls++;
}

static void vm_charge(struct item *it, unsigned long size)
{
	unsigned long nr = PAGE_ALIGN(size) >> PAGE_SHIFT;
	unsigned long array = nr * sizeof(struct page *);

	it->bytes += nr * PAGE_SIZE;
	it->calls += nr;
	if (array > PAGE_SIZE)
		vm_charge(it, array);
	else
		km_charge(it, array);
}

/*
 * Bytes mapped by a vmalloc area of @size at @p: vmalloc may round an
 * area of at least PMD_SIZE up to huge pages (kvmalloc allows it), then
 * splits them, so each small page is still charged on its own.
 */
static unsigned long vm_area_bytes(const void *p, unsigned long size)
{
	unsigned long bytes = PAGE_ALIGN(size);

	if (size >= PMD_SIZE)
		while (bytes < ALIGN(size, PMD_SIZE) && vmalloc_to_page(p + bytes))
			bytes += PAGE_SIZE;
	return bytes;
}

static void pool_charge(struct item *it, bool create, unsigned int min_nr,
			unsigned long elem_bytes)
{
	if (create)
		km_charge(it, sizeof(mempool_t));
	km_charge(it, min_nr * sizeof(void *));
	it->bytes += min_nr * elem_bytes;
	it->calls += min_nr;
}

static size_t rht_table_bytes(unsigned int nbuckets)
{
	struct bucket_table *tbl;

	return kmalloc_size_roundup(struct_size(tbl, buckets, nbuckets));
}

/*
 * Run @call, which allocates, from the line of the macro and record it
 * with @kind; @charge(it) fills in the expected charge when it succeeded.
 */
#define ITEM(_api, _kind, _call, _charge) do {				\
	struct item *it = new_item(_api, __LINE__, _kind);		\
	it->obj = (void *)(_call);					\
	it->live = !IS_ERR_OR_NULL(it->obj);				\
	if (it->live) {							\
		_charge;						\
	}								\
} while (0)

/* Same for a @call that initialises @obj and returns 0 or an error */
#define INIT_ITEM(_api, _kind, _obj, _call, _charge) do {		\
	struct item *it = new_item(_api, __LINE__, _kind);		\
	it->obj = _obj;							\
	if (_call)							\
		return -ENOMEM;						\
	it->live = true;						\
	_charge;							\
} while (0)

/* Helpers taking a va_list; the row is the line of the call in here */
static unsigned int kvasprintf_line, kvasprintf_const_line;

static __printf(1, 2) char *do_kvasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = kvasprintf(GFP_KERNEL, fmt, ap); kvasprintf_line = __LINE__;
	va_end(ap);
	return p;
}

static __printf(1, 2) const char *do_kvasprintf_const(const char *fmt, ...)
{
	va_list ap;
	const char *p;

	va_start(ap, fmt);
	p = kvasprintf_const(GFP_KERNEL, fmt, ap); kvasprintf_const_line = __LINE__;
	va_end(ap);
	return p;
}

static unsigned long big_kvmalloc = KMALLOC_MAX_SIZE + PAGE_SIZE;

/*
 * Size of a devres-managed buffer of @size: devres puts its node (struct
 * devres_node in drivers/base/devres.c: a list head, two pointers and a
 * size) in front of the data, aligned like kmalloc memory.
 */
static void devm_charge(struct item *it, size_t size)
{
	size_t node = sizeof(struct list_head) + 2 * sizeof(void *) +
		      sizeof(size_t);

	km_charge(it, ALIGN(node, ARCH_KMALLOC_MINALIGN) + size);
}

static void devres_test_release(struct device *d, void *res)
{
}

static int alloc_devm(void)
{
	void *p;
	struct item *from, *to;

	ITEM("devm_kmalloc", K_DEVM, devm_kmalloc(dev, 100, GFP_KERNEL), devm_charge(it, 100));
	ITEM("devm_kzalloc", K_DEVM, devm_kzalloc(dev, 300, GFP_KERNEL), devm_charge(it, 300));
	ITEM("devm_kmalloc_array", K_DEVM, devm_kmalloc_array(dev, 5, 40, GFP_KERNEL), devm_charge(it, 5 * 40));
	ITEM("devm_kcalloc", K_DEVM, devm_kcalloc(dev, 3, 500, GFP_KERNEL), devm_charge(it, 3 * 500));
	ITEM("devm_kstrdup", K_DEVM, devm_kstrdup(dev, text, GFP_KERNEL), devm_charge(it, strlen(text) + 1));
	ITEM("devm_kstrdup_const", K_DEVM, devm_kstrdup_const(dev, text, GFP_KERNEL), devm_charge(it, strlen(text) + 1));
	ITEM("devm_kmemdup", K_DEVM, devm_kmemdup(dev, text, 7, GFP_KERNEL), devm_charge(it, 7));
	ITEM("devm_kasprintf", K_DEVM, devm_kasprintf(dev, GFP_KERNEL, "%s.%d", "dev", 77), devm_charge(it, strlen("dev.77") + 1));
	ITEM("devm_get_free_pages", K_DEVM_PAGES, devm_get_free_pages(dev, GFP_KERNEL, 1), it->bytes = 2 * PAGE_SIZE; it->calls = 1);
	ITEM("devres_alloc", K_DEVRES, devres_alloc(devres_test_release, 64, GFP_KERNEL), devm_charge(it, 64));

	/* devm_krealloc() to a larger size: the charge moves to its line */
	from = new_item("devm_krealloc-from", 0, K_DEVM);
	p = devm_kmalloc(dev, 16, GFP_KERNEL); from->line = __LINE__;
	to = new_item("devm_krealloc", 0, K_DEVM);
	to->obj = devm_krealloc(dev, p, 1000, GFP_KERNEL); to->line = __LINE__;
	if (!to->obj) {
		devm_kfree(dev, p);
		return -ENOMEM;
	}
	to->live = true;
	devm_charge(to, 1000);
	return 0;
}

/*
 * What the direct DMA path takes for a buffer of @size: with a default
 * CMA area (DMA_CMA; mm-paths.config sizes it) a buffer larger than a
 * page comes from CMA, charged page by page as cma_release() frees it;
 * otherwise it is one block of the size's order.
 */
static void dma_charge(struct item *it, size_t size)
{
	size = PAGE_ALIGN(size);
	it->size = size;
	if (IS_ENABLED(CONFIG_DMA_CMA) && size > PAGE_SIZE) {
		it->bytes += size;
		it->calls += size >> PAGE_SHIFT;
	} else {
		it->bytes += PAGE_SIZE << get_order(size);
		it->calls++;
	}
}

/* Same for dmam_*(), whose devres record of four words goes there too */
static void dmam_charge(struct item *it, size_t size)
{
	dma_charge(it, size);
	devm_charge(it, sizeof(size_t) + sizeof(void *) + sizeof(dma_addr_t) +
		    sizeof(unsigned long));
}

/* Each from its own line; the handle goes to the item (it) it is for */
static int alloc_dma(void)
{
	ITEM("dma_alloc_coherent", K_DMA_COHERENT, dma_alloc_coherent(dev, PAGE_SIZE, &it->dma, GFP_KERNEL), dma_charge(it, PAGE_SIZE));
	ITEM("dma_alloc_coherent-3", K_DMA_COHERENT, dma_alloc_coherent(dev, 3 * PAGE_SIZE - 100, &it->dma, GFP_KERNEL), dma_charge(it, 3 * PAGE_SIZE - 100));
	ITEM("dma_alloc_attrs", K_DMA_COHERENT, dma_alloc_attrs(dev, 2 * PAGE_SIZE, &it->dma, GFP_KERNEL, 0), dma_charge(it, 2 * PAGE_SIZE));
	ITEM("dma_alloc_wc", K_DMA_WC, dma_alloc_wc(dev, 500, &it->dma, GFP_KERNEL), dma_charge(it, 500));
	ITEM("dmam_alloc_coherent", K_DMAM, dmam_alloc_coherent(dev, PAGE_SIZE, &it->dma, GFP_KERNEL), dmam_charge(it, PAGE_SIZE));
	ITEM("dmam_alloc_attrs", K_DMAM, dmam_alloc_attrs(dev, 5 * PAGE_SIZE, &it->dma, GFP_KERNEL, 0), dmam_charge(it, 5 * PAGE_SIZE));
	ITEM("dma_alloc_pages", K_DMA_PAGES, dma_alloc_pages(dev, 2 * PAGE_SIZE, &it->dma, DMA_BIDIRECTIONAL, GFP_KERNEL), dma_charge(it, 2 * PAGE_SIZE));
	ITEM("dma_alloc_noncoherent", K_DMA_NONCOHERENT, dma_alloc_noncoherent(dev, PAGE_SIZE, &it->dma, DMA_TO_DEVICE, GFP_KERNEL), dma_charge(it, PAGE_SIZE));
	ITEM("dma_alloc_noncontiguous", K_DMA_NONCONTIG, dma_alloc_noncontiguous(dev, 4 * PAGE_SIZE, DMA_FROM_DEVICE, GFP_KERNEL, 0), dma_charge(it, 4 * PAGE_SIZE));
	return 0;
}

static int alloc_vmalloc(void)
{
	ITEM("vmalloc", K_VFREE, vmalloc(3 * PAGE_SIZE), vm_charge(it, 3 * PAGE_SIZE));
	ITEM("vzalloc", K_VFREE, vzalloc(2 * PAGE_SIZE + 1), vm_charge(it, 2 * PAGE_SIZE + 1));
	ITEM("vmalloc_user", K_VFREE, vmalloc_user(PAGE_SIZE), vm_charge(it, PAGE_SIZE));
	ITEM("vmalloc_node", K_VFREE, vmalloc_node(2 * PAGE_SIZE, NUMA_NO_NODE), vm_charge(it, 2 * PAGE_SIZE));
	ITEM("vzalloc_node", K_VFREE, vzalloc_node(4 * PAGE_SIZE, NUMA_NO_NODE), vm_charge(it, 4 * PAGE_SIZE));
	ITEM("vmalloc_32", K_VFREE, vmalloc_32(PAGE_SIZE), vm_charge(it, PAGE_SIZE));
	ITEM("vmalloc_32_user", K_VFREE, vmalloc_32_user(2 * PAGE_SIZE), vm_charge(it, 2 * PAGE_SIZE));
	ITEM("__vmalloc", K_VFREE, __vmalloc(5 * PAGE_SIZE, GFP_KERNEL), vm_charge(it, 5 * PAGE_SIZE));
	ITEM("vmalloc_huge", K_VFREE, vmalloc_huge(3 * PAGE_SIZE, GFP_KERNEL), vm_charge(it, 3 * PAGE_SIZE));
	ITEM("vmalloc_array", K_VFREE, vmalloc_array(3, PAGE_SIZE), vm_charge(it, 3 * PAGE_SIZE));
	ITEM("__vmalloc_array", K_VFREE, __vmalloc_array(2, PAGE_SIZE, GFP_KERNEL), vm_charge(it, 2 * PAGE_SIZE));
	ITEM("vcalloc", K_VFREE, vcalloc(600, 8), vm_charge(it, 600 * 8));
	ITEM("__vcalloc", K_VFREE, __vcalloc(7, 1000, GFP_KERNEL), vm_charge(it, 7 * 1000));
	/* 600 pages: the page array (4800 bytes) is a vmalloc area itself */
	ITEM("vmalloc-large-array", K_VFREE, vmalloc(600 * PAGE_SIZE), vm_charge(it, 600 * PAGE_SIZE));
	return 0;
}

static int alloc_kvmalloc(void)
{
	struct item *from, *to;
	void *p, *q;

	ITEM("kvmalloc", K_KVFREE, kvmalloc(300, GFP_KERNEL), km_charge(it, 300));
	ITEM("kvmalloc_node", K_KVFREE, kvmalloc_node(500, GFP_KERNEL, NUMA_NO_NODE), km_charge(it, 500));
	ITEM("kvzalloc", K_KVFREE, kvzalloc(40, GFP_KERNEL), km_charge(it, 40));
	ITEM("kvzalloc_node", K_KVFREE, kvzalloc_node(70, GFP_KERNEL, NUMA_NO_NODE), km_charge(it, 70));
	ITEM("kvmalloc_array", K_KVFREE, kvmalloc_array(10, 30, GFP_KERNEL), km_charge(it, 10 * 30));
	ITEM("kvcalloc", K_KVFREE, kvcalloc(4, 50, GFP_KERNEL), km_charge(it, 4 * 50));
	/* Larger than kmalloc can serve: falls back to vmalloc */
	ITEM("kvmalloc-vmalloc", K_KVFREE, kvmalloc(big_kvmalloc, GFP_KERNEL), vm_charge(it, vm_area_bytes(it->obj, big_kvmalloc)));
	ITEM("kvzalloc-vmalloc", K_KVFREE, kvzalloc(big_kvmalloc, GFP_KERNEL), vm_charge(it, vm_area_bytes(it->obj, big_kvmalloc)));

	/* kvrealloc() to a larger size: the charge moves to its line */
	from = new_item("kvrealloc-from", 0, K_KVFREE);
	p = kvmalloc(100, GFP_KERNEL); from->line = __LINE__;
	to = new_item("kvrealloc", 0, K_KVFREE);
	q = kvrealloc(p, 100, 2000, GFP_KERNEL); to->line = __LINE__;
	if (!q) {
		kvfree(p);
		return -ENOMEM;
	}
	to->obj = q;
	to->live = true;
	km_charge(to, 2000);
	return 0;
}

static int alloc_strings(const char __user *ubuf, size_t len)
{
	long ulen = strnlen_user(ubuf, len);

	if (ulen <= 0 || ulen > len)
		return -EINVAL;	/* the command must end with a NUL */

	ITEM("kstrdup", K_KFREE, kstrdup(text, GFP_KERNEL), km_charge(it, strlen(text) + 1));
	ITEM("kstrdup_const", K_KFREE_CONST, kstrdup_const(text, GFP_KERNEL), km_charge(it, strlen(text) + 1));
	ITEM("kstrndup", K_KFREE, kstrndup(text, 5, GFP_KERNEL), km_charge(it, 5 + 1));
	ITEM("kmemdup", K_KFREE, kmemdup(text, 13, GFP_KERNEL), km_charge(it, 13));
	ITEM("kmemdup_nul", K_KFREE, kmemdup_nul(text, 9, GFP_KERNEL), km_charge(it, 9 + 1));
	ITEM("kasprintf", K_KFREE, kasprintf(GFP_KERNEL, "%s-%d", "abc", 12345), km_charge(it, strlen("abc-12345") + 1));
	ITEM("kvasprintf", K_KFREE, do_kvasprintf("%d:%s", 42, text), km_charge(it, 3 + strlen(text) + 1));
	items[nr_items - 1].line = kvasprintf_line;
	ITEM("kvasprintf_const", K_KFREE_CONST, do_kvasprintf_const("<%s>", text), km_charge(it, strlen(text) + 3));
	items[nr_items - 1].line = kvasprintf_const_line;
	ITEM("memdup_user", K_KFREE, memdup_user(ubuf, len), km_charge(it, len));
	ITEM("memdup_user_nul", K_KFREE, memdup_user_nul(ubuf, len), km_charge(it, len + 1));
	ITEM("vmemdup_user", K_KVFREE, vmemdup_user(ubuf, len), km_charge(it, len));
	ITEM("strndup_user", K_KFREE, strndup_user(ubuf, len), km_charge(it, ulen));
	ITEM("memdup_array_user", K_KFREE, memdup_array_user(ubuf, 2, 2), km_charge(it, 2 * 2));
	ITEM("vmemdup_array_user", K_KVFREE, vmemdup_array_user(ubuf, 3, 1), km_charge(it, 3 * 1));
	return 0;
}

/* An element from mempool_alloc(), freed back before its pool */
static void pool_elem(struct item *it, mempool_t *pool, size_t size)
{
	it->aux = pool;
	km_charge(it, size);
}

static int alloc_mempools(void)
{
	unsigned long elem = kmalloc_size_roundup(ELEM_SIZE);
	unsigned long obj = kmem_cache_size(cache);
	mempool_t *kpool;
	struct item *it;
	int ret;

	ITEM("mempool_create", K_POOL, mempool_create(POOL_MIN, mempool_kmalloc, mempool_kfree, (void *)ELEM_SIZE), pool_charge(it, true, POOL_MIN, elem));
	ITEM("mempool_create_node", K_POOL, mempool_create_node(POOL_MIN, mempool_kmalloc, mempool_kfree, (void *)ELEM_SIZE, GFP_KERNEL, NUMA_NO_NODE), pool_charge(it, true, POOL_MIN, elem));
	ITEM("mempool_create_kmalloc_pool", K_POOL, mempool_create_kmalloc_pool(POOL_MIN, ELEM_SIZE), pool_charge(it, true, POOL_MIN, elem));
	kpool = items[nr_items - 1].obj;
	ITEM("mempool_create_slab_pool", K_POOL, mempool_create_slab_pool(2, cache), pool_charge(it, true, 2, obj));
	ITEM("mempool_create_page_pool", K_POOL, mempool_create_page_pool(2, 1), pool_charge(it, true, 2, PAGE_SIZE << 1));
	if (!kpool)
		return -ENOMEM;
	/* The pool is full, so the element comes from mempool_kmalloc() */
	ITEM("mempool_alloc", K_POOL_ELEM, mempool_alloc(kpool, GFP_KERNEL), pool_elem(it, kpool, ELEM_SIZE));

	/*
	 * mempool_resize() to 5: the new array and the 2 new elements go to
	 * its line; the old array it frees was charged to the creator.
	 */
	it = new_item("mempool_create-resized", 0, K_POOL);
	it->obj = mempool_create_kmalloc_pool(POOL_MIN, ELEM_SIZE); it->line = __LINE__;
	if (!it->obj)
		return -ENOMEM;
	it->live = true;
	km_charge(it, sizeof(mempool_t));
	it->bytes += POOL_MIN * elem;
	it->calls += POOL_MIN;
	kpool = it->obj;
	it = new_item("mempool_resize", 0, K_KFREE);	/* freed with the pool */
	ret = mempool_resize(kpool, POOL_MIN + 2); it->line = __LINE__;
	if (ret)
		return ret;
	it->live = true;
	km_charge(it, (POOL_MIN + 2) * sizeof(void *));
	it->bytes += 2 * elem;
	it->calls += 2;

	INIT_ITEM("mempool_init", K_POOL_EXIT, &pools[0], mempool_init(&pools[0], POOL_MIN, mempool_kmalloc, mempool_kfree, (void *)ELEM_SIZE), pool_charge(it, false, POOL_MIN, elem));
	INIT_ITEM("mempool_init_node", K_POOL_EXIT, &pools[1], mempool_init_node(&pools[1], POOL_MIN, mempool_kmalloc, mempool_kfree, (void *)ELEM_SIZE, GFP_KERNEL, NUMA_NO_NODE), pool_charge(it, false, POOL_MIN, elem));
	INIT_ITEM("mempool_init_kmalloc_pool", K_POOL_EXIT, &pools[2], mempool_init_kmalloc_pool(&pools[2], POOL_MIN, ELEM_SIZE), pool_charge(it, false, POOL_MIN, elem));
	INIT_ITEM("mempool_init_slab_pool", K_POOL_EXIT, &pools[3], mempool_init_slab_pool(&pools[3], 2, cache), pool_charge(it, false, 2, obj));
	INIT_ITEM("mempool_init_page_pool", K_POOL_EXIT, &pools[4], mempool_init_page_pool(&pools[4], 2, 0), pool_charge(it, false, 2, PAGE_SIZE));
	return 0;
}

static void rht_charge(struct item *it)
{
	it->bytes = rht_table_bytes(RHT_DEFAULT);
	it->calls = 1;
}

static int alloc_tables(void)
{
	INIT_ITEM("rhashtable_init", K_RHT, &rht, rhashtable_init(&rht, &rht_params), rht_charge(it));
	INIT_ITEM("rhltable_init", K_RHLT, &rhlt, rhltable_init(&rhlt, &rht_params), rht_charge(it));
	INIT_ITEM("kfifo_alloc", K_KFIFO, &fifo, kfifo_alloc(&fifo, 100, GFP_KERNEL), km_charge(it, 128));
	INIT_ITEM("kfifo_alloc-u32", K_KFIFO_U32, &fifo_u32, kfifo_alloc(&fifo_u32, 20, GFP_KERNEL), km_charge(it, 32 * sizeof(u32)));
	rht_nelems = 0;
	return 0;
}

/* Insert objects; the table's worker grows it, charging its owner */
static int rht_grow(void)
{
	unsigned int i, nbuckets = RHT_DEFAULT;
	struct item *it = NULL;
	int ret;

	for (i = 0; i < nr_items; i++)
		if (items[i].kind == K_RHT && items[i].live)
			it = &items[i];
	if (!it || rht_nelems)
		return -EINVAL;
	for (i = 0; i < RHT_OBJS; i++) {
		rht_objs[i].key = i;
		ret = rhashtable_insert_fast(&rht, &rht_objs[i].node, rht_params);
		if (ret)
			return ret;
		rht_nelems++;
	}
	/* lib/rhashtable.c doubles the table while it is more than 75% full */
	while (rht_nelems > nbuckets / 4 * 3)
		nbuckets *= 2;
	it->bytes = rht_table_bytes(nbuckets);
	return 0;
}

static void item_free(struct item *it)
{
	switch (it->kind) {
	case K_KFREE:
		kfree(it->obj);
		break;
	case K_KFREE_CONST:
		kfree_const(it->obj);
		break;
	case K_KVFREE:
		kvfree(it->obj);
		break;
	case K_VFREE:
		vfree(it->obj);
		break;
	case K_POOL_ELEM:
		mempool_free(it->obj, it->aux);
		break;
	case K_POOL:
		mempool_destroy(it->obj);
		break;
	case K_POOL_EXIT:
		mempool_exit(it->obj);
		break;
	case K_RHT:
		rhashtable_destroy(&rht);
		rht_nelems = 0;
		break;
	case K_RHLT:
		rhltable_destroy(&rhlt);
		break;
	case K_KFIFO:
		kfifo_free(&fifo);
		break;
	case K_KFIFO_U32:
		kfifo_free(&fifo_u32);
		break;
	case K_DEVM:
		devm_kfree(dev, it->obj);
		break;
	case K_DEVM_PAGES:
		devm_free_pages(dev, (unsigned long)it->obj);
		break;
	case K_DEVRES:
		devres_free(it->obj);
		break;
	case K_DMA_COHERENT:
		dma_free_coherent(dev, it->size, it->obj, it->dma);
		break;
	case K_DMA_WC:
		dma_free_wc(dev, it->size, it->obj, it->dma);
		break;
	case K_DMAM:
		dmam_free_coherent(dev, it->size, it->obj, it->dma);
		break;
	case K_DMA_PAGES:
		dma_free_pages(dev, it->size, it->obj, it->dma,
			       DMA_BIDIRECTIONAL);
		break;
	case K_DMA_NONCOHERENT:
		dma_free_noncoherent(dev, it->size, it->obj, it->dma,
				     DMA_TO_DEVICE);
		break;
	case K_DMA_NONCONTIG:
		dma_free_noncontiguous(dev, it->size, it->obj,
				       DMA_FROM_DEVICE);
		break;
	}
}

/* Latest first, so pool elements go back before their pool goes */
static void test_free(void)
{
	unsigned int i;

	for (i = nr_items; i-- > 0;) {
		if (items[i].live)
			item_free(&items[i]);
		items[i].live = false;
	}
}

static int test_alloc(const char __user *ubuf, size_t len)
{
	int ret;

	nr_items = 0;
	ret = alloc_vmalloc();
	if (!ret)
		ret = alloc_kvmalloc();
	if (!ret)
		ret = alloc_strings(ubuf, len);
	if (!ret)
		ret = alloc_mempools();
	if (!ret)
		ret = alloc_tables();
	if (!ret)
		ret = alloc_devm();
	if (!ret)
		ret = alloc_dma();
	return ret;
}

static int ctl_show(struct seq_file *m)
{
	unsigned int i;

	for (i = 0; i < nr_items; i++) {
		struct item *it = &items[i];

		ctl_row(m, __FILE__, it->line, it->live ? it->bytes : 0,
			it->live ? it->calls : 0, it->api);
	}
	return 0;
}

static int ctl_command(const char *cmd, const char __user *ubuf, size_t len)
{
	int ret;

	if (sysfs_streq(cmd, "free")) {
		test_free();
		return 0;
	}
	if (sysfs_streq(cmd, "grow"))
		return rht_grow();
	if (!sysfs_streq(cmd, "alloc"))
		return -EINVAL;
	test_free();
	ret = test_alloc(ubuf, len);
	if (ret)
		test_free();
	return ret;
}

static int __init allocprof_cov_test_init(void)
{
	int ret;

	cache = kmem_cache_create("allocprof_cov_test", 72, 0, 0, NULL);
	if (!cache)
		return -ENOMEM;
	dev = root_device_register("allocprof_cov_test");
	if (IS_ERR(dev)) {
		kmem_cache_destroy(cache);
		return PTR_ERR(dev);
	}
	/* A device that can reach all memory, on the direct DMA path */
	ret = dma_coerce_mask_and_coherent(dev, DMA_BIT_MASK(64));
	if (!ret)
		ret = ctl_create();
	if (ret) {
		root_device_unregister(dev);
		kmem_cache_destroy(cache);
	}
	return ret;
}

static void __exit allocprof_cov_test_exit(void)
{
	ctl_remove();
	test_free();
	root_device_unregister(dev);
	kmem_cache_destroy(cache);
}

module_init(allocprof_cov_test_init);
module_exit(allocprof_cov_test_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Calls each allocation API charged to its caller");
