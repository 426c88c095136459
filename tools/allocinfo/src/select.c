// SPDX-License-Identifier: GPL-2.0
/*
 * select.c - which rows a view shows, and in what order
 *
 * A view feeds its rows (call sites from a scan or a list) to a selection
 * one at a time.  The selection keeps the totals of every row, and only
 * the rows it will show: the k that sort first, in a heap whose root is the
 * one that sorts last, so a row that sorts after it costs one comparison
 * and a top-10 of 200,000 rows holds ten.  With --group it sums rows into
 * groups instead, found through a hash table on the group's name; a
 * group's name is built in a buffer that is reused, so only a new group
 * allocates.  Rows from a scan point to a scratch entry that the next row
 * overwrites: the selection copies the entries of the rows it keeps.
 *
 * The sort order is the options' sort keys, then file, line, function,
 * module, occurrence and the row's place in the source, so that it is
 * total and the same rows come out whether they are selected from a
 * stream or sorted all at once.
 */
#define _POSIX_C_SOURCE 200809L
#include <err.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

/* ---- rows ------------------------------------------------------------- */

void row_fill(struct row *r, const struct allocinfo_entry *e)
{
	memset(r, 0, sizeof(*r));
	r->file = allocinfo_entry_file(e);
	r->func = allocinfo_entry_func(e);
	r->module = allocinfo_entry_module(e);
	r->line = allocinfo_entry_line(e);
	r->occ = allocinfo_entry_occurrence(e);
	r->lineno = allocinfo_entry_lineno(e);
	r->bytes = allocinfo_entry_bytes(e);
	r->calls = allocinfo_entry_calls(e);
	r->sites = 1;
	r->e = e;
	stats_read(&r->st, e);
}

/* Give the row its own copy of its entry (one from a scan does not last). */
void row_keep(struct row *r)
{
	if (!r->e || r->own)
		return;
	r->own = allocinfo_entry_dup(r->e);
	if (!r->own)
		err(EX_RUNTIME, "allocinfo_entry_dup");
	r->e = r->own;
	r->file = allocinfo_entry_file(r->own);
	r->func = allocinfo_entry_func(r->own);
	r->module = allocinfo_entry_module(r->own);
}

void row_release(struct row *r)
{
	allocinfo_entry_free(r->own);
	free(r->key);
	r->own = NULL;
	r->key = NULL;
}

void stats_add(struct stats *to, const struct stats *s)
{
	if (!s->valid)
		return;
	to->valid = 1;
	to->allocs = sat_addu(to->allocs, s->allocs);
	to->churn = sat_addu(to->churn, s->churn);
	to->failed = sat_addu(to->failed, s->failed);
	to->requested = sat_addu(to->requested, s->requested);
}

/* --min-bytes, --min-calls and --nonzero, on the row's current counters */
int row_values_match(const struct row *r, const struct opts *o)
{
	if (o->nonzero && r->bytes == 0)
		return 0;
	if (o->min_bytes_set && r->bytes < o->min_bytes)
		return 0;
	if (o->min_calls_set && r->calls < o->min_calls)
		return 0;
	return 1;
}

/* ---- order ------------------------------------------------------------ */

static const char *field_of(const struct row *r, enum key k)
{
	switch (k) {
	case K_FILE: return r->file ? r->file : "";
	case K_FUNC: return r->func ? r->func : "";
	default: return modname(r->module);
	}
}

static double avg_of(const struct row *r)
{
	return r->calls ? (double)r->bytes / (double)r->calls : 0.0;
}

#define CMP(a, b) ((a) < (b) ? -1 : (a) > (b))

static int cmp_key(const struct row *a, const struct row *b, enum key k)
{
	switch (k) {
	case K_BYTES: return CMP(a->bytes, b->bytes);
	case K_CALLS: return CMP(a->calls, b->calls);
	case K_AVG: return CMP(avg_of(a), avg_of(b));
	case K_RATE: return CMP(a->rate, b->rate);
	case K_CHANGE: return CMP(a->change, b->change);
	case K_LINE: return CMP(a->line, b->line);
	case K_FILE:
	case K_FUNC:
	case K_MODULE: return strcmp(field_of(a, k), field_of(b, k));
	case K_ALLOCS: return CMP(a->st.allocs, b->st.allocs);
	case K_CHURN: return CMP(a->st.churn, b->st.churn);
	case K_FAILED: return CMP(a->st.failed, b->st.failed);
	case K_SLACK: return CMP(stats_slack(&a->st), stats_slack(&b->st));
	case K_NKEYS: break;
	}
	return 0;
}

/* The tie-break after the sort keys: identity, then place in the source. */
int row_cmp_ties(const struct row *a, const struct row *b)
{
	static const enum key tie[] = { K_FILE, K_LINE, K_FUNC, K_MODULE };
	int c;

	for (size_t i = 0; i < sizeof(tie) / sizeof(tie[0]); i++)
		if ((c = cmp_key(a, b, tie[i])))
			return c;
	if ((c = CMP(a->occ, b->occ)))
		return c;
	return CMP(a->lineno, b->lineno);
}

int row_cmp(const struct row *a, const struct row *b, const struct opts *o)
{
	int c;

	for (int i = 0; i < o->nsort; i++) {
		c = cmp_key(a, b, o->sort[i].key);
		if (c)
			return o->sort[i].desc ? -c : c;
	}
	return row_cmp_ties(a, b);
}

typedef int (*row_cmp_fn)(const struct row *, const struct row *,
			  const struct opts *);

static void row_swap(struct row *a, struct row *b)
{
	struct row t = *a;

	*a = *b;
	*b = t;
}

/* heap whose root sorts last: the element to drop when a better one comes */
static void sift_down(struct row *h, size_t n, size_t i, const struct opts *o,
		      row_cmp_fn cmp)
{
	for (;;) {
		size_t c = 2 * i + 1, m = i;

		if (c < n && cmp(&h[c], &h[m], o) > 0)
			m = c;
		if (c + 1 < n && cmp(&h[c + 1], &h[m], o) > 0)
			m = c + 1;
		if (m == i)
			return;
		row_swap(&h[i], &h[m]);
		i = m;
	}
}

static void sift_up(struct row *h, size_t i, const struct opts *o,
		    row_cmp_fn cmp)
{
	while (i) {
		size_t p = (i - 1) / 2;

		if (cmp(&h[i], &h[p], o) <= 0)
			return;
		row_swap(&h[i], &h[p]);
		i = p;
	}
}

/*
 * Sort rows: a merge sort of their numbers (the comparison gets the
 * options, which qsort() cannot give it), then each row moved once to its
 * place, following the cycles of the permutation.  Rows are big; moving
 * numbers instead of rows keeps a sort of 200,000 of them cheap.
 */
/* The numbers of the rows in their sorted order (to free). */
static size_t *sort_index(const struct row *rows, size_t n, const struct opts *o,
			  row_cmp_fn cmp)
{
	size_t *x = xcalloc(n, sizeof(*x)), *y = xcalloc(n, sizeof(*y)), *t;

	for (size_t i = 0; i < n; i++)
		x[i] = i;
	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t a = lo, b = mid, k = lo;

			while (a < mid && b < hi)
				y[k++] = cmp(&rows[x[b]], &rows[x[a]], o) < 0 ? x[b++] : x[a++];
			while (a < mid)
				y[k++] = x[a++];
			while (b < hi)
				y[k++] = x[b++];
		}
		t = x;
		x = y;
		y = t;
	}
	free(y);
	return x;
}

void rows_sort(struct row *rows, size_t n, const struct opts *o, row_cmp_fn cmp)
{
	size_t *x;

	if (n < 2)
		return;
	x = sort_index(rows, n, o, cmp);
	/* place k takes the row that was at x[k] */
	for (size_t k = 0; k < n; k++) {
		struct row tmp;
		size_t j = k;

		if (x[k] == k)
			continue;
		tmp = rows[k];
		for (;;) {
			size_t src = x[j];

			x[j] = j;
			if (src == k) {
				rows[j] = tmp;
				break;
			}
			rows[j] = rows[src];
			j = src;
		}
	}
	free(x);
}

const char *key_name(enum key k)
{
	static const char *const names[K_NKEYS] = {
		[K_BYTES] = "bytes", [K_CALLS] = "calls", [K_AVG] = "avg",
		[K_FILE] = "file", [K_LINE] = "line", [K_FUNC] = "func",
		[K_MODULE] = "module", [K_RATE] = "rate", [K_CHANGE] = "change",
		[K_ALLOCS] = "allocs", [K_CHURN] = "churn", [K_FAILED] = "failed",
		[K_SLACK] = "slack",
	};

	return k < K_NKEYS ? names[k] : "?";
}

int is_stats_key(enum key k)
{
	return k == K_ALLOCS || k == K_CHURN || k == K_FAILED || k == K_SLACK;
}

/*
 * The lifetime count keys order nothing in rows that have no such counts
 * (a kernel without CONFIG_MEM_ALLOC_PROFILING_STATS): say so, rather
 * than let the ties fall silently to file and line.
 */
void warn_stats_sort(const struct opts *o, int any_stats)
{
	for (int i = 0; i < o->nsort && !any_stats; i++) {
		enum key k = o->sort[i].key;

		if (is_stats_key(k)) {
			warnx("warning: no call site has lifetime counts "
			      "(CONFIG_MEM_ALLOC_PROFILING_STATS): --sort %s orders "
			      "nothing, rows are in the order of the other keys, then "
			      "file and line", key_name(k));
			return;
		}
	}
}

size_t limit_of(const struct opts *o, int table)
{
	if (o->limit == LIMIT_DEFAULT)
		return table ? 20 : SIZE_MAX;
	if (o->limit < 0)
		return SIZE_MAX;
	return (size_t)o->limit;
}

/* ---- groups ----------------------------------------------------------- */

static void key_put(char **buf, size_t *cap, size_t at, const char *s, size_t n)
{
	if (at + n + 1 > *cap) {
		*cap = (at + n + 1) * 2;
		*buf = xrealloc(*buf, *cap, 1);
	}
	memcpy(*buf + at, s, n);
	(*buf)[at + n] = '\0';
}

/*
 * The name of the row's group, into *buf (grown as needed); returns its
 * length.  dir:N keeps the first N directories; the root of an absolute
 * path belongs to its first one (dir:1 of /home/u/a.c is /home).
 */
size_t group_key(const struct opts *o, const struct row *r, char **buf,
		 size_t *cap)
{
	const char *f = strip_dot(r->file), *slash, *p;
	size_t n;
	int depth = 0;

	switch (o->group) {
	case G_MODULE:
		f = modname(r->module);
		break;
	case G_FUNC:
		f = r->func;
		break;
	case G_FILE:
		break;
	default:
		slash = strrchr(f, '/');
		if (!slash) {
			f = ".";
			break;
		}
		if (slash == f) {	/* a file in the root directory */
			f = "/";
			break;
		}
		n = (size_t)(slash - f);
		if (o->group_depth > 0)
			for (p = f + (*f == '/'); p < slash; p++)
				if (*p == '/' && ++depth == o->group_depth) {
					n = (size_t)(p - f);
					break;
				}
		key_put(buf, cap, 0, f, n);
		return n;
	}
	n = strlen(f);
	key_put(buf, cap, 0, f, n);
	return n;
}

/*
 * A map from strings to the numbers 0, 1, 2... in the order they were
 * added: open addressing on an FNV-1a hash, kept at most half full.
 */
static uint64_t str_hash(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ULL;
	}
	return h ^ (h >> 29);
}

static void strmap_grow(struct strmap *m)
{
	size_t nn = m->nslot ? m->nslot * 2 : 64;
	size_t *ns = xcalloc(nn, sizeof(*ns));

	for (size_t i = 0; i < m->n; i++) {
		size_t h = (size_t)str_hash(m->keys[i], strlen(m->keys[i])) & (nn - 1);

		while (ns[h])
			h = (h + 1) & (nn - 1);
		ns[h] = i + 1;
	}
	free(m->slot);
	m->slot = ns;
	m->nslot = nn;
}

/* The number of key (len bytes); a new one if add, else SIZE_MAX. */
size_t strmap_find(struct strmap *m, const char *key, size_t len, int add)
{
	size_t h;

	if (2 * (m->n + 1) > m->nslot)
		strmap_grow(m);
	h = (size_t)str_hash(key, len) & (m->nslot - 1);
	for (; m->slot[h]; h = (h + 1) & (m->nslot - 1)) {
		const char *k = m->keys[m->slot[h] - 1];

		if (!strncmp(k, key, len) && !k[len])
			return m->slot[h] - 1;
	}
	if (!add)
		return SIZE_MAX;
	if (m->n == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 64;
		m->keys = xrealloc(m->keys, m->cap, sizeof(*m->keys));
	}
	m->keys[m->n] = xmalloc(len + 1);
	memcpy(m->keys[m->n], key, len);
	m->keys[m->n][len] = '\0';
	m->slot[h] = ++m->n;
	return m->n - 1;
}

void strmap_free(struct strmap *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->keys[i]);
	free(m->keys);
	free(m->slot);
	memset(m, 0, sizeof(*m));
}

/*
 * Occurrence numbers.  The kernel may print one location on several rows
 * (a tag per inlined copy); the metrics tell them apart by the row's
 * ordinal among the rows of its location in the whole source, which is
 * a property of the tag: counted here over every row of a scan, before
 * the filters, so that --nonzero, -n, the sort order and the patterns
 * cannot move a tag from one series to another between scrapes.  A
 * location's key spells each name with its length first, so that no
 * byte of a name can make two locations one.  The map costs its keys,
 * charged to the selection's memory limit.
 */
unsigned occ_next(struct occmap *m, const struct allocinfo_entry *e,
		  struct sel *s)
{
	const char *f = allocinfo_entry_file(e), *fn = allocinfo_entry_func(e);
	const char *mod = allocinfo_entry_module(e);
	size_t fl = strlen(f), fnl = strlen(fn), need, len, i, before;

	need = fl + fnl + (mod ? strlen(mod) : 0) + 3 * 24;
	if (need > m->kcap) {
		m->kcap = 2 * need;
		m->kbuf = xrealloc(m->kbuf, m->kcap, 1);
	}
	len = (size_t)snprintf(m->kbuf, m->kcap, "%zu:%s%lu:%zu:%s%c%s", fl, f,
			       allocinfo_entry_line(e), fnl, fn, mod ? '[' : '-',
			       mod ? mod : "");
	before = m->map.n;
	i = strmap_find(&m->map, m->kbuf, len, 1);
	if (m->map.n > before) {
		if (m->map.n > m->cap) {
			m->cap = m->cap ? 2 * m->cap : 64;
			m->n = xrealloc(m->n, m->cap, sizeof(*m->n));
		}
		m->n[i] = 0;
		/* the key, its pointer, two slots and the count */
		sel_charge(s, len + 1 + 3 * sizeof(size_t) + sizeof(unsigned) + 16);
	}
	return m->n[i] < UINT_MAX ? m->n[i]++ : UINT_MAX;
}

void occ_free(struct occmap *m)
{
	strmap_free(&m->map);
	free(m->n);
	free(m->kbuf);
	memset(m, 0, sizeof(*m));
}

struct groups {
	struct strmap map;	/* group name -> index in the selection's rows */
	char *kbuf;
	size_t kcap;
};

/*
 * What a kept row costs beyond its struct row: a copy of a scan's entry
 * (its header, its names, its pairs twice) or a group's key (extra).
 */
#define ENTRY_COPY_COST 128

static size_t names_bytes(const struct row *r)
{
	size_t n = strlen(r->file) + strlen(r->func) + (r->module ? strlen(r->module) : 0);

	for (size_t i = 0; r->e && i < allocinfo_entry_kv_count(r->e); i++) {
		const char *k, *v;

		allocinfo_entry_kv_get(r->e, i, &k, &v);
		n += 2 * (strlen(k) + strlen(v)) + 4 * sizeof(char *);
	}
	return n;
}

/*
 * What the rows a view keeps, and the entries of a list it reads, may
 * take: twice the input limit (--max-input), saturating; 0 for none.
 */
size_t mem_limit(const struct opts *o)
{
	return o->max_input > SIZE_MAX / 2 ? SIZE_MAX : 2 * o->max_input;
}

/*
 * Count @n bytes a view keeps against the selection's limit; returns 1
 * (and sets too_big) once they go past it.  A pipe of endless short rows
 * would otherwise take twenty times the limit in rows kept for --json or
 * -a, some 1.3 GB at the default, and more in what diff and growth keep
 * for each call site.
 */
int sel_charge(struct sel *s, size_t n)
{
	s->kept_bytes = s->kept_bytes > SIZE_MAX - n ? SIZE_MAX : s->kept_bytes + n;
	if (s->kept_limit && s->kept_bytes > s->kept_limit)
		s->too_big = 1;
	return s->too_big;
}

static void kept(struct sel *s, size_t extra)
{
	sel_charge(s, sizeof(struct row) + extra);
}

static void group_add(struct sel *s, const struct row *r)
{
	struct groups *g = s->g;
	const struct opts *o = s->o;
	size_t len = group_key(o, r, &g->kbuf, &g->kcap);
	size_t i = strmap_find(&g->map, g->kbuf, len, 1);
	struct row *t;

	if (i == s->n) {
		if (s->n == s->cap) {
			s->cap = s->cap ? 2 * s->cap : 64;
			s->rows = xrealloc(s->rows, s->cap, sizeof(*s->rows));
		}
		t = &s->rows[s->n++];
		*t = *r;
		t->e = NULL;
		t->own = NULL;
		t->line = 0;
		t->occ = 0;
		t->key = xstrdup(g->kbuf);
		kept(s, len + 1);
		t->file = o->group == G_FILE || o->group == G_DIR ? t->key : "";
		t->func = o->group == G_FUNC ? t->key : "";
		t->module = o->group == G_MODULE ? t->key : "";
		return;
	}
	t = &s->rows[i];
	t->bytes = sat_add(t->bytes, r->bytes);
	t->old_bytes = sat_add(t->old_bytes, r->old_bytes);
	t->calls = sat_addu(t->calls, r->calls);
	t->old_calls = sat_addu(t->old_calls, r->old_calls);
	t->rate += r->rate;
	t->change = sat_add(t->change, r->change);
	t->sites += r->sites;
	t->lineno = t->lineno < r->lineno ? t->lineno : r->lineno;
	if (t->status != r->status)
		t->status = ST_SAME;	/* new (gone) only if all its sites are */
	stats_add(&t->st, &r->st);
	stats_add(&t->old_st, &r->old_st);
}

/* ---- selection -------------------------------------------------------- */

void sel_init(struct sel *s, const struct opts *o, size_t k, int copy)
{
	memset(s, 0, sizeof(*s));
	s->o = o;
	s->k = k;
	s->copy = copy;
	/* a scan holds one chunk of the input; what it keeps, at most twice the input limit */
	s->kept_limit = mem_limit(o);
	if (o->group)
		s->g = xcalloc(1, sizeof(*s->g));
}

static void check_max(struct sel *s, const struct row *r)
{
	if (!s->o->max_bytes_set || r->bytes <= s->o->max_bytes)
		return;
	if (!s->over++ || r->bytes > s->worst.bytes) {
		row_release(&s->worst);
		s->worst = *r;
		s->worst.key = r->key ? xstrdup(r->key) : NULL;
		s->worst.own = NULL;
		if (s->worst.e)
			row_keep(&s->worst);
	}
}

void sel_add(struct sel *s, const struct row *r)
{
	s->matched++;
	s->sites += r->sites;
	s->total_bytes = sat_add(s->total_bytes, r->bytes);
	s->total_calls = sat_addu(s->total_calls, r->calls);
	s->total_rate += r->rate;
	s->total_change = sat_add(s->total_change, r->change);
	s->any_stats |= r->st.valid;
	if (s->g) {
		group_add(s, r);
		return;
	}
	check_max(s, r);
	if (!s->k)
		return;
	if (s->k == SIZE_MAX || s->n < s->k) {
		if (s->n == s->cap) {
			s->cap = s->cap ? 2 * s->cap : (s->k < 64 ? s->k : 64);
			s->rows = xrealloc(s->rows, s->cap, sizeof(*s->rows));
		}
		s->rows[s->n] = *r;
		if (s->copy)
			row_keep(&s->rows[s->n]);
		kept(s, s->copy ? ENTRY_COPY_COST + names_bytes(r) : 0);
		if (s->k != SIZE_MAX)
			sift_up(s->rows, s->n, s->o, row_cmp);
		s->n++;
	} else if (row_cmp(r, &s->rows[0], s->o) < 0) {
		row_release(&s->rows[0]);
		s->rows[0] = *r;
		if (s->copy)
			row_keep(&s->rows[0]);
		sift_down(s->rows, s->n, 0, s->o, row_cmp);
	}
}

/*
 * A call site that is no longer a row (top: one that vanished before the
 * last sample) but whose change since the start still counts: in the
 * totals' change, and in its group's when the group has rows.  Called
 * after the rows are added, before sel_finish().
 */
void sel_add_change(struct sel *s, const struct row *r)
{
	size_t len, i;

	s->total_change = sat_add(s->total_change, r->change);
	if (!s->g)
		return;
	len = group_key(s->o, r, &s->g->kbuf, &s->g->kcap);
	i = strmap_find(&s->g->map, s->g->kbuf, len, 0);
	if (i < s->n)
		s->rows[i].change = sat_add(s->rows[i].change, r->change);
}

/*
 * The common case of a top-N, cheaply: once k rows are held and the first
 * sort key is bytes or calls, a site that sorts strictly after the root
 * is only counted, without a row.  Sites with pairs (lifetime counts to
 * read and check) and sites above --max-bytes take the full way.
 * Returns 1 if the site was counted here.
 */
int sel_skip(struct sel *s, const struct allocinfo_entry *e)
{
	const struct sortkey *k = &s->o->sort[0];
	int64_t b = allocinfo_entry_bytes(e), rb;
	uint64_t c = allocinfo_entry_calls(e), rc;
	int after;

	if (s->g || s->k == SIZE_MAX || s->n < s->k || allocinfo_entry_kv_count(e) ||
	    (s->o->max_bytes_set && b > s->o->max_bytes))
		return 0;
	if (s->k) {
		rb = s->rows[0].bytes;
		rc = s->rows[0].calls;
		if (k->key == K_BYTES)
			after = k->desc ? b < rb : b > rb;
		else if (k->key == K_CALLS)
			after = k->desc ? c < rc : c > rc;
		else
			return 0;
		if (!after)
			return 0;
	}
	s->matched++;
	s->sites++;
	s->total_bytes = sat_add(s->total_bytes, b);
	s->total_calls = sat_addu(s->total_calls, c);
	return 1;
}

/* Sort what was kept; returns the number of rows (groups) to show. */
size_t sel_finish(struct sel *s)
{
	if (s->g) {
		s->matched = s->n;
		for (size_t i = 0; i < s->n; i++)
			check_max(s, &s->rows[i]);
		rows_sort(s->rows, s->n, s->o, row_cmp);
		while (s->n > s->k)
			row_release(&s->rows[--s->n]);
		return s->n;
	}
	rows_sort(s->rows, s->n, s->o, row_cmp);
	return s->n;
}

void sel_free(struct sel *s)
{
	for (size_t i = 0; i < s->n; i++)
		row_release(&s->rows[i]);
	free(s->rows);
	row_release(&s->worst);
	if (s->g) {
		strmap_free(&s->g->map);
		free(s->g->kbuf);
		free(s->g);
	}
	memset(s, 0, sizeof(*s));
}
