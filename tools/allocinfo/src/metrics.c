// SPDX-License-Identifier: GPL-2.0
/*
 * metrics.c - OpenMetrics text output
 *
 * Gauges allocinfo_bytes and allocinfo_calls with the labels of the call
 * site (file, line, func, module, and occurrence for the second and later
 * rows of one location) or of the group; then the 2.x key:value pairs.
 */
#define _POSIX_C_SOURCE 200809L
#include <err.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

/* the row's labels, without the closing brace */
static void om_labels_open(FILE *f, const struct row *r, const struct opts *o)
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

static void om_labels(FILE *f, const struct row *r, const struct opts *o)
{
	om_labels_open(f, r, o);
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

static struct kvfam *om_families(const struct row *rows, size_t shown, size_t *nfam)
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

static void om_kv(FILE *f, const struct row *rows, size_t shown, const struct opts *o)
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
			om_labels(f, &rows[i], o);
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
					om_labels_open(f, &rows[i], o);
					any = 1;
				}
				fprintf(f, ",kv_%s=", fam[j].name);
				put_label_str(f, v);
			}
			if (any)
				fputs("} 1\n", f);
		}
	}
	for (size_t j = 0; j < nfam; j++)
		free(fam[j].name);
	free(fam);
}

void metrics_rows(FILE *f, const struct row *rows, size_t shown,
		  const struct opts *o)
{
	fputs("# TYPE allocinfo_bytes gauge\n"
	      "# UNIT allocinfo_bytes bytes\n"
	      "# HELP allocinfo_bytes Bytes currently allocated from the call site.\n", f);
	for (size_t i = 0; i < shown; i++) {
		fputs("allocinfo_bytes", f);
		om_labels(f, &rows[i], o);
		fprintf(f, " %" PRId64 "\n", rows[i].bytes);
	}
	fputs("# TYPE allocinfo_calls gauge\n"
	      "# HELP allocinfo_calls Live allocations made from the call site.\n", f);
	for (size_t i = 0; i < shown; i++) {
		fputs("allocinfo_calls", f);
		om_labels(f, &rows[i], o);
		fprintf(f, " %" PRIu64 "\n", rows[i].calls);
	}
	if (!o->group)
		om_kv(f, rows, shown, o);
	fputs("# EOF\n", f);
}

