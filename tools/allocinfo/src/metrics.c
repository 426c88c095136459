// SPDX-License-Identifier: GPL-2.0
/*
 * metrics.c - OpenMetrics and Prometheus text output
 *
 * The same series in both flavours, so that a dashboard does not care
 * which one fed it:
 *
 *   allocinfo_bytes{site} and allocinfo_calls{site}    gauges
 *   allocinfo_kv{site,key="K"} V                       a pair whose value is a number
 *   allocinfo_kv_text_info{site,key="K",value="V"} 1   any other pair
 *   allocinfo_node_bytes{site,node="N"}, allocinfo_node_calls   (--numa)
 *
 * where {site} is file, line, func, module (and occurrence for the second
 * and later rows of one location), or the group's name with --group.
 * Keys are label values, not parts of metric names: the kernel's keys are
 * not ours to name, and a key such as lat_ms, fooBar or x_total in a
 * metric name fails promtool's checks (units, snake_case, suffixes) while
 * any UTF-8 is a valid label value.  A row contributes the first pair of
 * a key it repeats, as in JSON and allocinfo_entry_kv_find().
 *
 * The flavours differ only where their parsers do: OpenMetrics has UNIT
 * lines, the info type (family allocinfo_kv_text, samples _info) and a
 * final "# EOF"; the Prometheus text format 0.0.4, which promtool and
 * node_exporter's textfile collector parse, knows neither, so there the
 * text pairs are a gauge named allocinfo_kv_text_info with the same
 * samples, and HELP escapes only backslash and newline.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

/* TYPE, UNIT and HELP of a family, in the order each flavour wants */
static void family(FILE *f, const struct opts *o, const char *name,
		   const char *type, const char *unit, const char *help)
{
	if (o->fmt == FMT_OPENMETRICS) {
		fprintf(f, "# TYPE %s %s\n", name, type);
		if (unit)
			fprintf(f, "# UNIT %s %s\n", name, unit);
		fprintf(f, "# HELP %s %s\n", name, help);
	} else {
		/* the text format has no info type: the samples' own name, a gauge */
		if (!strcmp(type, "info"))
			fprintf(f, "# HELP %s_info %s\n# TYPE %s_info gauge\n", name, help, name);
		else
			fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
	}
}

/* the row's labels, without the closing brace */
static void labels_open(FILE *f, const struct row *r, const struct opts *o)
{
	if (o->group) {
		fprintf(f, "{%s=", group_name(o));
		put_label_str(f, r->key);
		return;
	}
	fputs("{file=", f);
	put_label_str(f, r->file);
	fprintf(f, ",line=\"%lu\",func=", r->line);
	put_label_str(f, r->func);
	fputs(",module=", f);
	put_label_str(f, modname(r->module));
	if (r->occ)
		fprintf(f, ",occurrence=\"%u\"", r->occ);
}

/*
 * A value both parsers take as a number, printed as the kernel printed
 * it: optional sign, digits, optional fraction and exponent, finite as a
 * double (1e400 is refused by promtool).
 */
static int is_number(const char *v)
{
	const char *p = v;
	char *end;
	double d;

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
	if (*p)
		return 0;
	errno = 0;
	d = strtod(v, &end);
	return !errno && isfinite(d);
}

/* is pair i's key the key of an earlier pair of the entry? */
static int repeated(const struct allocinfo_entry *e, size_t i, const char *k)
{
	const char *k2 = NULL, *v = NULL;

	for (size_t j = 0; j < i; j++) {
		allocinfo_entry_kv_get(e, j, &k2, &v);
		if (!strcmp(k, k2))
			return 1;
	}
	return 0;
}

/* The pairs of the rows shown: numeric ones (text 0) or the others (1). */
static void kv_samples(FILE *f, const struct row *rows, size_t n, int text,
		       const struct opts *o)
{
	const char *name = text ? "allocinfo_kv_text_info" : "allocinfo_kv";
	const char *k = NULL, *v = NULL;
	int any = 0;

	for (size_t i = 0; i < n; i++) {
		const struct allocinfo_entry *e = rows[i].e;

		for (size_t j = 0; e && j < allocinfo_entry_kv_count(e); j++) {
			allocinfo_entry_kv_get(e, j, &k, &v);
			if (is_number(v) == text || repeated(e, j, k))
				continue;
			if (!any++)
				family(f, o, text ? "allocinfo_kv_text" : "allocinfo_kv",
				       text ? "info" : "gauge", NULL, text ?
				       "Key:value pairs of the call site whose values are not numbers." :
				       "Key:value pairs of the call site whose values are numbers.");
			fputs(name, f);
			labels_open(f, &rows[i], o);
			fputs(",key=", f);
			put_label_str(f, k);
			if (text) {
				fputs(",value=", f);
				put_label_str(f, v);
				fputs("} 1\n", f);
			} else {
				fprintf(f, "} %s\n", v);
			}
		}
	}
}

void metrics_rows(FILE *f, const struct row *rows, size_t n,
		  const struct opts *o)
{
	family(f, o, "allocinfo_bytes", "gauge", "bytes",
	       o->group ? "Bytes currently allocated from the call sites of the group." :
	       "Bytes currently allocated from the call site.");
	for (size_t i = 0; i < n; i++) {
		fputs("allocinfo_bytes", f);
		labels_open(f, &rows[i], o);
		fprintf(f, "} %" PRId64 "\n", rows[i].bytes);
	}
	family(f, o, "allocinfo_calls", "gauge", NULL,
	       o->group ? "Live allocations made from the call sites of the group." :
	       "Live allocations made from the call site.");
	for (size_t i = 0; i < n; i++) {
		fputs("allocinfo_calls", f);
		labels_open(f, &rows[i], o);
		fprintf(f, "} %" PRIu64 "\n", rows[i].calls);
	}
	if (!o->group) {
		kv_samples(f, rows, n, 0, o);
		kv_samples(f, rows, n, 1, o);
	}
	if (o->fmt == FMT_OPENMETRICS)
		fputs("# EOF\n", f);
}

/* per-node rows of --numa: each row's aux is its struct nodes */
void metrics_numa(FILE *f, const struct row *rows, size_t n, int nodes,
		  const struct opts *o)
{
	family(f, o, "allocinfo_node_bytes", "gauge", "bytes",
	       "Bytes currently allocated from the call site on the NUMA node.");
	for (size_t i = 0; i < n; i++)
		for (int nid = 0; nid < nodes; nid++) {
			fputs("allocinfo_node_bytes", f);
			labels_open(f, &rows[i], o);
			fprintf(f, ",node=\"%d\"} %" PRId64 "\n", nid,
				((const struct nodes *)rows[i].aux)->bytes[nid]);
		}
	family(f, o, "allocinfo_node_calls", "gauge", NULL,
	       "Live allocations made from the call site on the NUMA node.");
	for (size_t i = 0; i < n; i++)
		for (int nid = 0; nid < nodes; nid++) {
			fputs("allocinfo_node_calls", f);
			labels_open(f, &rows[i], o);
			fprintf(f, ",node=\"%d\"} %" PRIu64 "\n", nid,
				((const struct nodes *)rows[i].aux)->calls[nid]);
		}
	if (o->fmt == FMT_OPENMETRICS)
		fputs("# EOF\n", f);
}
