// SPDX-License-Identifier: GPL-2.0
/*
 * allocprof_stress: allocation/free storms for allocation profiling.
 *
 * "run MS" starts one kernel thread bound to each online CPU.  For MS
 * milliseconds each thread allocates objects of every kind (pages of
 * order 0..2, kmalloc of 8..8192 bytes and one size above
 * KMALLOC_MAX_CACHE_SIZE, a kmem_cache, vmalloc, percpu) and passes
 * each to the next CPU's thread through a bounded, locked queue; that
 * thread frees it.  So every free runs on another CPU than its
 * allocation (with two or more CPUs), and at most QUEUE_LEN objects per
 * thread are in flight.  When the time is up the threads drain the
 * queues and the module's /proc/allocinfo rows must be back at 0 0.
 *
 * "hold N [KIND]" allocates N objects of every kind (or of KIND) from the
 * writing task and keeps them; "release" frees them.  Fault injection tests use it: the
 * rows must then equal the allocations that succeeded.
 *
 * Reading /proc/allocprof_stress gives "key value" lines: the state, the
 * counts of the last storm, and one "site KIND LINE LIVE BYTES ALLOCS"
 * line a kind: the line of its call site, the objects held, their bytes
 * (-1 when the charged size is not known for that kind) and the
 * allocations made by the last storm or hold.
 * "wait" blocks until the running storm has finished.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/gfp.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/proc_fs.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#define QUEUE_LEN	32
#define CACHE_OBJ_SIZE	200
#define LARGE_SIZE	(KMALLOC_MAX_CACHE_SIZE + 1)
#define MAX_HOLD	1024

enum kind {
	K_PAGE0, K_PAGE1, K_PAGE2, K_KMALLOC, K_LARGE, K_CACHE,
	K_VMALLOC, K_PERCPU, NR_KINDS
};

static const char * const kind_name[NR_KINDS] = {
	"page0", "page1", "page2", "kmalloc", "kmalloc_large", "cache",
	"vmalloc", "percpu",
};

static const unsigned int kmalloc_sizes[] = {
	8, 16, 32, 64, 96, 128, 192, 256, 512, 1024, 2048, 4096, 8192,
};

struct obj {
	void *p;
	struct page *page;
	size_t size;
	u8 kind;
	u16 cpu;
};

struct worker {
	struct task_struct *task;
	unsigned int cpu;
	spinlock_t lock;	/* protects head, len and ring */
	unsigned int head, len;
	struct obj ring[QUEUE_LEN];
	unsigned long ops;
};

static struct kmem_cache *cache;
static struct worker *workers;
static unsigned int nr_workers;
static atomic_t producers, running;
static unsigned long deadline;
static bool storm_on;
static DECLARE_COMPLETION(storm_done);
static DEFINE_MUTEX(stress_lock);

static unsigned int kind_line[NR_KINDS];
static atomic64_t allocs[NR_KINDS], frees[NR_KINDS];
static atomic64_t failed, same_cpu_frees;
static unsigned long runs, last_ms;

static struct obj held[NR_KINDS][MAX_HOLD];
static unsigned int nr_held[NR_KINDS];

static unsigned int run_ms;
module_param(run_ms, uint, 0444);
MODULE_PARM_DESC(run_ms, "start a storm of this many milliseconds at load");

/* Allocate one object of kind @k; @n varies the kmalloc size. */
static bool obj_alloc(struct obj *o, enum kind k, unsigned long n)
{
	const gfp_t gfp = GFP_KERNEL | __GFP_NOWARN;

	memset(o, 0, sizeof(*o));
	o->kind = k;
	switch (k) {
	case K_PAGE0:
		o->page = alloc_pages(gfp, 0); kind_line[k] = __LINE__;
		o->size = PAGE_SIZE;
		return o->page;
	case K_PAGE1:
		o->page = alloc_pages(gfp, 1); kind_line[k] = __LINE__;
		o->size = PAGE_SIZE << 1;
		return o->page;
	case K_PAGE2:
		o->page = alloc_pages(gfp, 2); kind_line[k] = __LINE__;
		o->size = PAGE_SIZE << 2;
		return o->page;
	case K_KMALLOC:
		o->size = kmalloc_sizes[n % ARRAY_SIZE(kmalloc_sizes)];
		o->p = kmalloc(o->size, gfp); kind_line[k] = __LINE__;
		o->size = kmalloc_size_roundup(o->size);
		return o->p;
	case K_LARGE:
		o->p = kmalloc(LARGE_SIZE, gfp); kind_line[k] = __LINE__;
		o->size = PAGE_SIZE << get_order(LARGE_SIZE);
		return o->p;
	case K_CACHE:
		o->p = kmem_cache_alloc(cache, gfp); kind_line[k] = __LINE__;
		o->size = kmem_cache_size(cache);
		return o->p;
	case K_VMALLOC:
		o->p = vmalloc(2 * PAGE_SIZE); kind_line[k] = __LINE__;
		return o->p;
	case K_PERCPU:
		o->p = alloc_percpu_gfp(u64, gfp); kind_line[k] = __LINE__;
		return o->p;
	default:
		return false;
	}
}

static void obj_free(struct obj *o)
{
	switch (o->kind) {
	case K_PAGE0:
	case K_PAGE1:
	case K_PAGE2:
		__free_pages(o->page, o->kind - K_PAGE0);
		break;
	case K_KMALLOC:
	case K_LARGE:
		kfree(o->p);
		break;
	case K_CACHE:
		kmem_cache_free(cache, o->p);
		break;
	case K_VMALLOC:
		vfree(o->p);
		break;
	case K_PERCPU:
		free_percpu((void __percpu *)o->p);
		break;
	}
	atomic64_inc(&frees[o->kind]);
}

static bool queue_push(struct worker *w, const struct obj *o)
{
	bool ok = false;

	spin_lock(&w->lock);
	if (w->len < QUEUE_LEN) {
		w->ring[(w->head + w->len) % QUEUE_LEN] = *o;
		w->len++;
		ok = true;
	}
	spin_unlock(&w->lock);
	return ok;
}

static bool queue_pop(struct worker *w, struct obj *o)
{
	bool ok = false;

	spin_lock(&w->lock);
	if (w->len) {
		*o = w->ring[w->head];
		w->head = (w->head + 1) % QUEUE_LEN;
		w->len--;
		ok = true;
	}
	spin_unlock(&w->lock);
	return ok;
}

/* Free everything queued for @w, on @w's CPU. */
static void drain(struct worker *w)
{
	struct obj o;

	while (queue_pop(w, &o)) {
		if (o.cpu == raw_smp_processor_id())
			atomic64_inc(&same_cpu_frees);
		obj_free(&o);
	}
}

/* Kinds in storm order: vmalloc and percpu less often, they are slow. */
static enum kind storm_kind(unsigned long n)
{
	if (n % 64 == 7)
		return K_VMALLOC;
	if (n % 64 == 39)
		return K_PERCPU;
	return n % (K_CACHE + 1);
}

static int storm_fn(void *arg)
{
	struct worker *w = arg;
	struct worker *next = &workers[(w - workers + 1) % nr_workers];
	unsigned long n = 0;
	struct obj o;

	while (time_before(jiffies, READ_ONCE(deadline))) {
		enum kind kind = storm_kind(n);

		if (obj_alloc(&o, kind, n / (K_CACHE + 1))) {
			atomic64_inc(&allocs[kind]);
			o.cpu = raw_smp_processor_id();
			while (!queue_push(next, &o)) {
				drain(w);
				cond_resched();
			}
		} else {
			atomic64_inc(&failed);
		}
		n++;
		drain(w);
		cond_resched();
	}
	w->ops = n;
	/* Our last push happened before this; see the loop below. */
	atomic_dec_return(&producers);
	while (atomic_read_acquire(&producers)) {
		drain(w);
		cond_resched();
	}
	drain(w);
	if (atomic_dec_and_test(&running))
		complete(&storm_done);
	return 0;
}

static void reset_counts(void)
{
	int k;

	for (k = 0; k < NR_KINDS; k++) {
		atomic64_set(&allocs[k], 0);
		atomic64_set(&frees[k], 0);
	}
	atomic64_set(&failed, 0);
	atomic64_set(&same_cpu_frees, 0);
}

static int storm_start(unsigned int ms)
{
	unsigned int cpu, i = 0;

	if (storm_on)
		return -EBUSY;
	cpus_read_lock();
	nr_workers = num_online_cpus();
	workers = kcalloc(nr_workers, sizeof(*workers), GFP_KERNEL);
	if (!workers) {
		cpus_read_unlock();
		return -ENOMEM;
	}
	reset_counts();
	atomic_set(&producers, nr_workers);
	atomic_set(&running, nr_workers);
	reinit_completion(&storm_done);
	WRITE_ONCE(deadline, jiffies + msecs_to_jiffies(ms));
	for_each_online_cpu(cpu) {
		struct worker *w = &workers[i++];

		w->cpu = cpu;
		spin_lock_init(&w->lock);
		w->task = kthread_create_on_cpu(storm_fn, w, cpu, "apstress/%u");
		if (IS_ERR(w->task)) {
			int err = PTR_ERR(w->task);

			/* Not woken yet: they stop without running storm_fn. */
			while (--i)
				kthread_stop(workers[i - 1].task);
			kfree(workers);
			workers = NULL;
			cpus_read_unlock();
			return err;
		}
	}
	for (i = 0; i < nr_workers; i++)
		wake_up_process(workers[i].task);
	cpus_read_unlock();
	storm_on = true;
	runs++;
	last_ms = ms;
	return 0;
}

/* Wait for the running storm, if any, and forget its threads. */
static int storm_wait(void)
{
	if (!storm_on)
		return 0;
	if (wait_for_completion_interruptible(&storm_done))
		return -EINTR;
	kfree(workers);
	workers = NULL;
	storm_on = false;
	return 0;
}

static void release_all(void)
{
	int k;

	for (k = 0; k < NR_KINDS; k++)
		while (nr_held[k])
			obj_free(&held[k][--nr_held[k]]);
}

/* Allocate and keep @n objects of kind @only, or of every kind if -1. */
static int hold(unsigned int n, int only)
{
	unsigned int i;
	int k;

	if (storm_on)
		return -EBUSY;
	if (n > MAX_HOLD || only == -EINVAL)
		return -EINVAL;
	release_all();
	reset_counts();
	for (k = 0; k < NR_KINDS; k++) {
		if (only >= 0 && k != only)
			continue;
		for (i = 0; i < n; i++) {
			struct obj *o = &held[k][nr_held[k]];

			if (obj_alloc(o, k, i)) {
				nr_held[k]++;
				atomic64_inc(&allocs[k]);
			} else {
				atomic64_inc(&failed);
			}
		}
	}
	return 0;
}

static int stress_show(struct seq_file *m, void *v)
{
	unsigned long ops = 0, sum_a = 0, sum_f = 0;
	unsigned int i;
	int k;

	mutex_lock(&stress_lock);
	for (i = 0; workers && i < nr_workers; i++)
		ops += workers[i].ops;
	for (k = 0; k < NR_KINDS; k++) {
		sum_a += atomic64_read(&allocs[k]);
		sum_f += atomic64_read(&frees[k]);
	}
	seq_printf(m, "state %s\n", storm_on ? "running" : "idle");
	seq_printf(m, "runs %lu\nms %lu\n", runs, last_ms);
	seq_printf(m, "threads %u\nqueue_len %u\n", nr_workers, QUEUE_LEN);
	seq_printf(m, "allocs %lu\nfrees %lu\n", sum_a, sum_f);
	seq_printf(m, "failed %lld\n", atomic64_read(&failed));
	seq_printf(m, "same_cpu_frees %lld\n", atomic64_read(&same_cpu_frees));
	for (k = 0; k < NR_KINDS; k++) {
		long long bytes = 0;

		for (i = 0; i < nr_held[k]; i++)
			bytes += held[k][i].size;
		/*
		 * A 2-page vmalloc area is charged its pages and its page
		 * array; a percpu area its size on every possible CPU.
		 */
		if (k == K_VMALLOC)
			bytes = (long long)nr_held[k] * (2 * PAGE_SIZE +
				kmalloc_size_roundup(2 * sizeof(struct page *)));
		if (k == K_PERCPU)
			bytes = (long long)nr_held[k] * sizeof(u64) *
				num_possible_cpus();
		seq_printf(m, "site %s %u %u %lld %lld\n", kind_name[k],
			   kind_line[k], nr_held[k], bytes,
			   atomic64_read(&allocs[k]));
	}
	mutex_unlock(&stress_lock);
	return 0;
}

static int stress_open(struct inode *inode, struct file *file)
{
	return single_open(file, stress_show, NULL);
}

static ssize_t stress_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	char buf[48] = { }, name[16] = { };
	unsigned int arg = 0;
	char *cmd;
	int ret;

	if (count >= sizeof(buf) || copy_from_user(buf, ubuf, count))
		return -EINVAL;
	cmd = strim(buf);
	if (!strcmp(cmd, "wait"))
		return storm_wait() ?: count;	/* without the lock: reads go on */

	mutex_lock(&stress_lock);
	if (sscanf(cmd, "run %u", &arg) == 1)
		ret = storm_start(arg);
	else if (sscanf(cmd, "hold %u", &arg) == 1)
		ret = hold(arg, sscanf(cmd, "hold %*u %15s", name) == 1 ?
			   match_string(kind_name, NR_KINDS, name) : -1);
	else if (!strcmp(cmd, "release"))
		ret = storm_on ? -EBUSY : (release_all(), 0);
	else
		ret = -EINVAL;
	mutex_unlock(&stress_lock);
	return ret ?: count;
}

static const struct proc_ops stress_ops = {
	.proc_open	= stress_open,
	.proc_read	= seq_read,
	.proc_lseek	= seq_lseek,
	.proc_release	= single_release,
	.proc_write	= stress_write,
};

/* Does nothing; any constructor keeps the cache from being merged. */
static void cache_ctor(void *obj)
{
}

static int __init stress_init(void)
{
	struct obj o;
	int k;

	/* Unmerged, it has its own /sys/kernel/slab/ entry for failslab */
	cache = kmem_cache_create("allocprof_stress", CACHE_OBJ_SIZE, 0, 0,
				  cache_ctor);
	if (!cache)
		return -ENOMEM;
	/* One of each, so every site line is known before the first run. */
	for (k = 0; k < NR_KINDS; k++)
		if (obj_alloc(&o, k, 0))
			obj_free(&o);
	reset_counts();
	if (!proc_create("allocprof_stress", 0600, NULL, &stress_ops)) {
		kmem_cache_destroy(cache);
		return -ENOMEM;
	}
	if (run_ms)
		storm_start(run_ms);
	return 0;
}

static void __exit stress_exit(void)
{
	remove_proc_entry("allocprof_stress", NULL);
	if (storm_on)
		wait_for_completion(&storm_done);
	kfree(workers);
	release_all();
	kmem_cache_destroy(cache);
}

module_init(stress_init);
module_exit(stress_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Allocation storms for allocation profiling tests");
