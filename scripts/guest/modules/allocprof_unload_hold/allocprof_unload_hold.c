// SPDX-License-Identifier: GPL-2.0
/*
 * allocprof_unload_hold: makes the next unload of module @target wait
 * @hold_ms milliseconds for every RCU grace period it waits for while it
 * drops the module's code tags, and only those: a kprobe on
 * codetag_unload_module(), which free_module() calls after its own
 * synchronize_rcu() and after releasing module_mutex, has a kthread on
 * another CPU enter an RCU read-side critical section and stay in it.
 * A module load meanwhile must not wait for that unload
 * (46-module-unload-stall.sh).  Arms once; reading /proc/allocprof_unload_hold
 * says "held" once it has held, "holding" while it holds, else "armed", and
 * once it has fired, on a second line, the CPU the unload runs on: the
 * holder does not yield its CPU on a kernel without preemption, so a load
 * meant to run beside the unload runs there.
 */
#include <linux/delay.h>
#include <linux/ktime.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>

#include "allocprof_ctl.h"

static char *target = "allocprof_rcu_test";
module_param(target, charp, 0444);
static unsigned int hold_ms = 2500;
module_param(hold_ms, uint, 0444);

static struct task_struct **holders;
static int hold_cpu = -1;	/* the CPU whose holder is to hold, once */
static int unload_cpu = -1;	/* the CPU the held unload runs on */
static bool holding, held;

/* One per CPU, so that one runs beside any CPU the unload runs on. */
static int holder_fn(void *arg)
{
	int cpu = (long)arg;
	u64 end;

	while (!kthread_should_stop()) {
		if (READ_ONCE(hold_cpu) != cpu) {
			usleep_range(500, 1000);
			continue;
		}
		/*
		 * By the clock, not mdelay(): under QEMU's TCG the delay loop
		 * calibrated at boot runs at whatever speed the host allows.
		 */
		end = ktime_get_ns() + (u64)hold_ms * NSEC_PER_MSEC;
		rcu_read_lock();
		WRITE_ONCE(holding, true);
		while (ktime_get_ns() < end)
			cpu_relax();
		rcu_read_unlock();
		WRITE_ONCE(held, true);
		WRITE_ONCE(hold_cpu, -1);
	}
	return 0;
}

/*
 * Runs where the unload runs, possibly as an NMI (int3): it only writes
 * flags and waits, bounded, for the holder to be inside its section, so
 * that every grace period the unload starts from here on waits for it.
 */
static int unload_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct module *mod = (void *)regs_get_kernel_argument(regs, 0);
	u64 end;
	int cpu;

	if (READ_ONCE(held) || READ_ONCE(holding) || strcmp(mod->name, target))
		return 0;
	cpu = cpumask_any_but(cpu_online_mask, raw_smp_processor_id());
	if (cpu >= nr_cpu_ids || !holders[cpu])
		return 0;
	WRITE_ONCE(unload_cpu, raw_smp_processor_id());
	WRITE_ONCE(hold_cpu, cpu);
	end = ktime_get_mono_fast_ns() + NSEC_PER_SEC;
	while (!READ_ONCE(holding) && ktime_get_mono_fast_ns() < end)
		cpu_relax();
	/* Not scheduled within the second: hold nothing later instead. */
	if (!READ_ONCE(holding))
		WRITE_ONCE(hold_cpu, -1);
	return 0;
}

/*
 * A post handler keeps the probe from being optimized.  The kprobe
 * optimizer runs a few jiffies after registration and waits for a grace
 * period holding kprobe_mutex, which every module load takes: had it run
 * during the hold, the load would wait for the holder, not the unload.
 */
static void unload_post(struct kprobe *kp, struct pt_regs *regs,
			unsigned long flags)
{
}

static struct kprobe unload_kp = {
	.symbol_name = "codetag_unload_module",
	.pre_handler = unload_pre,
	.post_handler = unload_post,
};

static int ctl_show(struct seq_file *m)
{
	seq_puts(m, READ_ONCE(held) ? "held\n" :
		    READ_ONCE(holding) ? "holding\n" : "armed\n");
	if (READ_ONCE(unload_cpu) >= 0)
		seq_printf(m, "%d\n", READ_ONCE(unload_cpu));
	return 0;
}

static int ctl_command(const char *cmd, const char __user *ubuf, size_t len)
{
	return -EINVAL;
}

static void holders_stop(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		if (holders[cpu])
			kthread_stop(holders[cpu]);
	kfree(holders);
}

static int __init allocprof_unload_hold_init(void)
{
	int cpu, ret;

	if (num_online_cpus() < 2)
		return -ENODEV;
	holders = kcalloc(nr_cpu_ids, sizeof(*holders), GFP_KERNEL);
	if (!holders)
		return -ENOMEM;
	for_each_online_cpu(cpu) {
		struct task_struct *t;

		t = kthread_create_on_cpu(holder_fn, (void *)(long)cpu, cpu,
					  "allocprof_hold/%u");
		if (IS_ERR(t)) {
			holders_stop();
			return PTR_ERR(t);
		}
		holders[cpu] = t;
		wake_up_process(t);
	}
	ret = register_kprobe(&unload_kp);
	if (!ret)
		ret = ctl_create();
	if (ret) {
		unregister_kprobe(&unload_kp);
		holders_stop();
	}
	return ret;
}

static void __exit allocprof_unload_hold_exit(void)
{
	ctl_remove();
	unregister_kprobe(&unload_kp);
	holders_stop();
}

module_init(allocprof_unload_hold_init);
module_exit(allocprof_unload_hold_exit);

MODULE_LICENSE("GPL");
