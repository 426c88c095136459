// SPDX-License-Identifier: GPL-2.0
/*
 * diff.c - what changed between two captures
 *
 * The first read fills a list; each entry gets a record of its counters
 * (the caller-owned pointer); the second read updates the same entries in
 * place, so old and new meet without any matching here.  Entries the
 * second read lacks are vanished: gone; entries without a record are new.
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

static const char *status_name(enum status s)
{
	return s == ST_NEW ? "new" : s == ST_GONE ? "gone" : "";
}

static void put_csv_row(FILE *f, const struct row *r)
{
	fprintf(f, "%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRIu64 ",%" PRIu64 ",",
		dbytes(r), r->old_bytes, r->bytes, count_delta(r->calls, r->old_calls),
		r->old_calls, r->calls);
	put_csv_str(f, r->file);
	fprintf(f, ",%lu,", r->line);
	put_csv_str(f, r->func);
	fputc(',', f);
	put_csv_str(f, modname(r->module));
	fprintf(f, ",%s\n", status_name(r->status));
}

static void put_json_row(FILE *f, const struct row *r, int first)
{
	fprintf(f, "%s\n{\"delta_bytes\":%" PRId64 ",\"old_bytes\":%" PRId64
		",\"new_bytes\":%" PRId64 ",\"delta_calls\":%" PRId64
		",\"old_calls\":%" PRIu64 ",\"new_calls\":%" PRIu64 ",\"file\":",
		first ? "" : ",", dbytes(r), r->old_bytes, r->bytes,
		count_delta(r->calls, r->old_calls), r->old_calls, r->calls);
	put_json_str(f, r->file);
	fprintf(f, ",\"line\":%lu,\"func\":", r->line);
	put_json_str(f, r->func);
	fputs(",\"module\":", f);
	put_json_str(f, modname(r->module));
	if (r->st.valid)
		fprintf(f, ",\"delta_total_calls\":%" PRIu64 ",\"delta_total_bytes\":%" PRIu64
			",\"delta_failed\":%" PRIu64,
			count_growth(r->st.allocs, r->old_st.allocs),
			count_growth(r->st.churn, r->old_st.churn),
			count_growth(r->st.failed, r->old_st.failed));
	fprintf(f, ",\"status\":\"%s\"}", r->status ? status_name(r->status) : "changed");
}

static void put_table(FILE *f, const struct row *rows, size_t n, size_t shown,
		      int64_t tdelta, int hs, const struct opts *o)
{
	struct namew w;
	char d[32], ob[32], nb[32], t[32];

	namew_init(&w);
	for (size_t i = 0; i < shown; i++)
		namew_add(&w, &rows[i]);
	fprintf(f, "%10s %10s %10s %8s%s  %-*s %-*s %-*s %s\n", "CHANGE", "OLD", "NEW",
		"CALLS+-", hs ? "   ALLOCS+    CHURN+  FAILED+" : "", w.loc, "LOCATION",
		w.func, "FUNCTION", w.mod, "MODULE", "STATUS");
	for (size_t i = 0; i < shown; i++) {
		const struct row *r = &rows[i];

		fprintf(f, "%10s %10s %10s %+8" PRId64,
			fmt_delta(d, sizeof(d), dbytes(r), o->raw),
			r->status == ST_NEW ? "-" : fmt_size(ob, sizeof(ob), r->old_bytes, o->raw),
			r->status == ST_GONE ? "-" : fmt_size(nb, sizeof(nb), r->bytes, o->raw),
			count_delta(r->calls, r->old_calls));
		if (hs && r->st.valid) {
			uint64_t ch = count_growth(r->st.churn, r->old_st.churn);

			fprintf(f, " %9" PRIu64 " %9s %8" PRIu64,
				count_growth(r->st.allocs, r->old_st.allocs),
				fmt_size(ob, sizeof(ob), ch > INT64_MAX ? INT64_MAX : (int64_t)ch,
					 o->raw),
				count_growth(r->st.failed, r->old_st.failed));
		} else if (hs) {
			fprintf(f, " %9s %9s %8s", "-", "-", "-");
		}
		fputs("  ", f);
		put_loc(f, r->file, r->line, w.loc);
		fputc(' ', f);
		put_padded(f, r->func, w.func, 1);
		fputc(' ', f);
		put_padded(f, modname(r->module), r->status ? w.mod : 0, 1);
		fprintf(f, "%s%s\n", r->status ? " " : "", status_name(r->status));
	}
	fprintf(f, "-- %zu changed call sites (%zu shown), net change %s\n", n, shown,
		fmt_delta(t, sizeof(t), tdelta, o->raw));
}

int cmd_diff(int npos, char **pos, struct opts *o)
{
	struct allocinfo_list *l = list_new();
	struct allocinfo_query *q = query_new(o, 0);
	struct allocinfo_entry *e;
	const char *a, *b;
	char *boot_a = NULL, *boot_b = NULL;
	struct row *rows = NULL;
	size_t n = 0, shown;
	int64_t tdelta = 0;
	int rc, hs = 0;
	struct outfile of;
	FILE *f;

	if (npos < 1 || npos > 2 || (npos == 2 && o->input))
		usage_error("diff takes OLD and optionally NEW (default: the live file)");
	if (o->fmt == FMT_OPENMETRICS || o->fmt == FMT_PROMETHEUS || o->fmt == FMT_FOLDED ||
	    o->group)
		usage_error("diff prints a table, --json or --csv, without --group");
	if (o->delay >= 0 || o->iterations >= 0 || o->count >= 0)
		usage_error("-d, -i and -c do not apply to diff");
	a = pos[0];
	b = npos == 2 ? pos[1] : o->input;
	if (a && b && !strcmp(a, "-") && !strcmp(b, "-"))
		usage_error("only one input can be standard input");
	allocinfo_list_set_query(l, q);
	if ((rc = load(l, o, a, 1)))
		goto out;
	if (allocinfo_list_header(l, "boot_id"))
		boot_a = xstrdup(allocinfo_list_header(l, "boot_id"));
	for (e = allocinfo_list_first(l); e; e = allocinfo_entry_next(e)) {
		struct old *old = xmalloc(sizeof(*old));

		old->bytes = allocinfo_entry_bytes(e);
		old->calls = allocinfo_entry_calls(e);
		stats_read(&old->st, e);
		allocinfo_entry_set_ptr(e, old);
	}
	if ((rc = load(l, o, b, 1)))
		goto out;
	if (is_live(o, b))
		boot_b = boot_id_now(o);
	else if (allocinfo_list_header(l, "boot_id"))
		boot_b = xstrdup(allocinfo_list_header(l, "boot_id"));
	if (boot_a && boot_b && strcmp(boot_a, boot_b))
		warnx("warning: %s and %s come from different boots (boot_id %s vs %s): "
		      "call sites and counters are not comparable", src_name(o, a),
		      src_name(o, b), boot_a, boot_b);
	rows = xcalloc(allocinfo_list_count(l), sizeof(*rows));
	for (e = allocinfo_list_first(l); e; e = allocinfo_entry_next(e)) {
		struct row *r = &rows[n], probe;
		struct old *old = allocinfo_entry_get_ptr(e);

		row_fill(r, e);
		if (allocinfo_entry_vanished(e)) {
			r->status = ST_GONE;
			r->bytes = 0;
			r->calls = 0;
		} else if (!old) {
			r->status = ST_NEW;
		}
		r->old_bytes = old ? old->bytes : 0;
		r->old_calls = old ? old->calls : 0;
		/* A new site's lifetime counts all grew since the old file. */
		if (old && old->st.valid)
			r->old_st = old->st;
		else if (old)
			r->st.valid = 0;
		hs |= r->st.valid;
		if (!o->unchanged && !r->status && r->bytes == r->old_bytes &&
		    r->calls == r->old_calls && r->st.allocs == r->old_st.allocs &&
		    r->st.failed == r->old_st.failed)
			continue;
		/* --min-bytes and --min-calls test the size of the change */
		probe = *r;
		probe.bytes = sat_abs(dbytes(r));
		probe.calls = r->calls > r->old_calls ? r->calls - r->old_calls
						      : r->old_calls - r->calls;
		if (!row_values_match(&probe, o))
			continue;
		tdelta = sat_add(tdelta, dbytes(r));
		n++;
	}
	rows_sort(rows, n, o, cmp_diff);
	f = out_open(&of, o, 0644);
	shown = limit_of(o, o->fmt == FMT_TABLE);
	shown = shown < n ? shown : n;
	if (o->fmt == FMT_CSV) {
		fputs("delta_bytes,old_bytes,new_bytes,delta_calls,old_calls,new_calls,"
		      "file,line,func,module,status\n", f);
		for (size_t i = 0; i < shown; i++)
			put_csv_row(f, &rows[i]);
	} else if (o->fmt == FMT_JSON) {
		fprintf(f, "{\"count\":%zu,\"shown\":%zu,\"total_delta_bytes\":%" PRId64
			",\"rows\":[", n, shown, tdelta);
		for (size_t i = 0; i < shown; i++)
			put_json_row(f, &rows[i], i == 0);
		fputs("\n]}\n", f);
	} else {
		put_table(f, rows, n, shown, tdelta, hs, o);
	}
	rc = out_close(&of, 1);
out:
	for (e = allocinfo_list_first(l); e; e = allocinfo_entry_next(e))
		free(allocinfo_entry_get_ptr(e));
	free(rows);
	free(boot_a);
	free(boot_b);
	allocinfo_list_free(l);
	allocinfo_query_free(q);
	return rc;
}
