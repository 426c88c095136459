// SPDX-License-Identifier: GPL-2.0
/*
 * allocinfo - show and compare the kernel's memory allocation profile
 *
 * The command is a thin layer over liballocinfo: it loads a source into a
 * list, turns the entries into rows, filters, groups, sorts and prints them.
 * Subcommands (snapshot, diff, top, growth) live in their own files and
 * share the option parser and row helpers here.
 *
 * Exit status: 0 success, 1 runtime error, 2 usage error, 3 malformed input
 * under --strict.
 */
#define _DEFAULT_SOURCE
#include <ctype.h>
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define VERSION "1.0.0"

struct opts opt;
const char *proc_root = "/proc";

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		err(EX_RUNTIME, "malloc");
	return p;
}

void *xcalloc(size_t n, size_t m)
{
	void *p = calloc(n ? n : 1, m ? m : 1);

	if (!p)
		err(EX_RUNTIME, "calloc");
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		err(EX_RUNTIME, "strdup");
	return p;
}

const char *modname(const char *m)
{
	return m ? m : "vmlinux";
}

void usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarnx(fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try 'allocinfo --help' for more information.\n");
	exit(EX_USAGE_);
}

char *fmt_size(char *buf, size_t len, int64_t v, int raw)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	uint64_t a = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	double d;
	int u = -1;

	if (raw || a < 1024) {
		snprintf(buf, len, raw ? "%" PRId64 : "%" PRId64 "B", v);
		return buf;
	}
	d = (double)a;
	while (d >= 1024 && u < 5) {
		d /= 1024;
		u++;
	}
	snprintf(buf, len, "%s%.1f%s", v < 0 ? "-" : "", d, unit[u]);
	return buf;
}

char *live_path(void)
{
	static char buf[4096];

	snprintf(buf, sizeof(buf), "%s/allocinfo", proc_root);
	return buf;
}

int is_live(const char *path)
{
	return !path || !strcmp(path, live_path()) || !strcmp(path, "/proc/allocinfo");
}

const char *src_name(const char *path)
{
	if (!path)
		return live_path();
	return strcmp(path, "-") ? path : "<stdin>";
}

/* Read a small text file, without the trailing newline; NULL if unreadable. */
char *read_small(const char *path)
{
	FILE *f = fopen(path, "re");
	char buf[256];
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	return xstrdup(buf);
}

static void check_sysctl(void)
{
	char path[4200];
	char *v;

	snprintf(path, sizeof(path), "%s/sys/vm/mem_profiling", proc_root);
	v = read_small(path);
	if (!v)
		warnx("warning: %s not found: allocation profiling may be off, "
		      "numbers may be stale or not collected", path);
	else if (!strcmp(v, "0"))
		warnx("warning: allocation profiling is disabled (vm.mem_profiling=0): "
		      "numbers are stale, not being updated");
	else if (!strcmp(v, "never"))
		warnx("warning: allocation profiling is off (vm.mem_profiling=never): "
		      "numbers were not collected");
	free(v);
}

/*
 * Lifetime count pairs must hold counts; a row with a bad one is shown
 * without lifetime counts.  Returns the number of such rows.
 */
static size_t check_stats(const struct allocinfo_list *l, const char *name,
			  int report)
{
	size_t bad = 0;

	for (struct allocinfo_entry *e = allocinfo_list_first(l); e;
	     e = allocinfo_entry_next(e)) {
		const char *k, *v;

		if (allocinfo_entry_vanished(e) || !(v = stats_check(e, &k)))
			continue;
		if ((report || opt.strict) && bad++ < ALLOCINFO_MALFORMED_MAX)
			warnx("%s:%zu: malformed %s:%s: expected an unsigned decimal count%s",
			      name, allocinfo_entry_lineno(e), k, v,
			      opt.strict ? " (fatal with --strict)" : "");
	}
	return bad;
}

/*
 * Load a source into a list.  Returns 0, or an exit status after printing
 * the reason.  report: say something about malformed lines and the sysctl.
 */
int load(struct allocinfo_list *l, const char *path, int report)
{
	const char *name = src_name(path);
	int live = is_live(path), rc, e;

	allocinfo_list_set_max_input(l, opt.max_input);
	if (path && !strcmp(path, "-"))
		rc = allocinfo_list_read_fd(l, 0);
	else
		rc = allocinfo_list_read_path(l, path ? path : live_path());
	e = allocinfo_list_errno(l);
	switch (rc) {
	case ALLOCINFO_OK:
		break;
	case ALLOCINFO_EACCES:
		if (live)
			warnx("%s: permission denied: the file is mode 0400, "
			      "reading it needs root", name);
		else
			warnx("%s: %s", name, strerror(e));
		return EX_RUNTIME;
	case ALLOCINFO_ENOENT:
		if (live)
			warnx("%s: not found: this kernel lacks memory allocation "
			      "profiling (CONFIG_MEM_ALLOC_PROFILING)", name);
		else
			warnx("%s: %s", name, strerror(e));
		return EX_RUNTIME;
	case ALLOCINFO_EIO:
		warnx("%s: %s", name, strerror(e));
		return EX_RUNTIME;
	case ALLOCINFO_ETOOBIG: {
		char lim[32];

		warnx("%s: input too large: more than %s (--max-input raises the limit)",
		      name, fmt_size(lim, sizeof(lim), (int64_t)opt.max_input, 0));
		return EX_RUNTIME;
	}
	case ALLOCINFO_EVERSION:
		warnx("%s: unsupported format version %d.%d (this allocinfo reads 1.x and 2.x)",
		      name, allocinfo_list_version_major(l),
		      allocinfo_list_version_minor(l));
		return EX_RUNTIME;
	default:
		warnx("%s: %s", name, allocinfo_strerror(rc));
		return EX_RUNTIME;
	}
	if (report && live)
		check_sysctl();
	size_t nm = allocinfo_list_malformed_count(l);
	if (nm && (report || opt.strict)) {
		size_t shown = nm < ALLOCINFO_MALFORMED_MAX ? nm : ALLOCINFO_MALFORMED_MAX;

		for (size_t i = 0; i < shown; i++)
			warnx("%s:%zu: malformed line: %s", name,
			      allocinfo_list_malformed_line(l, i),
			      allocinfo_list_malformed_reason(l, i));
		if (nm > shown)
			warnx("%s: ... and %zu more malformed lines", name, nm - shown);
		warnx("%s: %zu malformed line%s skipped%s", name, nm, nm == 1 ? "" : "s",
		      opt.strict ? " (fatal with --strict)" : "");
	}
	if (nm && opt.strict)
		return EX_MALFORMED;
	return check_stats(l, name, report) && opt.strict ? EX_MALFORMED : 0;
}

/* ---- filters, sorting, grouping -------------------------------------- */

static const char *field(const struct row *r, int f)
{
	switch (f) {
	case K_FILE: return r->file ? r->file : "";
	case K_FUNC: return r->func ? r->func : "";
	default: return modname(r->module);
	}
}

/* The lifetime count pairs, in the kernel's order. */
static const char *const stats_keys[] = {
	"total_calls", "total_bytes", "failed", "requested",
};

int stats_key(const char *key)
{
	for (size_t i = 0; i < sizeof(stats_keys) / sizeof(stats_keys[0]); i++)
		if (!strcmp(key, stats_keys[i]))
			return 1;
	return 0;
}

/* Parse an unsigned decimal count, all of @v; 0 if malformed. */
static int parse_count(const char *v, uint64_t *out)
{
	uint64_t n = 0;

	if (!*v)
		return 0;
	for (; *v; v++) {
		if (*v < '0' || *v > '9')
			return 0;
		if (n > (UINT64_MAX - (uint64_t)(*v - '0')) / 10)
			return 0;
		n = n * 10 + (uint64_t)(*v - '0');
	}
	*out = n;
	return 1;
}

/*
 * The value of a lifetime count pair of @e that is not a count, or NULL
 * if all are fine (or absent); @key is set to its key.
 */
const char *stats_check(const struct allocinfo_entry *e, const char **key)
{
	uint64_t n;

	for (size_t i = 0; i < sizeof(stats_keys) / sizeof(stats_keys[0]); i++) {
		const char *v = allocinfo_entry_kv_find(e, stats_keys[i]);

		if (v && !parse_count(v, &n)) {
			*key = stats_keys[i];
			return v;
		}
	}
	return NULL;
}

void stats_read(struct stats *s, const struct allocinfo_entry *e)
{
	uint64_t *f[] = { &s->allocs, &s->churn, &s->failed, &s->requested };

	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < sizeof(stats_keys) / sizeof(stats_keys[0]); i++) {
		const char *v = allocinfo_entry_kv_find(e, stats_keys[i]);

		if (!v || !parse_count(v, f[i])) {
			memset(s, 0, sizeof(*s));
			return;
		}
	}
	s->valid = 1;
}

void stats_add(struct stats *to, const struct stats *s)
{
	if (!s->valid)
		return;
	to->valid = 1;
	to->allocs = sat_addu(to->allocs, s->allocs);
	to->churn = sat_addu(to->churn, s->churn);
	to->failed = sat_addu(to->failed, s->failed);
	to->requested = sat_addu(to->requested, s->requested);
}

void row_fill(struct row *r, const struct allocinfo_entry *e)
{
	memset(r, 0, sizeof(*r));
	r->file = allocinfo_entry_file(e);
	r->func = allocinfo_entry_func(e);
	r->module = allocinfo_entry_module(e);
	r->line = allocinfo_entry_line(e);
	r->occ = allocinfo_entry_occurrence(e);
	r->bytes = allocinfo_entry_bytes(e);
	r->calls = allocinfo_entry_calls(e);
	r->e = e;
	stats_read(&r->st, e);
}

int row_match(const struct row *r)
{
	int want[3] = { 0, 0, 0 }, got[3] = { 0, 0, 0 };

	if (opt.nonzero && r->bytes == 0)
		return 0;
	if (opt.min_bytes_set && r->bytes < opt.min_bytes)
		return 0;
	if (opt.min_calls_set && r->calls < opt.min_calls)
		return 0;
	for (int i = 0; i < opt.nfilters; i++) {
		const struct refilter *f = &opt.filters[i];
		int idx = f->field == K_FILE ? 0 : f->field == K_FUNC ? 1 : 2;
		int m = !regexec(&f->re, field(r, f->field), 0, NULL, 0);

		if (f->exclude) {
			if (m)
				return 0;
		} else {
			want[idx] = 1;
			got[idx] |= m;
		}
	}
	for (int i = 0; i < 3; i++)
		if (want[i] && !got[i])
			return 0;
	return 1;
}

static double avg_of(const struct row *r)
{
	return r->calls ? (double)r->bytes / (double)r->calls : 0.0;
}

static int cmp_num(double a, double b)
{
	return a < b ? -1 : a > b;
}

static int cmp_key(const struct row *a, const struct row *b, enum key k)
{
	switch (k) {
	case K_BYTES: return a->bytes < b->bytes ? -1 : a->bytes > b->bytes;
	case K_CALLS: return a->calls < b->calls ? -1 : a->calls > b->calls;
	case K_AVG: return cmp_num(avg_of(a), avg_of(b));
	case K_RATE: return cmp_num(a->rate, b->rate);
	case K_LINE: return a->line < b->line ? -1 : a->line > b->line;
	case K_FILE: return strcmp(field(a, K_FILE), field(b, K_FILE));
	case K_FUNC: return strcmp(field(a, K_FUNC), field(b, K_FUNC));
	case K_MODULE: return strcmp(field(a, K_MODULE), field(b, K_MODULE));
	case K_ALLOCS: return a->st.allocs < b->st.allocs ? -1 : a->st.allocs > b->st.allocs;
	case K_CHURN: return a->st.churn < b->st.churn ? -1 : a->st.churn > b->st.churn;
	case K_FAILED: return a->st.failed < b->st.failed ? -1 : a->st.failed > b->st.failed;
	case K_SLACK: return stats_slack(&a->st) < stats_slack(&b->st) ? -1 :
			     stats_slack(&a->st) > stats_slack(&b->st);
	}
	return 0;
}

static int cmp_rows(const void *pa, const void *pb)
{
	const struct row *a = pa, *b = pb;
	static const enum key tie[] = { K_FILE, K_LINE, K_FUNC, K_MODULE };
	int c;

	for (int i = 0; i < opt.nsort; i++) {
		c = cmp_key(a, b, opt.sort[i].key);
		if (c)
			return opt.sort[i].desc ? -c : c;
	}
	for (size_t i = 0; i < sizeof(tie) / sizeof(tie[0]); i++)
		if ((c = cmp_key(a, b, tie[i])))
			return c;
	return a->occ < b->occ ? -1 : a->occ > b->occ;
}

int rows_cmp(const struct row *a, const struct row *b)
{
	return cmp_rows(a, b);
}

void rows_sort(struct row *rows, size_t n)
{
	if (n > 1)
		qsort(rows, n, sizeof(*rows), cmp_rows);
}

int parse_sort(const char *s)
{
	static const struct { const char *name; enum key k; int desc; } keys[] = {
		{ "bytes", K_BYTES, 1 }, { "calls", K_CALLS, 1 }, { "avg", K_AVG, 1 },
		{ "rate", K_RATE, 1 }, { "file", K_FILE, 0 }, { "line", K_LINE, 0 },
		{ "func", K_FUNC, 0 }, { "module", K_MODULE, 0 },
		{ "allocs", K_ALLOCS, 1 }, { "churn", K_CHURN, 1 },
		{ "failed", K_FAILED, 1 }, { "slack", K_SLACK, 1 },
	};
	char *dup = xstrdup(s), *tok, *save = NULL;

	opt.nsort = 0;
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int dir = -1;
		size_t i;

		if (*tok == '-' || *tok == '+')
			dir = *tok++ == '-';
		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (!strcmp(tok, keys[i].name))
				break;
		if (i == sizeof(keys) / sizeof(keys[0]))
			usage_error("unknown sort key '%s' (keys: bytes, calls, avg, rate, "
				    "file, line, func, module, allocs, churn, failed, slack)",
				    tok);
		if (opt.nsort == 16)
			usage_error("too many sort keys");
		opt.sort[opt.nsort].key = keys[i].k;
		opt.sort[opt.nsort].desc = dir < 0 ? keys[i].desc : dir;
		opt.nsort++;
	}
	free(dup);
	if (!opt.nsort)
		usage_error("empty sort specification");
	opt.sort_given = 1;
	return 0;
}

/*
 * The lifetime count keys order nothing in rows that have no such counts
 * (a kernel without CONFIG_MEM_ALLOC_PROFILING_STATS): say so, rather than
 * let the ties fall silently to file and line.
 */
void warn_stats_sort(const struct row *rows, size_t n)
{
	static const char *const names[] = {
		[K_ALLOCS] = "allocs", [K_CHURN] = "churn",
		[K_FAILED] = "failed", [K_SLACK] = "slack",
	};

	for (size_t i = 0; i < n; i++)
		if (rows[i].st.valid)
			return;
	for (int i = 0; i < opt.nsort; i++) {
		enum key k = opt.sort[i].key;

		if (k == K_ALLOCS || k == K_CHURN || k == K_FAILED || k == K_SLACK) {
			warnx("warning: no call site has lifetime counts "
			      "(CONFIG_MEM_ALLOC_PROFILING_STATS): --sort %s orders nothing, "
			      "rows are in the order of the other keys, then file and line",
			      names[k]);
			return;
		}
	}
}

static const char *strip_dot(const char *f)
{
	while (f[0] == '.' && f[1] == '/')
		f += 2;
	return f;
}

static char *group_key(const struct row *r)
{
	const char *f = strip_dot(r->file), *slash;
	char *k;

	switch (opt.group) {
	case G_MODULE: return xstrdup(modname(r->module));
	case G_FUNC: return xstrdup(r->func);
	case G_FILE: return xstrdup(f);
	default: break;
	}
	slash = strrchr(f, '/');
	if (!slash)
		return xstrdup(".");
	if (slash == f)		/* a file in the root directory */
		return xstrdup("/");
	k = xmalloc((size_t)(slash - f) + 1);
	memcpy(k, f, (size_t)(slash - f));
	k[slash - f] = '\0';
	/* an absolute path's root belongs to its first component: /home */
	if (opt.group_depth > 0) {
		int n = 0;

		for (char *p = k + (*k == '/'); *p; p++)
			if (*p == '/' && ++n == opt.group_depth) {
				*p = '\0';
				break;
			}
	}
	return k;
}

static int cmp_gkey(const void *pa, const void *pb)
{
	const struct row *a = pa, *b = pb;

	return strcmp(a->key, b->key);
}

/* Merge rows with equal group keys; returns the new count. */
size_t rows_group(struct row *rows, size_t n)
{
	size_t out = 0;

	for (size_t i = 0; i < n; i++)
		rows[i].key = group_key(&rows[i]);
	if (n > 1)
		qsort(rows, n, sizeof(*rows), cmp_gkey);
	for (size_t i = 0; i < n; i++) {
		if (out && !strcmp(rows[out - 1].key, rows[i].key)) {
			rows[out - 1].bytes = sat_add(rows[out - 1].bytes, rows[i].bytes);
			rows[out - 1].calls = sat_addu(rows[out - 1].calls, rows[i].calls);
			rows[out - 1].rate += rows[i].rate;
			stats_add(&rows[out - 1].st, &rows[i].st);
			rows[out - 1].sites++;
			free(rows[i].key);
			continue;
		}
		rows[out] = rows[i];
		rows[out].sites = 1;
		rows[out].e = NULL;
		rows[out].line = 0;
		rows[out].occ = 0;
		rows[out].file = opt.group == G_FILE || opt.group == G_DIR ? rows[out].key : "";
		rows[out].func = opt.group == G_FUNC ? rows[out].key : "";
		rows[out].module = opt.group == G_MODULE ? rows[out].key : "";
		out++;
	}
	return out;
}

void rows_free(struct row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(rows[i].key);
	free(rows);
}

/* ---- output ---------------------------------------------------------- */

static const char *group_name(void)
{
	static const char *const n[] = { "", "module", "dir", "file", "func" };

	return n[opt.group];
}

static const char *group_label(const struct row *r)
{
	return r->key;
}

static int width(const char *s, int w);

static void kv_text(FILE *f, const struct allocinfo_entry *e, const char *sep,
		    const char *pairsep, int skip_stats)
{
	const char *k, *v;
	int n = 0;

	for (size_t i = 0; e && i < allocinfo_entry_kv_count(e); i++) {
		allocinfo_entry_kv_get(e, i, &k, &v);
		if (skip_stats && stats_key(k))
			continue;
		fprintf(f, "%s%s%s%s", n++ ? pairsep : "", k, sep, v);
	}
}

/* Pairs of @r left for the EXTRA column: those not shown as columns. */
static size_t extra_count(const struct row *r, int stats_cols)
{
	size_t n = allocinfo_entry_kv_count(r->e);
	const char *k, *v;

	if (!stats_cols || !r->st.valid || !r->e)
		return n;
	for (size_t i = 0; i < allocinfo_entry_kv_count(r->e); i++) {
		allocinfo_entry_kv_get(r->e, i, &k, &v);
		n -= stats_key(k);
	}
	return n;
}

/* Widths of the lifetime count columns: ALLOCS CHURN FAILED SLACK. */
struct stats_w {
	int on, a, c, f, s;
};

static void stats_text(const struct stats *st, char a[32], char c[64],
		       char fl[32], char sl[64])
{
	if (!st->valid) {
		strcpy(a, "-"); strcpy(c, "-"); strcpy(fl, "-"); strcpy(sl, "-");
		return;
	}
	snprintf(a, 32, "%" PRIu64, st->allocs);
	fmt_size(c, 64, st->churn > INT64_MAX ? INT64_MAX : (int64_t)st->churn, opt.raw);
	snprintf(fl, 32, "%" PRIu64, st->failed);
	fmt_size(sl, 64, (int64_t)(stats_slack(st) > INT64_MAX ? INT64_MAX : stats_slack(st)),
		 opt.raw);
}

static void stats_widths(struct stats_w *w, const struct row *rows, size_t shown)
{
	char a[32], c[64], fl[32], sl[64];

	*w = (struct stats_w){ 0, 6, 5, 6, 5 };
	for (size_t i = 0; i < shown; i++) {
		if (!rows[i].st.valid)
			continue;
		w->on = 1;
		stats_text(&rows[i].st, a, c, fl, sl);
		w->a = width(a, w->a);
		w->c = width(c, w->c);
		w->f = width(fl, w->f);
		w->s = width(sl, w->s);
	}
}

static void stats_cols(FILE *f, const struct stats_w *w, const struct stats *st)
{
	char a[32], c[64], fl[32], sl[64];

	if (!w->on)
		return;
	stats_text(st, a, c, fl, sl);
	fprintf(f, " %*s %*s %*s %*s", w->a, a, w->c, c, w->f, fl, w->s, sl);
}

/*
 * Length of the valid UTF-8 sequence at s (1 to 4), or 0 if the byte at s
 * does not start one: stray continuation bytes, sequences cut short,
 * overlong forms, surrogates and code points above U+10FFFF are invalid.
 */
size_t utf8_len(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (u[0] < 0x80)
		return 1;
	if (u[0] >= 0xc2 && u[0] <= 0xdf)
		n = 2;
	else if (u[0] >= 0xe0 && u[0] <= 0xef)
		n = 3;
	else if (u[0] >= 0xf0 && u[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (u[0] == 0xe0)
		lo = 0xa0;
	else if (u[0] == 0xed)
		hi = 0x9f;
	else if (u[0] == 0xf0)
		lo = 0x90;
	else if (u[0] == 0xf4)
		hi = 0x8f;
	if (u[1] < lo || u[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (u[i] < 0x80 || u[i] > 0xbf)
			return 0;
	return n;
}

/*
 * JSON string.  Bytes that are not UTF-8 cannot be in a JSON text: they
 * are written as the four characters \xNN (a backslash escaped as \\),
 * which keeps every byte visible and the file loadable.
 */
void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	while (*s) {
		unsigned char c = (unsigned char)*s;
		size_t n = utf8_len(s);

		if (!n)
			fprintf(f, "\\\\x%02x", c);
		else if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fwrite(s, 1, n, f);
		s += n ? n : 1;
	}
	fputc('"', f);
}

void csv_str(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/*
 * Label value: backslash, double quote and newline escaped; bytes that are
 * not UTF-8, which the parsers refuse, and other control characters are
 * written as the text \xNN.
 */
static void om_str(FILE *f, const char *s)
{
	fputc('"', f);
	while (*s) {
		unsigned char c = (unsigned char)*s;
		size_t n = utf8_len(s);

		if (c == '\\')
			fputs("\\\\", f);
		else if (c == '"')
			fputs("\\\"", f);
		else if (c == '\n')
			fputs("\\n", f);
		else if (!n || c < 0x20 || c == 0x7f)
			fprintf(f, "\\\\x%02x", c);
		else
			fwrite(s, 1, n, f);
		s += n ? n : 1;
	}
	fputc('"', f);
}

static int width(const char *s, int w)
{
	int n = (int)strlen(s);

	return n > w ? n : w;
}

static int loc_len(const char *file, unsigned long line)
{
	char b[24];

	return (int)strlen(file) + snprintf(b, sizeof(b), ":%lu", line);
}

/*
 * The name columns are as wide as their longest entry in the rows shown,
 * so that a long path widens its column instead of pushing the columns
 * after it out of line.
 */
void namew_init(struct namew *w)
{
	w->loc = 8;
	w->func = 8;
	w->mod = 6;
}

void namew_add(struct namew *w, const struct row *r)
{
	int n = loc_len(r->file, r->line);

	w->loc = n > w->loc ? n : w->loc;
	w->func = width(r->func, w->func);
	w->mod = width(modname(r->module), w->mod);
}

/* "file:line" padded to width */
void put_loc(FILE *f, const char *file, unsigned long line, int w)
{
	fprintf(f, "%s:%lu%*s", file, line, w - loc_len(file, line), "");
}

static void out_table(FILE *f, struct row *rows, size_t n, size_t shown,
		      int64_t tbytes, uint64_t tcalls)
{
	char b[64], c[32], a[64], loc[64];
	int wb = 5, wc = 5, wa = 3, wl = 8, wf = 8, wm = 6, haskv = 0;
	struct stats_w sw;

	stats_widths(&sw, rows, shown);

	for (size_t i = 0; i < shown; i++) {
		struct row *r = &rows[i];

		wb = width(fmt_size(b, sizeof(b), r->bytes, opt.raw), wb);
		snprintf(c, sizeof(c), "%" PRIu64, r->calls);
		wc = width(c, wc);
		wa = width(fmt_size(a, sizeof(a), r->calls ? avg_bytes(r->bytes, r->calls) : 0, opt.raw), wa);
		if (opt.group) {
			wl = width(group_label(r), wl);
			continue;
		}
		snprintf(loc, sizeof(loc), ":%lu", r->line);
		int lw = (int)(strlen(r->file) + strlen(loc));
		wl = lw > wl ? lw : wl;
		wf = width(r->func, wf);
		wm = width(modname(r->module), wm);
		haskv |= extra_count(r, sw.on) > 0;
	}
	fprintf(f, "%*s %*s %*s", wb, "BYTES", wc, "CALLS", wa, "AVG");
	if (sw.on)
		fprintf(f, " %*s %*s %*s %*s", sw.a, "ALLOCS", sw.c, "CHURN", sw.f,
			"FAILED", sw.s, "SLACK");
	if (opt.group)
		fprintf(f, " %6s  %s\n", "SITES", opt.group == G_DIR ? "DIR" :
			opt.group == G_FILE ? "FILE" : opt.group == G_FUNC ? "FUNCTION" : "MODULE");
	else
		fprintf(f, "  %-*s %-*s %-*s%s\n", wl, "LOCATION", wf, "FUNCTION",
			haskv ? wm : 0, "MODULE", haskv ? " EXTRA" : "");
	for (size_t i = 0; i < shown; i++) {
		struct row *r = &rows[i];

		snprintf(c, sizeof(c), "%" PRIu64, r->calls);
		fmt_size(b, sizeof(b), r->bytes, opt.raw);
		if (r->calls)
			fmt_size(a, sizeof(a), avg_bytes(r->bytes, r->calls), opt.raw);
		else
			strcpy(a, "-");
		fprintf(f, "%*s %*s %*s", wb, b, wc, c, wa, a);
		stats_cols(f, &sw, &r->st);
		if (opt.group) {
			fprintf(f, " %6zu  %s\n", r->sites, group_label(r));
			continue;
		}
		int lw = fprintf(f, "  %s:%lu", r->file, r->line);
		snprintf(loc, sizeof(loc), ":%lu", r->line);
		lw = wl - (int)(strlen(r->file) + strlen(loc));
		fprintf(f, "%*s %-*s %-*s", lw, "", wf, r->func,
			haskv ? wm : 0, modname(r->module));
		if (haskv && extra_count(r, sw.on)) {
			fputc(' ', f);
			kv_text(f, r->e, ":", " ", sw.on && r->st.valid);
		}
		fputc('\n', f);
	}
	fprintf(f, "-- %zu %s%s (%zu shown), total %s in %" PRIu64 " calls\n", n,
		opt.group ? "group" : "call site", n == 1 ? "" : "s", shown,
		fmt_size(b, sizeof(b), tbytes, opt.raw), tcalls);
}

/* the pairs before index i that have the key of pair i */
static int kv_repeated(const struct allocinfo_entry *e, size_t i)
{
	const char *k, *v, *k2;

	allocinfo_entry_kv_get(e, i, &k, &v);
	for (size_t j = 0; j < i; j++) {
		allocinfo_entry_kv_get(e, j, &k2, &v);
		if (!strcmp(k, k2))
			return 1;
	}
	return 0;
}

/*
 * "extra": each key once, with its first value, as in OpenMetrics and
 * allocinfo_entry_kv_find() (a JSON object with a key twice is read
 * differently by different parsers); a row that repeats a key also gets
 * "extra_pairs", every pair in row order, so that nothing is lost.
 */
static void json_kv(FILE *f, const struct allocinfo_entry *e)
{
	size_t n = allocinfo_entry_kv_count(e);
	const char *k, *v;
	int rep = 0, first = 1;

	fputs(",\"extra\":{", f);
	for (size_t j = 0; j < n; j++) {
		if (kv_repeated(e, j)) {
			rep = 1;
			continue;
		}
		allocinfo_entry_kv_get(e, j, &k, &v);
		if (!first)
			fputc(',', f);
		first = 0;
		json_str(f, k);
		fputc(':', f);
		json_str(f, v);
	}
	fputc('}', f);
	if (!rep)
		return;
	fputs(",\"extra_pairs\":[", f);
	for (size_t j = 0; j < n; j++) {
		allocinfo_entry_kv_get(e, j, &k, &v);
		fputs(j ? ",[" : "[", f);
		json_str(f, k);
		fputc(',', f);
		json_str(f, v);
		fputc(']', f);
	}
	fputc(']', f);
}

static void out_json(FILE *f, struct row *rows, size_t n, size_t shown,
		     int64_t tbytes, uint64_t tcalls, const struct allocinfo_list *l)
{
	fprintf(f, "{\"version\":\"%d.%d\",", allocinfo_list_version_major(l),
		allocinfo_list_version_minor(l));
	if (opt.group)
		fprintf(f, "\"group\":\"%s\",", group_name());
	fprintf(f, "\"count\":%zu,\"shown\":%zu,\"total_bytes\":%" PRId64
		",\"total_calls\":%" PRIu64 ",\"malformed\":%zu,\"rows\":[",
		n, shown, tbytes, tcalls, allocinfo_list_malformed_count(l));
	for (size_t i = 0; i < shown; i++) {
		struct row *r = &rows[i];

		fprintf(f, "%s\n{\"bytes\":%" PRId64 ",\"calls\":%" PRIu64 ",\"avg\":",
			i ? "," : "", r->bytes, r->calls);
		if (r->calls)
			fprintf(f, "%" PRId64, avg_bytes(r->bytes, r->calls));
		else
			fputs("null", f);
		if (r->st.valid)
			fprintf(f, ",\"total_calls\":%" PRIu64 ",\"total_bytes\":%" PRIu64
				",\"failed\":%" PRIu64 ",\"requested\":%" PRIu64
				",\"slack\":%" PRIu64, r->st.allocs, r->st.churn,
				r->st.failed, r->st.requested, stats_slack(&r->st));
		if (opt.group) {
			fprintf(f, ",\"sites\":%zu,\"key\":", r->sites);
			json_str(f, r->key);
			fputc('}', f);
			continue;
		}
		fputs(",\"file\":", f);
		json_str(f, r->file);
		fprintf(f, ",\"line\":%lu,\"func\":", r->line);
		json_str(f, r->func);
		fputs(",\"module\":", f);
		json_str(f, modname(r->module));
		if (allocinfo_entry_kv_count(r->e))
			json_kv(f, r->e);
		fputc('}', f);
	}
	fputs("\n]}\n", f);
}

static void out_csv(FILE *f, struct row *rows, size_t shown)
{
	char buf[64];

	if (opt.group)
		fprintf(f, "%s,bytes,calls,avg,sites\n", group_name());
	else
		fputs("bytes,calls,avg,file,line,func,module,extra\n", f);
	for (size_t i = 0; i < shown; i++) {
		struct row *r = &rows[i];

		if (r->calls)
			snprintf(buf, sizeof(buf), "%" PRId64, avg_bytes(r->bytes, r->calls));
		else
			buf[0] = '\0';
		if (opt.group) {
			csv_str(f, r->key);
			fprintf(f, ",%" PRId64 ",%" PRIu64 ",%s,%zu\n", r->bytes, r->calls,
				buf, r->sites);
			continue;
		}
		fprintf(f, "%" PRId64 ",%" PRIu64 ",%s,", r->bytes, r->calls, buf);
		csv_str(f, r->file);
		fprintf(f, ",%lu,", r->line);
		csv_str(f, r->func);
		fputc(',', f);
		csv_str(f, modname(r->module));
		fputc(',', f);
		if (allocinfo_entry_kv_count(r->e)) {
			char *s = NULL;
			size_t sl = 0;
			FILE *m = open_memstream(&s, &sl);

			if (!m)
				err(EX_RUNTIME, "open_memstream");
			kv_text(m, r->e, ":", " ", 0);
			fclose(m);
			csv_str(f, s);
			free(s);
		}
		fputc('\n', f);
	}
}

/* the row's labels, without the closing brace */
static void om_labels_open(FILE *f, const struct row *r)
{
	if (opt.group) {
		fprintf(f, "{%s=", group_name());
		om_str(f, r->key);
		return;
	}
	fputs("{file=", f);
	om_str(f, r->file);
	fprintf(f, ",line=\"%lu\",func=", r->line);
	om_str(f, r->func);
	fputs(",module=", f);
	om_str(f, modname(r->module));
	if (r->occ)
		fprintf(f, ",occurrence=\"%u\"", r->occ);
}

static void om_labels(FILE *f, const struct row *r)
{
	om_labels_open(f, r);
	fputc('}', f);
}

/*
 * 2.x key:value pairs in OpenMetrics.  A key's family name is "allocinfo_kv_"
 * and the key with every byte outside [a-zA-Z0-9_] turned into '_'; keys
 * that sanitise alike share one family.  A family is numeric when each of
 * its values in the rows shown is a decimal number: it becomes a gauge with
 * the site's labels.  Otherwise its values become labels "kv_<key>" on the
 * info metric allocinfo_site_info (value 1) of the rows that have them.
 * Within a row, only the first pair of a family counts.
 */
struct kvfam {
	char *name;		/* sanitised key */
	const char *key;	/* first key seen, for HELP */
	int numeric;
};

static int om_number(const char *v)
{
	const char *p = v;

	if (*p == '-' || *p == '+')
		p++;
	if (*p < '0' || *p > '9')
		return 0;
	while (*p >= '0' && *p <= '9')
		p++;
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return 0;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '-' || *p == '+')
			p++;
		if (*p < '0' || *p > '9')
			return 0;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	return *p == '\0';
}

static int om_namechar(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

/* does key sanitise to name? */
static int om_key_is(const char *key, const char *name)
{
	for (; *key && *name; key++, name++)
		if ((om_namechar(*key) ? *key : '_') != *name)
			return 0;
	return !*key && !*name;
}

/* the value of the first pair of family name in the row, or NULL */
static const char *om_kv_value(const struct row *r, const char *name)
{
	const char *k, *v;

	for (size_t i = 0; r->e && i < allocinfo_entry_kv_count(r->e); i++) {
		allocinfo_entry_kv_get(r->e, i, &k, &v);
		if (om_key_is(k, name))
			return v;
	}
	return NULL;
}

static struct kvfam *om_families(struct row *rows, size_t shown, size_t *nfam)
{
	struct kvfam *fam = NULL;
	size_t n = 0;
	const char *k, *v;

	for (size_t i = 0; i < shown; i++) {
		const struct allocinfo_entry *e = rows[i].e;

		for (size_t j = 0; e && j < allocinfo_entry_kv_count(e); j++) {
			size_t f;

			allocinfo_entry_kv_get(e, j, &k, &v);
			for (f = 0; f < n && !om_key_is(k, fam[f].name); f++)
				;
			if (f == n) {
				fam = realloc(fam, (n + 1) * sizeof(*fam));
				if (!fam)
					err(EX_RUNTIME, "realloc");
				fam[n].name = xstrdup(k);
				for (char *c = fam[n].name; *c; c++)
					if (!om_namechar(*c))
						*c = '_';
				fam[n].key = k;
				fam[n].numeric = 1;
				n++;
			}
			/* only the row's first pair of the family is exported */
			if (om_kv_value(&rows[i], fam[f].name) == v && !om_number(v))
				fam[f].numeric = 0;
		}
	}
	*nfam = n;
	return fam;
}

/* HELP text: backslash, double quote and newline escaped, UTF-8 kept valid */
static void om_help(FILE *f, const char *s)
{
	while (*s) {
		unsigned char c = (unsigned char)*s;
		size_t n = utf8_len(s);

		if (c == '\\' || c == '"')
			fputc('\\', f);
		if (c == '\n')
			fputs("\\n", f);
		else if (!n || c < 0x20 || c == 0x7f)
			fprintf(f, "\\\\x%02x", c);
		else
			fwrite(s, 1, n, f);
		s += n ? n : 1;
	}
}

static void om_kv(FILE *f, struct row *rows, size_t shown)
{
	size_t nfam, ninfo = 0;
	struct kvfam *fam = om_families(rows, shown, &nfam);

	for (size_t j = 0; j < nfam; j++) {
		if (!fam[j].numeric) {
			ninfo++;
			continue;
		}
		fprintf(f, "# TYPE allocinfo_kv_%s gauge\n# HELP allocinfo_kv_%s "
			"Value of the key:value pair '", fam[j].name, fam[j].name);
		om_help(f, fam[j].key);
		fputs("' of the call site.\n", f);
		for (size_t i = 0; i < shown; i++) {
			const char *v = om_kv_value(&rows[i], fam[j].name);

			if (!v)
				continue;
			fprintf(f, "allocinfo_kv_%s", fam[j].name);
			om_labels(f, &rows[i]);
			fprintf(f, " %s\n", v);
		}
	}
	if (ninfo) {
		fputs("# TYPE allocinfo_site info\n"
		      "# HELP allocinfo_site Non-numeric key:value pairs of the call site, as kv_<key> labels.\n", f);
		for (size_t i = 0; i < shown; i++) {
			int any = 0;

			for (size_t j = 0; j < nfam; j++) {
				const char *v;

				if (fam[j].numeric || !(v = om_kv_value(&rows[i], fam[j].name)))
					continue;
				if (!any) {
					fputs("allocinfo_site_info", f);
					om_labels_open(f, &rows[i]);
					any = 1;
				}
				fprintf(f, ",kv_%s=", fam[j].name);
				om_str(f, v);
			}
			if (any)
				fputs("} 1\n", f);
		}
	}
	for (size_t j = 0; j < nfam; j++)
		free(fam[j].name);
	free(fam);
}

static void out_openmetrics(FILE *f, struct row *rows, size_t shown)
{
	fputs("# TYPE allocinfo_bytes gauge\n"
	      "# UNIT allocinfo_bytes bytes\n"
	      "# HELP allocinfo_bytes Bytes currently allocated from the call site.\n", f);
	for (size_t i = 0; i < shown; i++) {
		fputs("allocinfo_bytes", f);
		om_labels(f, &rows[i]);
		fprintf(f, " %" PRId64 "\n", rows[i].bytes);
	}
	fputs("# TYPE allocinfo_calls gauge\n"
	      "# HELP allocinfo_calls Live allocations made from the call site.\n", f);
	for (size_t i = 0; i < shown; i++) {
		fputs("allocinfo_calls", f);
		om_labels(f, &rows[i]);
		fprintf(f, " %" PRIu64 "\n", rows[i].calls);
	}
	if (!opt.group)
		om_kv(f, rows, shown);
	fputs("# EOF\n", f);
}

static void folded_part(FILE *f, const char *s, size_t n)
{
	for (size_t i = 0; i < n && s[i]; i++)
		fputc(s[i] == ';' || s[i] == ' ' ? '_' : s[i], f);
}

static void out_folded(FILE *f, struct row *rows, size_t shown)
{
	for (size_t i = 0; i < shown; i++) {
		struct row *r = &rows[i];

		if (r->bytes <= 0)
			continue;
		if (opt.group) {
			folded_part(f, r->key, SIZE_MAX);
		} else {
			const char *fl = strip_dot(r->file), *sl = strrchr(fl, '/');

			if (sl)
				folded_part(f, fl, (size_t)(sl - fl));
			else
				fputc('.', f);
			fputc(';', f);
			folded_part(f, sl ? sl + 1 : fl, SIZE_MAX);
			fputc(';', f);
			folded_part(f, r->func, SIZE_MAX);
		}
		fprintf(f, " %" PRId64 "\n", r->bytes);
	}
}

void output_rows(FILE *f, struct row *rows, size_t n, const struct allocinfo_list *l)
{
	int64_t tb = 0;
	uint64_t tc = 0;
	size_t shown = n;
	long lim = opt.limit;

	for (size_t i = 0; i < n; i++) {
		tb = sat_add(tb, rows[i].bytes);
		tc = sat_addu(tc, rows[i].calls);
	}
	if (lim == -2)	/* default: 20 in the table, all in machine formats */
		lim = opt.fmt == FMT_TABLE ? 20 : -1;
	if (lim >= 0 && (size_t)lim < n)
		shown = (size_t)lim;
	switch (opt.fmt) {
	case FMT_TABLE: out_table(f, rows, n, shown, tb, tc); break;
	case FMT_JSON: out_json(f, rows, n, shown, tb, tc, l); break;
	case FMT_CSV: out_csv(f, rows, shown); break;
	case FMT_OPENMETRICS: out_openmetrics(f, rows, shown); break;
	case FMT_FOLDED: out_folded(f, rows, shown); break;
	}
}

/* ---- option parsing and the default view ------------------------------ */

static void usage(FILE *f)
{
	fputs("Usage: allocinfo [OPTIONS] [FILE]\n"
	      "       allocinfo snapshot [-o FILE] [OPTIONS] [SOURCE]\n"
	      "       allocinfo diff [OPTIONS] OLD [NEW]\n"
	      "       allocinfo top [-d SECONDS] [-i N] [OPTIONS] [SOURCE]\n"
	      "       allocinfo growth [-c COUNT] [-d SECONDS] [OPTIONS] [SOURCE | SNAPSHOT...]\n"
	      "Show the kernel's memory allocation profile (/proc/allocinfo).\n"
	      "FILE may be a saved copy, a snapshot, or - for standard input.\n"
	      "\n"
	      "Source and input:\n"
	      "  -f, --input FILE        read FILE instead of /proc/allocinfo\n"
	      "      --strict            malformed lines are fatal (exit status 3)\n"
	      "      --max-input SIZE    refuse sources larger than SIZE (default 64M,\n"
	      "                          0: no limit)\n"
	      "Selection and order:\n"
	      "  -n, --lines N           show the first N rows (table default 20)\n"
	      "  -a, --all               show all rows\n"
	      "  -s, --sort KEYS         comma-separated keys: bytes calls avg rate file\n"
	      "                          line func module allocs churn failed slack;\n"
	      "                          prefix - descending, + ascending\n"
	      "                          (default: bytes, descending)\n"
	      "      --module RE         keep modules matching RE (vmlinux: built-in)\n"
	      "      --exclude-module RE drop modules matching RE\n"
	      "      --file RE, --exclude-file RE, --func RE, --exclude-func RE\n"
	      "                          the same for the source file and function\n"
	      "      --min-bytes N       keep rows with at least N bytes (K/M/G suffixes)\n"
	      "      --min-calls N       keep rows with at least N calls\n"
	      "      --nonzero           drop rows with zero bytes\n"
	      "  -g, --group WHAT        sum by module, dir[:N], file or func\n"
	      "Output:\n"
	      "  -b, --bytes             raw byte counts instead of IEC units\n"
	      "      --json, --csv, --openmetrics, --folded, --format FMT\n"
	      "  -o, --output FILE       snapshot: write to FILE (default stdout)\n"
	      "  -d, --delay SECONDS     top, growth: seconds between samples\n"
	      "  -i, --iterations N      top: stop after N refreshes\n"
	      "  -c, --count N           growth: number of samples (default 5)\n"
	      "      --unchanged         diff: also list unchanged call sites\n"
	      "      --numa              bytes per NUMA node, from /proc/allocinfo_numa\n"
	      "                          (or FILE, a saved copy of it); table or --csv\n"
	      "  -h, --help              show this help\n"
	      "  -V, --version           show the version\n"
	      "\n"
	      "Exit status: 0 success, 1 runtime error, 2 usage error,\n"
	      "3 malformed input with --strict.\n", f);
}

enum {
	O_STRICT = 256, O_MODULE, O_XMODULE, O_FILE, O_XFILE, O_FUNC, O_XFUNC,
	O_MINB, O_MINC, O_NONZERO, O_JSON, O_CSV, O_OM, O_FOLDED, O_FORMAT,
	O_UNCHANGED, O_NUMA, O_MAXIN,
};

static const struct option longopts[] = {
	{ "input", required_argument, NULL, 'f' },
	{ "strict", no_argument, NULL, O_STRICT },
	{ "lines", required_argument, NULL, 'n' },
	{ "all", no_argument, NULL, 'a' },
	{ "sort", required_argument, NULL, 's' },
	{ "module", required_argument, NULL, O_MODULE },
	{ "exclude-module", required_argument, NULL, O_XMODULE },
	{ "file", required_argument, NULL, O_FILE },
	{ "exclude-file", required_argument, NULL, O_XFILE },
	{ "func", required_argument, NULL, O_FUNC },
	{ "exclude-func", required_argument, NULL, O_XFUNC },
	{ "min-bytes", required_argument, NULL, O_MINB },
	{ "min-calls", required_argument, NULL, O_MINC },
	{ "nonzero", no_argument, NULL, O_NONZERO },
	{ "group", required_argument, NULL, 'g' },
	{ "bytes", no_argument, NULL, 'b' },
	{ "json", no_argument, NULL, O_JSON },
	{ "csv", no_argument, NULL, O_CSV },
	{ "openmetrics", no_argument, NULL, O_OM },
	{ "folded", no_argument, NULL, O_FOLDED },
	{ "format", required_argument, NULL, O_FORMAT },
	{ "output", required_argument, NULL, 'o' },
	{ "delay", required_argument, NULL, 'd' },
	{ "iterations", required_argument, NULL, 'i' },
	{ "count", required_argument, NULL, 'c' },
	{ "unchanged", no_argument, NULL, O_UNCHANGED },
	{ "numa", no_argument, NULL, O_NUMA },
	{ "max-input", required_argument, NULL, O_MAXIN },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static long long parse_num(const char *s, const char *what, int suffixes, int allow_neg)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (end == s || errno || (!allow_neg && v < 0))
		usage_error("invalid %s '%s'", what, s);
	if (suffixes && *end) {
		const char *u = "KMGTP";
		const char *p = strchr(u, toupper((unsigned char)*end));
		int shift;

		if (!p || !*p)
			usage_error("invalid %s '%s'", what, s);
		shift = 10 * (int)(p - u + 1);
		end++;
		if (*end == 'i' && end[1] == 'B')
			end += 2;
		else if (*end == 'B')
			end++;
		if (v > (LLONG_MAX >> shift) || v < -(LLONG_MAX >> shift))
			usage_error("%s '%s' out of range", what, s);
		v *= 1LL << shift;
	}
	if (*end)
		usage_error("invalid %s '%s'", what, s);
	return v;
}

static void add_filter(const char *re, int fieldk, int exclude)
{
	struct refilter *f;
	int rc;

	opt.filters = realloc(opt.filters, (size_t)(opt.nfilters + 1) * sizeof(*opt.filters));
	if (!opt.filters)
		err(EX_RUNTIME, "realloc");
	f = &opt.filters[opt.nfilters];
	rc = regcomp(&f->re, re, REG_EXTENDED | REG_NOSUB);
	if (rc) {
		char msg[256];

		regerror(rc, &f->re, msg, sizeof(msg));
		usage_error("bad regular expression '%s': %s", re, msg);
	}
	f->field = fieldk;
	f->exclude = exclude;
	opt.nfilters++;
}

static void set_format(const char *s)
{
	static const char *const names[] = { "table", "json", "csv", "openmetrics", "folded" };

	for (int i = 0; i < 5; i++)
		if (!strcmp(s, names[i])) {
			opt.fmt = (enum fmt)i;
			return;
		}
	usage_error("unknown format '%s' (table, json, csv, openmetrics, folded)", s);
}

static void set_group(const char *s)
{
	if (!strcmp(s, "module"))
		opt.group = G_MODULE;
	else if (!strcmp(s, "file"))
		opt.group = G_FILE;
	else if (!strcmp(s, "func"))
		opt.group = G_FUNC;
	else if (!strcmp(s, "dir"))
		opt.group = G_DIR;
	else if (!strncmp(s, "dir:", 4)) {
		opt.group = G_DIR;
		opt.group_depth = (int)parse_num(s + 4, "directory depth", 0, 0);
		if (opt.group_depth < 1 || opt.group_depth > 1000)
			usage_error("directory depth must be 1 to 1000");
	} else
		usage_error("unknown group '%s' (module, dir[:N], file, func)", s);
}

static double parse_delay(const char *s)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(s, &end);
	if (end == s || *end || errno || !(d >= 0) || d > 86400)
		usage_error("invalid delay '%s'", s);
	return d;
}

static void parse_opts(int argc, char **argv)
{
	int c;

	opt.limit = -2;
	opt.delay = -1;
	opt.iterations = -1;
	opt.count = -1;
	opt.max_input = ALLOCINFO_MAX_INPUT_DEFAULT;
	opt.nsort = 1;
	opt.sort[0].key = K_BYTES;
	opt.sort[0].desc = 1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "f:n:as:g:bo:d:i:c:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'f': opt.input = optarg; break;
		case O_STRICT: opt.strict = 1; break;
		case 'n': opt.limit = (long)parse_num(optarg, "row count", 0, 0); break;
		case 'a': opt.limit = -1; break;
		case 's': parse_sort(optarg); break;
		case O_MODULE: add_filter(optarg, K_MODULE, 0); break;
		case O_XMODULE: add_filter(optarg, K_MODULE, 1); break;
		case O_FILE: add_filter(optarg, K_FILE, 0); break;
		case O_XFILE: add_filter(optarg, K_FILE, 1); break;
		case O_FUNC: add_filter(optarg, K_FUNC, 0); break;
		case O_XFUNC: add_filter(optarg, K_FUNC, 1); break;
		case O_MINB:
			opt.min_bytes = parse_num(optarg, "byte count", 1, 1);
			opt.min_bytes_set = 1;
			break;
		case O_MINC:
			opt.min_calls = (uint64_t)parse_num(optarg, "call count", 1, 0);
			opt.min_calls_set = 1;
			break;
		case O_NONZERO: opt.nonzero = 1; break;
		case 'g': set_group(optarg); break;
		case 'b': opt.raw = 1; break;
		case O_JSON: opt.fmt = FMT_JSON; break;
		case O_CSV: opt.fmt = FMT_CSV; break;
		case O_OM: opt.fmt = FMT_OPENMETRICS; break;
		case O_FOLDED: opt.fmt = FMT_FOLDED; break;
		case O_FORMAT: set_format(optarg); break;
		case 'o': opt.output = optarg; break;
		case 'd': opt.delay = parse_delay(optarg); break;
		case 'i':
			opt.iterations = (long)parse_num(optarg, "iteration count", 0, 0);
			break;
		case 'c':
			opt.count = (long)parse_num(optarg, "sample count", 0, 0);
			break;
		case O_UNCHANGED: opt.unchanged = 1; break;
		case O_NUMA: opt.numa = 1; break;
		case O_MAXIN:
			opt.max_input = (size_t)parse_num(optarg, "input limit", 1, 0);
			break;
		case 'h': usage(stdout); exit(0);
		case 'V': printf("allocinfo %s (liballocinfo %s)\n", VERSION, ALLOCINFO_LIB_VERSION); exit(0);
		default:
			fprintf(stderr, "Try 'allocinfo --help' for more information.\n");
			exit(EX_USAGE_);
		}
	}
}

static int cmd_show(int npos, char **pos)
{
	struct allocinfo_list *l;
	struct allocinfo_entry *e;
	struct row *rows;
	size_t n = 0;
	int rc;

	if (npos > 1)
		usage_error("too many arguments");
	if (npos == 1) {
		if (opt.input)
			usage_error("give the input either with -f or as an argument");
		opt.input = pos[0];
	}
	if (opt.output || opt.delay >= 0 || opt.iterations >= 0 || opt.count >= 0 || opt.unchanged)
		usage_error("-o, -d, -i, -c and --unchanged belong to subcommands");
	if (opt.numa)
		return cmd_numa(opt.input);
	l = allocinfo_list_new();
	if (!l)
		err(EX_RUNTIME, "allocinfo_list_new");
	if ((rc = load(l, opt.input, 1))) {
		allocinfo_list_free(l);
		return rc;
	}
	rows = xcalloc(allocinfo_list_count(l), sizeof(*rows));
	for (e = allocinfo_list_first(l); e; e = allocinfo_entry_next(e)) {
		struct row *r = &rows[n];

		row_fill(r, e);
		if (row_match(r))
			n++;
	}
	warn_stats_sort(rows, n);
	if (opt.group)
		n = rows_group(rows, n);
	rows_sort(rows, n);
	output_rows(stdout, rows, n, l);
	rows_free(rows, n);
	allocinfo_list_free(l);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int, char **);
	} cmds[] = {
		{ "snapshot", cmd_snapshot }, { "diff", cmd_diff },
		{ "top", cmd_top }, { "growth", cmd_growth },
	};
	int (*fn)(int, char **) = cmd_show;
	const char *pr = getenv("ALLOCINFO_PROC_ROOT");
	int rc;

	if (pr && *pr)
		proc_root = pr;
	if (argc > 1) {
		for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
			if (!strcmp(argv[1], cmds[i].name)) {
				fn = cmds[i].fn;
				argv[1] = argv[0];
				argc--;
				argv++;
				break;
			}
	}
	parse_opts(argc, argv);
	if (opt.numa && fn != cmd_show)
		usage_error("--numa only works without a subcommand");
	if (opt.sort_given && (fn == cmd_diff || fn == cmd_growth))
		usage_error("%s orders its rows itself (%s): -s does not apply",
			    fn == cmd_diff ? "diff" : "growth",
			    fn == cmd_diff ? "largest change first" :
			    "leak suspects first, then by slope");
	for (int i = 0; i < opt.nsort && fn != cmd_top; i++)
		if (opt.sort[i].key == K_RATE)
			usage_error("sort key 'rate' is the rate of change that only "
				    "top measures");
	rc = fn(argc - optind, argv + optind);
	if (fflush(stdout) || ferror(stdout)) {
		warn("write error");
		return EX_RUNTIME;
	}
	return rc;
}
