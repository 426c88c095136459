// SPDX-License-Identifier: GPL-2.0
/*
 * growth.c - leak suspects: call sites whose bytes keep rising
 *
 * Samples come from re-reading a source, or from snapshot files ordered
 * by their epoch.  Each entry carries its series (times and bytes) in its
 * caller-owned pointer across the reads; a least-squares line through it
 * gives the slope, and the pattern of rises and falls the verdict.
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
	return strcmp(a->r.file, b->r.file);
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

int cmd_growth(int npos, char **pos, struct opts *o)
{
	struct allocinfo_list *l = list_new();
	struct allocinfo_query *q = query_new(o, 0);
	struct allocinfo_entry *e;
	struct grow *g = NULL;
	long count = o->count >= 0 ? o->count : 5;
	double delay = o->delay >= 0 ? o->delay : 1.0, t0 = now_sec();
	size_t ng = 0, shown;
	struct namew w;
	/* one argument is a source to sample, like -f; several are snapshots */
	int rc = 0, offline = npos > 1;
	const char *input = npos == 1 ? pos[0] : o->input;

	if (o->fmt != FMT_TABLE || o->group || o->output || o->iterations >= 0 || o->unchanged)
		usage_error("growth shows a table; --group, formats, -o, -i and --unchanged do not apply");
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
		for (e = allocinfo_list_first(l); e; e = allocinfo_entry_next(e)) {
			struct series *s = allocinfo_entry_get_ptr(e);

			if (allocinfo_entry_vanished(e))
				continue;
			if (!s) {
				s = xcalloc(1, sizeof(*s));
				s->t = xcalloc((size_t)count, sizeof(double));
				s->y = xcalloc((size_t)count, sizeof(double));
				allocinfo_entry_set_ptr(e, s);
			}
			s->t[s->n] = t;
			s->y[s->n] = (double)allocinfo_entry_bytes(e);
			s->n++;
		}
		if (!offline && i + 1 < count)
			sleep_sec(delay);
	}
	g = xcalloc(allocinfo_list_count(l), sizeof(*g));
	for (e = allocinfo_list_first(l); e; e = allocinfo_entry_next(e)) {
		struct series *s = allocinfo_entry_get_ptr(e);
		struct grow *x = &g[ng];

		if (!s || s->n < 2)
			continue;
		fit(s, &x->slope, &x->mono, &x->suspect);
		if (x->slope <= 0)
			continue;
		row_fill(&x->r, e);
		if (!row_values_match(&x->r, o))
			continue;
		x->n = s->n;
		x->first = d2i64(s->y[0]);
		x->last = d2i64(s->y[s->n - 1]);
		ng++;
	}
	if (ng > 1)
		qsort(g, ng, sizeof(*g), cmp_grow);
	shown = limit_of(o, 1);
	shown = shown < ng ? shown : ng;
	namew_init(&w);
	for (size_t i = 0; i < shown; i++)
		namew_add(&w, &g[i].r);
	printf("%12s %5s %10s %10s %3s  %-*s %-*s %-*s %s\n", "SLOPE/s", "MONO", "FIRST",
	       "LAST", "N", w.loc, "LOCATION", w.func, "FUNCTION", w.mod, "MODULE",
	       "VERDICT");
	for (size_t i = 0; i < shown; i++) {
		char s[40], f[32], la[32];

		printf("%12s %5.2f %10s %10s %3zu  ", fmt_rate(s, sizeof(s), g[i].slope, o->raw),
		       g[i].mono, fmt_size(f, sizeof(f), g[i].first, o->raw),
		       fmt_size(la, sizeof(la), g[i].last, o->raw), g[i].n);
		put_loc(stdout, g[i].r.file, g[i].r.line, w.loc);
		putchar(' ');
		put_padded(stdout, g[i].r.func, w.func, 1);
		putchar(' ');
		put_padded(stdout, modname(g[i].r.module), w.mod, 1);
		printf(" %s\n", g[i].suspect ? "leak-suspect" : "growing");
	}
	printf("-- %zu growing call sites (%zu shown) over %ld samples\n", ng, shown, count);
out:
	for (e = allocinfo_list_first(l); e; e = allocinfo_entry_next(e)) {
		struct series *s = allocinfo_entry_get_ptr(e);

		if (s) {
			free(s->t);
			free(s->y);
			free(s);
		}
	}
	free(g);
	allocinfo_list_free(l);
	allocinfo_query_free(q);
	return rc;
}
