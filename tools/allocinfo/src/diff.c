// SPDX-License-Identifier: GPL-2.0
/*
 * diff.c - what changed between two captures
 *
 * The first read fills a list; each entry gets a record of its counters
 * (the caller-owned pointer); the second read updates the same entries in
 * place, so old and new meet without any matching here.  Entries the
 * second read lacks are vanished: gone; entries without a record are new.
 * The records and the rows count against the selection's memory limit,
 * as the entries do against the list's (twice --max-input each).
 */
#define _POSIX_C_SOURCE 200809L
#include <err.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

struct old {
	int64_t bytes;
	uint64_t calls;
	struct stats st;
};

static int64_t dbytes(const struct row *r)
{
	return sat_sub(r->bytes, r->old_bytes);
}

/* largest absolute change first, then the usual ties */
static int cmp_diff(const struct row *a, const struct row *b,
		    const struct opts *o)
{
	int64_t da = sat_abs(dbytes(a)), db = sat_abs(dbytes(b));

	(void)o;
	if (da != db)
		return da > db ? -1 : 1;
	return row_cmp_ties(a, b);
}

/* unchanged: left out unless --unchanged */
static int unchanged(const struct row *r)
{
	return !r->status && r->bytes == r->old_bytes && r->calls == r->old_calls &&
	       r->st.allocs == r->old_st.allocs && r->st.failed == r->old_st.failed;
}

static const char *status_name(enum status s)
{
	return s == ST_NEW ? "new" : s == ST_GONE ? "gone" : "";
}

/* a row's status in CSV and JSON, which name every row's */
static const char *row_status(const struct row *r)
{
	if (r->status)
		return status_name(r->status);
	return unchanged(r) ? "unchanged" : "changed";
}

static void put_csv_row(FILE *f, const struct row *r, const struct opts *o)
{
	fprintf(f, "%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRIu64 ",%" PRIu64 ",",
		dbytes(r), r->old_bytes, r->bytes, count_delta(r->calls, r->old_calls),
		r->old_calls, r->calls);
	if (o->group) {
		put_csv_str(f, r->key);
		fprintf(f, ",%zu,%s\n", r->sites, row_status(r));
		return;
	}
	put_csv_str(f, r->file);
	fprintf(f, ",%lu,", r->line);
	put_csv_str(f, r->func);
	fputc(',', f);
	put_csv_str(f, modname(r->module));
	fprintf(f, ",%s\n", row_status(r));
}

static void put_json_row(FILE *f, const struct row *r, int first,
			 const struct opts *o)
{
	fprintf(f, "%s\n{\"delta_bytes\":%" PRId64 ",\"old_bytes\":%" PRId64
		",\"new_bytes\":%" PRId64 ",\"delta_calls\":%" PRId64
		",\"old_calls\":%" PRIu64 ",\"new_calls\":%" PRIu64,
		first ? "" : ",", dbytes(r), r->old_bytes, r->bytes,
		count_delta(r->calls, r->old_calls), r->old_calls, r->calls);
	put_json_where(f, r, o->group);
	if (r->st.valid)
		fprintf(f, ",\"delta_total_calls\":%" PRIu64 ",\"delta_total_bytes\":%" PRIu64
			",\"delta_failed\":%" PRIu64,
			count_growth(r->st.allocs, r->old_st.allocs),
			count_growth(r->st.churn, r->old_st.churn),
			count_growth(r->st.failed, r->old_st.failed));
	fprintf(f, ",\"status\":\"%s\"}", row_status(r));
}

/* the number cells of a row of the table: change, old, new, calls, counts */
static void diff_cells(char cell[][NUMCELL], const struct row *r,
		       const struct opts *o)
{
	fmt_delta(cell[0], NUMCELL, dbytes(r), o->raw);
	if (r->status == ST_NEW)
		strcpy(cell[1], "-");
	else
		fmt_size(cell[1], NUMCELL, r->old_bytes, o->raw);
	if (r->status == ST_GONE)
		strcpy(cell[2], "-");
	else
		fmt_size(cell[2], NUMCELL, r->bytes, o->raw);
	snprintf(cell[3], NUMCELL, "%+" PRId64, count_delta(r->calls, r->old_calls));
	if (r->st.valid) {
		uint64_t ch = count_growth(r->st.churn, r->old_st.churn);

		snprintf(cell[4], NUMCELL, "%" PRIu64,
			 count_growth(r->st.allocs, r->old_st.allocs));
		fmt_size(cell[5], NUMCELL, ch > INT64_MAX ? INT64_MAX : (int64_t)ch, o->raw);
		snprintf(cell[6], NUMCELL, "%" PRIu64,
			 count_growth(r->st.failed, r->old_st.failed));
	} else {
		strcpy(cell[4], "-");
		strcpy(cell[5], "-");
		strcpy(cell[6], "-");
	}
}

static void put_table(FILE *f, const struct row *rows, size_t n, size_t shown,
		      int64_t tdelta, int hs, const struct opts *o)
{
	static const int minw[] = { 10, 10, 10, 8, 9, 9, 8 };
	char cell[7][NUMCELL];
	struct numcols nc;
	struct namew w;
	char t[32];
	int wk = 6;

	namew_init(&w);
	numcols_init(&nc, hs ? 7 : 4, minw);
	for (size_t i = 0; i < shown; i++) {
		if (o->group)
			wk = text_width(rows[i].key) > wk ? text_width(rows[i].key) : wk;
		else
			namew_add(&w, &rows[i]);
		diff_cells(cell, &rows[i], o);
		numcols_add(&nc, cell);
	}
	numcols_put(f, &nc, (char[7][NUMCELL]){ "CHANGE", "OLD", "NEW", "CALLS+-",
						 "ALLOCS+", "CHURN+", "FAILED+" });
	fputs("  ", f);
	if (o->group)
		fprintf(f, "%6s  %-*s %s\n", "SITES", wk, group_title(o), "STATUS");
	else
		fprintf(f, "%-*s %-*s %-*s %s\n", w.loc, "LOCATION", w.func, "FUNCTION",
			w.mod, "MODULE", "STATUS");
	for (size_t i = 0; i < shown; i++) {
		const struct row *r = &rows[i];

		diff_cells(cell, r, o);
		numcols_put(f, &nc, cell);
		fputs("  ", f);
		if (o->group) {
			fprintf(f, "%6zu  ", r->sites);
			put_padded(f, r->key, r->status ? wk : 0, 1);
		} else {
			put_loc(f, r->file, r->line, w.loc);
			fputc(' ', f);
			put_padded(f, r->func, w.func, 1);
			fputc(' ', f);
			put_padded(f, modname(r->module), r->status ? w.mod : 0, 1);
		}
		fprintf(f, "%s%s\n", r->status ? " " : "", status_name(r->status));
	}
	fprintf(f, "-- %zu changed %s (%zu shown), net change %s\n", n,
		rows_noun(o, n), shown,
		fmt_delta(t, sizeof(t), tdelta, o->raw));
}

/* --min-bytes and --min-calls test the size of the change */
static int change_matches(const struct row *r, const struct opts *o)
{
	struct row probe = *r;

	probe.bytes = sat_abs(dbytes(r));
	probe.calls = r->calls > r->old_calls ? r->calls - r->old_calls
					      : r->old_calls - r->calls;
	return row_values_match(&probe, o);
}

/*
 * --fail-above: a row (a call site, or a group) or the total grew by more
 * than the limit.  Says what, returns 1 if anything did.
 */
static int fail_above(const struct row *rows, size_t n, int64_t tdelta,
		      const struct opts *o)
{
	size_t over = 0, most = 0;
	char lim[48], b[48];

	if (!o->fail_above_set)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (dbytes(&rows[i]) > o->fail_above &&
		    (!over++ || dbytes(&rows[i]) > dbytes(&rows[most])))
			most = i;
	if (over)
		fmt_over(b, lim, sizeof(b), dbytes(&rows[most]), o->fail_above, o->raw, 1);
	if (over && o->group)
		warnx("%zu group%s grew by more than %s (--fail-above); the most: %s %s",
		      over, over == 1 ? "" : "s", lim, rows[most].key, b);
	else if (over)
		warnx("%zu call site%s grew by more than %s (--fail-above); the most: "
		      "%s:%lu %s %s %s", over, over == 1 ? "" : "s", lim, rows[most].file,
		      rows[most].line, rows[most].func, modname(rows[most].module), b);
	if (tdelta > o->fail_above) {
		fmt_over(b, lim, sizeof(b), tdelta, o->fail_above, o->raw, 1);
		warnx("the total grew by %s, more than %s (--fail-above)", b, lim);
	}
	return over || tdelta > o->fail_above;
}

int cmd_diff(int npos, char **pos, struct opts *o)
{
	struct allocinfo_list *l = list_new();
	struct allocinfo_query *q = query_new(o, 0);
	struct allocinfo_entry *e;
	const char *a, *b;
	char *boot_a = NULL, *boot_b = NULL;
	struct sel s;
	size_t n = 0, shown;
	int64_t tdelta = 0;
	int rc, hs = 0;
	struct outfile of;
	FILE *f;

	if (npos < 1 || npos > 2 || (npos == 2 && o->input))
		usage_error("diff takes OLD and optionally NEW (default: the live file)");
	if (o->fmt == FMT_OPENMETRICS || o->fmt == FMT_PROMETHEUS || o->fmt == FMT_FOLDED)
		usage_error("diff prints a table, --json or --csv");
	if (o->delay >= 0 || o->iterations >= 0 || o->count >= 0)
		usage_error("-d, -i and -c do not apply to diff");
	a = pos[0];
	b = npos == 2 ? pos[1] : o->input;
	if (a && b && !strcmp(a, "-") && !strcmp(b, "-"))
		usage_error("only one input can be standard input");
	allocinfo_list_set_query(l, q);
	sel_init(&s, o, SIZE_MAX, 0);
	if ((rc = load(l, o, a, 1)))
		goto out;
	boot_a = boot_of(l, o, a);
	for (e = allocinfo_list_first(l); e; e = allocinfo_entry_next(e)) {
		struct old *old;

		if (sel_charge(&s, sizeof(*old))) {
			rc = too_big(o, a);
			goto out;
		}
		old = xmalloc(sizeof(*old));

		old->bytes = allocinfo_entry_bytes(e);
		old->calls = allocinfo_entry_calls(e);
		stats_read(&old->st, e);
		allocinfo_entry_set_ptr(e, old);
	}
	if ((rc = load(l, o, b, 1)))
		goto out;
	boot_b = boot_of(l, o, b);
	warn_boots(src_name(o, a), boot_a, src_name(o, b), boot_b);
	/* every site with its old and new counters */
	for (e = allocinfo_list_first(l); e && !s.too_big; e = allocinfo_entry_next(e)) {
		struct old *old = allocinfo_entry_get_ptr(e);
		struct row r;

		row_fill(&r, e);
		if (allocinfo_entry_vanished(e)) {
			r.status = ST_GONE;
			r.bytes = 0;
			r.calls = 0;
		} else if (!old) {
			r.status = ST_NEW;
		}
		r.old_bytes = old ? old->bytes : 0;
		r.old_calls = old ? old->calls : 0;
		/* A new site's lifetime counts all grew since the old file. */
		if (old && old->st.valid)
			r.old_st = old->st;
		else if (old)
			r.st.valid = 0;
		sel_add(&s, &r);
	}
	if (s.too_big) {
		rc = too_big(o, b);
		goto out;
	}
	sel_finish(&s);
	/* the changed rows (sites, or groups with -g) that pass the filters */
	for (size_t i = 0; i < s.n; i++) {
		struct row *r = &s.rows[i];

		hs |= r->st.valid;
		if ((!o->unchanged && unchanged(r)) || !change_matches(r, o)) {
			row_release(r);
			continue;
		}
		tdelta = sat_add(tdelta, dbytes(r));
		s.rows[n++] = *r;
	}
	s.n = n;
	rows_sort(s.rows, n, o, cmp_diff);
	shown = limit_of(o, o->fmt == FMT_TABLE);
	shown = shown < n ? shown : n;
	f = out_open(&of, o, 0644);
	if (o->fmt == FMT_CSV) {
		fputs("delta_bytes,old_bytes,new_bytes,delta_calls,old_calls,new_calls,", f);
		if (o->group)
			fprintf(f, "%s,sites,status\n", group_name(o));
		else
			fputs("file,line,func,module,status\n", f);
		for (size_t i = 0; i < shown; i++)
			put_csv_row(f, &s.rows[i], o);
	} else if (o->fmt == FMT_JSON) {
		fputc('{', f);
		if (o->group)
			fprintf(f, "\"group\":\"%s\",", group_name(o));
		fprintf(f, "\"count\":%zu,\"shown\":%zu,\"total_delta_bytes\":%" PRId64
			",\"rows\":[", n, shown, tdelta);
		for (size_t i = 0; i < shown; i++)
			put_json_row(f, &s.rows[i], i == 0, o);
		fputs("\n]}\n", f);
	} else {
		put_table(f, s.rows, n, shown, tdelta, hs, o);
	}
	rc = out_close(&of, 1);
	if (!rc && fail_above(s.rows, n, tdelta, o))
		rc = EX_FINDING;
out:
	sel_free(&s);
	for (e = allocinfo_list_first(l); e; e = allocinfo_entry_next(e))
		free(allocinfo_entry_get_ptr(e));
	free(boot_a);
	free(boot_b);
	allocinfo_list_free(l);
	allocinfo_query_free(q);
	return rc;
}
