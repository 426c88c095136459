// SPDX-License-Identifier: GPL-2.0
/*
 * Micro-benchmarks of the allocators for make bench.  The same source is
 * built against the stock and the patched kernels.  Booted under QEMU's
 * -icount shift=0, one guest nanosecond is one instruction, so the
 * figures are instruction counts and repeat bit for bit.
 *
 * /proc/allocprof_bench: reading runs every benchmark (a warm-up, then
 *   the measured loop twice) and prints one line per benchmark:
 *   "name ops ns_run1 ns_run2", ns for all ops of one run.
 * /proc/allocprof_smp: reading runs the benchmarks on every online CPU
 *   at once, for make bench SMP=1 (see smp_show()).
 * /proc/allocprof_clock: ktime_get_ns(), for timing shell workloads.
 * /proc/allocprof_sizes: sizes of the profiling metadata, when built in.
 * /proc/allocprof_hold: writing "kmalloc N" or "account N" allocates N
 *   64-byte objects with GFP_KERNEL or GFP_KERNEL_ACCOUNT and keeps them
 *   until "free" (or the next command): the slab memory they take, read
 *   around the write, is the bytes per object with their metadata.
 */
#include <linux/delay.h>
#include <linux/gfp.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#ifdef CONFIG_MEM_ALLOC_PROFILING
#include <linux/alloc_tag.h>
#endif

#define BATCH 64

static struct kmem_cache *bench_cache;
static void *objs[BATCH];
/* Read through READ_ONCE() so that kmalloc() sees a run-time size */
static unsigned int min_size = 8, max_size = 240, step = 8;

static void kmalloc_pairs(unsigned int rounds)
{
	unsigned int r, size;

	for (r = 0; r < rounds; r++)
		for (size = READ_ONCE(min_size); size <= max_size; size += step)
			kfree(kmalloc(size, GFP_KERNEL));
}

/* Charged to the writer's memory cgroup too, where memcg accounts kmem */
static void kmalloc_account_pairs(unsigned int rounds)
{
	unsigned int r, size;

	for (r = 0; r < rounds; r++)
		for (size = READ_ONCE(min_size); size <= max_size; size += step)
			kfree(kmalloc(size, GFP_KERNEL_ACCOUNT));
}

static void kmalloc_batches(unsigned int rounds)
{
	unsigned int r, size, i;

	for (r = 0; r < rounds; r++)
		for (size = READ_ONCE(min_size); size <= max_size; size += step) {
			for (i = 0; i < BATCH; i++)
				objs[i] = kmalloc(size, GFP_KERNEL);
			for (i = 0; i < BATCH; i++)
				kfree(objs[i]);
		}
}

static void cache_pairs(unsigned int n)
{
	while (n--)
		kmem_cache_free(bench_cache, kmem_cache_alloc(bench_cache, GFP_KERNEL));
}

static void page_pairs(unsigned int n)
{
	while (n--)
		__free_page(alloc_page(GFP_KERNEL));
}

static void gfp0_pairs(unsigned int n)
{
	while (n--)
		free_pages(__get_free_pages(GFP_KERNEL, 0), 0);
}

static void gfp2_pairs(unsigned int n)
{
	while (n--)
		free_pages(__get_free_pages(GFP_KERNEL, 2), 2);
}

static void vmalloc_pairs(unsigned int n)
{
	while (n--)
		vfree(vmalloc(4 * PAGE_SIZE));
}

static void percpu_pairs(unsigned int n)
{
	while (n--)
		free_percpu(alloc_percpu(u64));
}

struct bench {
	const char *name;
	void (*fn)(unsigned int n);
	unsigned int n;		/* argument of fn for one measured run */
	unsigned int ops;	/* alloc+free pairs in one measured run */
};

#define NSIZES 30	/* 8..240 step 8 */
static const struct bench benches[] = {
	{ "kmalloc_free_8-240", kmalloc_pairs, 1000, 1000 * NSIZES },
	{ "kmalloc_batch64_8-240", kmalloc_batches, 20, 20 * NSIZES * BATCH },
	{ "kmalloc_account_8-240", kmalloc_account_pairs, 1000, 1000 * NSIZES },
	{ "kmem_cache_alloc_free", cache_pairs, 30000, 30000 },
	{ "alloc_page_free", page_pairs, 30000, 30000 },
	{ "get_free_pages_o0", gfp0_pairs, 30000, 30000 },
	{ "get_free_pages_o2", gfp2_pairs, 10000, 10000 },
	{ "vmalloc_vfree_4p", vmalloc_pairs, 2000, 2000 },
	{ "alloc_free_percpu", percpu_pairs, 2000, 2000 },
};

static u64 run_once(const struct bench *b)
{
	u64 t0 = ktime_get_ns();

	b->fn(b->n);
	return ktime_get_ns() - t0;
}

static int bench_show(struct seq_file *m, void *v)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(benches); i++) {
		const struct bench *b = &benches[i];
		u64 r1, r2;

		b->fn(b->n / 10 + 1);	/* warm-up: caches, per-CPU lists */
		r1 = run_once(b);
		r2 = run_once(b);
		seq_printf(m, "%s %u %llu %llu\n", b->name, b->ops, r1, r2);
	}
	return 0;
}

/*
 * Throughput on several CPUs, for make bench SMP=1 (multi-threaded TCG,
 * no -icount: real time).  One thread per online CPU, bound to it, runs
 * alloc+free pairs for SMP_MS milliseconds, all starting together.
 * "shared" benchmarks allocate from one call site on every CPU, whose
 * counters all CPUs then charge; "own" ones from a call site per CPU.
 */
#define SMP_MS		1000
#define SMP_CHECK	64	/* pairs between looks at the clock */

static noinline void kmalloc_shared(unsigned int cpu)
{
	kfree(kmalloc(64, GFP_KERNEL));
}

static noinline void kmalloc_own(unsigned int cpu)
{
	switch (cpu % 4) {
	case 0:
		kfree(kmalloc(64, GFP_KERNEL));
		break;
	case 1:
		kfree(kmalloc(64, GFP_KERNEL));
		break;
	case 2:
		kfree(kmalloc(64, GFP_KERNEL));
		break;
	default:
		kfree(kmalloc(64, GFP_KERNEL));
		break;
	}
}

static noinline void cache_shared(unsigned int cpu)
{
	kmem_cache_free(bench_cache, kmem_cache_alloc(bench_cache, GFP_KERNEL));
}

static noinline void page_shared(unsigned int cpu)
{
	__free_page(alloc_page(GFP_KERNEL));
}

static const struct smp_bench {
	const char *name;
	void (*pair)(unsigned int cpu);
} smp_benches[] = {
	{ "kmalloc_64_shared", kmalloc_shared },
	{ "kmalloc_64_own", kmalloc_own },
	{ "kmem_cache_shared", cache_shared },
	{ "alloc_page_shared", page_shared },
};

struct smp_run {
	const struct smp_bench *b;
	atomic_t ready;		/* threads waiting for go */
	atomic_t running;	/* threads not finished */
	bool go;
	u64 deadline;
	wait_queue_head_t wq;
	unsigned long ops[NR_CPUS];
	struct task_struct *threads[NR_CPUS];
};

static int smp_thread(void *arg)
{
	struct smp_run *run = arg;
	unsigned int cpu = smp_processor_id(), i;
	unsigned long ops = 0;

	atomic_inc(&run->ready);
	while (!smp_load_acquire(&run->go))
		cond_resched();
	do {
		for (i = 0; i < SMP_CHECK; i++)
			run->b->pair(cpu);
		ops += SMP_CHECK;
		cond_resched();
	} while (ktime_get_ns() < run->deadline);
	run->ops[cpu] = ops;
	if (atomic_dec_and_test(&run->running))
		wake_up(&run->wq);
	return 0;
}

/* Pairs per second on all online CPUs together, or 0 on error. */
static unsigned long smp_run_one(const struct smp_bench *b)
{
	struct smp_run *run = kvzalloc(sizeof(*run), GFP_KERNEL);
	unsigned int cpu, n = num_online_cpus();
	unsigned long total = 0;
	u64 t0;

	if (!run)
		return 0;
	run->b = b;
	init_waitqueue_head(&run->wq);
	atomic_set(&run->running, n);
	for_each_online_cpu(cpu) {
		struct task_struct *t = kthread_create(smp_thread, run, "bench/%u", cpu);

		if (IS_ERR(t)) {
			/* Not woken yet: stopped before they run */
			for_each_online_cpu(cpu)
				if (run->threads[cpu])
					kthread_stop(run->threads[cpu]);
			kvfree(run);
			return 0;
		}
		kthread_bind(t, cpu);
		run->threads[cpu] = t;
	}
	for_each_online_cpu(cpu)
		wake_up_process(run->threads[cpu]);
	while (atomic_read(&run->ready) < n)
		msleep(1);
	t0 = ktime_get_ns();
	run->deadline = t0 + SMP_MS * NSEC_PER_MSEC;
	smp_store_release(&run->go, true);
	wait_event(run->wq, !atomic_read(&run->running));
	for_each_online_cpu(cpu)
		total += run->ops[cpu];
	total = div64_u64((u64)total * NSEC_PER_SEC, ktime_get_ns() - t0);
	kvfree(run);
	return total;
}

/*
 * One line a benchmark and pass: "name cpus pairs_per_second pass".
 * The list runs forward (pass 1), then backward (pass 2), so that every
 * benchmark is measured both before and after the others.
 */
static int smp_show(struct seq_file *m, void *v)
{
	unsigned int n = ARRAY_SIZE(smp_benches), i, pass;

	for (pass = 1; pass <= 2; pass++) {
		for (i = 0; i < n; i++) {
			const struct smp_bench *b = &smp_benches[pass == 1 ? i : n - 1 - i];

			b->pair(0);	/* warm-up of the call site */
			seq_printf(m, "%s %u %lu %u\n", b->name, num_online_cpus(),
				   smp_run_one(b), pass);
		}
	}
	return 0;
}

static int clock_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%llu\n", ktime_get_ns());
	return 0;
}

static int sizes_show(struct seq_file *m, void *v)
{
#ifdef CONFIG_MEM_ALLOC_PROFILING
	seq_printf(m, "alloc_tag %zu\ncounters %zu\npossible_cpus %u\n",
		   sizeof(struct alloc_tag), sizeof(struct alloc_tag_counters),
		   num_possible_cpus());
#endif
	return 0;
}

#define HOLD_MAX	65536
#define HOLD_SIZE	64
/* Allocated at load, so that it is not among the slab memory measured */
static void **held;
static unsigned int nr_held;

static void hold_free(void)
{
	while (nr_held)
		kfree(held[--nr_held]);
}

static ssize_t hold_write(struct file *file, const char __user *ubuf,
			  size_t len, loff_t *pos)
{
	char cmd[32], kind[9];
	unsigned int n;
	gfp_t gfp;

	if (len >= sizeof(cmd))
		return -EINVAL;
	if (copy_from_user(cmd, ubuf, len))
		return -EFAULT;
	cmd[len] = '\0';
	hold_free();
	if (sysfs_streq(cmd, "free"))
		return len;
	if (sscanf(cmd, "%8s %u", kind, &n) != 2 || n > HOLD_MAX)
		return -EINVAL;
	if (!strcmp(kind, "kmalloc"))
		gfp = GFP_KERNEL;
	else if (!strcmp(kind, "account"))
		gfp = GFP_KERNEL_ACCOUNT;
	else
		return -EINVAL;
	while (nr_held < n) {
		held[nr_held] = kmalloc(HOLD_SIZE, gfp);
		if (!held[nr_held]) {
			hold_free();
			return -ENOMEM;
		}
		nr_held++;
	}
	return len;
}

static const struct proc_ops hold_ops = {
	.proc_write	= hold_write,
	.proc_lseek	= noop_llseek,
};

static int __init bench_init(void)
{
	held = vmalloc(HOLD_MAX * sizeof(*held));
	bench_cache = kmem_cache_create("allocprof_bench", 128, 0, 0, NULL);
	if (!bench_cache || !held) {
		kmem_cache_destroy(bench_cache);
		vfree(held);
		return -ENOMEM;
	}
	if (!proc_create_single("allocprof_bench", 0400, NULL, bench_show) ||
	    !proc_create_single("allocprof_smp", 0400, NULL, smp_show) ||
	    !proc_create_single("allocprof_clock", 0444, NULL, clock_show) ||
	    !proc_create_single("allocprof_sizes", 0444, NULL, sizes_show) ||
	    !proc_create("allocprof_hold", 0200, NULL, &hold_ops)) {
		remove_proc_entry("allocprof_sizes", NULL);
		remove_proc_entry("allocprof_bench", NULL);
		remove_proc_entry("allocprof_smp", NULL);
		remove_proc_entry("allocprof_clock", NULL);
		kmem_cache_destroy(bench_cache);
		vfree(held);
		return -ENOMEM;
	}
	return 0;
}

static void __exit bench_exit(void)
{
	remove_proc_entry("allocprof_hold", NULL);
	hold_free();
	vfree(held);
	remove_proc_entry("allocprof_sizes", NULL);
	remove_proc_entry("allocprof_clock", NULL);
	remove_proc_entry("allocprof_smp", NULL);
	remove_proc_entry("allocprof_bench", NULL);
	kmem_cache_destroy(bench_cache);
}

module_init(bench_init);
module_exit(bench_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("allocprof: allocator micro-benchmarks");
