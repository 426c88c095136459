// SPDX-License-Identifier: GPL-2.0
/*
 * Breaks a boot test on purpose, so the harness can show that a kernel
 * WARNING or Oops in the guest turns into a failed test.  Loaded only when
 * the kernel command line says allocprof.fault=warn or allocprof.fault=oops.
 */
#include <linux/module.h>
#include <linux/string.h>

static char *what = "none";
module_param(what, charp, 0444);
MODULE_PARM_DESC(what, "none, warn (a WARNING) or oops (a NULL dereference)");

static int __init harness_fault_init(void)
{
	if (!strcmp(what, "oops"))
		*(volatile int *)NULL = 1;
	else if (!strcmp(what, "warn"))
		WARN(1, "harness_fault: deliberate warning");
	return 0;
}
module_init(harness_fault_init);

static void __exit harness_fault_exit(void)
{
}
module_exit(harness_fault_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("allocprof harness self-test: deliberate kernel faults");
