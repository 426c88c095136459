/* SPDX-License-Identifier: GPL-2.0 */
/* Shared declarations of the allocinfo command. */
#ifndef ALLOCINFO_UTIL_H
#define ALLOCINFO_UTIL_H

#include <regex.h>
#include <stdint.h>
#include <stdio.h>

#include "allocinfo.h"

#define EX_OK_ 0
#define EX_RUNTIME 1
#define EX_USAGE_ 2
#define EX_MALFORMED 3

enum fmt { FMT_TABLE, FMT_JSON, FMT_CSV, FMT_OPENMETRICS, FMT_FOLDED };
enum key { K_BYTES, K_CALLS, K_AVG, K_FILE, K_LINE, K_FUNC, K_MODULE, K_RATE,
	   K_ALLOCS, K_CHURN, K_FAILED, K_SLACK };
enum group { G_NONE, G_MODULE, G_DIR, G_FILE, G_FUNC };

struct sortkey {
	enum key key;
	int desc;
};

struct refilter {
	regex_t re;
	int exclude;
	int field;	/* K_FILE, K_FUNC, K_MODULE */
};

struct opts {
	const char *input;
	long limit;		/* -1: all */
	int raw;
	struct sortkey sort[16];
	int nsort, sort_given;
	struct refilter *filters;
	int nfilters;
	int64_t min_bytes;
	uint64_t min_calls;
	int min_bytes_set, min_calls_set, nonzero;
	enum group group;
	int group_depth;
	enum fmt fmt;
	int strict;
	const char *output;
	double delay;
	long iterations;
	long count;
	int unchanged;
	int numa;
	size_t max_input;	/* 0: no limit */
};

extern struct opts opt;
extern const char *proc_root;

/*
 * Lifetime counts of a kernel built with CONFIG_MEM_ALLOC_PROFILING_STATS:
 * the key:value pairs total_calls, total_bytes, failed and requested.
 */
struct stats {
	int valid;		/* all four pairs present and well-formed */
	uint64_t allocs;	/* total_calls */
	uint64_t churn;		/* total_bytes */
	uint64_t failed;
	uint64_t requested;
};

/* Bytes lost to size-class rounding: allocated minus requested. */
static inline uint64_t stats_slack(const struct stats *s)
{
	return s->churn > s->requested ? s->churn - s->requested : 0;
}

/* One line of output: a call site or a group of them. */
struct row {
	const char *file, *func, *module;	/* module NULL: built-in */
	unsigned long line;
	unsigned occ;
	char *key;				/* group key (owned) */
	int64_t bytes, old_bytes;
	uint64_t calls, old_calls;
	double rate;
	size_t sites;
	int status;				/* diff: 0 same, 1 new, 2 gone */
	struct stats st, old_st;		/* lifetime counts, if shown */
	const struct allocinfo_entry *e;
};

/* Sums of kernel counters saturate instead of overflowing. */
static inline int64_t sat_add(int64_t a, int64_t b)
{
	if (b > 0 && a > INT64_MAX - b)
		return INT64_MAX;
	if (b < 0 && a < INT64_MIN - b)
		return INT64_MIN;
	return a + b;
}

static inline int64_t sat_sub(int64_t a, int64_t b)
{
	if (b < 0 && a > INT64_MAX + b)
		return INT64_MAX;
	if (b > 0 && a < INT64_MIN + b)
		return INT64_MIN;
	return a - b;
}

static inline uint64_t sat_addu(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static inline int64_t sat_abs(int64_t a)
{
	return a == INT64_MIN ? INT64_MAX : a < 0 ? -a : a;
}

/* bytes / calls without overflow; calls must not be 0 */
static inline int64_t avg_bytes(int64_t b, uint64_t c)
{
	if (c > (uint64_t)INT64_MAX)
		return (uint64_t)sat_abs(b) >= c ? (b < 0 ? -1 : 1) : 0;
	return b / (int64_t)c;
}

/* double to int64_t, rounded and clamped (a plain cast out of range is UB) */
static inline int64_t d2i64(double d)
{
	if (!(d == d))
		return 0;
	if (d >= 9223372036854775807.0)
		return INT64_MAX;
	if (d <= -9223372036854775808.0)
		return INT64_MIN;
	return (int64_t)(d < 0 ? d - 0.5 : d + 0.5);
}

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t m);
char *xstrdup(const char *s);
const char *modname(const char *m);
char *fmt_size(char *buf, size_t len, int64_t v, int raw);
int load(struct allocinfo_list *l, const char *path, int report);
int is_live(const char *path);
const char *src_name(const char *path);
void usage_error(const char *fmt, ...);
char *live_path(void);
char *read_small(const char *path);
void row_fill(struct row *r, const struct allocinfo_entry *e);
int stats_key(const char *key);
const char *stats_check(const struct allocinfo_entry *e, const char **key);
void stats_read(struct stats *s, const struct allocinfo_entry *e);
void stats_add(struct stats *to, const struct stats *s);
int row_match(const struct row *r);
int rows_cmp(const struct row *a, const struct row *b);
void rows_sort(struct row *rows, size_t n);
size_t rows_group(struct row *rows, size_t n);
void output_rows(FILE *f, struct row *rows, size_t n, const struct allocinfo_list *l);
void rows_free(struct row *rows, size_t n);
size_t utf8_len(const char *s);
void json_str(FILE *f, const char *s);
void csv_str(FILE *f, const char *s);
int parse_sort(const char *s);

/* Widths of the name columns: location (file:line), function, module. */
struct namew {
	int loc, func, mod;
};

void namew_init(struct namew *w);
void namew_add(struct namew *w, const struct row *r);
void put_loc(FILE *f, const char *file, unsigned long line, int width);
void warn_stats_sort(const struct row *rows, size_t n);

int cmd_snapshot(int npos, char **pos);
int cmd_diff(int npos, char **pos);
int cmd_top(int npos, char **pos);
int cmd_growth(int npos, char **pos);
int cmd_numa(const char *src);

#endif
