// SPDX-License-Identifier: GPL-2.0
/*
 * growth.c - leak suspects: call sites whose bytes keep rising
 *
 * Samples come from re-reading a source, or from snapshot files ordered
 * by their epoch.  Each entry carries its series (the samples it is in
 * and its bytes there) in its caller-owned pointer across the reads; with
 * --group, each sample's bytes are summed by group into a series per group
 * name instead.  Once every sample is read, the ones that make a series
 * are chosen: snapshots without a known time are left out when others
 * have one, and so are samples of another boot than the newest sample's,
 * as counters do not carry over a reboot.  A least-squares line through
 * a series gives the slope, and the pattern of rises and falls the
 * verdict.  Finding a leak suspect is a finding: exit status 4, for cron
 * jobs and CI.  The series and the rows count against a selection's
 * memory limit, as the entries do against the list's (twice --max-input
 * each).
 */
#define _POSIX_C_SOURCE 200809L
#include <err.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

/* a sample: when it was taken, and the boot it is of */
struct samp {
	double t;		/* epoch; -d apart; live: seconds since the start */
	int dated;		/* t is known: live, or a snapshot's epoch */
	char *boot;		/* boot_id; NULL if unknown */
	long rank;		/* place among the samples used; -1 if left out */
};

/*
 * Points of a series: the sample each is from (in the order read; once
 * the samples are chosen, its rank among them) and its bytes there.
 */
struct series {
	size_t n;
	long *k;
	double *y;
	long newest;		/* the newest sample with a point, -1 if none */
	int acc;		/* groups: this sample is the newest so far */
	size_t sites;		/* groups: sites in the newest sample */
	uint64_t calls;		/* calls in the newest sample */
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

/* bytes a count holds: none when it is negative */
static double held(double y)
{
	return y > 0 ? y : 0;
}

/*
 * The line through a series (its points in time order, ranks into the
 * times tr of the samples used) and its verdict.  The slope needs two
 * different times: samples of one second have no time between them, and
 * nothing is divided by an interval.  MONO counts rises and falls of the
 * bytes as they are; the verdict those of the bytes held, a negative
 * count (the kernel's per-CPU counters summed while they change) holding
 * none.  A leak suspect is in every sample from its first to the newest
 * (no module unloaded and loaded again in between, its fall unseen), in
 * at least three, never fell and rose in most intervals: with three
 * samples in both, as one rise and a flat is a single allocation that
 * stayed, not steady growth.
 */
static void fit(const struct series *s, const double *tr, double *slope,
		double *mono, int *suspect)
{
	double mt = 0, my = 0, sxy = 0, sxx = 0;
	size_t up = 0, down = 0, hup = 0, hdown = 0, gaps = 0;

	for (size_t i = 0; i < s->n; i++) {
		mt += tr[s->k[i]];
		my += s->y[i];
	}
	mt /= (double)s->n;
	my /= (double)s->n;
	for (size_t i = 0; i < s->n; i++) {
		double dt = tr[s->k[i]] - mt;

		sxy += dt * (s->y[i] - my);
		sxx += dt * dt;
		if (!i)
			continue;
		if (s->y[i] > s->y[i - 1])
			up++;
		else if (s->y[i] < s->y[i - 1])
			down++;
		if (held(s->y[i]) > held(s->y[i - 1]))
			hup++;
		else if (held(s->y[i]) < held(s->y[i - 1]))
			hdown++;
		gaps += s->k[i] != s->k[i - 1] + 1;
	}
	/* no slope from points of one time, whatever the rounding of mt */
	*slope = sxx > 0 && tr[s->k[s->n - 1]] > tr[s->k[0]] ? sxy / sxx : 0;
	if (!isfinite(*slope))
		*slope = 0;
	*mono = ((double)up - (double)down) / (double)(s->n - 1);
	*suspect = s->n >= 3 && *slope > 0 && !gaps && hdown == 0 &&
		   2 * hup > s->n - 1;
}

static struct series *series_new(long count)
{
	struct series *s = xcalloc(1, sizeof(*s));

	s->k = xcalloc((size_t)count, sizeof(*s->k));
	s->y = xcalloc((size_t)count, sizeof(*s->y));
	s->newest = -1;
	return s;
}

static void series_free(struct series *s)
{
	if (s) {
		free(s->k);
		free(s->y);
		free(s);
	}
}

/* what a series of count samples takes */
static size_t series_cost(long count)
{
	return sizeof(struct series) + (size_t)count * (sizeof(long) + sizeof(double));
}

/*
 * Sample i is newer than sample j (-1: none): a known time before an
 * unknown one, then the later time, then the later read.  The newest
 * sample is the last of the samples used (see choose()).
 */
static int newer(const struct samp *sm, long i, long j)
{
	if (j < 0)
		return 1;
	if (sm[i].dated != sm[j].dated)
		return sm[i].dated;
	if (sm[i].t != sm[j].t)
		return sm[i].t > sm[j].t;
	return i > j;
}

/*
 * Add sample i of the list to the series: per entry, or summed by group.
 * Returns 1 if a new series would go past the memory limit of @mem.
 */
static int sample(struct allocinfo_list *l, long i, const struct samp *sm,
		  long count, struct gseries *gs, struct sel *mem,
		  const struct opts *o)
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
			s->k[s->n] = i;
			s->y[s->n++] = (double)allocinfo_entry_bytes(e);
			if (newer(sm, i, s->newest)) {
				s->newest = i;
				s->calls = allocinfo_entry_calls(e);
			}
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
		if (!s->n || s->k[s->n - 1] != i) {
			s->k[s->n] = i;
			s->y[s->n++] = 0;
			if ((s->acc = newer(sm, i, s->newest))) {
				s->newest = i;
				s->sites = 0;
				s->calls = 0;
			}
		}
		s->y[s->n - 1] += (double)r.bytes;
		if (s->acc) {
			s->calls = sat_addu(s->calls, r.calls);
			s->sites++;
		}
	}
	return 0;
}

/*
 * A series with a rising line, as a row of the output; 0 if none.  Keeps
 * the points of the samples used, in time order (snapshots may come in
 * any order), as ranks; nused samples at times tr.  A row missing from the
 * newest sample is not listed: what it held is no longer counted.
 */
static int grow_of(struct grow *x, struct series *s, const struct samp *sm,
		   const double *tr, long nused)
{
	size_t m = 0;

	if (!s)
		return 0;
	for (size_t i = 0; i < s->n; i++)
		if (sm[s->k[i]].rank >= 0) {
			s->k[m] = sm[s->k[i]].rank;
			s->y[m++] = s->y[i];
		}
	s->n = m;
	for (size_t i = 1; i < s->n; i++)
		for (size_t j = i; j > 0 && s->k[j - 1] > s->k[j]; j--) {
			long k = s->k[j];
			double y = s->y[j];

			s->k[j] = s->k[j - 1];
			s->k[j - 1] = k;
			s->y[j] = s->y[j - 1];
			s->y[j - 1] = y;
		}
	if (s->n < 2 || s->k[s->n - 1] != nused - 1)
		return 0;
	fit(s, tr, &x->slope, &x->mono, &x->suspect);
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

/* what sample i is called in messages: its file, or the source's sample */
static const char *name_of(const struct opts *o, char **pos, const char *input,
			   long i, char *buf, size_t len)
{
	if (pos)
		return src_name(o, pos[i]);
	snprintf(buf, len, "%s (sample %ld)", src_name(o, input), i + 1);
	return buf;
}

/* a snapshot's epoch header as seconds; 0 if there is none or no number */
static int epoch_of(const char *ep, double *t)
{
	char *end;

	if (!ep)
		return 0;
	*t = strtod(ep, &end);
	while (*end == ' ' || *end == '\t')
		end++;
	return end != ep && !*end && isfinite(*t);
}

/*
 * Choose the samples that make the series: with snapshots, the ones with
 * an epoch when some have one, the others' times being unknown; then the
 * ones of the newest sample's boot, as counters do not carry over a
 * reboot (a sample of unknown boot stays, as diff compares known boots
 * only).  Rank them in time order (equal times as read) and put their
 * times in tr.  Says what it leaves out and about samples of one second.
 * Returns how many, or -1 after saying why they are too few.  pos: the
 * snapshot files, NULL for the samples of a source.
 */
static long choose(struct samp *sm, long count, double *tr,
		   const struct opts *o, char **pos, const char *input)
{
	const char *unit = pos ? "snapshot" : "sample", *last = NULL;
	char b1[4200], b2[4200];
	long *ord = xcalloc((size_t)count, sizeof(*ord));
	long n = 0, ndated = 0, other = 0, x = -1, y, same = 0;

	for (long i = 0; i < count; i++) {
		ndated += sm[i].dated;
		sm[i].rank = -1;
	}
	if (ndated && ndated < count) {
		long first = 0;

		while (sm[first].dated)
			first++;
		if (count - ndated == 1)
			warnx("warning: %s has no valid epoch: the time it was taken is "
			      "unknown, so it is left out (%ld of the %ld snapshots %s one)",
			      name_of(o, pos, input, first, b1, sizeof(b1)), ndated, count,
			      ndated == 1 ? "has" : "have");
		else
			warnx("warning: %ld snapshots have no valid epoch (the first: %s): "
			      "the times they were taken are unknown, so they are left out "
			      "(%ld of the %ld %s one)", count - ndated,
			      name_of(o, pos, input, first, b1, sizeof(b1)), ndated, count,
			      ndated == 1 ? "has" : "have");
		if (ndated < 2) {
			warnx("only 1 snapshot has a valid epoch: growth needs at least 2 "
			      "samples taken at known times");
			free(ord);
			return -1;
		}
	} else if (!ndated && o->delay < 0) {
		warnx("warning: no snapshot has a valid epoch: the times they were taken "
		      "are unknown, so they are taken in the order given, 1 second apart "
		      "(-d sets the spacing)");
	}
	/* the samples of known times by time, those of one time as read */
	for (long i = 0; i < count; i++) {
		long j = n;

		if (ndated && !sm[i].dated)
			continue;
		for (; j > 0 && sm[ord[j - 1]].t > sm[i].t; j--)
			ord[j] = ord[j - 1];
		ord[j] = i;
		n++;
	}
	/* the last boot: the newest sample's, or the newest known one */
	for (long j = n - 1; j >= 0 && !last; j--)
		last = sm[ord[j]].boot;
	for (long j = 0; last && j < n; j++)
		if (sm[ord[j]].boot && strcmp(sm[ord[j]].boot, last)) {
			other++;
			x = j;
		}
	if (other) {
		long k = 0;

		/* the newest sample of another boot, the next one of the last boot */
		for (y = x + 1; !sm[ord[y]].boot || strcmp(sm[ord[y]].boot, last); y++)
			;
		warn_boots(name_of(o, pos, input, ord[x], b1, sizeof(b1)),
			   sm[ord[x]].boot, name_of(o, pos, input, ord[y], b2, sizeof(b2)),
			   last);
		for (long j = 0; j < n; j++)
			if (!sm[ord[j]].boot || !strcmp(sm[ord[j]].boot, last))
				ord[k++] = ord[j];
		n = k;
		warnx("warning: counters do not carry over a reboot: growth uses only the "
		      "%ld %s%s of the last boot (boot_id %s) and leaves out %ld", n, unit,
		      n == 1 ? "" : "s", last, other);
		if (n < 2) {
			warnx("only 1 %s is of the last boot: growth needs at least 2 samples "
			      "of one boot", unit);
			free(ord);
			return -1;
		}
	}
	for (long j = 0; j < n; j++) {
		sm[ord[j]].rank = j;
		tr[j] = sm[ord[j]].t;
		same += j && tr[j] == tr[j - 1];
	}
	/* snapshots saved in the same second: no time passed, no slope */
	if (tr[0] == tr[n - 1]) {
		warnx("all %ld %ss have the same epoch (%.17g): growth needs samples "
		      "taken at different times", n, unit, tr[0]);
		free(ord);
		return -1;
	}
	for (long j = 1; same && j < n; j++)
		if (tr[j] == tr[j - 1]) {
			warnx("warning: %s and %s have the same epoch (%.17g)%s: saved in "
			      "the same second, they are taken in the order given, with no "
			      "time between them",
			      name_of(o, pos, input, ord[j - 1], b1, sizeof(b1)),
			      name_of(o, pos, input, ord[j], b2, sizeof(b2)), tr[j],
			      same > 1 ? ", as do other snapshots" : "");
			break;
		}
	free(ord);
	return n;
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
	struct samp *sm = NULL;
	size_t ng = 0, shown, suspects = 0;
	long count = o->count >= 0 ? o->count : 5, nused;
	double delay = o->delay >= 0 ? o->delay : 1.0, t0 = now_sec(), *tr = NULL;
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
	sm = xcalloc((size_t)count, sizeof(*sm));
	tr = xcalloc((size_t)count, sizeof(*tr));
	for (long i = 0; i < count; i++) {
		const char *src = offline ? pos[i] : input, *ep;

		if ((rc = load(l, o, src, i == 0 || offline)))
			goto out;
		if (offline) {
			ep = allocinfo_list_header(l, "epoch");
			if (!(sm[i].dated = epoch_of(ep, &sm[i].t)))
				sm[i].t = (double)i * delay;
			if (ep && !sm[i].dated)
				warnx("warning: %s: epoch '%s' is not a number of seconds",
				      src_name(o, src), ep);
		} else {
			sm[i].t = now_sec() - t0;
			sm[i].dated = 1;
		}
		sm[i].boot = boot_of(l, o, src);
		if (sample(l, i, sm, count, &gs, &mem, o)) {
			rc = too_big(o, src);
			goto out;
		}
		if (!offline && i + 1 < count)
			sleep_sec(delay);
	}
	if ((nused = choose(sm, count, tr, o, offline ? pos : NULL, input)) < 0) {
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

			if (!grow_of(x, gs.s[i], sm, tr, nused))
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
			struct series *s = allocinfo_entry_get_ptr(e);

			if (!grow_of(x, s, sm, tr, nused))
				continue;
			/* the counters of the newest sample, which may not be the last read */
			row_fill(&x->r, e);
			x->r.bytes = x->last;
			x->r.calls = s->calls;
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
		put_json(f, g, ng, shown, suspects, nused, o);
	else
		put_table(f, g, ng, shown, nused, o);
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
	for (long i = 0; sm && i < count; i++)
		free(sm[i].boot);
	free(sm);
	free(tr);
	sel_free(&mem);
	allocinfo_list_free(l);
	allocinfo_query_free(q);
	return rc;
}
