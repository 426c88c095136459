// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target for the parser, usable by libFuzzer and by fuzz_driver.c.
 * Besides not crashing, it checks invariants that any input must keep:
 * counts add up, every stored entry has sane strings, a second read of the
 * same bytes creates no entry and keeps every pointer, a scan of the same
 * bytes returns the rows the read stored, and a query keeps the rows that
 * allocinfo_query_test() accepts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "allocinfo.h"

#define REQUIRE(c) do { if (!(c)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct allocinfo_list *l = allocinfo_list_new();
	struct allocinfo_entry *e, *first;
	size_t lines = 1, n = 0, count;
	int rc;

	REQUIRE(l);
	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	rc = allocinfo_list_read_buffer(l, (const char *)data, size);
	REQUIRE(rc >= 0 && rc < ALLOCINFO_NERRORS);
	REQUIRE(allocinfo_strerror(rc)[0]);
	if (rc != ALLOCINFO_OK) {
		REQUIRE(allocinfo_list_count(l) == 0);
		allocinfo_list_free(l);
		return 0;
	}
	REQUIRE(allocinfo_list_present(l) + allocinfo_list_malformed_count(l) <= lines);
	for (e = allocinfo_list_first(l); e; e = allocinfo_entry_next(e)) {
		const char *k, *v;

		REQUIRE(allocinfo_entry_file(e) && allocinfo_entry_func(e)[0]);
		REQUIRE(allocinfo_entry_lineno(e) >= 1 && allocinfo_entry_lineno(e) <= lines);
		for (size_t i = 0; i < allocinfo_entry_kv_count(e); i++) {
			REQUIRE(allocinfo_entry_kv_get(e, i, &k, &v) == ALLOCINFO_OK);
			REQUIRE(k[0] && !strchr(k, ' ') && v);
		}
		allocinfo_entry_set_u64(e, (uint64_t)allocinfo_entry_bytes(e));
		allocinfo_entry_set_ptr(e, e);
		n++;
	}
	REQUIRE(n == allocinfo_list_count(l) && n == allocinfo_list_present(l));
	count = n;
	{
		struct allocinfo_list *s = allocinfo_list_new();
		struct allocinfo_query *q = allocinfo_query_new();
		const struct allocinfo_entry *se;
		size_t kept = 0, want = 0;

		REQUIRE(s && q);
		REQUIRE(allocinfo_list_scan_buffer(s, (const char *)data, size) == ALLOCINFO_OK);
		for (e = allocinfo_list_first(l); (se = allocinfo_list_scan_next(s)); e = allocinfo_entry_next(e)) {
			REQUIRE(e && allocinfo_entry_bytes(se) == allocinfo_entry_bytes(e));
			REQUIRE(!strcmp(allocinfo_entry_func(se), allocinfo_entry_func(e)));
			REQUIRE(allocinfo_entry_kv_count(se) == allocinfo_entry_kv_count(e));
		}
		REQUIRE(!e && allocinfo_list_geterror(s) == ALLOCINFO_OK);
		REQUIRE(allocinfo_list_malformed_count(s) == allocinfo_list_malformed_count(l));
		REQUIRE(allocinfo_query_add_match(q, ALLOCINFO_FIELD_FILE, "[a-m]", 0) == ALLOCINFO_OK);
		REQUIRE(allocinfo_query_set_min_calls(q, 1) == ALLOCINFO_OK);
		for (e = allocinfo_list_first(l); e; e = allocinfo_entry_next(e))
			want += allocinfo_query_test(q, e);
		allocinfo_list_set_query(s, q);
		REQUIRE(allocinfo_list_scan_buffer(s, (const char *)data, size) == ALLOCINFO_OK);
		while ((se = allocinfo_list_scan_next(s)))
			kept++;
		REQUIRE(kept == want);
		allocinfo_list_free(s);
		allocinfo_query_free(q);
	}
	first = allocinfo_list_first(l);
	REQUIRE(allocinfo_list_read_buffer(l, (const char *)data, size) == ALLOCINFO_OK);
	REQUIRE(allocinfo_list_count(l) == count && allocinfo_list_first(l) == first);
	for (e = allocinfo_list_first(l); e; e = allocinfo_entry_next(e)) {
		REQUIRE(allocinfo_entry_get_ptr(e) == e && !allocinfo_entry_vanished(e));
		REQUIRE(allocinfo_entry_get_u64(e) == (uint64_t)allocinfo_entry_bytes(e));
	}
	/* an empty update marks everything vanished; prune frees it all */
	REQUIRE(allocinfo_list_read_buffer(l, "allocinfo - version: 2.0\n", 25) == ALLOCINFO_OK);
	REQUIRE(allocinfo_list_prune(l) == count && allocinfo_list_count(l) == 0);
	allocinfo_list_free(l);
	return 0;
}
