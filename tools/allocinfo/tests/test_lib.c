// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of liballocinfo (cmocka).  Each case builds its input in
 * memory or reads a fixture, then checks values the input fixes: parsed
 * fields, identity across updates, error codes, malformed-line reports.
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "allocinfo.h"

#define FIX "tests/fixtures/"

extern size_t ai_test_fast_rows;	/* lib/text.c, built with AI_TEST_HOOKS */

static struct allocinfo_list *parse(const char *s)
{
	struct allocinfo_list *l = allocinfo_list_new();

	assert_non_null(l);
	assert_int_equal(allocinfo_list_read_buffer(l, s, strlen(s)), ALLOCINFO_OK);
	return l;
}

static struct allocinfo_entry *nth(struct allocinfo_list *l, size_t n)
{
	struct allocinfo_entry *e = allocinfo_list_first(l);

	while (n-- && e)
		e = allocinfo_entry_next(e);
	assert_non_null(e);
	return e;
}

/* two entries alike: fields, line in the source and key:value pairs */
static void assert_same_entry(const struct allocinfo_entry *x,
			      const struct allocinfo_entry *y)
{
	const char *xm = allocinfo_entry_module(x), *ym = allocinfo_entry_module(y);

	assert_non_null(x);
	assert_non_null(y);
	assert_true(allocinfo_entry_bytes(x) == allocinfo_entry_bytes(y));
	assert_true(allocinfo_entry_calls(x) == allocinfo_entry_calls(y));
	assert_string_equal(allocinfo_entry_file(x), allocinfo_entry_file(y));
	assert_int_equal(allocinfo_entry_line(x), allocinfo_entry_line(y));
	assert_string_equal(allocinfo_entry_func(x), allocinfo_entry_func(y));
	assert_true(xm == ym || (xm && ym && !strcmp(xm, ym)));
	assert_int_equal(allocinfo_entry_lineno(x), allocinfo_entry_lineno(y));
	assert_int_equal(allocinfo_entry_kv_count(x), allocinfo_entry_kv_count(y));
	for (size_t i = 0; i < allocinfo_entry_kv_count(x); i++) {
		const char *xk, *xv, *yk, *yv;

		allocinfo_entry_kv_get(x, i, &xk, &xv);
		allocinfo_entry_kv_get(y, i, &yk, &yv);
		assert_string_equal(xk, yk);
		assert_string_equal(xv, yv);
	}
}

/* two reads alike: the same entries in the same order, the same malformed lines */
static void assert_same_lists(const struct allocinfo_list *a, const struct allocinfo_list *b)
{
	struct allocinfo_entry *x, *y;

	assert_int_equal(allocinfo_list_count(a), allocinfo_list_count(b));
	for (x = allocinfo_list_first(a), y = allocinfo_list_first(b); x && y;
	     x = allocinfo_entry_next(x), y = allocinfo_entry_next(y))
		assert_same_entry(x, y);
	assert_null(x);
	assert_null(y);
	assert_int_equal(allocinfo_list_malformed_count(a), allocinfo_list_malformed_count(b));
	for (size_t i = 0; i < allocinfo_list_malformed_count(a); i++) {
		assert_int_equal(allocinfo_list_malformed_line(a, i),
				 allocinfo_list_malformed_line(b, i));
		assert_string_equal(allocinfo_list_malformed_reason(a, i),
				    allocinfo_list_malformed_reason(b, i));
	}
}

static void v1_fields(void **state)
{
	struct allocinfo_list *l = allocinfo_list_new();
	struct allocinfo_entry *e;

	(void)state;
	assert_int_equal(allocinfo_list_read_path(l, FIX "v1.txt"), ALLOCINFO_OK);
	assert_int_equal(allocinfo_list_version_major(l), 1);
	assert_int_equal(allocinfo_list_version_minor(l), 0);
	assert_int_equal(allocinfo_list_count(l), 10);
	assert_int_equal(allocinfo_list_malformed_count(l), 0);
	e = nth(l, 0);
	assert_int_equal(allocinfo_entry_bytes(e), 8192);
	assert_int_equal(allocinfo_entry_calls(e), 2);
	assert_string_equal(allocinfo_entry_file(e), "mm/slub.c");
	assert_int_equal(allocinfo_entry_line(e), 1234);
	assert_string_equal(allocinfo_entry_func(e), "alloc_slab_page");
	assert_null(allocinfo_entry_module(e));
	assert_int_equal(allocinfo_entry_lineno(e), 3);
	e = nth(l, 1);
	assert_string_equal(allocinfo_entry_module(e), "foo");
	assert_string_equal(allocinfo_entry_file(e), "drivers/foo/bar.c");
	assert_int_equal(allocinfo_entry_line(e), 77);
	assert_int_equal(allocinfo_entry_calls(e), 256);
	e = nth(l, 2);
	assert_true(allocinfo_entry_bytes(e) == -8);
	assert_string_equal(allocinfo_entry_file(e), "./include/linux/slab.h");
	e = nth(l, 3);
	assert_int_equal(allocinfo_entry_bytes(e), 0);
	assert_int_equal(allocinfo_entry_calls(e), 0);
	/* wider than its 12-column field */
	e = nth(l, 9);
	assert_true(allocinfo_entry_bytes(e) == INT64_C(1234567890123));
	assert_int_equal(allocinfo_entry_kv_count(e), 0);
	allocinfo_list_free(l);
}

static void v2_key_values(void **state)
{
	struct allocinfo_list *l = allocinfo_list_new();
	struct allocinfo_entry *e;
	const char *k, *v;

	(void)state;
	assert_int_equal(allocinfo_list_read_path(l, FIX "v2.txt"), ALLOCINFO_OK);
	assert_int_equal(allocinfo_list_version_major(l), 2);
	assert_int_equal(allocinfo_list_count(l), 5);
	e = nth(l, 1);
	assert_int_equal(allocinfo_entry_kv_count(e), 1);
	assert_int_equal(allocinfo_entry_kv_get(e, 0, &k, &v), ALLOCINFO_OK);
	assert_string_equal(k, "accurate");
	assert_string_equal(v, "no");
	assert_int_equal(allocinfo_entry_kv_get(e, 1, &k, &v), ALLOCINFO_EINVAL);
	e = nth(l, 2);
	assert_int_equal(allocinfo_entry_kv_count(e), 2);
	assert_string_equal(allocinfo_entry_kv_find(e, "total_calls"), "123");
	assert_string_equal(allocinfo_entry_kv_find(e, "requested"), "60");
	assert_null(allocinfo_entry_kv_find(e, "accurate"));
	assert_string_equal(allocinfo_entry_func(e), "idr_alloc");
	e = nth(l, 4);
	assert_string_equal(allocinfo_entry_kv_find(e, "weird_key"), "a:b");
	assert_string_equal(allocinfo_entry_module(e), "ext4");
	allocinfo_list_free(l);
}

static void header_comment_variants(void **state)
{
	struct allocinfo_list *l;

	(void)state;
	l = parse("allocinfo - version: 1.0\n# <size> <calls> <tag info>\n#x\n"
		  "  5 1 a.c:1 func:f\n");
	assert_int_equal(allocinfo_list_count(l), 1);
	assert_int_equal(allocinfo_list_malformed_count(l), 0);
	allocinfo_list_free(l);
	l = parse("\n   allocinfo - version: 1.0   \n\n#     <size>  <calls> <tag info>\n"
		  "5 1 a.c:1 func:f\n");
	assert_int_equal(allocinfo_list_count(l), 1);
	allocinfo_list_free(l);
	l = parse("\xef\xbb\xbf" "allocinfo - version: 2.0\n5 1 a.c:1 func:f\n");
	assert_int_equal(allocinfo_list_count(l), 1);
	assert_int_equal(allocinfo_list_version_major(l), 2);
	allocinfo_list_free(l);
}

static void crlf_and_trailing_space(void **state)
{
	struct allocinfo_list *l = allocinfo_list_new();
	struct allocinfo_entry *e;

	(void)state;
	assert_int_equal(allocinfo_list_read_path(l, FIX "crlf.txt"), ALLOCINFO_OK);
	assert_int_equal(allocinfo_list_count(l), 2);
	assert_int_equal(allocinfo_list_malformed_count(l), 0);
	e = nth(l, 0);
	assert_string_equal(allocinfo_entry_func(e), "alloc_slab_page");
	e = nth(l, 1);
	assert_string_equal(allocinfo_entry_func(e), "foo_init");
	allocinfo_list_free(l);
	l = parse("allocinfo - version: 2.0\r\n 1 1 a.c:1 [m] func:f k:v \t \r\n");
	e = nth(l, 0);
	assert_string_equal(allocinfo_entry_kv_find(e, "k"), "v");
	assert_int_equal(allocinfo_entry_kv_count(e), 1);
	allocinfo_list_free(l);
}

static void no_trailing_newline(void **state)
{
	struct allocinfo_list *l = allocinfo_list_new();

	(void)state;
	assert_int_equal(allocinfo_list_read_path(l, FIX "no-trailing-newline.txt"),
			 ALLOCINFO_OK);
	assert_int_equal(allocinfo_list_count(l), 1);
	assert_int_equal(allocinfo_entry_bytes(nth(l, 0)), 100);
	assert_string_equal(allocinfo_entry_func(nth(l, 0)), "f");
	allocinfo_list_free(l);
}

static void number_limits(void **state)
{
	struct allocinfo_list *l;

	(void)state;
	l = parse("allocinfo - version: 1.0\n"
		  "9223372036854775807 18446744073709551615 a.c:1 func:max\n"
		  "-9223372036854775808 0 a.c:2 func:min\n"
		  "9223372036854775808 1 a.c:3 func:over\n"
		  "1 18446744073709551616 a.c:4 func:over_calls\n"
		  "1 1 a.c:4294967296 func:over_line\n");
	assert_int_equal(allocinfo_list_count(l), 2);
	assert_true(allocinfo_entry_bytes(nth(l, 0)) == INT64_MAX);
	assert_true(allocinfo_entry_calls(nth(l, 0)) == UINT64_MAX);
	assert_true(allocinfo_entry_bytes(nth(l, 1)) == INT64_MIN);
	assert_int_equal(allocinfo_list_malformed_count(l), 3);
	assert_int_equal(allocinfo_list_malformed_line(l, 0), 4);
	assert_int_equal(allocinfo_list_malformed_line(l, 1), 5);
	assert_int_equal(allocinfo_list_malformed_line(l, 2), 6);
	assert_string_equal(allocinfo_list_malformed_reason(l, 0), "size out of range");
	assert_string_equal(allocinfo_list_malformed_reason(l, 1), "calls out of range");
	assert_string_equal(allocinfo_list_malformed_reason(l, 2), "line number out of range");
	allocinfo_list_free(l);
	/* the line is read from the end of file:line, up to the last colon */
	l = parse("allocinfo - version: 1.0\n"
		  "1 1 a:b:7 func:f\n1 1 a.c:00042 func:g\n1 1 a.c:4294967295 func:h\n"
		  "1 1 a.c:12345678901 func:x\n1 1 a.c:123456789012345 func:x\n"
		  "1 1 a.c:1x func:x\n1 1 a.c: func:x\n1 1 :12 func:x\n1 1 a.c func:x\n");
	assert_int_equal(allocinfo_list_count(l), 3);
	assert_string_equal(allocinfo_entry_file(nth(l, 0)), "a:b");
	assert_int_equal(allocinfo_entry_line(nth(l, 0)), 7);
	assert_int_equal(allocinfo_entry_line(nth(l, 1)), 42);
	assert_true(allocinfo_entry_line(nth(l, 2)) == 4294967295UL);
	assert_int_equal(allocinfo_list_malformed_count(l), 6);
	assert_string_equal(allocinfo_list_malformed_reason(l, 0), "line number out of range");
	assert_string_equal(allocinfo_list_malformed_reason(l, 1), "line number out of range");
	for (size_t i = 2; i < 6; i++)
		assert_string_equal(allocinfo_list_malformed_reason(l, i), "bad file:line");
	allocinfo_list_free(l);
}

/*
 * Rows in the kernel's columns ("%12lli %8llu ") take a faster way to
 * their numbers than other rows; both must say the same of any row.
 */
static void kernel_columns(void **state)
{
	static const char text[] = "allocinfo - version: 1.0\n"
		"           0        0 a.c:1 func:zero\n"
		"          -8        1 a.c:2 func:neg\n"
		"999999999999 99999999 a.c:3 func:max\n"
		"-99999999999        1 a.c:4 func:negmax\n"
		"        +123        7 a.c:5 func:plus\n"
		"        1234        1  a.c:6 func:two_blanks\n"
		" \t      1234        2 a.c:7 func:tab\n"
		"  0000001234 00000003 a.c:8 func:zeros\n"
		"        1 23        1 a.c:9 func:gap\n"
		"     12-3456        1 a.c:10 func:minus_inside\n"
		"     --12345        1 a.c:11 func:two_minus\n"
		"        12a4        1 a.c:12 func:letter\n"
		"        1234       -1 a.c:13 func:neg_calls\n"
		"        1234      1 2 a.c:14 func:calls_gap\n"
		"         12-        1 a.c:15 func:minus_last\n";
	static const int64_t bytes[] = { 0, -8, 999999999999LL, -99999999999LL, 123, 1234,
					 1234, 1234 };
	static const uint64_t calls[] = { 0, 1, 99999999, 1, 7, 1, 2, 3 };
	static const char *const why[] = {
		"bad file:line",	/* read as size 1, calls 23, location "1" */
		"size is not a number", "size is not a number", "size is not a number",
		"calls is not a number", "bad file:line", "size is not a number",
	};
	struct allocinfo_list *l = parse(text);

	(void)state;
	assert_int_equal(allocinfo_list_count(l), 8);
	for (size_t i = 0; i < 8; i++) {
		assert_true(allocinfo_entry_bytes(nth(l, i)) == bytes[i]);
		assert_true(allocinfo_entry_calls(nth(l, i)) == calls[i]);
		assert_int_equal(allocinfo_entry_line(nth(l, i)), i + 1);
	}
	assert_int_equal(allocinfo_list_malformed_count(l), 7);
	for (size_t i = 0; i < 7; i++) {
		assert_int_equal(allocinfo_list_malformed_line(l, i), i + 10);
		assert_string_equal(allocinfo_list_malformed_reason(l, i), why[i]);
	}
	allocinfo_list_free(l);
}

/*
 * Rows in the kernel's layout with enough text after them are read in one
 * pass (text.c, fast_row()); the same rows one column to the right take
 * the general parser.  Both must give the same fields, and the same
 * reasons for the malformed ones.
 */
static void kernel_layout_rows(void **state)
{
	static const char *const rows[] = {
		"        4096        1 mm/slub.c:1234 func:alloc_slab_page",
		"          -8        1 ./include/linux/slab.h:600 func:kmalloc_noprof",
		"999999999999 99999999 a.c:99999999 [mod] func:f accurate:no x:y:z",
		"           0        0 a:b.c:7 [m] func:f:g k:v",
		"        1234        2 a.c:123456789 func:nine_digits",
		"        1234        2 a.c:12345678901 func:eleven_digits",
		"        1234        2 a.c: func:no_line",
		"        1234        2 :12 func:no_file",
		"        1234        2 a.c:1x func:letter",
		"        1234        2 a.c:12 [] func:empty_module",
		"        1234        2 a.c:12 [m func:open_module",
		"        1234        2 a.c:12 [m]",
		"        1234        2 a.c:12 func:",
		"        1234        2 a.c:12 fun:f",
		"        1234        2 a.c:12 func:f :v",
		"        1234        2 a.c:12 func:f novalue",
		"        1234        2 a.c:12  func:two_blanks",
		"        1234        2 a.c:12 func:trailing_blank ",
		"        1234        2 a.c:12 func:tab\tk:v",
		"        1234        2 a.c:12 func:cr\r",
		"        1234        2 a.c:12 func:ctl\001x",
		"        1234        2 a.c:12 func:f \xff:\xfe",
		/* 63 bytes after the numbers, the most read in one pass; then 64 */
		"        1234        2 dir/x.c:12 func:a_function_name_of_forty_seven_characters_abcde",
		"        1234        2 dir/x.c:12 func:a_function_name_of_forty_eight_characters_abcdef",
		"       -1234        2 a.c:12 func:neg",
		"-12345678901        2 a.c:12 func:neg_first_column",
		"         1-2        2 a.c:12 func:minus_inside",
		"  -       12        2 a.c:12 func:minus_apart",
	};
	const char *pad = "           1        1 pad.c:1 func:padding_row_so_the_row_before_reads_fast";
	size_t n = sizeof(rows) / sizeof(rows[0]);
	char *fast = calloc(n, 300), *slow = calloc(n, 300), *blank = calloc(n, 300);
	char *f = fast, *s = slow, *b2 = blank;
	struct allocinfo_list *a, *b, *c;

	(void)state;
	assert_non_null(fast);
	assert_non_null(slow);
	assert_non_null(blank);
	f += sprintf(f, "allocinfo - version: 2.0\n");
	s += sprintf(s, "allocinfo - version: 2.0\n");
	b2 += sprintf(b2, "allocinfo - version: 2.0\n");
	for (size_t i = 0; i < n; i++) {
		f += sprintf(f, "%s\n%s\n", rows[i], pad);
		s += sprintf(s, " %s\n %s\n", rows[i], pad);
		/* as upstream's kernels, and ours now, end them */
		b2 += sprintf(b2, "%s \n%s \n", rows[i], pad);
	}
	a = parse(fast);
	b = parse(slow);
	c = parse(blank);
	assert_int_equal(allocinfo_list_count(a), 2 * n - 13);	/* 13 malformed */
	assert_int_equal(strlen(rows[22]), 22 + 63);
	assert_same_lists(a, b);
	assert_same_lists(a, c);
	assert_int_equal(allocinfo_entry_line(nth(a, 4)), 99999999);
	assert_int_equal(allocinfo_entry_line(nth(a, 8)), 123456789);
	assert_true(allocinfo_entry_bytes(nth(a, 39)) == -12345678901LL);	/* row 25 */
	allocinfo_list_free(a);
	allocinfo_list_free(b);
	allocinfo_list_free(c);
	free(fast);
	free(slow);
	free(blank);
}

/* s without the blank before the newline of every @every-th line, from the first */
static char *drop_end_blanks(const char *s, size_t len, size_t every)
{
	char *d = malloc(len + 1), *o = d;
	size_t line = 0;

	assert_non_null(d);
	for (size_t i = 0; i < len; i++) {
		if (s[i] == ' ' && i + 1 < len && s[i + 1] == '\n' && line % every == 0)
			continue;
		line += s[i] == '\n';
		*o++ = s[i];
	}
	*o = '\0';
	return d;
}

/*
 * Upstream's rows, and our kernel's now, end in a blank before the
 * newline (v2-row-end-blank.txt); older kernels' end without it.  Both
 * read alike, and a row in the kernel's columns takes the one pass
 * either way: AI_TEST_HOOKS counts the rows read so.
 */
static void row_end_blank(void **state)
{
	struct allocinfo_list *l = allocinfo_list_new(), *plain, *mixed;
	struct allocinfo_list *s = allocinfo_list_new();
	const struct allocinfo_entry *se;
	struct allocinfo_entry *e;
	size_t len, fast_blank, fast_plain, fast_mixed, fast_scan;
	const char *raw;
	char *p, *m;

	(void)state;
	ai_test_fast_rows = 0;
	assert_int_equal(allocinfo_list_read_path(l, FIX "v2-row-end-blank.txt"), ALLOCINFO_OK);
	fast_blank = ai_test_fast_rows;
	assert_int_equal(allocinfo_list_count(l), 11);
	assert_int_equal(allocinfo_list_malformed_count(l), 0);
	assert_string_equal(allocinfo_entry_func(nth(l, 0)), "alloc_slab_page");
	assert_int_equal(allocinfo_entry_kv_count(nth(l, 0)), 0);
	assert_int_equal(allocinfo_entry_kv_count(nth(l, 1)), 1);
	assert_string_equal(allocinfo_entry_kv_find(nth(l, 1), "accurate"), "no");
	assert_string_equal(allocinfo_entry_kv_find(nth(l, 4), "unloaded"), "yes");
	assert_int_equal(allocinfo_entry_kv_count(nth(l, 5)), 2);
	assert_string_equal(allocinfo_entry_kv_find(nth(l, 5), "unloaded"), "yes");
	assert_int_equal(allocinfo_entry_kv_count(nth(l, 6)), 4);
	assert_string_equal(allocinfo_entry_kv_find(nth(l, 6), "requested"), "96000");
	assert_string_equal(allocinfo_entry_kv_find(nth(l, 9), "weird_key"), "a:b");
	assert_string_equal(allocinfo_entry_func(nth(l, 10)), "idr_alloc");

	raw = allocinfo_list_raw(l, &len);
	assert_non_null(raw);
	p = drop_end_blanks(raw, len, 1);
	m = drop_end_blanks(raw, len, 2);
	assert_null(strstr(p, " \n"));
	ai_test_fast_rows = 0;
	plain = parse(p);
	fast_plain = ai_test_fast_rows;
	ai_test_fast_rows = 0;
	mixed = parse(m);
	fast_mixed = ai_test_fast_rows;
	assert_same_lists(l, plain);
	assert_same_lists(mixed, plain);

	/* a scan of the file, which cuts the names out of its own buffer */
	ai_test_fast_rows = 0;
	assert_int_equal(allocinfo_list_scan_path(s, FIX "v2-row-end-blank.txt"), ALLOCINFO_OK);
	for (e = allocinfo_list_first(plain); (se = allocinfo_list_scan_next(s));
	     e = allocinfo_entry_next(e))
		assert_same_entry(se, e);
	assert_null(e);
	fast_scan = ai_test_fast_rows;

	assert_int_equal(fast_blank, fast_plain);
	assert_int_equal(fast_mixed, fast_plain);
	assert_int_equal(fast_scan, fast_plain);
#if defined(__x86_64__)
	/* the first five fit in the one pass's 64 bytes, blank included */
	assert_true(fast_plain >= 5);
#endif
	allocinfo_list_free(l);
	allocinfo_list_free(plain);
	allocinfo_list_free(mixed);
	allocinfo_list_free(s);
	free(p);
	free(m);
}

static void duplicates_kept_apart(void **state)
{
	struct allocinfo_list *l;
	struct allocinfo_entry *a, *b;

	(void)state;
	l = parse("allocinfo - version: 1.0\n10 1 a.c:1 func:f\n20 2 a.c:1 func:f\n"
		  "30 3 a.c:1 [m] func:f\n");
	assert_int_equal(allocinfo_list_count(l), 3);
	a = nth(l, 0);
	b = nth(l, 1);
	assert_ptr_not_equal(a, b);
	assert_int_equal(allocinfo_entry_occurrence(a), 0);
	assert_int_equal(allocinfo_entry_occurrence(b), 1);
	assert_int_equal(allocinfo_entry_occurrence(nth(l, 2)), 0);
	assert_ptr_equal(allocinfo_list_find(l, "a.c", 1, "f", NULL), a);
	assert_ptr_equal(allocinfo_list_find(l, "a.c", 1, "f", "m"), nth(l, 2));
	/* update: values follow the row order */
	{
		static const char u[] = "allocinfo - version: 1.0\n"
					"11 1 a.c:1 func:f\n22 2 a.c:1 func:f\n";

		assert_int_equal(allocinfo_list_read_buffer(l, u, sizeof(u) - 1), ALLOCINFO_OK);
	}
	assert_ptr_equal(nth(l, 0), a);
	assert_ptr_equal(nth(l, 1), b);
	assert_int_equal(allocinfo_entry_bytes(a), 11);
	assert_int_equal(allocinfo_entry_bytes(b), 22);
	assert_true(allocinfo_entry_vanished(nth(l, 2)));
	allocinfo_list_free(l);
}

/* identity must not depend on row order, with or without duplicates */
static void update_reordered(void **state)
{
	enum { N = 300 };
	struct allocinfo_list *l = allocinfo_list_new();
	struct allocinfo_entry *ptr[N];
	char *buf = malloc(N * 64 + 64), *p;
	size_t i;

	(void)state;
	for (int pass = 0; pass < 3; pass++) {
		p = buf + sprintf(buf, "allocinfo - version: 1.0\n");
		for (size_t k = 0; k < N; k++) {
			/* pass 0: in order; 1: reversed; 2: odd rows first */
			i = pass == 0 ? k : pass == 1 ? N - 1 - k : (k < N / 2 ? 2 * k + 1 : 2 * (k - N / 2));
			/* rows i and i^1 share a key when i % 10 < 2: duplicates */
			p += sprintf(p, "%zu 1 f%zu.c:1 func:g\n", 1000 * (size_t)pass + i,
				     i % 10 < 2 ? i / 10 : 1000 + i);
		}
		assert_int_equal(allocinfo_list_read_buffer(l, buf, (size_t)(p - buf)), ALLOCINFO_OK);
		assert_int_equal(allocinfo_list_count(l), N);
		assert_int_equal(allocinfo_list_present(l), N);
		if (pass == 0) {
			i = 0;
			for (struct allocinfo_entry *e = allocinfo_list_first(l); e;
			     e = allocinfo_entry_next(e))
				ptr[i++] = e;
			continue;
		}
		/* unique keys: the same entry, updated to this pass's value */
		for (i = 0; i < N; i++) {
			if (i % 10 < 2)
				continue;
			assert_int_equal(allocinfo_entry_bytes(ptr[i]), 1000 * pass + (int)i);
			assert_false(allocinfo_entry_vanished(ptr[i]));
		}
	}
	/* the duplicated keys got both rows, none lost or merged */
	{
		int64_t sum = 0;

		for (i = 0; i < N; i++)
			sum += allocinfo_entry_bytes(ptr[i]);
		assert_int_equal(sum, N * 2000 + N * (N - 1) / 2);
	}
	allocinfo_list_free(l);
	free(buf);
}

static void very_long_line(void **state)
{
	size_t n = 1 << 20;
	char *buf = malloc(n + 200), *p;
	struct allocinfo_list *l = allocinfo_list_new();

	(void)state;
	assert_non_null(buf);
	p = buf + sprintf(buf, "allocinfo - version: 1.0\n 7 1 a.c:9 func:");
	memset(p, 'x', n);
	p += n;
	p += sprintf(p, "\n 8 1 b.c:9 func:g\n");
	assert_int_equal(allocinfo_list_read_buffer(l, buf, (size_t)(p - buf)), ALLOCINFO_OK);
	assert_int_equal(allocinfo_list_count(l), 2);
	assert_int_equal(strlen(allocinfo_entry_func(nth(l, 0))), n);
	assert_int_equal(allocinfo_entry_bytes(nth(l, 1)), 8);
	allocinfo_list_free(l);
	free(buf);
}

static void version_checks(void **state)
{
	struct allocinfo_list *l = allocinfo_list_new();
	static const char ok[] = "allocinfo - version: 1.0\n5 1 a.c:1 func:f\n";

	(void)state;
	assert_int_equal(allocinfo_list_read_buffer(l, ok, strlen(ok)), ALLOCINFO_OK);
	assert_int_equal(allocinfo_list_read_path(l, FIX "malformed/v3.txt"), ALLOCINFO_EVERSION);
	assert_int_equal(allocinfo_list_geterror(l), ALLOCINFO_EVERSION);
	assert_int_equal(allocinfo_list_version_major(l), 3);
	/* a refused read leaves the entries alone */
	assert_int_equal(allocinfo_list_count(l), 1);
	assert_false(allocinfo_entry_vanished(nth(l, 0)));
	assert_int_equal(allocinfo_list_read_buffer(l, "allocinfo - version: 0.9\n", 25),
			 ALLOCINFO_EVERSION);
	assert_int_equal(allocinfo_list_read_buffer(l, "allocinfo - version: 1.7\n", 25),
			 ALLOCINFO_OK);
	assert_int_equal(allocinfo_list_version_minor(l), 7);
	/* a third component (a stable kernel's own numbering) is not a new format */
	assert_int_equal(allocinfo_list_read_buffer(l, "allocinfo - version: 1.0.1\n", 27),
			 ALLOCINFO_OK);
	assert_int_equal(allocinfo_list_version_major(l), 1);
	assert_int_equal(allocinfo_list_version_minor(l), 0);
	assert_int_equal(allocinfo_list_read_buffer(l, "allocinfo - version: 2.1.3.4\n", 29),
			 ALLOCINFO_OK);
	assert_int_equal(allocinfo_list_version_minor(l), 1);
	assert_int_equal(allocinfo_list_read_buffer(l, "allocinfo - version: 1.0.\n", 26),
			 ALLOCINFO_ENOHEADER);
	assert_int_equal(allocinfo_list_read_buffer(l, "allocinfo - version: x\n", 23),
			 ALLOCINFO_ENOHEADER);
	assert_int_equal(allocinfo_list_read_buffer(l, "allocinfo - version: 1.0 junk\n", 30),
			 ALLOCINFO_ENOHEADER);
	allocinfo_list_free(l);
}

static void missing_header(void **state)
{
	struct allocinfo_list *l = allocinfo_list_new();

	(void)state;
	assert_int_equal(allocinfo_list_read_path(l, FIX "malformed/no-header.txt"),
			 ALLOCINFO_ENOHEADER);
	assert_int_equal(allocinfo_list_read_path(l, FIX "malformed/empty.txt"),
			 ALLOCINFO_ENOHEADER);
	assert_int_equal(allocinfo_list_read_buffer(l, NULL, 0), ALLOCINFO_ENOHEADER);
	assert_int_equal(allocinfo_list_count(l), 0);
	allocinfo_list_free(l);
}

static void malformed_rows_reported(void **state)
{
	struct allocinfo_list *l = allocinfo_list_new();
	static const size_t want[] = { 4, 5, 6, 7, 8, 9, 10, 11, 12, 14 };
	struct allocinfo_entry *e;

	(void)state;
	assert_int_equal(allocinfo_list_read_path(l, FIX "malformed/bad-rows.txt"), ALLOCINFO_OK);
	assert_int_equal(allocinfo_list_malformed_count(l), 10);
	for (size_t i = 0; i < 10; i++) {
		assert_int_equal(allocinfo_list_malformed_line(l, i), want[i]);
		assert_non_null(allocinfo_list_malformed_reason(l, i));
	}
	assert_int_equal(allocinfo_list_malformed_line(l, 10), 0);
	assert_null(allocinfo_list_malformed_reason(l, 10));
	/* only the two good rows exist: nothing was turned into zeros */
	assert_int_equal(allocinfo_list_count(l), 2);
	for (e = allocinfo_list_first(l); e; e = allocinfo_entry_next(e))
		assert_true(allocinfo_entry_bytes(e) > 0);
	assert_string_equal(allocinfo_entry_func(nth(l, 1)), "ok_after_bad");
	allocinfo_list_free(l);
}

static void malformed_kv_and_nul(void **state)
{
	struct allocinfo_list *l = allocinfo_list_new();
	static const char nul[] = "allocinfo - version: 1.0\n1 1 a.c:1 func:f\n2 2 b\0.c:1 func:g\n";

	(void)state;
	assert_int_equal(allocinfo_list_read_path(l, FIX "malformed/bad-kv.txt"), ALLOCINFO_OK);
	assert_int_equal(allocinfo_list_count(l), 1);
	assert_int_equal(allocinfo_list_malformed_count(l), 2);
	assert_string_equal(allocinfo_list_malformed_reason(l, 0), "bad key:value pair");
	allocinfo_list_free(l);
	l = allocinfo_list_new();
	assert_int_equal(allocinfo_list_read_buffer(l, nul, sizeof(nul) - 1), ALLOCINFO_OK);
	assert_int_equal(allocinfo_list_count(l), 1);
	assert_int_equal(allocinfo_list_malformed_count(l), 1);
	assert_int_equal(allocinfo_list_malformed_line(l, 0), 3);
	allocinfo_list_free(l);
}

static void many_malformed_capped(void **state)
{
	struct allocinfo_list *l = allocinfo_list_new();
	size_t cap = 100 * 8 + 64;
	char *buf = malloc(cap), *p = buf;

	(void)state;
	p += sprintf(p, "allocinfo - version: 1.0\n");
	for (int i = 0; i < 100; i++)
		p += sprintf(p, "garbage\n");
	assert_int_equal(allocinfo_list_read_buffer(l, buf, (size_t)(p - buf)), ALLOCINFO_OK);
	assert_int_equal(allocinfo_list_malformed_count(l), 100);
	assert_int_equal(allocinfo_list_malformed_line(l, ALLOCINFO_MALFORMED_MAX - 1),
			 ALLOCINFO_MALFORMED_MAX + 1);
	assert_int_equal(allocinfo_list_malformed_line(l, ALLOCINFO_MALFORMED_MAX), 0);
	/* a clean read resets the count */
	assert_int_equal(allocinfo_list_read_buffer(l, "allocinfo - version: 1.0\n", 25), ALLOCINFO_OK);
	assert_int_equal(allocinfo_list_malformed_count(l), 0);
	allocinfo_list_free(l);
	free(buf);
}

static void update_in_place(void **state)
{
	static const char r1[] = "allocinfo - version: 2.0\n"
		"100 1 a.c:1 func:f k:1\n200 2 b.c:2 [m] func:g\n300 3 c.c:3 func:h\n";
	static const char r2[] = "allocinfo - version: 2.0\n"
		"150 5 a.c:1 func:f k:2 j:3\n400 4 d.c:4 func:i\n300 3 c.c:3 func:h\n";
	struct allocinfo_list *l = allocinfo_list_new();
	struct allocinfo_entry *a, *b, *c, *d;
	int cookie;

	(void)state;
	assert_int_equal(allocinfo_list_read_buffer(l, r1, strlen(r1)), ALLOCINFO_OK);
	assert_int_equal(allocinfo_list_generation(l), 1);
	a = allocinfo_list_find(l, "a.c", 1, "f", NULL);
	b = allocinfo_list_find(l, "b.c", 2, "g", "m");
	c = allocinfo_list_find(l, "c.c", 3, "h", NULL);
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(c);
	assert_null(allocinfo_list_find(l, "b.c", 2, "g", NULL));
	allocinfo_entry_set_ptr(a, &cookie);
	allocinfo_entry_set_u64(a, UINT64_C(0xdeadbeefcafe));
	assert_int_equal(allocinfo_list_read_buffer(l, r2, strlen(r2)), ALLOCINFO_OK);
	assert_int_equal(allocinfo_list_generation(l), 2);
	assert_ptr_equal(allocinfo_list_find(l, "a.c", 1, "f", NULL), a);
	assert_ptr_equal(allocinfo_entry_get_ptr(a), &cookie);
	assert_true(allocinfo_entry_get_u64(a) == UINT64_C(0xdeadbeefcafe));
	assert_int_equal(allocinfo_entry_bytes(a), 150);
	assert_int_equal(allocinfo_entry_calls(a), 5);
	assert_string_equal(allocinfo_entry_kv_find(a, "k"), "2");
	assert_string_equal(allocinfo_entry_kv_find(a, "j"), "3");
	assert_true(allocinfo_entry_vanished(b));
	assert_int_equal(allocinfo_entry_bytes(b), 200);	/* last known */
	assert_false(allocinfo_entry_vanished(c));
	d = allocinfo_list_find(l, "d.c", 4, "i", NULL);
	assert_non_null(d);
	assert_null(allocinfo_entry_get_ptr(d));
	assert_int_equal(allocinfo_list_count(l), 4);
	assert_int_equal(allocinfo_list_present(l), 3);
	/* reappearing keeps the same entry */
	assert_int_equal(allocinfo_list_read_buffer(l, r1, strlen(r1)), ALLOCINFO_OK);
	assert_ptr_equal(allocinfo_list_find(l, "b.c", 2, "g", "m"), b);
	assert_false(allocinfo_entry_vanished(b));
	assert_true(allocinfo_entry_vanished(d));
	assert_int_equal(allocinfo_entry_kv_count(a), 1);
	/* prune frees only the vanished one */
	assert_int_equal(allocinfo_list_prune(l), 1);
	assert_int_equal(allocinfo_list_count(l), 3);
	assert_null(allocinfo_list_find(l, "d.c", 4, "i", NULL));
	assert_ptr_equal(allocinfo_list_find(l, "a.c", 1, "f", NULL), a);
	assert_int_equal(allocinfo_list_prune(l), 0);
	allocinfo_list_free(l);
}

static void lookups(void **state)
{
	struct allocinfo_list *l = allocinfo_list_new();
	struct allocinfo_entry *e;
	int n;

	(void)state;
	assert_int_equal(allocinfo_list_read_path(l, FIX "v1.txt"), ALLOCINFO_OK);
	for (n = 0, e = NULL; (e = allocinfo_list_find_func(l, "alloc_slab_page", e)); n++)
		assert_string_equal(allocinfo_entry_file(e), "mm/slub.c");
	assert_int_equal(n, 2);
	for (n = 0, e = NULL; (e = allocinfo_list_find_module(l, "foo", e)); n++)
		assert_string_equal(allocinfo_entry_module(e), "foo");
	assert_int_equal(n, 2);
	for (n = 0, e = NULL; (e = allocinfo_list_find_module(l, NULL, e)); n++)
		assert_null(allocinfo_entry_module(e));
	assert_int_equal(n, 7);
	e = allocinfo_list_find(l, "drivers/foo/bar.c", 77, NULL, NULL);
	assert_non_null(e);
	assert_string_equal(allocinfo_entry_func(e), "foo_init");
	assert_null(allocinfo_list_find(l, "drivers/foo/bar.c", 78, NULL, NULL));
	assert_null(allocinfo_list_find_func(l, "nope", NULL));
	assert_null(allocinfo_list_find(NULL, "a", 1, NULL, NULL));
	allocinfo_list_free(l);
}

static void read_fd_pipe(void **state)
{
	int p[2];
	struct allocinfo_list *l = allocinfo_list_new();
	static const char s[] = "allocinfo - version: 1.0\n42 3 x.c:5 func:z\n";
	const char *raw;
	size_t len;

	(void)state;
	assert_int_equal(pipe(p), 0);
	assert_int_equal(write(p[1], s, sizeof(s) - 1), (ssize_t)(sizeof(s) - 1));
	close(p[1]);
	assert_int_equal(allocinfo_list_read_fd(l, p[0]), ALLOCINFO_OK);
	close(p[0]);
	assert_int_equal(allocinfo_entry_bytes(nth(l, 0)), 42);
	raw = allocinfo_list_raw(l, &len);
	assert_non_null(raw);
	assert_int_equal(len, sizeof(s) - 1);
	assert_memory_equal(raw, s, len);
	assert_int_equal(allocinfo_list_read_fd(l, -1), ALLOCINFO_EINVAL);
	allocinfo_list_free(l);
}

static void path_errors(void **state)
{
	struct allocinfo_list *l = allocinfo_list_new();
	char tmpl[] = "/tmp/allocinfo-test-XXXXXX";
	int fd;

	(void)state;
	assert_int_equal(allocinfo_list_read_path(l, "/nonexistent/allocinfo"), ALLOCINFO_ENOENT);
	assert_int_equal(allocinfo_list_errno(l), ENOENT);
	assert_int_equal(allocinfo_list_read_path(l, "/"), ALLOCINFO_EIO);
	assert_int_equal(allocinfo_list_errno(l), EISDIR);
	assert_int_equal(allocinfo_list_read_path(l, NULL), ALLOCINFO_EINVAL);
	fd = mkstemp(tmpl);
	assert_true(fd >= 0);
	close(fd);
	chmod(tmpl, 0);
	if (geteuid() != 0) {
		assert_int_equal(allocinfo_list_read_path(l, tmpl), ALLOCINFO_EACCES);
		assert_int_equal(allocinfo_list_errno(l), EACCES);
	}
	unlink(tmpl);
	allocinfo_list_free(l);
}

/* a source without end (/dev/zero, a pipe that never closes) must fail */
static void input_limit(void **state)
{
	static const char r1[] = "allocinfo - version: 1.0\n5 1 a.c:1 func:f\n";
	static const char r2[] = "allocinfo - version: 1.0\n7 1 a.c:1 func:f\n";
	struct allocinfo_list *l = allocinfo_list_new();
	int p[2];

	(void)state;
	assert_int_equal(allocinfo_list_read_path(l, "/dev/zero"), ALLOCINFO_ETOOBIG);
	assert_string_equal(allocinfo_strerror(ALLOCINFO_ETOOBIG), "input too large");
	assert_int_equal(allocinfo_list_read_buffer(l, r1, sizeof(r1) - 1), ALLOCINFO_OK);
	/* exactly the limit is fine, one byte more is refused, entries kept */
	assert_int_equal(allocinfo_list_set_max_input(l, sizeof(r2) - 1), ALLOCINFO_OK);
	assert_int_equal(allocinfo_list_read_buffer(l, r2, sizeof(r2) - 1), ALLOCINFO_OK);
	assert_int_equal(allocinfo_entry_bytes(nth(l, 0)), 7);
	assert_int_equal(allocinfo_list_set_max_input(l, sizeof(r1) - 2), ALLOCINFO_OK);
	assert_int_equal(allocinfo_list_read_buffer(l, r1, sizeof(r1) - 1), ALLOCINFO_ETOOBIG);
	assert_int_equal(allocinfo_list_geterror(l), ALLOCINFO_ETOOBIG);
	assert_int_equal(pipe(p), 0);
	assert_int_equal(write(p[1], r1, sizeof(r1) - 1), (ssize_t)(sizeof(r1) - 1));
	close(p[1]);
	assert_int_equal(allocinfo_list_read_fd(l, p[0]), ALLOCINFO_ETOOBIG);
	close(p[0]);
	assert_int_equal(allocinfo_entry_bytes(nth(l, 0)), 7);
	assert_false(allocinfo_entry_vanished(nth(l, 0)));
	/* 0: no limit */
	assert_int_equal(allocinfo_list_set_max_input(l, 0), ALLOCINFO_OK);
	assert_int_equal(allocinfo_list_read_buffer(l, r1, sizeof(r1) - 1), ALLOCINFO_OK);
	assert_int_equal(allocinfo_list_set_max_input(NULL, 1), ALLOCINFO_EINVAL);
	allocinfo_list_free(l);
}

/* ---- queries, scans, copies --------------------------------------------- */

static const char qtext[] = "allocinfo - version: 2.0\n"
	"100 1 mm/a.c:1 func:alloc_a k:1\n"
	"200 2 mm/b.c:2 [ext4] func:ext4_b\n"
	"0 0 fs/c.c:3 func:alloc_c\n"
	"400 4 drivers/d.c:4 [foo] func:foo_d\n"
	"-8 1 mm/e.c:5 func:free_e\n";

static size_t count_entries(const struct allocinfo_list *l)
{
	size_t n = 0;

	for (struct allocinfo_entry *e = allocinfo_list_first(l); e; e = allocinfo_entry_next(e))
		n += !allocinfo_entry_vanished(e);
	return n;
}

static void query_filters(void **state)
{
	struct allocinfo_query *q = allocinfo_query_new();
	struct allocinfo_list *l = allocinfo_list_new();

	(void)state;
	assert_non_null(q);
	/* include patterns of one field: any; of several fields: all */
	assert_int_equal(allocinfo_query_add_match(q, ALLOCINFO_FIELD_FILE, "^mm/", 0), ALLOCINFO_OK);
	assert_int_equal(allocinfo_query_add_match(q, ALLOCINFO_FIELD_FILE, "^fs/", 0), ALLOCINFO_OK);
	assert_int_equal(allocinfo_list_set_query(l, q), ALLOCINFO_OK);
	assert_int_equal(allocinfo_list_read_buffer(l, qtext, sizeof(qtext) - 1), ALLOCINFO_OK);
	assert_int_equal(allocinfo_list_count(l), 4);
	assert_null(allocinfo_list_find(l, "drivers/d.c", 4, "foo_d", "foo"));
	/* built-in code is "vmlinux" to module patterns */
	assert_int_equal(allocinfo_query_add_match(q, ALLOCINFO_FIELD_MODULE, "vmlinux",
						   ALLOCINFO_MATCH_EXACT), ALLOCINFO_OK);
	assert_int_equal(allocinfo_query_add_match(q, ALLOCINFO_FIELD_FUNC, "^free_",
						   ALLOCINFO_MATCH_EXCLUDE), ALLOCINFO_OK);
	assert_int_equal(allocinfo_list_read_buffer(l, qtext, sizeof(qtext) - 1), ALLOCINFO_OK);
	assert_int_equal(count_entries(l), 2);
	assert_true(allocinfo_entry_vanished(allocinfo_list_find(l, "mm/b.c", 2, "ext4_b", "ext4")));
	assert_true(allocinfo_entry_vanished(allocinfo_list_find(l, "mm/e.c", 5, "free_e", NULL)));
	/* counters: an entry below the minimum is not stored, as if absent */
	assert_int_equal(allocinfo_query_set_nonzero(q, 1), ALLOCINFO_OK);
	assert_int_equal(allocinfo_list_read_buffer(l, qtext, sizeof(qtext) - 1), ALLOCINFO_OK);
	assert_int_equal(count_entries(l), 1);
	assert_int_equal(allocinfo_entry_bytes(allocinfo_list_find(l, "mm/a.c", 1, "alloc_a", NULL)), 100);
	assert_true(allocinfo_query_test(q, allocinfo_list_find(l, "mm/a.c", 1, "alloc_a", NULL)));
	assert_false(allocinfo_query_test(q, allocinfo_list_find(l, "fs/c.c", 3, "alloc_c", NULL)));
	allocinfo_query_free(q);
	q = allocinfo_query_new();
	assert_int_equal(allocinfo_query_set_min_bytes(q, 200), ALLOCINFO_OK);
	assert_int_equal(allocinfo_query_set_min_calls(q, 3), ALLOCINFO_OK);
	assert_int_equal(allocinfo_list_set_query(l, q), ALLOCINFO_OK);
	assert_int_equal(allocinfo_list_read_buffer(l, qtext, sizeof(qtext) - 1), ALLOCINFO_OK);
	assert_int_equal(allocinfo_list_present(l), 1);
	assert_int_equal(allocinfo_entry_calls(allocinfo_list_find(l, "drivers/d.c", 4, "foo_d", "foo")), 4);
	/* no query: every row again */
	assert_int_equal(allocinfo_list_set_query(l, NULL), ALLOCINFO_OK);
	assert_int_equal(allocinfo_list_read_buffer(l, qtext, sizeof(qtext) - 1), ALLOCINFO_OK);
	assert_int_equal(allocinfo_list_present(l), 5);
	/* errors say why */
	assert_int_equal(allocinfo_query_add_match(q, ALLOCINFO_FIELD_FUNC, "(", 0), ALLOCINFO_EINVAL);
	assert_non_null(allocinfo_query_error(q));
	assert_int_equal(allocinfo_query_add_match(q, 42, "x", 0), ALLOCINFO_EINVAL);
	assert_int_equal(allocinfo_query_add_match(q, ALLOCINFO_FIELD_FUNC, "x", 8), ALLOCINFO_EINVAL);
	assert_int_equal(allocinfo_query_add_match(NULL, ALLOCINFO_FIELD_FUNC, "x", 0), ALLOCINFO_EINVAL);
	assert_int_equal(allocinfo_query_add_match(q, ALLOCINFO_FIELD_FUNC, "x", 0), ALLOCINFO_OK);
	assert_null(allocinfo_query_error(q));
	allocinfo_query_free(q);
	allocinfo_query_free(NULL);
	allocinfo_list_free(l);
}

/* Write @len bytes of @s to a new temporary file; returns its name. */
static char *tmpfile_with(const char *s, size_t len)
{
	static char name[64];
	int fd;

	strcpy(name, "/tmp/allocinfo-scan-XXXXXX");
	fd = mkstemp(name);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, s, len), (ssize_t)len);
	close(fd);
	return name;
}

/*
 * A scan (a chunk at a time) returns exactly the rows a list read stores,
 * in order, with the same fields, across chunk boundaries and lines longer
 * than a chunk; malformed lines are counted alike.
 */
static void scan_matches_read(void **state)
{
	enum { ROWS = 30000 };
	size_t cap = ROWS * 120 + 3 * 200000, n = 0;
	char *buf = malloc(cap), *p = buf, *path;
	struct allocinfo_list *l = allocinfo_list_new(), *s = allocinfo_list_new();
	const struct allocinfo_entry *se;
	struct allocinfo_entry *e;
	uint64_t seed = 7;

	(void)state;
	assert_non_null(buf);
	p += sprintf(p, "# kernel: test\nallocinfo - version: 2.0\n# <size> <calls> <tag info>\n");
	for (size_t i = 0; i < ROWS; i++) {
		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		if (i % 10000 == 5000) {	/* a line of 150 KB: more than two chunks */
			p += sprintf(p, "%zu 1 long/", i);
			memset(p, 'd', 150000);
			p += 150000;
			p += sprintf(p, ".c:1 func:long%zu k:v\n", i);
			continue;
		}
		if (i % 997 == 3) {
			p += sprintf(p, "garbage line %zu\n", i);
			continue;
		}
		p += sprintf(p, "%12" PRId64 " %8" PRIu64 " dir%zu/f%zu.c:%zu%s func:fn_%zu%s\n",
			     (int64_t)(seed % 1000000) - 100, seed % 977, i % 31, i % 7, i,
			     i % 5 ? "" : " [mod]", i, i % 3 ? "" : " a:1 b:x:y");
	}
	p += sprintf(p, "5 1 last.c:1 func:no_newline");
	assert_true((size_t)(p - buf) < cap);
	path = tmpfile_with(buf, (size_t)(p - buf));
	assert_int_equal(allocinfo_list_read_path(l, path), ALLOCINFO_OK);
	assert_int_equal(allocinfo_list_scan_path(s, path), ALLOCINFO_OK);
	assert_int_equal(allocinfo_list_version_major(s), 2);
	assert_string_equal(allocinfo_list_header(s, "kernel"), "test");
	e = allocinfo_list_first(l);
	while ((se = allocinfo_list_scan_next(s))) {
		const char *k1, *v1, *k2, *v2;

		assert_non_null(e);
		assert_true(allocinfo_entry_bytes(se) == allocinfo_entry_bytes(e));
		assert_true(allocinfo_entry_calls(se) == allocinfo_entry_calls(e));
		assert_string_equal(allocinfo_entry_file(se), allocinfo_entry_file(e));
		assert_int_equal(allocinfo_entry_line(se), allocinfo_entry_line(e));
		assert_string_equal(allocinfo_entry_func(se), allocinfo_entry_func(e));
		assert_true((allocinfo_entry_module(se) == NULL) == (allocinfo_entry_module(e) == NULL));
		if (allocinfo_entry_module(e))
			assert_string_equal(allocinfo_entry_module(se), allocinfo_entry_module(e));
		assert_int_equal(allocinfo_entry_lineno(se), allocinfo_entry_lineno(e));
		assert_int_equal(allocinfo_entry_kv_count(se), allocinfo_entry_kv_count(e));
		for (size_t i = 0; i < allocinfo_entry_kv_count(e); i++) {
			allocinfo_entry_kv_get(se, i, &k1, &v1);
			allocinfo_entry_kv_get(e, i, &k2, &v2);
			assert_string_equal(k1, k2);
			assert_string_equal(v1, v2);
		}
		assert_null(allocinfo_entry_next(se));
		e = allocinfo_entry_next(e);
		n++;
	}
	assert_int_equal(allocinfo_list_geterror(s), ALLOCINFO_OK);
	assert_null(e);
	assert_int_equal(n, allocinfo_list_count(l));
	assert_int_equal(allocinfo_list_malformed_count(s), allocinfo_list_malformed_count(l));
	assert_true(allocinfo_list_malformed_count(s) > 20);
	for (size_t i = 0; i < ALLOCINFO_MALFORMED_MAX; i++)
		assert_int_equal(allocinfo_list_malformed_line(s, i), allocinfo_list_malformed_line(l, i));
	/* a scan stores nothing: the scanning list has no entries */
	assert_int_equal(allocinfo_list_count(s), 0);
	assert_null(allocinfo_list_scan_next(s));
	unlink(path);
	allocinfo_list_free(l);
	allocinfo_list_free(s);
	free(buf);
}

static void scan_query_and_dup(void **state)
{
	struct allocinfo_query *q = allocinfo_query_new();
	struct allocinfo_list *l = allocinfo_list_new();
	const struct allocinfo_entry *se;
	struct allocinfo_entry *d, *kept[8];
	size_t n = 0;

	(void)state;
	/* a scan leaves the list's entries alone */
	assert_int_equal(allocinfo_list_read_buffer(l, qtext, 60), ALLOCINFO_OK);
	assert_int_equal(allocinfo_list_count(l), 1);
	assert_int_equal(allocinfo_query_add_match(q, ALLOCINFO_FIELD_MODULE, "^vmlinux$", 0), ALLOCINFO_OK);
	assert_int_equal(allocinfo_query_set_min_bytes(q, 1), ALLOCINFO_OK);
	assert_int_equal(allocinfo_list_set_query(l, q), ALLOCINFO_OK);
	assert_int_equal(allocinfo_list_scan_buffer(l, qtext, sizeof(qtext) - 1), ALLOCINFO_OK);
	while ((se = allocinfo_list_scan_next(l))) {
		assert_true(n < 8);
		kept[n] = allocinfo_entry_dup(se);
		assert_non_null(kept[n]);
		n++;
	}
	assert_int_equal(n, 1);
	d = kept[0];
	assert_string_equal(allocinfo_entry_func(d), "alloc_a");
	assert_string_equal(allocinfo_entry_kv_find(d, "k"), "1");
	assert_int_equal(allocinfo_entry_lineno(d), 2);
	assert_null(allocinfo_entry_module(d));
	assert_int_equal(allocinfo_list_count(l), 1);
	assert_false(allocinfo_entry_vanished(allocinfo_list_first(l)));
	/* the copy outlives the scan and the list */
	allocinfo_list_free(l);
	assert_int_equal(allocinfo_entry_bytes(d), 100);
	assert_string_equal(allocinfo_entry_file(d), "mm/a.c");
	allocinfo_entry_free(d);
	allocinfo_entry_free(NULL);
	/* a list's own entries are not the caller's to free */
	l = parse(qtext);
	allocinfo_entry_free(allocinfo_list_first(l));
	assert_int_equal(allocinfo_entry_bytes(allocinfo_list_first(l)), 100);
	/* header errors come back from the scan call */
	assert_int_equal(allocinfo_list_scan_buffer(l, "x\n", 2), ALLOCINFO_ENOHEADER);
	assert_null(allocinfo_list_scan_next(l));
	assert_int_equal(allocinfo_list_scan_path(l, "/nonexistent"), ALLOCINFO_ENOENT);
	assert_int_equal(allocinfo_list_scan_fd(l, -1), ALLOCINFO_EINVAL);
	allocinfo_list_free(l);
	allocinfo_query_free(q);
}

/*
 * A regular expression that names one whole string is an exact match (the
 * kernel can filter on it); one with a special character left is not.
 */
static void literal_patterns(void **state)
{
	static const char buf[] =
		"allocinfo - version: 2.0\n"
		"10 1 mm/slub.c:1 func:f\n"
		"20 1 mm/slubxc:1 func:f\n"
		"30 1 mm/slub.c:2 [m] func:f\n";
	static const struct { const char *re; size_t rows; } cases[] = {
		{ "^mm/slub\\.c$", 2 }, { "^mm/slub.c$", 3 }, { "mm/slub\\.c", 2 },
		{ "^mm/slub\\.c", 2 }, { "^mm/slub\\.c\\$", 0 },
	};
	struct allocinfo_list *l = allocinfo_list_new();

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct allocinfo_query *q = allocinfo_query_new();

		assert_int_equal(allocinfo_query_add_match(q, ALLOCINFO_FIELD_FILE,
							   cases[i].re, 0), ALLOCINFO_OK);
		allocinfo_list_set_query(l, q);
		assert_int_equal(allocinfo_list_read_buffer(l, buf, sizeof(buf) - 1),
				 ALLOCINFO_OK);
		assert_int_equal(allocinfo_list_present(l), cases[i].rows);
		allocinfo_list_set_query(l, NULL);
		allocinfo_query_free(q);
	}
	allocinfo_list_free(l);
}

/* Files are text: the query ioctls only where asked for, with a clear error. */
static void backends(void **state)
{
	struct allocinfo_list *l = allocinfo_list_new();
	struct allocinfo_query *q = allocinfo_query_new();
	char path[] = "/tmp/allocinfo-test-XXXXXX";
	static const char text[] = "allocinfo - version: 2.0\n5 1 a.c:1 func:f\n";
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, sizeof(text) - 1), (ssize_t)sizeof(text) - 1);
	assert_int_equal(allocinfo_list_set_backend(l, 7), ALLOCINFO_EINVAL);
	assert_int_equal(allocinfo_list_set_backend(NULL, 0), ALLOCINFO_EINVAL);
	assert_int_equal(allocinfo_query_add_match(q, ALLOCINFO_FIELD_FILE, "a.c",
						   ALLOCINFO_MATCH_EXACT), ALLOCINFO_OK);
	allocinfo_list_set_query(l, q);
	assert_int_equal(allocinfo_list_read_path(l, path), ALLOCINFO_OK);
	assert_int_equal(allocinfo_list_backend(l), ALLOCINFO_BACKEND_TEXT);
	assert_int_equal(allocinfo_list_present(l), 1);
	assert_int_equal(allocinfo_list_set_backend(l, ALLOCINFO_BACKEND_IOCTL), ALLOCINFO_OK);
	assert_int_equal(allocinfo_list_read_path(l, path), ALLOCINFO_ENOIOCTL);
	assert_int_equal(allocinfo_list_scan_path(l, path), ALLOCINFO_ENOIOCTL);
	assert_null(allocinfo_list_scan_next(l));
	/* the failed reads lost nothing */
	assert_int_equal(allocinfo_list_present(l), 1);
	assert_string_equal(allocinfo_entry_file(allocinfo_list_first(l)), "a.c");
	assert_int_equal(allocinfo_list_set_backend(l, ALLOCINFO_BACKEND_TEXT), ALLOCINFO_OK);
	assert_int_equal(allocinfo_list_scan_path(l, path), ALLOCINFO_OK);
	assert_non_null(allocinfo_list_scan_next(l));
	assert_int_equal(allocinfo_list_backend(l), ALLOCINFO_BACKEND_TEXT);
	close(fd);
	unlink(path);
	allocinfo_list_free(l);
	allocinfo_query_free(q);
}

/* sources without end: a scan holds a chunk, and stops at the limit */
static void scan_limits(void **state)
{
	struct allocinfo_list *l = allocinfo_list_new();
	int p[2], st;
	pid_t pid;
	size_t n = 0;

	(void)state;
	assert_int_equal(allocinfo_list_set_max_input(l, 1 << 20), ALLOCINFO_OK);
	assert_int_equal(allocinfo_list_scan_path(l, "/dev/zero"), ALLOCINFO_ETOOBIG);
	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		static const char row[] = "1 1 a.c:1 func:f\n";

		close(p[0]);
		if (write(p[1], "allocinfo - version: 1.0\n", 25) != 25)
			_exit(1);
		while (write(p[1], row, sizeof(row) - 1) > 0)
			;
		_exit(0);
	}
	close(p[1]);
	assert_int_equal(allocinfo_list_scan_fd(l, p[0]), ALLOCINFO_OK);
	while (allocinfo_list_scan_next(l))
		n++;
	assert_int_equal(allocinfo_list_geterror(l), ALLOCINFO_ETOOBIG);
	assert_true(n > 50000 && n < (1 << 20) / 17 + 1);
	close(p[0]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	allocinfo_list_free(l);
}

static void strerror_all(void **state)
{
	(void)state;
	for (int i = 0; i < ALLOCINFO_NERRORS; i++) {
		assert_non_null(allocinfo_strerror(i));
		for (int j = 0; j < i; j++)
			assert_string_not_equal(allocinfo_strerror(i), allocinfo_strerror(j));
	}
	assert_string_equal(allocinfo_strerror(-1), "unknown error");
	assert_string_equal(allocinfo_strerror(ALLOCINFO_NERRORS), "unknown error");
	assert_int_equal(allocinfo_list_geterror(NULL), ALLOCINFO_EINVAL);
}

static void snapshot_header_meta(void **state)
{
	struct allocinfo_list *l;

	(void)state;
	l = parse("# allocinfo-snapshot: 1\n# boot_id: abc-def\n# kernel: 6.1.0\n"
		  "allocinfo - version: 1.0\n1 1 a.c:1 func:f\n");
	assert_string_equal(allocinfo_list_header(l, "boot_id"), "abc-def");
	assert_string_equal(allocinfo_list_header(l, "kernel"), "6.1.0");
	assert_string_equal(allocinfo_list_header(l, "allocinfo-snapshot"), "1");
	assert_null(allocinfo_list_header(l, "time"));
	assert_int_equal(allocinfo_list_count(l), 1);
	/* a later read without a header clears the old one */
	assert_int_equal(allocinfo_list_read_buffer(l, "allocinfo - version: 1.0\n", 25), ALLOCINFO_OK);
	assert_null(allocinfo_list_header(l, "boot_id"));
	allocinfo_list_free(l);
}

/*
 * A kernel that backported the key:value marker without bumping the
 * version prints 1.0 rows with pairs: they are rows like any other.
 */
static void v1_rows_with_pairs(void **state)
{
	struct allocinfo_list *l;
	struct allocinfo_entry *e;

	(void)state;
	l = parse("allocinfo - version: 1.0\n1 1 a.c:1 func:f accurate:no\n"
		  "2 2 b.c:2 [m] func:g\n4 1 c.c:3 func:h x:1 y:a:b\n");
	assert_int_equal(allocinfo_list_count(l), 3);
	assert_int_equal(allocinfo_list_malformed_count(l), 0);
	e = nth(l, 0);
	assert_string_equal(allocinfo_entry_kv_find(e, "accurate"), "no");
	e = nth(l, 2);
	assert_int_equal(allocinfo_entry_bytes(e), 4);
	assert_int_equal(allocinfo_entry_kv_count(e), 2);
	assert_string_equal(allocinfo_entry_kv_find(e, "y"), "a:b");
	allocinfo_list_free(l);
	/* text that is not a pair is still malformed, in 1.x as in 2.x */
	l = parse("allocinfo - version: 1.0\n1 1 a.c:1 func:f not a pair\n");
	assert_int_equal(allocinfo_list_count(l), 0);
	assert_int_equal(allocinfo_list_malformed_count(l), 1);
	assert_string_equal(allocinfo_list_malformed_reason(l, 0), "bad key:value pair");
	allocinfo_list_free(l);
}

/* random rows with known sums, parsed and summed back */
static void generated_sums(void **state)
{
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	size_t cap = 20000 * 96 + 64, rows = 20000;
	char *buf = malloc(cap), *p = buf;
	int64_t want = 0, got = 0;
	struct allocinfo_list *l = allocinfo_list_new();
	struct allocinfo_entry *e;

	(void)state;
	p += sprintf(p, "allocinfo - version: 1.0\n");
	for (size_t i = 0; i < rows; i++) {
		int64_t b;

		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		b = (int64_t)(seed % 100000000) - 1000;
		want += b;
		p += sprintf(p, "%12" PRId64 " %8" PRIu64 " dir%zu/f%zu.c:%zu%s func:fn_%zu\n", b,
			     seed % 1000, i % 37, i % 101, i, i % 5 ? "" : " [mod]", i);
	}
	assert_int_equal(allocinfo_list_read_buffer(l, buf, (size_t)(p - buf)), ALLOCINFO_OK);
	assert_int_equal(allocinfo_list_count(l), rows);
	for (e = allocinfo_list_first(l); e; e = allocinfo_entry_next(e))
		got += allocinfo_entry_bytes(e);
	assert_true(got == want);
	/* the same text again: no new entries */
	assert_int_equal(allocinfo_list_read_buffer(l, buf, (size_t)(p - buf)), ALLOCINFO_OK);
	assert_int_equal(allocinfo_list_count(l), rows);
	assert_int_equal(allocinfo_list_present(l), rows);
	allocinfo_list_free(l);
	free(buf);
}

static void null_safety(void **state)
{
	(void)state;
	allocinfo_list_free(NULL);
	assert_null(allocinfo_list_first(NULL));
	assert_null(allocinfo_entry_next(NULL));
	assert_int_equal(allocinfo_list_read_buffer(NULL, "", 0), ALLOCINFO_EINVAL);
	assert_int_equal(allocinfo_list_prune(NULL), 0);
	assert_null(allocinfo_entry_file(NULL));
	assert_int_equal(allocinfo_entry_kv_get(NULL, 0, NULL, NULL), ALLOCINFO_EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(v1_fields),
		cmocka_unit_test(v2_key_values),
		cmocka_unit_test(header_comment_variants),
		cmocka_unit_test(crlf_and_trailing_space),
		cmocka_unit_test(no_trailing_newline),
		cmocka_unit_test(number_limits),
		cmocka_unit_test(kernel_columns),
		cmocka_unit_test(kernel_layout_rows),
		cmocka_unit_test(row_end_blank),
		cmocka_unit_test(duplicates_kept_apart),
		cmocka_unit_test(update_reordered),
		cmocka_unit_test(very_long_line),
		cmocka_unit_test(version_checks),
		cmocka_unit_test(missing_header),
		cmocka_unit_test(malformed_rows_reported),
		cmocka_unit_test(malformed_kv_and_nul),
		cmocka_unit_test(many_malformed_capped),
		cmocka_unit_test(update_in_place),
		cmocka_unit_test(lookups),
		cmocka_unit_test(read_fd_pipe),
		cmocka_unit_test(path_errors),
		cmocka_unit_test(input_limit),
		cmocka_unit_test(query_filters),
		cmocka_unit_test(scan_matches_read),
		cmocka_unit_test(scan_query_and_dup),
		cmocka_unit_test(scan_limits),
		cmocka_unit_test(literal_patterns),
		cmocka_unit_test(backends),
		cmocka_unit_test(strerror_all),
		cmocka_unit_test(snapshot_header_meta),
		cmocka_unit_test(v1_rows_with_pairs),
		cmocka_unit_test(generated_sums),
		cmocka_unit_test(null_safety),
	};

	return cmocka_run_group_tests_name("liballocinfo", tests, NULL, NULL);
}
