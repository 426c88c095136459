// SPDX-License-Identifier: GPL-2.0
/*
 * allocprof_rcu_test: frees its objects in its exit function the way
 * drivers do, with kfree_rcu(), kvfree_rcu() and call_rcu(), so that
 * they are still allocated when the module's exit returns.  The unload
 * must wait for those frees before it judges the module's tags: a
 * correct module must neither be reported as leaking nor keep memory.
 *
 * The call_rcu() callback lives in this module and the exit function
 * does not wait for it with rcu_barrier(), as a correct module would:
 * the unload's own wait must run it before the module's code is freed.
 */
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#define NR_OBJS	16

struct obj {
	struct rcu_head rcu;
	char payload[112];
};

static struct obj *slab_objs[NR_OBJS];
static struct obj *cb_objs[NR_OBJS];
static struct obj *vm_obj;

static void obj_free_cb(struct rcu_head *head)
{
	kfree(container_of(head, struct obj, rcu));
}

static void free_all(void)
{
	int i;

	for (i = 0; i < NR_OBJS; i++) {
		if (slab_objs[i])
			kfree_rcu(slab_objs[i], rcu);
		if (cb_objs[i])
			call_rcu(&cb_objs[i]->rcu, obj_free_cb);
	}
	if (vm_obj)
		kvfree_rcu(vm_obj, rcu);
}

static int __init allocprof_rcu_test_init(void)
{
	int i;

	for (i = 0; i < NR_OBJS; i++) {
		slab_objs[i] = kzalloc(sizeof(struct obj), GFP_KERNEL);
		cb_objs[i] = kzalloc(sizeof(struct obj), GFP_KERNEL);
		if (!slab_objs[i] || !cb_objs[i])
			goto fail;
	}
	vm_obj = vzalloc(2 * PAGE_SIZE);
	if (!vm_obj)
		goto fail;
	return 0;
fail:
	free_all();
	rcu_barrier();
	return -ENOMEM;
}

static void __exit allocprof_rcu_test_exit(void)
{
	free_all();
}

module_init(allocprof_rcu_test_init);
module_exit(allocprof_rcu_test_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("allocprof test: objects freed through RCU at module exit");
