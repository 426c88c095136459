/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cmd.h - what the files of the allocinfo command share
 *
 *   main.c      options and dispatch
 *   source.c    opening sources (lists and scans), their error messages
 *   select.c    rows: filters, sort order, top-N selection, groups
 *   output.c    table, JSON, CSV and folded output, escaping, -o files
 *   metrics.c   OpenMetrics and Prometheus text output
 *   show.c      the default view
 *   snapshot.c, diff.c, top.c, growth.c, numa.c, stacks.c   the other views
 *   util.c      memory, numbers and sizes
 *
 * Options live in one struct opts that main() fills and every command
 * receives as a parameter; nothing reads a global.
 */
#ifndef ALLOCINFO_CMD_H
#define ALLOCINFO_CMD_H

#include <stdint.h>
#include <stdio.h>

#include "allocinfo.h"

/* Exit statuses (allocinfo(1), EXIT STATUS). */
#define EX_OK_ 0
#define EX_RUNTIME 1
#define EX_USAGE_ 2
#define EX_MALFORMED 3
#define EX_FINDING 4	/* --fail-above, --max-bytes, growth's leak suspects */

enum fmt { FMT_TABLE, FMT_JSON, FMT_CSV, FMT_OPENMETRICS, FMT_PROMETHEUS,
	   FMT_FOLDED };
enum key { K_BYTES, K_CALLS, K_AVG, K_FILE, K_LINE, K_FUNC, K_MODULE, K_RATE,
	   K_CHANGE, K_ALLOCS, K_CHURN, K_FAILED, K_SLACK, K_NKEYS };
enum group { G_NONE, G_MODULE, G_DIR, G_FILE, G_FUNC };
enum cmd { C_SHOW, C_SNAPSHOT, C_DIFF, C_TOP, C_GROWTH, C_STACKS };

struct sortkey {
	enum key key;
	int desc;
};

/* --file, --func, --module and their --exclude- forms */
struct pattern {
	int field;		/* ALLOCINFO_FIELD_* */
	unsigned flags;		/* ALLOCINFO_MATCH_EXCLUDE */
	const char *re;
};

#define LIMIT_DEFAULT (-2L)	/* 20 rows in tables, all in machine formats */
#define LIMIT_ALL (-1L)

struct opts {
	enum cmd cmd;
	const char *input;	/* -f, or core_source with --core */
	const char *core, *vmlinux;	/* --core, --vmlinux */
	const char *proc_root;	/* /proc, or $ALLOCINFO_PROC_ROOT */
	long limit;		/* LIMIT_DEFAULT, LIMIT_ALL or N */
	int raw;
	struct sortkey sort[16];
	int nsort, sort_given;
	struct pattern *pat;
	int npat;
	int64_t min_bytes;
	uint64_t min_calls;
	int min_bytes_set, min_calls_set, nonzero;
	enum group group;
	int group_depth;	/* dir:N; 0: the whole directory */
	enum fmt fmt;
	int fmt_given;
	int strict;
	const char *output;
	double delay;		/* < 0: not given */
	long iterations, count;	/* < 0: not given */
	int unchanged, numa;
	size_t max_input;
	int64_t fail_above, max_bytes;
	int fail_above_set, max_bytes_set;
	int exact;		/* name patterns are whole names */
	int backend;		/* ALLOCINFO_BACKEND_*: --ioctl, --text */
	int verbose;
};

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

enum status { ST_SAME, ST_NEW, ST_GONE };

/* One line of output: a call site or a group of them. */
struct row {
	const char *file, *func, *module;	/* module NULL: built-in */
	unsigned long line;
	unsigned occ;
	size_t lineno;				/* row in the source: ties */
	char *key;				/* group key (owned) */
	int64_t bytes, old_bytes;
	uint64_t calls, old_calls;
	double rate;				/* top: bytes/s over the last interval */
	int64_t change;				/* top: since the first sample */
	size_t sites;
	enum status status;
	struct stats st, old_st;		/* lifetime counts, if any */
	const struct allocinfo_entry *e;	/* the site; NULL for a group */
	struct allocinfo_entry *own;		/* e, when a copy the row owns */
	void *aux;				/* the view's own data */
};

/* ---- util.c ---------------------------------------------------------- */

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

/* the difference of two counts, as a signed number that saturates */
static inline int64_t count_delta(uint64_t now, uint64_t old)
{
	if (now >= old)
		return now - old > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)(now - old);
	return old - now > (uint64_t)INT64_MAX ? INT64_MIN : -(int64_t)(old - now);
}

/* Growth of a lifetime count; 0 if the counter went backwards (reboot). */
static inline uint64_t count_growth(uint64_t now, uint64_t old)
{
	return now > old ? now - old : 0;
}

int64_t d2i64(double d);
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t m);
void *xrealloc(void *p, size_t n, size_t m);
char *xstrdup(const char *s);
const char *modname(const char *m);
char *fmt_int(char *buf, size_t len, int64_t v, const char *suffix);
char *fmt_uint(char *buf, size_t len, uint64_t v);
char *fmt_size(char *buf, size_t len, int64_t v, int raw);
char *fmt_delta(char *buf, size_t len, int64_t v, int raw);
char *fmt_rate(char *buf, size_t len, double v, int raw);
void fmt_over(char *vbuf, char *lbuf, size_t len, int64_t v, int64_t limit,
	      int raw, int delta);
char *read_small(const char *path);
void usage_error(const char *fmt, ...);
const char *strip_dot(const char *f);
double now_sec(void);
void sleep_sec(double s);

/* ---- source.c -------------------------------------------------------- */

int is_live(const struct opts *o, const char *path);
const char *src_name(const struct opts *o, const char *path);
const char *live_path(const struct opts *o, const char *name);
char *boot_id_now(const struct opts *o);
char *boot_of(const struct allocinfo_list *l, const struct opts *o,
	      const char *path);
int warn_boots(const char *a, const char *boot_a, const char *b,
	       const char *boot_b);
extern const char core_source[];
const char *one_source(const struct opts *o, int npos, char **pos);
struct allocinfo_list *list_new(void);
struct allocinfo_query *query_new(const struct opts *o, int values);
int load(struct allocinfo_list *l, const struct opts *o, const char *path,
	 int report);
int scan_open(struct allocinfo_list *l, const struct opts *o, const char *path);
int scan_close(struct allocinfo_list *l, const struct opts *o,
	       const char *path, size_t bad_stats);
int source_error(const struct allocinfo_list *l, const struct opts *o,
		 const char *path, int rc);
int too_big(const struct opts *o, const char *path);
int stats_bad(const struct allocinfo_entry *e, const struct opts *o,
	      const char *name, size_t *nbad);

/* ---- select.c -------------------------------------------------------- */

void stats_read(struct stats *s, const struct allocinfo_entry *e);
void stats_add(struct stats *to, const struct stats *s);
int stats_key(const char *key);
int parse_count(const char *v, uint64_t *out);
void row_fill(struct row *r, const struct allocinfo_entry *e);
void row_keep(struct row *r);
void row_release(struct row *r);
int row_values_match(const struct row *r, const struct opts *o);
int row_cmp(const struct row *a, const struct row *b, const struct opts *o);
void rows_sort(struct row *rows, size_t n, const struct opts *o,
	       int (*cmp)(const struct row *, const struct row *,
			  const struct opts *));
int row_cmp_ties(const struct row *a, const struct row *b);
size_t group_key(const struct opts *o, const struct row *r, char **buf,
		 size_t *cap);
int is_stats_key(enum key k);
void warn_stats_sort(const struct opts *o, int any_stats);
const char *key_name(enum key k);

/* strings to 0, 1, 2... in the order they came (select.c) */
struct strmap {
	char **keys;
	size_t n, cap;
	size_t *slot;		/* index + 1; 0: free */
	size_t nslot;
};

size_t strmap_find(struct strmap *m, const char *key, size_t len, int add);
void strmap_free(struct strmap *m);

/*
 * Each row's occurrence among the rows of its location (file, line,
 * function, module) in the whole source: 0 for the first, 1 for the
 * second...  Fed every row of the source, filtered or not, so that the
 * number is the tag's own, whatever the filters, -n and the order show.
 */
struct occmap {
	struct strmap map;	/* location -> index in n */
	unsigned *n;		/* rows of the location so far */
	size_t cap;
	char *kbuf;
	size_t kcap;
};

struct sel;
unsigned occ_next(struct occmap *m, const struct allocinfo_entry *e,
		  struct sel *s);
void occ_free(struct occmap *m);

struct groups;

/*
 * Selection: rows are added one at a time; the selection keeps totals of
 * all of them and only the k that sort first (all when k is SIZE_MAX), or
 * with --group sums them into groups.  copy: rows point to a scan's
 * scratch entry, so a row that is kept gets its own copy.
 */
struct sel {
	const struct opts *o;
	size_t k;
	int copy;
	struct row *rows;
	size_t n, cap;
	size_t matched;		/* rows added (groups after sel_finish) */
	size_t sites;		/* call sites added */
	int64_t total_bytes;
	uint64_t total_calls;
	double total_rate;
	int64_t total_change;
	int any_stats;
	struct groups *g;
	/* --max-bytes: rows above, and the largest of them */
	size_t over;
	struct row worst;
	/* memory the kept rows and groups take, and its limit (0: none) */
	size_t kept_bytes, kept_limit;
	int too_big;		/* kept_bytes went past kept_limit */
};

size_t mem_limit(const struct opts *o);
void sel_init(struct sel *s, const struct opts *o, size_t k, int copy);
int sel_charge(struct sel *s, size_t n);
void sel_add(struct sel *s, const struct row *r);
void sel_add_change(struct sel *s, const struct row *r);
int sel_skip(struct sel *s, const struct allocinfo_entry *e);
size_t sel_finish(struct sel *s);
void sel_free(struct sel *s);
size_t limit_of(const struct opts *o, int table);

/* ---- output.c -------------------------------------------------------- */

struct outfile {
	FILE *f;
	char *tmp;		/* temporary name, renamed to path on success */
	const char *path;
};

/* What an output says about its source. */
struct srcinfo {
	const struct allocinfo_list *l;
	size_t count;		/* rows (or groups) that passed the filters */
	size_t shown;
	int64_t total_bytes;
	uint64_t total_calls;
	const struct readinfo *read;	/* the metrics formats: the read itself */
};

FILE *out_open(struct outfile *of, const struct opts *o, int mode);
int out_close(struct outfile *of, int ok);
void put_json_str(FILE *f, const char *s);
void put_json_where(FILE *f, const struct row *r, enum group group);
void put_csv_str(FILE *f, const char *s);
void put_label_str(FILE *f, const char *s);
void put_text(FILE *f, const char *s);
int text_width(const char *s);
void put_padded(FILE *f, const char *s, int width, int left);
int loc_width(const char *file, unsigned long line);

/* Widths of the name columns: location (file:line), function, module. */
struct namew {
	int loc, func, mod;
};

void namew_init(struct namew *w);
void namew_add(struct namew *w, const struct row *r);

/* Widths of columns of numbers; a row's cells are strings. */
#define NUMCOLS 8
#define NUMCELL 48
struct numcols {
	int n;
	int w[NUMCOLS];
};

void numcols_init(struct numcols *c, int n, const int *minw);
void numcols_add(struct numcols *c, char cell[][NUMCELL]);
void numcols_put(FILE *f, const struct numcols *c, char cell[][NUMCELL]);
void put_loc(FILE *f, const char *file, unsigned long line, int width);
const char *group_name(const struct opts *o);
const char *group_title(const struct opts *o);
const char *rows_noun(const struct opts *o, size_t n);
void put_kv_json(FILE *f, const struct allocinfo_entry *e);
void say_over(size_t over, const struct row *worst, const struct opts *o);
void output_rows(FILE *f, const struct row *rows, const struct srcinfo *si,
		 const struct opts *o);

/* ---- metrics.c ------------------------------------------------------- */

/* what a call site of --numa holds on each node (its row's aux) */
struct nodes {
	int64_t *bytes;
	uint64_t *calls;
};

/* Why a read failed: the reason label of allocinfo_read_error. */
enum read_reason {
	RR_NOT_FOUND, RR_PERMISSION, RR_FORMAT, RR_MALFORMED, RR_TOO_LARGE,
	RR_IO, RR_N
};

/* vm.mem_profiling: the state label of allocinfo_profiling_state. */
enum prof_state { PS_ENABLED, PS_DISABLED, PS_NEVER, PS_ABSENT, PS_UNKNOWN, PS_N };

/*
 * What the metrics formats say about the source and its read, besides its
 * rows: whether it was read whole (and why not), and over every row of
 * the source, whatever the filters and -n let through, the call sites and
 * totals.  For the live file also the profiling switch and the time of
 * the last successful read.
 */
struct readinfo {
	int ok;			/* read whole: rows and totals are valid */
	enum read_reason reason;	/* when not ok */
	size_t malformed;	/* lines of the source that did not parse */
	size_t sites;		/* rows of the source */
	int64_t total_bytes;
	uint64_t total_calls;
	int live;		/* the source is the live file */
	enum prof_state prof;	/* live */
	int64_t last_success;	/* live: Unix time; < 0 unknown */
};

void readinfo_start(struct readinfo *ri, const struct opts *o, const char *path);
void readinfo_add(struct readinfo *ri, int64_t bytes, uint64_t calls);
void readinfo_failed(struct readinfo *ri, const struct opts *o,
		     enum read_reason reason);
void readinfo_done(struct readinfo *ri, const struct opts *o, int rc,
		   const struct allocinfo_list *l, int too_big);
int metrics_failed(const struct readinfo *ri, const struct opts *o, int rc);
int metrics_read_failed(struct readinfo *ri, const struct opts *o, int rc,
			const struct allocinfo_list *l, int too_big);
int metrics_unread(struct readinfo *ri, const struct opts *o,
		   enum read_reason reason, int rc);
void metrics_rows(FILE *f, const struct row *rows, size_t n,
		  const struct readinfo *ri, const struct opts *o);
void metrics_numa(FILE *f, const struct row *rows, size_t n, int nodes,
		  const struct readinfo *ri, const struct opts *o);

/* ---- the views ------------------------------------------------------- */

int cmd_show(int npos, char **pos, struct opts *o);
int cmd_snapshot(int npos, char **pos, struct opts *o);
int cmd_diff(int npos, char **pos, struct opts *o);
int cmd_top(int npos, char **pos, struct opts *o);
int cmd_growth(int npos, char **pos, struct opts *o);
int cmd_stacks(int npos, char **pos, struct opts *o);
int cmd_numa(const struct opts *o);

#endif
