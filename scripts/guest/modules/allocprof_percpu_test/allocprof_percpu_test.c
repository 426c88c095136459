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
 *   stash  hand every live area to allocprof_percpu_keeper (which must
 *          be loaded); they stay charged to this module's lines, so
 *          unloading this module afterwards leaves areas allocated.
 */
#include <linux/cpumask.h>
#include <linux/gfp.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/uaccess.h>

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
static DEFINE_MUTEX(test_lock);

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

/* Exported by allocprof_percpu_keeper, looked up at run time. */
int allocprof_percpu_keeper_stash(void __percpu *p);

static int test_stash(void)
{
	int (*stash)(void __percpu *p);
	unsigned int i;
	int ret = 0;

	stash = symbol_get(allocprof_percpu_keeper_stash);
	if (!stash)
		return -ENOENT;
	for (i = 0; i < nr_items && !ret; i++) {
		while (items[i].nr && !ret) {
			ret = stash(items[i].p[items[i].nr - 1]);
			if (!ret)
				items[i].nr--;
		}
	}
	symbol_put(allocprof_percpu_keeper_stash);
	return ret;
}

static int test_show(struct seq_file *m, void *v)
{
	unsigned int i;

	mutex_lock(&test_lock);
	for (i = 0; i < nr_items; i++) {
		struct item *it = &items[i];

		seq_printf(m, "%s:%u %zu %u %s\n", __FILE__, it->line,
			   it->size * num_possible_cpus() * it->nr, it->nr,
			   it->api);
	}
	mutex_unlock(&test_lock);
	return 0;
}

static int test_open(struct inode *inode, struct file *file)
{
	return single_open(file, test_show, NULL);
}

static ssize_t test_write(struct file *file, const char __user *ubuf,
			  size_t len, loff_t *off)
{
	char buf[16] = "";
	int ret = 0;

	if (copy_from_user(buf, ubuf, min(len, sizeof(buf) - 1)))
		return -EFAULT;
	mutex_lock(&test_lock);
	if (sysfs_streq(buf, "free")) {
		test_free();
	} else if (sysfs_streq(buf, "alloc")) {
		test_free();
		ret = test_alloc();
	} else if (sysfs_streq(buf, "stash")) {
		ret = test_stash();
	} else {
		ret = -EINVAL;
	}
	mutex_unlock(&test_lock);
	return ret ? ret : len;
}

static const struct proc_ops test_ops = {
	.proc_open	= test_open,
	.proc_read	= seq_read,
	.proc_lseek	= seq_lseek,
	.proc_release	= single_release,
	.proc_write	= test_write,
};

static int __init allocprof_percpu_test_init(void)
{
	int ret;

	mutex_lock(&test_lock);
	ret = test_alloc();
	mutex_unlock(&test_lock);
	if (!ret && !proc_create("allocprof_percpu_test", 0600, NULL, &test_ops)) {
		test_free();
		ret = -ENOMEM;
	}
	return ret;
}

static void __exit allocprof_percpu_test_exit(void)
{
	remove_proc_entry("allocprof_percpu_test", NULL);
	test_free();	/* stashed areas stay with allocprof_percpu_keeper */
}

module_init(allocprof_percpu_test_init);
module_exit(allocprof_percpu_test_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Allocates through each profiled per-CPU entry point");
