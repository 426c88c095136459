// SPDX-License-Identifier: GPL-2.0
/*
 * numa.c - allocinfo --numa: the per-NUMA-node breakdown of
 * /proc/allocinfo_numa
 *
 * That file is in the allocinfo 2.0 format with one row per call site
 * and node holding memory, the node given by a node:N pair; rows with
 * nothing on a node are left out.  Here the rows of one call site are
 * merged into one line with a column per node, then filtered, sorted
 * and limited like the default view (on the totals over the nodes).
 */
#define _POSIX_C_SOURCE 200809L
#include <err.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"

/* Node ids above this are taken as malformed input. */
#define NUMA_MAX_NODES 4096

/* The node of a row: its node:N pair; -1 (said why) if missing or bad. */
static int node_of(const struct allocinfo_entry *e, const char *name)
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

/* call-site identity, then node: brings the rows of a site together */
static int cmp_ident(const struct row *a, const struct row *b,
		     const struct opts *o)
{
	int c;

	(void)o;
	if ((c = strcmp(a->file, b->file)))
		return c;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	if ((c = strcmp(a->func, b->func)))
		return c;
	if ((c = strcmp(modname(a->module), modname(b->module))))
		return c;
	return (a->sites > b->sites) - (a->sites < b->sites);
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
		int nid = node_of(e, name);

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

/* Merge the rows of each call site in place; returns the number of sites. */
static size_t numa_merge(struct row *rows, size_t n, int nodes)
{
	size_t ns = 0;

	rows_sort(rows, n, NULL, cmp_ident);
	for (size_t i = 0; i < n; i++) {
		struct row r = rows[i];
		struct row *cur = ns ? &rows[ns - 1] : NULL;
		struct nodes *nd;
		int nid = (int)r.sites;

		if (!cur || strcmp(cur->file, r.file) || cur->line != r.line ||
		    strcmp(cur->func, r.func) ||
		    strcmp(modname(cur->module), modname(r.module))) {
			cur = &rows[ns++];
			*cur = r;
			cur->bytes = 0;
			cur->calls = 0;
			cur->occ = 0;
			cur->sites = 1;
			nd = cur->aux = xcalloc(1, sizeof(*nd));
			nd->bytes = xcalloc((size_t)nodes, sizeof(*nd->bytes));
			nd->calls = xcalloc((size_t)nodes, sizeof(*nd->calls));
		}
		nd = cur->aux;
		nd->bytes[nid] = sat_add(nd->bytes[nid], r.bytes);
		nd->calls[nid] = sat_addu(nd->calls[nid], r.calls);
		cur->bytes = sat_add(cur->bytes, r.bytes);
		cur->calls = sat_addu(cur->calls, r.calls);
	}
	return ns;
}

static void nodes_free(struct row *r)
{
	struct nodes *nd = r->aux;

	if (nd) {
		free(nd->bytes);
		free(nd->calls);
		free(nd);
	}
	r->aux = NULL;
}

static void numa_table(FILE *f, const struct row *s, size_t n, size_t shown,
		       int nodes, const struct opts *o)
{
	char b[64], hdr[32];
	int wb = 5, wc = 5;
	struct namew nw;

	namew_init(&nw);
	for (size_t i = 0; i < shown; i++) {
		int w;

		namew_add(&nw, &s[i]);
		w = (int)strlen(fmt_size(b, sizeof(b), s[i].bytes, o->raw));
		wb = w > wb ? w : wb;
		w = snprintf(b, sizeof(b), "%" PRIu64, s[i].calls);
		wc = w > wc ? w : wc;
	}
	fprintf(f, "%*s %*s", wb, "BYTES", wc, "CALLS");
	for (int nid = 0; nid < nodes; nid++) {
		snprintf(hdr, sizeof(hdr), "NODE%d", nid);
		fprintf(f, " %*s", wb, hdr);
	}
	fprintf(f, "  %-*s %-*s %s\n", nw.loc, "LOCATION", nw.func, "FUNCTION", "MODULE");
	for (size_t i = 0; i < shown; i++) {
		const struct row *t = &s[i];
		const struct nodes *nd = t->aux;

		fprintf(f, "%*s", wb, fmt_size(b, sizeof(b), t->bytes, o->raw));
		fprintf(f, " %*" PRIu64, wc, t->calls);
		for (int nid = 0; nid < nodes; nid++)
			fprintf(f, " %*s", wb, fmt_size(b, sizeof(b), nd->bytes[nid], o->raw));
		fputs("  ", f);
		put_loc(f, t->file, t->line, nw.loc);
		fputc(' ', f);
		put_padded(f, t->func, nw.func, 1);
		fputc(' ', f);
		put_text(f, modname(t->module));
		fputc('\n', f);
	}
	fprintf(f, "-- %zu call site%s (%zu shown) on %d node%s\n", n,
		n == 1 ? "" : "s", shown, nodes, nodes == 1 ? "" : "s");
}

/* One line per call site and node, zero rows included. */
static void numa_csv(FILE *f, const struct row *s, size_t shown, int nodes)
{
	fputs("file,line,function,module,node,bytes,calls\n", f);
	for (size_t i = 0; i < shown; i++) {
		const struct nodes *nd = s[i].aux;

		for (int nid = 0; nid < nodes; nid++) {
			put_csv_str(f, s[i].file);
			fprintf(f, ",%lu,", s[i].line);
			put_csv_str(f, s[i].func);
			fputc(',', f);
			put_csv_str(f, modname(s[i].module));
			fprintf(f, ",%d,%" PRId64 ",%" PRIu64 "\n", nid,
				nd->bytes[nid], nd->calls[nid]);
		}
	}
}

/**
 * cmd_numa - the default view, broken down by NUMA node (--numa)
 * @o: the options; o->input is the per-node file, NULL for the live one.
 */
int cmd_numa(const struct opts *o)
{
	const char *src = o->input;
	struct allocinfo_list *l;
	struct allocinfo_query *q;
	struct row *rows = NULL;
	size_t ns, kept = 0, shown, bad, over = 0, worst = 0;
	struct readinfo ri;
	struct outfile of;
	FILE *f;
	long nrows;
	int nodes, rc, any_stats = 0;
	int metrics = o->fmt == FMT_OPENMETRICS || o->fmt == FMT_PROMETHEUS;

	if (o->group)
		usage_error("--numa cannot be combined with --group");
	if (o->fmt == FMT_JSON || o->fmt == FMT_FOLDED)
		usage_error("--numa prints a table, --csv, --openmetrics or --prometheus");
	readinfo_start(&ri, o, o->input);
	if (!src) {
		src = live_path(o, "allocinfo_numa");
		if (access(src, F_OK)) {
			warnx("%s: not found: the kernel lacks NUMA support or "
			      "profiling, or the machine has a single node", src);
			if (!metrics)
				return EX_RUNTIME;
			return metrics_unread(&ri, o, RR_NOT_FOUND, EX_RUNTIME);
		}
	}
	l = list_new();
	q = query_new(o, 0);
	/* the metrics' totals are over every call site, the filters' or not */
	if (!metrics)
		allocinfo_list_set_query(l, q);
	if ((rc = load(l, o, src, 1))) {
		if (metrics)
			rc = metrics_read_failed(&ri, o, rc, l, 0);
		goto out;
	}
	nrows = numa_rows(l, src_name(o, src), &rows, &nodes, &bad);
	if (nrows < 0) {
		warnx("%s: not a per-node file: no row has a node:N pair "
		      "(--numa reads /proc/allocinfo_numa or a copy of it)",
		      src_name(o, src));
		rc = EX_RUNTIME;
		if (metrics)
			rc = metrics_unread(&ri, o, RR_FORMAT, rc);
		goto out;
	}
	if (bad) {
		warnx("%s: %zu row%s without a valid node skipped%s", src_name(o, src),
		      bad, bad == 1 ? "" : "s", o->strict ? " (fatal with --strict)" : "");
		if (o->strict) {
			rc = EX_MALFORMED;
			if (metrics) {
				readinfo_done(&ri, o, rc, l, 0);
				ri.malformed += bad;
				rc = metrics_failed(&ri, o, rc);
			}
			goto out;
		}
	}
	ns = numa_merge(rows, (size_t)nrows, nodes);
	for (size_t i = 0; i < ns; i++) {
		readinfo_add(&ri, rows[i].bytes, rows[i].calls);
		any_stats |= rows[i].st.valid;
		/* the patterns name a site's file, function or module: any row of it */
		if ((!metrics || !q || allocinfo_query_test(q, rows[i].e)) &&
		    row_values_match(&rows[i], o))
			rows[kept++] = rows[i];
		else
			nodes_free(&rows[i]);
	}
	if (metrics) {
		readinfo_done(&ri, o, 0, l, 0);
		ri.malformed += bad;
	}
	warn_stats_sort(o, any_stats);
	rows_sort(rows, kept, o, row_cmp);
	/* --max-bytes: the sites' totals over the nodes; the largest sorts first by bytes */
	for (size_t i = 0; o->max_bytes_set && i < kept; i++)
		if (rows[i].bytes > o->max_bytes && (!over++ || rows[i].bytes > rows[worst].bytes))
			worst = i;
	shown = limit_of(o, o->fmt == FMT_TABLE);
	shown = shown < kept ? shown : kept;
	f = out_open(&of, o, 0644);
	if (o->fmt == FMT_CSV)
		numa_csv(f, rows, shown, nodes);
	else if (o->fmt == FMT_TABLE)
		numa_table(f, rows, kept, shown, nodes, o);
	else
		metrics_numa(f, rows, shown, nodes, &ri, o);
	rc = out_close(&of, 1);
	if (!rc && over) {
		say_over(over, &rows[worst], o);
		rc = EX_FINDING;
	}
	for (size_t i = 0; i < kept; i++)
		nodes_free(&rows[i]);
out:
	free(rows);
	allocinfo_list_free(l);
	allocinfo_query_free(q);
	return rc;
}
