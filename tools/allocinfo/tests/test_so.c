// SPDX-License-Identifier: GPL-2.0
/*
 * Links against liballocinfo.so (not the objects) and prints TAP: the
 * exported interface works through the shared library and the version
 * script.  Run with the soname symlink next to it.
 */
#include <stdio.h>
#include <string.h>

#include "allocinfo.h"

static int n, failed;

static void check(int ok, const char *name)
{
	printf("%sok %d - %s\n", ok ? "" : "not ", ++n, name);
	failed += !ok;
}

int main(void)
{
	static const char s[] = "allocinfo - version: 2.0\n 64 2 k.c:3 [mod] func:f a:b\n";
	struct allocinfo_list *l = allocinfo_list_new();
	struct allocinfo_entry *e;

	check(l != NULL, "shared: list_new");
	check(allocinfo_list_read_buffer(l, s, strlen(s)) == ALLOCINFO_OK, "shared: read_buffer");
	e = allocinfo_list_first(l);
	check(e && allocinfo_entry_bytes(e) == 64 && allocinfo_entry_calls(e) == 2 &&
	      !strcmp(allocinfo_entry_module(e), "mod") &&
	      !strcmp(allocinfo_entry_kv_find(e, "a"), "b"), "shared: accessors");
	check(!strcmp(allocinfo_strerror(ALLOCINFO_EVERSION),
		      "unsupported allocinfo format version"), "shared: strerror");
	{
		static const char t[] = "allocinfo - version: 1.0\n 9 1 a.c:1 func:f\n"
					" 5 1 b.c:2 [m] func:g\n";
		struct allocinfo_query *q = allocinfo_query_new();
		const struct allocinfo_entry *se;
		struct allocinfo_entry *d = NULL;
		int n = 0;

		check(q && allocinfo_query_add_match(q, ALLOCINFO_FIELD_MODULE, "^m$", 0) == 0 &&
		      allocinfo_list_set_query(l, q) == 0 &&
		      allocinfo_list_scan_buffer(l, t, sizeof(t) - 1) == 0, "shared: query, scan");
		while ((se = allocinfo_list_scan_next(l)) && ++n)
			d = allocinfo_entry_dup(se);
		check(n == 1 && d && !strcmp(allocinfo_entry_func(d), "g") &&
		      allocinfo_list_set_max_input(l, 4) == 0 &&
		      allocinfo_list_read_buffer(l, t, sizeof(t) - 1) == ALLOCINFO_ETOOBIG,
		      "shared: scan_next, entry_dup, max_input");
		allocinfo_entry_free(d);
		allocinfo_query_free(q);
	}
	allocinfo_list_free(l);
	printf("1..%d\n", n);
	return failed != 0;
}
