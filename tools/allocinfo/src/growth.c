// SPDX-License-Identifier: GPL-2.0
/*
 * growth.c - leak suspects: call sites whose bytes keep rising
 *
 * Samples come from re-reading a source, or from snapshot files ordered
 * by their epoch.  Each entry carries its series (times and bytes) in its
 * caller-owned pointer across the reads; with --group, each sample's
 * bytes are summed by group into a series per group name instead.  A
 * least-squares line through a series gives the slope, and the pattern of
 * rises and falls the verdict.  Finding a leak suspect is a finding:
 * exit status 4, for cron jobs and CI.  The series and the rows count
 * against a selection's memory limit, as the entries do against the
 * list's (twice --max-input each).
 */
#define _POSIX_C_SOURCE 200809L
#include <err.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

struct series {
	size_t n;
	double *t, *y;
	long sample;		/* groups: the sample the last point is from */
	size_t sites;		/* groups: sites and calls in the last sample */
	uint64_t calls;
};

/* the series of the groups, by name */
struct gseries {
	struct strmap map;
	struct series **s;
	size_t cap;
	char *kbuf;
	size_t kcap;
};

struct grow {
	double slope, mono;
	int suspect;
	size_t n;
	int64_t first, last;
	struct row r;
};

static int cmp_grow(const void *pa, const void *pb)
{
	const struct grow *a = pa, *b = pb;

	if (a->suspect != b->suspect)
		return b->suspect - a->suspect;
	if (a->slope != b->slope)
		return a->slope > b->slope ? -1 : 1;
	return row_cmp_ties(&a->r, &b->r);
}

static void fit(struct series *s, double *slope, double *mono, int *suspect)
{
	double mt = 0, my = 0, sxy = 0, sxx = 0;
	size_t up = 0, down = 0;

	/* offline samples may come in any order: put them in time order */
	for (size_t i = 1; i < s->n; i++)
		for (size_t j = i; j > 0 && s->t[j - 1] > s->t[j]; j--) {
			double x = s->t[j];

			s->t[j] = s->t[j - 1];
			s->t[j - 1] = x;
			x = s->y[j];
			s->y[j] = s->y[j - 1];
			s->y[j - 1] = x;
		}
	for (size_t i = 0; i < s->n; i++) {
		mt += s->t[i];
		my += s->y[i];
	}
	mt /= (double)s->n;
	my /= (double)s->n;
	for (size_t i = 0; i < s->n; i++) {
		sxy += (s->t[i] - mt) * (s->y[i] - my);
		sxx += (s->t[i] - mt) * (s->t[i] - mt);
		if (i && s->y[i] > s->y[i - 1])
			up++;
		else if (i && s->y[i] < s->y[i - 1])
			down++;
	}
	*slope = sxx > 0 ? sxy / sxx : 0;
	*mono = ((double)up - (double)down) / (double)(s->n - 1);
	*suspect = s->n >= 3 && *slope > 0 && down == 0 && 2 * up >= s->n - 1;
}

static struct series *series_new(long count)
{
	struct series *s = xcalloc(1, sizeof(*s));

	s->t = xcalloc((size_t)count, sizeof(double));
	s->y = xcalloc((size_t)count, sizeof(double));
	s->sample = -1;
	return s;
}

static void series_free(struct series *s)
{
	if (s) {
		free(s->t);
		free(s->y);
		free(s);
	}
}

/* what a series of count samples takes */
static size_t series_cost(long count)
{
	return sizeof(struct series) + 2 * (size_t)count * sizeof(double);
}

/*
 * Add sample i of the list to the series: per entry, or summed by group.
 * Returns 1 if a new series would go past the memory limit of @mem.
 */
static int sample(struct allocinfo_list *l, long i, double t, long count,
		  struct gseries *gs, struct sel *mem, const struct opts *o)
{
	for (struct allocinfo_entry *e = allocinfo_list_first(l); e;
	     e = allocinfo_entry_next(e)) {
		struct series *s;
		struct row r;
		size_t g;

		if (allocinfo_entry_vanished(e))
			continue;
		if (!o->group) {
			if (!(s = allocinfo_entry_get_ptr(e))) {
				if (sel_charge(mem, series_cost(count)))
					return 1;
				s = series_new(count);
				allocinfo_entry_set_ptr(e, s);
			}
			s->t[s->n] = t;
			s->y[s->n++] = (double)allocinfo_entry_bytes(e);
			continue;
		}
		row_fill(&r, e);
		g = strmap_find(&gs->map, gs->kbuf, group_key(o, &r, &gs->kbuf, &gs->kcap), 1);
		if (g >= gs->cap) {
			gs->s = xrealloc(gs->s, g + 64, sizeof(*gs->s));
			memset(gs->s + gs->cap, 0, (g + 64 - gs->cap) * sizeof(*gs->s));
			gs->cap = g + 64;
		}
		if (!(s = gs->s[g])) {
			if (sel_charge(mem, series_cost(count) + strlen(gs->map.keys[g]) + 1))
				return 1;
			s = gs->s[g] = series_new(count);
		}
		if (s->sample != i) {
			s->sample = i;
			s->t[s->n] = t;
			s->y[s->n++] = 0;
			s->sites = 0;
			s->calls = 0;
		}
		s->y[s->n - 1] += (double)r.bytes;
		s->calls = sat_addu(s->calls, r.calls);
		s->sites++;
	}
	return 0;
}

/* a series with a rising line, as a row of the output; 0 if none */
static int grow_of(struct grow *x, struct series *s)
{
	if (!s || s->n < 2)
		return 0;
	fit(s, &x->slope, &x->mono, &x->suspect);
	if (x->slope <= 0)
		return 0;
	x->n = s->n;
	x->first = d2i64(s->y[0]);
	x->last = d2i64(s->y[s->n - 1]);
	return 1;
}

static const char *verdict(const struct grow *g)
{
	return g->suspect ? "leak-suspect" : "growing";
}

/* the number cells of a row of the table: slope, mono, first, last, n */
static void grow_cells(char cell[][NUMCELL], const struct grow *g,
		       const struct opts *o)
{
	fmt_rate(cell[0], NUMCELL, g->slope, o->raw);
	snprintf(cell[1], NUMCELL, "%.2f", g->mono);
	fmt_size(cell[2], NUMCELL, g->first, o->raw);
	fmt_size(cell[3], NUMCELL, g->last, o->raw);
	snprintf(cell[4], NUMCELL, "%zu", g->n);
}

static void put_table(FILE *f, const struct grow *g, size_t ng, size_t shown,
		      long count, const struct opts *o)
{
	static const int minw[] = { 12, 5, 10, 10, 3 };
	char cell[5][NUMCELL];
	struct numcols nc;
	struct namew w;
	int wk = 6;

	namew_init(&w);
	numcols_init(&nc, 5, minw);
	for (size_t i = 0; i < shown; i++) {
		if (o->group)
			wk = text_width(g[i].r.key) > wk ? text_width(g[i].r.key) : wk;
		else
			namew_add(&w, &g[i].r);
		grow_cells(cell, &g[i], o);
		numcols_add(&nc, cell);
	}
	numcols_put(f, &nc, (char[5][NUMCELL]){ "SLOPE/s", "MONO", "FIRST", "LAST", "N" });
	fputs("  ", f);
	if (o->group)
		fprintf(f, "%6s  %-*s %s\n", "SITES", wk, group_title(o), "VERDICT");
	else
		fprintf(f, "%-*s %-*s %-*s %s\n", w.loc, "LOCATION", w.func, "FUNCTION",
			w.mod, "MODULE", "VERDICT");
	for (size_t i = 0; i < shown; i++) {
		grow_cells(cell, &g[i], o);
		numcols_put(f, &nc, cell);
		fputs("  ", f);
		if (o->group) {
			fprintf(f, "%6zu  ", g[i].r.sites);
			put_padded(f, g[i].r.key, wk, 1);
		} else {
			put_loc(f, g[i].r.file, g[i].r.line, w.loc);
			fputc(' ', f);
			put_padded(f, g[i].r.func, w.func, 1);
			fputc(' ', f);
			put_padded(f, modname(g[i].r.module), w.mod, 1);
		}
		fprintf(f, " %s\n", verdict(&g[i]));
	}
	fprintf(f, "-- %zu growing %s (%zu shown) over %ld samples\n", ng,
		rows_noun(o, ng), shown, count);
}

static void put_csv(FILE *f, const struct grow *g, size_t shown,
		    const struct opts *o)
{
	fputs("slope,mono,first,last,samples,", f);
	if (o->group)
		fprintf(f, "%s,sites,verdict\n", group_name(o));
	else
		fputs("file,line,func,module,verdict\n", f);
	for (size_t i = 0; i < shown; i++) {
		fprintf(f, "%.1f,%.2f,%" PRId64 ",%" PRId64 ",%zu,", g[i].slope, g[i].mono,
			g[i].first, g[i].last, g[i].n);
		if (o->group) {
			put_csv_str(f, g[i].r.key);
			fprintf(f, ",%zu,%s\n", g[i].r.sites, verdict(&g[i]));
			continue;
		}
		put_csv_str(f, g[i].r.file);
		fprintf(f, ",%lu,", g[i].r.line);
		put_csv_str(f, g[i].r.func);
		fputc(',', f);
		put_csv_str(f, modname(g[i].r.module));
		fprintf(f, ",%s\n", verdict(&g[i]));
	}
}

static void put_json(FILE *f, const struct grow *g, size_t ng, size_t shown,
		     size_t suspects, long count, const struct opts *o)
{
	fputc('{', f);
	if (o->group)
		fprintf(f, "\"group\":\"%s\",", group_name(o));
	fprintf(f, "\"samples\":%ld,\"count\":%zu,\"shown\":%zu,\"suspects\":%zu,\"rows\":[",
		count, ng, shown, suspects);
	for (size_t i = 0; i < shown; i++) {
		fprintf(f, "%s\n{\"slope\":%.1f,\"mono\":%.2f,\"first\":%" PRId64
			",\"last\":%" PRId64 ",\"samples\":%zu", i ? "," : "", g[i].slope,
			g[i].mono, g[i].first, g[i].last, g[i].n);
		put_json_where(f, &g[i].r, o->group);
		fprintf(f, ",\"verdict\":\"%s\"}", verdict(&g[i]));
	}
	fputs("\n]}\n", f);
}

int cmd_growth(int npos, char **pos, struct opts *o)
{
	struct allocinfo_list *l = list_new();
	struct allocinfo_query *q = query_new(o, 0);
	struct allocinfo_entry *e;
	struct grow *g = NULL;
	struct gseries gs = { 0 };
	struct sel mem;
	struct outfile of;
	size_t ng = 0, shown, suspects = 0;
	long count = o->count >= 0 ? o->count : 5;
	double delay = o->delay >= 0 ? o->delay : 1.0, t0 = now_sec(), tfirst = 0;
	int same_time = 1;		/* every sample so far at tfirst */
	/* one argument is a source to sample, like -f; several are snapshots */
	int rc = 0, offline = npos > 1;
	const char *input = npos == 1 ? pos[0] : o->input;
	FILE *f;

	if (o->fmt != FMT_TABLE && o->fmt != FMT_JSON && o->fmt != FMT_CSV)
		usage_error("growth prints a table, --json or --csv");
	if (o->iterations >= 0 || o->unchanged)
		usage_error("-i and --unchanged do not apply to growth");
	if (npos && o->input)
		usage_error("give the source either with -f or as an argument");
	if (offline) {
		if (o->count >= 0)
			usage_error("-c counts samples of a source; with snapshot files, "
				    "each file is a sample");
		count = npos;
	}
	if (count < 2)
		usage_error("growth needs at least 2 samples");
	if (!offline && input && !strcmp(input, "-"))
		usage_error("growth needs a file it can re-read, not standard input");
	if (!offline && o->delay >= 0 && o->delay < 0.1)
		usage_error("-d must be at least 0.1 seconds between samples");
	if (offline && o->delay == 0)
		usage_error("-d spaces snapshots without an epoch: it must be more than 0");
	allocinfo_list_set_query(l, q);
	sel_init(&mem, o, 0, 0);
	for (long i = 0; i < count; i++) {
		const char *src = offline ? pos[i] : input, *ep;
		double t;

		if ((rc = load(l, o, src, i == 0 || offline)))
			goto out;
		ep = allocinfo_list_header(l, "epoch");
		if (offline)
			t = ep ? strtod(ep, NULL) : (double)i * delay;
		else
			t = now_sec() - t0;
		if (i == 0)
			tfirst = t;
		same_time &= t == tfirst;
		if (sample(l, i, t, count, &gs, &mem, o)) {
			rc = too_big(o, src);
			goto out;
		}
		if (!offline && i + 1 < count)
			sleep_sec(delay);
	}
	/* snapshots saved in the same second: no time passed, no slope */
	if (offline && same_time) {
		warnx("all %ld snapshots have the same epoch (%s): growth needs samples "
		      "taken at different times", count, allocinfo_list_header(l, "epoch"));
		rc = EX_RUNTIME;
		goto out;
	}
	/* the rising series that pass the filters (on their last sample) */
	if (sel_charge(&mem, (o->group ? gs.map.n : allocinfo_list_count(l)) * sizeof(*g))) {
		rc = too_big(o, offline ? pos[count - 1] : input);
		goto out;
	}
	if (o->group) {
		g = xcalloc(gs.map.n, sizeof(*g));
		for (size_t i = 0; i < gs.map.n; i++) {
			struct grow *x = &g[ng];

			if (!grow_of(x, gs.s[i]))
				continue;
			memset(&x->r, 0, sizeof(x->r));
			x->r.key = gs.map.keys[i];
			x->r.file = x->r.func = x->r.module = x->r.key;
			x->r.bytes = x->last;
			x->r.calls = gs.s[i]->calls;
			x->r.sites = gs.s[i]->sites;
			if (row_values_match(&x->r, o))
				ng++;
		}
	} else {
		g = xcalloc(allocinfo_list_count(l), sizeof(*g));
		for (e = allocinfo_list_first(l); e; e = allocinfo_entry_next(e)) {
			struct grow *x = &g[ng];

			if (!grow_of(x, allocinfo_entry_get_ptr(e)))
				continue;
			row_fill(&x->r, e);
			if (row_values_match(&x->r, o))
				ng++;
		}
	}
	for (size_t i = 0; i < ng; i++)
		suspects += g[i].suspect;
	if (ng > 1)
		qsort(g, ng, sizeof(*g), cmp_grow);
	shown = limit_of(o, o->fmt == FMT_TABLE);
	shown = shown < ng ? shown : ng;
	f = out_open(&of, o, 0644);
	if (o->fmt == FMT_CSV)
		put_csv(f, g, shown, o);
	else if (o->fmt == FMT_JSON)
		put_json(f, g, ng, shown, suspects, count, o);
	else
		put_table(f, g, ng, shown, count, o);
	rc = out_close(&of, 1);
	if (!rc && suspects) {
		warnx("%zu leak suspect%s: %s that rose in most intervals and never fell",
		      suspects, suspects == 1 ? "" : "s",
		      o->group ? (suspects == 1 ? "a group" : "groups") :
		      (suspects == 1 ? "a call site" : "call sites"));
		rc = EX_FINDING;
	}
out:
	for (e = allocinfo_list_first(l); e; e = allocinfo_entry_next(e))
		series_free(allocinfo_entry_get_ptr(e));
	for (size_t i = 0; i < gs.map.n; i++)
		series_free(gs.s[i]);
	free(gs.s);
	free(gs.kbuf);
	strmap_free(&gs.map);
	free(g);
	sel_free(&mem);
	allocinfo_list_free(l);
	allocinfo_query_free(q);
	return rc;
}
