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
	allocinfo_list_free(l);
	printf("1..%d\n", n);
	return failed != 0;
}
