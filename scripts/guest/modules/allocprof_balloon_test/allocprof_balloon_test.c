// SPDX-License-Identifier: GPL-2.0
/*
 * allocprof_balloon_test: a memory balloon without a hypervisor, so that
 * the guest tests can check that balloon pages keep their charge when
 * compaction migrates them through the balloon's movable_ops.
 *
 * Pages come from balloon_page_alloc(), as virtio_balloon's do, and are
 * charged to its line in mm/balloon_compaction.c.  The migratepage
 * callback does what virtio_balloon's does, minus telling the host.
 *
 * Reading /proc/allocprof_balloon_test gives
 *
 *   <pages in the balloon> <pages migrated since loading>
 *
 * Commands written to it:
 *   inflate  add NR_PAGES pages to the balloon
 *   deflate  free every page of the balloon
 *
 * Balloon pages point at this module's balloon_dev_info, and compaction
 * calls its migratepage callback, so the module holds a reference to
 * itself while the balloon has pages: it cannot be unloaded until a
 * deflate succeeded.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/balloon_compaction.h>
#include <linux/delay.h>
#include <linux/migrate.h>
#include <linux/module.h>
#include <linux/vmstat.h>

#include "allocprof_ctl.h"

/* 16 MiB: enough that some pages sit where compaction moves pages from. */
#define NR_PAGES	4096

static struct balloon_dev_info balloon;
static unsigned long balloon_pages;
static atomic_long_t pages_migrated = ATOMIC_LONG_INIT(0);

static int balloon_migratepage(struct balloon_dev_info *b,
			       struct page *newpage, struct page *page,
			       enum migrate_mode mode)
{
	unsigned long flags;

	get_page(newpage);
	spin_lock_irqsave(&b->pages_lock, flags);
	balloon_page_insert(b, newpage);
	b->isolated_pages--;
	__count_vm_event(BALLOON_MIGRATE);
	spin_unlock_irqrestore(&b->pages_lock, flags);

	balloon_page_finalize(page);
	put_page(page);
	atomic_long_inc(&pages_migrated);
	return MIGRATEPAGE_SUCCESS;
}

static int inflate(void)
{
	bool was_empty = !balloon_pages;
	struct page *page;
	int i, ret = 0;

	for (i = 0; i < NR_PAGES; i++) {
		page = balloon_page_alloc();
		if (!page) {
			ret = -ENOMEM;
			break;
		}
		balloon_page_enqueue(&balloon, page);
		balloon_pages++;
	}
	if (was_empty && balloon_pages)
		__module_get(THIS_MODULE);
	return ret;
}

/* Pages being migrated are off the list for a moment: retry for them. */
static int deflate(void)
{
	bool had_pages = balloon_pages;
	struct page *page;
	int tries = 50;

	while (balloon_pages && tries) {
		page = balloon_page_dequeue(&balloon);
		if (!page) {
			tries--;
			msleep(20);
			continue;
		}
		put_page(page);
		balloon_pages--;
	}
	if (had_pages && !balloon_pages)
		module_put(THIS_MODULE);
	return balloon_pages ? -EBUSY : 0;
}

static int ctl_show(struct seq_file *m)
{
	seq_printf(m, "%lu %ld\n", balloon_pages,
		   atomic_long_read(&pages_migrated));
	return 0;
}

static int ctl_command(const char *cmd, const char __user *ubuf, size_t len)
{
	if (sysfs_streq(cmd, "inflate"))
		return inflate();
	if (sysfs_streq(cmd, "deflate"))
		return deflate();
	return -EINVAL;
}

static int __init allocprof_balloon_test_init(void)
{
	balloon_devinfo_init(&balloon);
	balloon.migratepage = balloon_migratepage;
	return ctl_create();
}

static void __exit allocprof_balloon_test_exit(void)
{
	ctl_remove();
	/* Only a forced unload gets here with pages in the balloon. */
	WARN_ON(balloon_pages);
}

module_init(allocprof_balloon_test_init);
module_exit(allocprof_balloon_test_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("A balloon without a hypervisor, for migration tests");
