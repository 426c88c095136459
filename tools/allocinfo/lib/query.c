// SPDX-License-Identifier: GPL-2.0
/*
 * query.c - which rows a read keeps
 *
 * A query holds filters on a row's identity (patterns on the file, the
 * function and the module) and on its counters (minimum bytes, minimum
 * calls, bytes not zero).  A list with a query stores, and a scan returns,
 * only the rows that pass; the text backend tests each row as it parses it,
 * before the row costs an entry.  The counter tests come first: they are
 * cheap and need no copy of the names.
 *
 * A row passes when, for each field that has include patterns, one of them
 * matches, and no exclude pattern of any field matches.  Patterns are POSIX
 * extended regular expressions, or whole strings with ALLOCINFO_MATCH_EXACT
 * (what a kernel-side filter could take over).  Module patterns see
 * "vmlinux" for built-in code.
 */
#define _POSIX_C_SOURCE 200809L
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct match {
	int field;
	unsigned flags;
	char *text;		/* ALLOCINFO_MATCH_EXACT */
	regex_t re;		/* otherwise */
};

enum { Q_MIN_BYTES = 1, Q_MIN_CALLS = 2, Q_NONZERO = 4 };

struct allocinfo_query {
	struct match *m;
	size_t n;
	unsigned values;	/* Q_* set */
	int64_t min_bytes;
	uint64_t min_calls;
	char err[256];
};

struct allocinfo_query *allocinfo_query_new(void)
{
	return calloc(1, sizeof(struct allocinfo_query));
}

void allocinfo_query_free(struct allocinfo_query *q)
{
	if (!q)
		return;
	for (size_t i = 0; i < q->n; i++) {
		if (q->m[i].flags & ALLOCINFO_MATCH_EXACT)
			free(q->m[i].text);
		else
			regfree(&q->m[i].re);
	}
	free(q->m);
	free(q);
}

/*
 * The string an extended regular expression matches when it matches one
 * whole string only: "^", characters that are not special or are escaped
 * punctuation, "$".  NULL (and no error) when it is anything else.
 */
static char *literal_of(const char *re)
{
	static const char special[] = ".[]()*+?{}|^$\\";
	size_t n = strlen(re), j = 0;
	char *lit;

	if (n < 2 || re[0] != '^' || re[n - 1] != '$')
		return NULL;
	lit = malloc(n);
	if (!lit)
		return NULL;
	for (size_t i = 1; i < n - 1; i++) {
		char c = re[i];

		if (c == '\\' && i + 1 < n - 1 && strchr(special, re[i + 1]))
			c = re[++i];
		else if (strchr(special, c))
			break;
		lit[j++] = c;
		if (i == n - 2) {
			lit[j] = '\0';
			return lit;
		}
	}
	free(lit);
	return NULL;
}

int allocinfo_query_add_match(struct allocinfo_query *q, int field,
			      const char *pattern, unsigned flags)
{
	struct match *m;
	int rc;

	if (!q || !pattern || field < ALLOCINFO_FIELD_FILE ||
	    field > ALLOCINFO_FIELD_MODULE ||
	    (flags & ~(ALLOCINFO_MATCH_EXCLUDE | ALLOCINFO_MATCH_EXACT))) {
		if (q)
			snprintf(q->err, sizeof(q->err), "invalid argument");
		return ALLOCINFO_EINVAL;
	}
	m = realloc(q->m, (q->n + 1) * sizeof(*m));
	if (!m) {
		snprintf(q->err, sizeof(q->err), "out of memory");
		return ALLOCINFO_ENOMEM;
	}
	q->m = m;
	m = &q->m[q->n];
	m->field = field;
	m->flags = flags;
	if (!(flags & ALLOCINFO_MATCH_EXACT) && (m->text = literal_of(pattern))) {
		m->flags |= ALLOCINFO_MATCH_EXACT;
	} else if (flags & ALLOCINFO_MATCH_EXACT) {
		m->text = strdup(pattern);
		if (!m->text) {
			snprintf(q->err, sizeof(q->err), "out of memory");
			return ALLOCINFO_ENOMEM;
		}
	} else if ((rc = regcomp(&m->re, pattern, REG_EXTENDED | REG_NOSUB))) {
		regerror(rc, &m->re, q->err, sizeof(q->err));
		regfree(&m->re);
		return ALLOCINFO_EINVAL;
	}
	q->n++;
	q->err[0] = '\0';
	return ALLOCINFO_OK;
}

const char *allocinfo_query_error(const struct allocinfo_query *q)
{
	return q && q->err[0] ? q->err : NULL;
}

int allocinfo_query_set_min_bytes(struct allocinfo_query *q, int64_t min)
{
	if (!q)
		return ALLOCINFO_EINVAL;
	q->min_bytes = min;
	q->values |= Q_MIN_BYTES;
	return ALLOCINFO_OK;
}

int allocinfo_query_set_min_calls(struct allocinfo_query *q, uint64_t min)
{
	if (!q)
		return ALLOCINFO_EINVAL;
	q->min_calls = min;
	q->values |= Q_MIN_CALLS;
	return ALLOCINFO_OK;
}

int allocinfo_query_set_nonzero(struct allocinfo_query *q, int on)
{
	if (!q)
		return ALLOCINFO_EINVAL;
	q->values = on ? q->values | Q_NONZERO : q->values & ~(unsigned)Q_NONZERO;
	return ALLOCINFO_OK;
}

int ai_query_needs_names(const struct allocinfo_query *q)
{
	return q && q->n;
}

const char *ai_query_exact_name(const struct allocinfo_query *q, int field)
{
	const char *name = NULL;

	for (size_t i = 0; q && i < q->n; i++) {
		const struct match *m = &q->m[i];

		if (m->field != field || (m->flags & ALLOCINFO_MATCH_EXCLUDE))
			continue;
		if (name || !(m->flags & ALLOCINFO_MATCH_EXACT))
			return NULL;
		name = m->text;
	}
	return name;
}

int64_t ai_query_min_bytes(const struct allocinfo_query *q)
{
	int64_t min = 0;

	if (q && (q->values & Q_MIN_BYTES))
		min = q->min_bytes;
	if (q && (q->values & Q_NONZERO) && min < 1)
		min = 1;
	return min;
}

int ai_query_values(const struct allocinfo_query *q, int64_t bytes,
		    uint64_t calls)
{
	if (!q || !q->values)
		return 1;
	if ((q->values & Q_NONZERO) && bytes == 0)
		return 0;
	if ((q->values & Q_MIN_BYTES) && bytes < q->min_bytes)
		return 0;
	if ((q->values & Q_MIN_CALLS) && calls < q->min_calls)
		return 0;
	return 1;
}

/* module NULL: built-in */
int ai_query_names(const struct allocinfo_query *q, const char *file,
		   const char *func, const char *module)
{
	unsigned want = 0, got = 0;

	if (!q)
		return 1;
	for (size_t i = 0; i < q->n; i++) {
		const struct match *m = &q->m[i];
		const char *s = m->field == ALLOCINFO_FIELD_FILE ? file :
				m->field == ALLOCINFO_FIELD_FUNC ? func :
				module ? module : AI_BUILTIN_MODULE;
		int hit = m->flags & ALLOCINFO_MATCH_EXACT ? !strcmp(s, m->text)
			  : !regexec(&m->re, s, 0, NULL, 0);

		if (m->flags & ALLOCINFO_MATCH_EXCLUDE) {
			if (hit)
				return 0;
			continue;
		}
		want |= 1u << m->field;
		if (hit)
			got |= 1u << m->field;
	}
	return want == got;
}

int allocinfo_query_test(const struct allocinfo_query *q,
			 const struct allocinfo_entry *e)
{
	if (!e)
		return 0;
	return ai_query_values(q, allocinfo_entry_bytes(e), allocinfo_entry_calls(e)) &&
	       ai_query_names(q, allocinfo_entry_file(e), allocinfo_entry_func(e),
			      allocinfo_entry_module(e));
}
