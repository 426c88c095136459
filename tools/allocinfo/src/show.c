// SPDX-License-Identifier: GPL-2.0
/*
 * show.c - the default view: the call sites that hold the most memory
 *
 * The source is scanned, not loaded: each row passes the library's query
 * (the filters) as it is parsed and goes to the selection, which keeps
 * only the rows shown (or the groups).  A top-10 of any file holds ten
 * rows and one chunk of text.
 *
 * The metrics formats see every row instead and test the query here:
 * their totals are the source's, and a row's occurrence label its
 * ordinal among the rows of its location in the whole source, whatever
 * the filters and -n show.  A read that fails still writes their output,
 * which then says so (metrics.c), with the exit status of the failure.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

int cmd_show(int npos, char **pos, struct opts *o)
{
	struct allocinfo_list *l;
	struct allocinfo_query *q;
	const struct allocinfo_entry *e;
	const char *name;
	struct outfile of;
	struct srcinfo si;
	struct readinfo ri;
	struct occmap om;
	struct sel s;
	size_t bad = 0;
	int rc, metrics = o->fmt == FMT_OPENMETRICS || o->fmt == FMT_PROMETHEUS;

	if (npos > 1)
		usage_error("too many arguments");
	if (npos == 1) {
		if (o->input)
			usage_error("give the input either with %s or as an argument",
				    o->input == core_source ? "--core" : "-f");
		o->input = pos[0];
	}
	if (o->delay >= 0 || o->iterations >= 0 || o->count >= 0 || o->unchanged)
		usage_error("-d, -i, -c and --unchanged belong to subcommands");
	if (o->numa)
		return cmd_numa(o);
	name = src_name(o, o->input);
	l = list_new();
	q = query_new(o, 1);
	memset(&om, 0, sizeof(om));
	readinfo_start(&ri, o, o->input);
	if (!metrics)
		allocinfo_list_set_query(l, q);
	if ((rc = scan_open(l, o, o->input))) {
		if (metrics)
			rc = metrics_read_failed(&ri, o, rc, l, 0);
		goto out;
	}
	sel_init(&s, o, limit_of(o, o->fmt == FMT_TABLE), 1);
	while ((e = allocinfo_list_scan_next(l))) {
		struct row r;
		unsigned occ = 0;

		if (metrics) {
			occ = occ_next(&om, e, &s);
			readinfo_add(&ri, allocinfo_entry_bytes(e), allocinfo_entry_calls(e));
			if (s.too_big)
				break;
			if (q && !allocinfo_query_test(q, e))
				continue;
		}
		if (sel_skip(&s, e))
			continue;
		row_fill(&r, e);
		r.occ = occ;
		stats_bad(e, o, name, &bad);
		sel_add(&s, &r);
		if (s.too_big)
			break;
	}
	if (s.too_big) {
		sel_free(&s);
		rc = too_big(o, o->input);
		if (metrics)
			rc = metrics_read_failed(&ri, o, rc, l, 1);
		goto out;
	}
	if ((rc = scan_close(l, o, o->input, bad))) {
		sel_free(&s);
		if (metrics)
			rc = metrics_read_failed(&ri, o, rc, l, 0);
		goto out;
	}
	warn_stats_sort(o, s.any_stats);
	si.l = l;
	si.shown = sel_finish(&s);
	si.count = s.matched;
	si.total_bytes = s.total_bytes;
	si.total_calls = s.total_calls;
	si.read = NULL;
	if (metrics) {
		readinfo_done(&ri, o, 0, l, 0);
		si.read = &ri;
	}
	out_open(&of, o, 0644);
	output_rows(of.f, s.rows, &si, o);
	rc = out_close(&of, 1);
	if (!rc && s.over) {
		say_over(s.over, &s.worst, o);
		rc = EX_FINDING;
	}
	sel_free(&s);
out:
	occ_free(&om);
	allocinfo_list_free(l);
	allocinfo_query_free(q);
	return rc;
}
