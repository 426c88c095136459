// SPDX-License-Identifier: GPL-2.0
/*
 * allocprof_test: allocate through each annotated page allocator entry
 * point, each from its own source line, and report in
 * /proc/allocprof_test what /proc/allocinfo must show for those lines:
 *
 *   <file>:<line> <bytes> <calls> <api>
 *
 * Commands written to /proc/allocprof_test:
 *   free   free everything (expected values become 0 0)
 *   alloc  free everything, then allocate again
 *   hold   take a reference to the first page of the "held" block and
 *          __free_pages() it: the other pages are freed and uncharged,
 *          the first stays charged until a later free drops the reference
 *   stash  hand all live pages to allocprof_keeper (which must be
 *          loaded); they stay charged to this module's lines, so
 *          unloading this module afterwards leaves memory allocated.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/gfp.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/pagemap.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "allocprof_ctl.h"

#define BULK_N 4

enum kind { K_PAGE, K_ADDR, K_EXACT, K_FOLIO, K_BULK_ARRAY, K_BULK_LIST, K_SPLIT,
	    K_HELD };

enum state { S_FREE, S_LIVE, S_STASHED, S_HELD };

struct item {
	const char *api;
	unsigned int line;
	enum kind kind;
	unsigned int order;	/* K_PAGE, K_ADDR, K_FOLIO, K_SPLIT, K_HELD */
	unsigned int npages;	/* K_EXACT, bulk: pages allocated */
	enum state state;
	struct page *page;
	unsigned long addr;
	void *ptr;
	struct folio *folio;
	struct page *pages[BULK_N];
	struct list_head list;
};

#define NR_ITEMS 16
static struct item items[NR_ITEMS];
static unsigned int nr_items;

static struct item *new_item(const char *api, enum kind kind, unsigned int order)
{
	struct item *it = &items[nr_items++];

	memset(it, 0, sizeof(*it));
	it->api = api;
	it->kind = kind;
	it->order = order;
	INIT_LIST_HEAD(&it->list);
	return it;
}

static void expected(struct item *it, unsigned long *bytes, unsigned long *calls)
{
	*bytes = 0;
	*calls = 0;
	if (it->state == S_FREE)
		return;
	if (it->state == S_HELD) {
		*bytes = PAGE_SIZE;
		*calls = 1;
		return;
	}
	switch (it->kind) {
	case K_PAGE:
	case K_ADDR:
	case K_FOLIO:
	case K_HELD:
		*bytes = PAGE_SIZE << it->order;
		*calls = 1;
		break;
	case K_SPLIT:
		*bytes = PAGE_SIZE << it->order;
		*calls = 1UL << it->order;
		break;
	case K_EXACT:
	case K_BULK_ARRAY:
	case K_BULK_LIST:
		*bytes = it->npages * PAGE_SIZE;
		*calls = it->npages;
		break;
	}
}

/* Each allocation and the recording of its line share one source line. */
static noinline void alloc_all(void)
{
	struct item *it;
	int nid = numa_mem_id();

	nr_items = 0;
	it = new_item("alloc_pages", K_PAGE, 1);
	it->page = alloc_pages(GFP_KERNEL, 1); it->line = __LINE__;
	it = new_item("alloc_page", K_PAGE, 0);
	it->page = alloc_page(GFP_KERNEL); it->line = __LINE__;
	it = new_item("alloc_pages_node", K_PAGE, 2);
	it->page = alloc_pages_node(NUMA_NO_NODE, GFP_KERNEL, 2); it->line = __LINE__;
	it = new_item("__alloc_pages", K_PAGE, 0);
	it->page = __alloc_pages(GFP_KERNEL, 0, nid, NULL); it->line = __LINE__;
	it = new_item("__alloc_pages_node", K_PAGE, 1);
	it->page = __alloc_pages_node(nid, GFP_KERNEL, 1); it->line = __LINE__;
	it = new_item("folio_alloc", K_FOLIO, 2);
	it->folio = folio_alloc(GFP_KERNEL, 2); it->line = __LINE__;
	it = new_item("__folio_alloc_node", K_FOLIO, 2);
	it->folio = __folio_alloc_node(GFP_KERNEL, 2, nid); it->line = __LINE__;
	it = new_item("filemap_alloc_folio", K_FOLIO, 0);
	it->folio = filemap_alloc_folio(GFP_KERNEL, 0); it->line = __LINE__;
	it = new_item("__get_free_pages", K_ADDR, 3);
	it->addr = __get_free_pages(GFP_KERNEL, 3); it->line = __LINE__;
	it = new_item("__get_free_page", K_ADDR, 0);
	it->addr = __get_free_page(GFP_KERNEL); it->line = __LINE__;
	it = new_item("get_zeroed_page", K_ADDR, 0);
	it->addr = get_zeroed_page(GFP_KERNEL); it->line = __LINE__;
	it = new_item("alloc_pages_exact", K_EXACT, 0);
	it->ptr = alloc_pages_exact(3 * PAGE_SIZE, GFP_KERNEL); it->line = __LINE__;
	it = new_item("alloc_pages_bulk_array", K_BULK_ARRAY, 0);
	it->npages = alloc_pages_bulk_array(GFP_KERNEL, BULK_N, it->pages); it->line = __LINE__;
	it = new_item("alloc_pages_bulk_list", K_BULK_LIST, 0);
	it->npages = alloc_pages_bulk_list(GFP_KERNEL, BULK_N, &it->list); it->line = __LINE__;
	it = new_item("split_page", K_SPLIT, 2);
	it->page = alloc_pages(GFP_KERNEL, 2); it->line = __LINE__;
	it = new_item("alloc_pages, head held", K_HELD, 2);
	it->page = alloc_pages(GFP_KERNEL, 2); it->line = __LINE__;

	for (it = items; it < items + nr_items; it++) {
		bool ok;

		switch (it->kind) {
		case K_PAGE:
		case K_HELD:
			ok = it->page;
			break;
		case K_SPLIT:
			ok = it->page;
			if (ok)
				split_page(it->page, it->order);
			break;
		case K_ADDR:
			ok = it->addr;
			break;
		case K_FOLIO:
			ok = it->folio;
			break;
		case K_EXACT:
			ok = it->ptr;
			it->npages = 3;
			break;
		default:
			ok = it->npages;
			break;
		}
		it->state = ok ? S_LIVE : S_FREE;
		if (!ok)
			pr_warn("%s failed\n", it->api);
	}
}

/* Call @fn on each block of @it; returns the first error. */
static int for_each_block(struct item *it,
			  int (*fn)(struct page *page, unsigned int order))
{
	struct page *page, *next;
	unsigned int i;
	int ret = 0;

	switch (it->kind) {
	case K_PAGE:
	case K_HELD:
		return fn(it->page, it->order);
	case K_ADDR:
		return fn(virt_to_page((void *)it->addr), it->order);
	case K_FOLIO:
		return fn(&it->folio->page, it->order);
	case K_SPLIT:
		for (i = 0; i < (1U << it->order); i++)
			ret = ret ?: fn(it->page + i, 0);
		return ret;
	case K_EXACT:
		for (i = 0; i < it->npages; i++)
			ret = ret ?: fn(virt_to_page(it->ptr) + i, 0);
		return ret;
	case K_BULK_ARRAY:
		for (i = 0; i < it->npages; i++)
			ret = ret ?: fn(it->pages[i], 0);
		return ret;
	case K_BULK_LIST:
		list_for_each_entry_safe(page, next, &it->list, lru) {
			list_del(&page->lru);
			ret = ret ?: fn(page, 0);
		}
		return ret;
	}
	return 0;
}

static int free_block(struct page *page, unsigned int order)
{
	__free_pages(page, order);
	return 0;
}

static void free_all(void)
{
	struct item *it;

	for (it = items; it < items + nr_items; it++) {
		if (it->state == S_HELD) {
			put_page(it->page);
			it->state = S_FREE;
		}
		if (it->state != S_LIVE)
			continue;
		if (it->kind == K_EXACT)
			free_pages_exact(it->ptr, it->npages * PAGE_SIZE);
		else if (it->kind == K_FOLIO)
			folio_put(it->folio);
		else
			for_each_block(it, free_block);
		it->state = S_FREE;
	}
}

/*
 * Free a block while another reference to its first page outlives the
 * call, as a speculative page cache lookup may hold one.
 */
static void hold_all(void)
{
	struct item *it;

	for (it = items; it < items + nr_items; it++) {
		if (it->kind != K_HELD || it->state != S_LIVE)
			continue;
		get_page(it->page);
		__free_pages(it->page, it->order);
		it->state = S_HELD;
	}
}

/* Exported by allocprof_keeper, looked up at run time. */
int allocprof_keeper_stash(struct page *page, unsigned int order);

static int (*stash_fn)(struct page *page, unsigned int order);

static int stash_block(struct page *page, unsigned int order)
{
	return stash_fn(page, order);
}

static int stash_all(void)
{
	struct item *it;
	int ret = 0;

	stash_fn = symbol_get(allocprof_keeper_stash);
	if (!stash_fn)
		return -ENOENT;
	for (it = items; it < items + nr_items; it++) {
		if (it->state != S_LIVE)
			continue;
		ret = for_each_block(it, stash_block);
		if (ret)
			break;
		it->state = S_STASHED;
	}
	symbol_put(allocprof_keeper_stash);
	return ret;
}

static int ctl_show(struct seq_file *m)
{
	struct item *it;

	for (it = items; it < items + nr_items; it++) {
		unsigned long bytes, calls;

		expected(it, &bytes, &calls);
		ctl_row(m, __FILE__, it->line, bytes, calls, it->api);
	}
	return 0;
}

static int ctl_command(const char *cmd, const char __user *ubuf, size_t len)
{
	if (!strcmp(cmd, "free")) {
		free_all();
	} else if (!strcmp(cmd, "alloc")) {
		free_all();
		alloc_all();
	} else if (!strcmp(cmd, "hold")) {
		hold_all();
	} else if (!strcmp(cmd, "stash")) {
		return stash_all();
	} else {
		return -EINVAL;
	}
	return 0;
}

static int __init allocprof_test_init(void)
{
	int ret;

	alloc_all();
	ret = ctl_create();
	if (ret)
		free_all();
	return ret;
}

static void __exit allocprof_test_exit(void)
{
	ctl_remove();
	free_all();	/* stashed pages stay with allocprof_keeper */
}

module_init(allocprof_test_init);
module_exit(allocprof_test_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Allocates through each profiled page allocator entry point");
