// SPDX-License-Identifier: GPL-2.0
/*
 * allocprof_memmap_test: tell whether the struct pages of a physical
 * range are one array.  Reading /proc/allocprof_memmap_test prints
 *
 *   boundaries <n> seams <m>
 *
 * for the memory section boundaries inside [start, end) (module
 * parameters, physical addresses) whose pages on both sides are valid:
 * n of them, m where the struct page after the boundary does not follow
 * the one before it.  Classic SPARSEMEM gives every hot-added section a
 * struct page array of its own, so a test can check that the range it
 * allocates from really has seams that page + i would cross.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/module.h>
#include <linux/pfn.h>

#include "allocprof_ctl.h"

static unsigned long start;
module_param(start, ulong, 0400);
MODULE_PARM_DESC(start, "first physical address of the range");

static unsigned long end;
module_param(end, ulong, 0400);
MODULE_PARM_DESC(end, "physical address just past the range");

static int ctl_show(struct seq_file *m)
{
	unsigned long pfn = ALIGN(PHYS_PFN(start) + 1, PAGES_PER_SECTION);
	unsigned long boundaries = 0, seams = 0;

	for (; pfn < PHYS_PFN(end); pfn += PAGES_PER_SECTION) {
		if (!pfn_valid(pfn - 1) || !pfn_valid(pfn))
			continue;
		boundaries++;
		if (pfn_to_page(pfn) != pfn_to_page(pfn - 1) + 1)
			seams++;
		cond_resched();
	}
	seq_printf(m, "boundaries %lu seams %lu\n", boundaries, seams);
	return 0;
}

static int ctl_command(const char *cmd, const char __user *ubuf, size_t len)
{
	return -EINVAL;
}

static int __init memmap_test_init(void)
{
	if (start >= end)
		return -EINVAL;
	return ctl_create();
}

static void __exit memmap_test_exit(void)
{
	ctl_remove();
}

module_init(memmap_test_init);
module_exit(memmap_test_exit);
MODULE_DESCRIPTION("Whether a physical range's struct pages are one array");
MODULE_LICENSE("GPL");
