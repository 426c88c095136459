// SPDX-License-Identifier: GPL-2.0
/*
 * Reference for the cost of reading /proc/allocinfo: /proc/allocprof_seqref
 * is a plain seq_file with the same two header lines and rows=N rows in
 * the same format, each printed by one seq_printf().  file=, mod= and
 * func= give the text of the rows (make bench copies them from a row of
 * /proc/allocinfo, so that both print as many bytes); the line number
 * is the row number.
 */
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>

static unsigned int rows;
module_param(rows, uint, 0444);
MODULE_PARM_DESC(rows, "number of rows after the header");
static char *file = "mm/allocprof_seqref.c";
module_param(file, charp, 0444);
static char *mod;
module_param(mod, charp, 0444);
static char *func = "ref_show";
module_param(func, charp, 0444);

static void *ref_start(struct seq_file *m, loff_t *pos)
{
	return *pos <= rows ? pos : NULL;
}

static void *ref_next(struct seq_file *m, void *v, loff_t *pos)
{
	++*pos;
	return ref_start(m, pos);
}

static void ref_stop(struct seq_file *m, void *v)
{
}

static int ref_show(struct seq_file *m, void *v)
{
	loff_t i = *(loff_t *)v;

	if (!i) {
		seq_puts(m, "allocinfo - version: 1.0\n");
		seq_puts(m, "#     <size>  <calls> <tag info>\n");
		return 0;
	}
	if (mod)
		seq_printf(m, "%12lli %8llu %s:%u [%s] func:%s\n", 0LL, 0ULL, file,
			   (unsigned int)i, mod, func);
	else
		seq_printf(m, "%12lli %8llu %s:%u func:%s\n", 0LL, 0ULL, file,
			   (unsigned int)i, func);
	return 0;
}

static const struct seq_operations ref_ops = {
	.start = ref_start,
	.next = ref_next,
	.stop = ref_stop,
	.show = ref_show,
};

static int __init ref_init(void)
{
	return proc_create_seq("allocprof_seqref", 0400, NULL, &ref_ops) ?
	       0 : -ENOMEM;
}

static void __exit ref_exit(void)
{
	remove_proc_entry("allocprof_seqref", NULL);
}

module_init(ref_init);
module_exit(ref_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("allocprof: reference seq_file for make bench");
