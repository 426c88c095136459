// SPDX-License-Identifier: GPL-2.0
/*
 * allocinfo --numa: the per-NUMA-node breakdown of /proc/allocinfo_numa.
 *
 * That file is in the allocinfo 2.0 format with one row per call site
 * and node holding memory, the node given by a node:N pair; rows with
 * nothing on a node are left out.  Here the rows of one call site are
 * merged into one line with a column per node, then filtered, sorted
 * and limited like the default view (on the totals over the nodes).
 */
#define _DEFAULT_SOURCE
#include <err.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

/* Node ids above this are taken as malformed input. */
#define NUMA_MAX_NODES 4096

struct site {
	struct row r;
	int64_t *bytes;		/* per node */
	uint64_t *calls;
};

/* The node of a row: its node:N pair; -1 (said why) if missing or bad. */
static int numa_node_of(const struct allocinfo_entry *e, const char *name)
{
	const char *v = allocinfo_entry_kv_find(e, "node");
	char *end;
	long n;

	if (!v) {
		warnx("%s:%zu: row without node:N pair", name,
		      allocinfo_entry_lineno(e));
		return -1;
	}
	n = strtol(v, &end, 10);
	if (end == v || *end || n < 0 || n >= NUMA_MAX_NODES) {
		warnx("%s:%zu: invalid node '%s'", name,
		      allocinfo_entry_lineno(e), v);
		return -1;
	}
	return (int)n;
}

static int str_cmp(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

/* Order of the call-site identity, to bring the rows of a site together. */
static int cmp_ident(const void *pa, const void *pb)
{
	const struct row *a = pa, *b = pb;
	int c;

	if ((c = str_cmp(a->file, b->file)))
		return c;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	if ((c = str_cmp(a->func, b->func)))
		return c;
	if ((c = str_cmp(a->module, b->module)))
		return c;
	return (a->sites > b->sites) - (a->sites < b->sites);
}

static int cmp_site(const void *pa, const void *pb)
{
	return rows_cmp(&((const struct site *)pa)->r,
			&((const struct site *)pb)->r);
}

/*
 * Rows of the file, each with its node in ->sites.  A row without a good
 * node:N pair is malformed: skipped, counted in *bad.  Returns the number
 * of rows kept; -1 when no row has a node:N pair (not a per-node file).
 */
static long numa_rows(const struct allocinfo_list *l, const char *name,
		      struct row **out, int *nodes, size_t *bad)
{
	struct row *rows = xcalloc(allocinfo_list_count(l), sizeof(*rows));
	struct allocinfo_entry *e;
	size_t n = 0, with_node = 0;

	*nodes = 0;
	*bad = 0;
	for (e = allocinfo_list_first(l); e; e = allocinfo_entry_next(e))
		with_node += allocinfo_entry_kv_find(e, "node") != NULL;
	if (allocinfo_list_count(l) && !with_node) {
		free(rows);
		return -1;
	}
	for (e = allocinfo_list_first(l); e; e = allocinfo_entry_next(e)) {
		int nid = numa_node_of(e, name);

		if (nid < 0) {
			(*bad)++;
			continue;
		}
		row_fill(&rows[n], e);
		rows[n++].sites = (size_t)nid;
		if (nid >= *nodes)
			*nodes = nid + 1;
	}
	*out = rows;
	return (long)n;
}

/* Merge the rows of each call site; returns the number of sites. */
static size_t numa_merge(struct row *rows, size_t n, int nodes,
			 struct site **out)
{
	struct site *s = xcalloc(n, sizeof(*s));
	size_t ns = 0;

	if (n > 1)
		qsort(rows, n, sizeof(*rows), cmp_ident);
	for (size_t i = 0; i < n; i++) {
		struct row *r = &rows[i];
		struct site *cur = ns ? &s[ns - 1] : NULL;
		int nid = (int)r->sites;

		if (!cur || str_cmp(cur->r.file, r->file) ||
		    cur->r.line != r->line || str_cmp(cur->r.func, r->func) ||
		    str_cmp(cur->r.module, r->module)) {
			cur = &s[ns++];
			cur->r = *r;
			cur->r.bytes = 0;
			cur->r.calls = 0;
			cur->r.occ = 0;
			cur->bytes = xcalloc((size_t)nodes, sizeof(*cur->bytes));
			cur->calls = xcalloc((size_t)nodes, sizeof(*cur->calls));
		}
		cur->bytes[nid] = sat_add(cur->bytes[nid], r->bytes);
		cur->calls[nid] = sat_addu(cur->calls[nid], r->calls);
		cur->r.bytes = sat_add(cur->r.bytes, r->bytes);
		cur->r.calls = sat_addu(cur->r.calls, r->calls);
	}
	*out = s;
	return ns;
}

static void numa_table(FILE *f, const struct site *s, size_t n, size_t shown,
		       int nodes)
{
	char b[64], hdr[32];
	int wb = 5, wc = 5;
	struct namew nw;

	namew_init(&nw);
	for (size_t i = 0; i < shown; i++) {
		int w;

		namew_add(&nw, &s[i].r);
		w = (int)strlen(fmt_size(b, sizeof(b), s[i].r.bytes, opt.raw));
		wb = w > wb ? w : wb;
		w = snprintf(b, sizeof(b), "%" PRIu64, s[i].r.calls);
		wc = w > wc ? w : wc;
	}
	fprintf(f, "%*s %*s", wb, "BYTES", wc, "CALLS");
	for (int nid = 0; nid < nodes; nid++) {
		snprintf(hdr, sizeof(hdr), "NODE%d", nid);
		fprintf(f, " %*s", wb, hdr);
	}
	fprintf(f, "  %-*s %-*s %s\n", nw.loc, "LOCATION", nw.func, "FUNCTION", "MODULE");
	for (size_t i = 0; i < shown; i++) {
		const struct site *t = &s[i];

		fprintf(f, "%*s", wb, fmt_size(b, sizeof(b), t->r.bytes, opt.raw));
		fprintf(f, " %*" PRIu64, wc, t->r.calls);
		for (int nid = 0; nid < nodes; nid++)
			fprintf(f, " %*s", wb,
				fmt_size(b, sizeof(b), t->bytes[nid], opt.raw));
		fputs("  ", f);
		put_loc(f, t->r.file, t->r.line, nw.loc);
		fprintf(f, " %-*s %s\n", nw.func, t->r.func, modname(t->r.module));
	}
	fprintf(f, "-- %zu call site%s (%zu shown) on %d node%s\n", n,
		n == 1 ? "" : "s", shown, nodes, nodes == 1 ? "" : "s");
}

/* One line per call site and node, zero rows included. */
static void numa_csv(FILE *f, const struct site *s, size_t shown, int nodes)
{
	fputs("file,line,function,module,node,bytes,calls\n", f);
	for (size_t i = 0; i < shown; i++) {
		for (int nid = 0; nid < nodes; nid++) {
			csv_str(f, s[i].r.file);
			fprintf(f, ",%lu,", s[i].r.line);
			csv_str(f, s[i].r.func);
			fputc(',', f);
			csv_str(f, modname(s[i].r.module));
			fprintf(f, ",%d,%" PRId64 ",%" PRIu64 "\n", nid,
				s[i].bytes[nid], s[i].calls[nid]);
		}
	}
}

static char *numa_live_path(void)
{
	static char buf[4096];

	snprintf(buf, sizeof(buf), "%s/allocinfo_numa", proc_root);
	return buf;
}

/**
 * cmd_numa - the default view, broken down by NUMA node (--numa)
 * @src: the per-node file to read, NULL for the live one.
 */
int cmd_numa(const char *src)
{
	struct allocinfo_list *l;
	struct site *sites = NULL;
	struct row *rows = NULL;
	size_t ns, kept = 0, shown, bad;
	long nrows;
	int nodes, rc;

	if (opt.group)
		usage_error("--numa cannot be combined with --group");
	if (opt.fmt != FMT_TABLE && opt.fmt != FMT_CSV)
		usage_error("--numa prints a table or --csv");
	if (!src) {
		src = numa_live_path();
		if (access(src, F_OK)) {
			warnx("%s: not found: the kernel lacks NUMA support or "
			      "profiling, or the machine has a single node", src);
			return EX_RUNTIME;
		}
	}
	l = allocinfo_list_new();
	if (!l)
		err(EX_RUNTIME, "allocinfo_list_new");
	if ((rc = load(l, src, 1))) {
		allocinfo_list_free(l);
		return rc;
	}
	nrows = numa_rows(l, src_name(src), &rows, &nodes, &bad);
	if (nrows < 0) {
		warnx("%s: not a per-node file: no row has a node:N pair "
		      "(--numa reads /proc/allocinfo_numa or a copy of it)",
		      src_name(src));
		allocinfo_list_free(l);
		return EX_RUNTIME;
	}
	if (bad) {
		warnx("%s: %zu row%s without a valid node skipped%s", src_name(src),
		      bad, bad == 1 ? "" : "s", opt.strict ? " (fatal with --strict)" : "");
		if (opt.strict) {
			free(rows);
			allocinfo_list_free(l);
			return EX_MALFORMED;
		}
	}
	ns = numa_merge(rows, (size_t)nrows, nodes, &sites);
	for (size_t i = 0; i < ns; i++) {
		if (row_match(&sites[i].r))
			sites[kept++] = sites[i];
		else {
			free(sites[i].bytes);
			free(sites[i].calls);
		}
	}
	for (size_t i = 0; i < kept; i++)
		if (sites[i].r.st.valid)
			break;
		else if (i + 1 == kept)
			warn_stats_sort(&sites[0].r, 1);
	if (kept > 1)
		qsort(sites, kept, sizeof(*sites), cmp_site);
	shown = kept;
	if (opt.limit == -2 && opt.fmt == FMT_TABLE && shown > 20)
		shown = 20;
	else if (opt.limit >= 0 && (size_t)opt.limit < shown)
		shown = (size_t)opt.limit;
	if (opt.fmt == FMT_CSV)
		numa_csv(stdout, sites, shown, nodes);
	else
		numa_table(stdout, sites, kept, shown, nodes);
	for (size_t i = 0; i < kept; i++) {
		free(sites[i].bytes);
		free(sites[i].calls);
	}
	free(sites);
	free(rows);
	allocinfo_list_free(l);
	return 0;
}
