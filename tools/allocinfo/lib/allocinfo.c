// SPDX-License-Identifier: GPL-2.0
/*
 * liballocinfo - parse /proc/allocinfo into a list updated in place
 *
 * Design.  A read loads the whole source into one buffer owned by the list
 * (the kernel file is generated on every read(), so a single pass is the
 * only consistent view), checks the header before touching any entry, then
 * walks the rows once.  Each row is identified by file, line, function and
 * module plus an occurrence number, because the kernel may print the same
 * location on several rows (e.g. one tag per inlined copy); the n-th row
 * with a given key in a read matches the entry with occurrence n.  Entries
 * live in a chained hash table keyed on that identity, so a later read finds
 * the same entry in O(1) and updates its counters in place: the entry's
 * address and the caller's pointer and u64 survive.  Entries that a read did
 * not see are flagged vanished and stay until allocinfo_list_prune() or
 * allocinfo_list_free().
 *
 * A row that does not parse is never stored as zeros: the read counts it and
 * remembers its line number and the reason, and the caller decides whether
 * that is fatal.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "allocinfo.h"

/* key:value pairs of a 2.x row, allocated only for rows that have them */
struct kvdata {
	char *buf;		/* raw text (change detection), then split copy */
	size_t raw_len, cap, n, ptr_cap;
	const char **kv;	/* 2 * n pointers into buf */
};

/*
 * One call site.  Allocated with its strings in one block; the fields a
 * read touches come first so that an update costs one or two cache lines.
 * Kept small (96 bytes before the strings), since a kernel has tens of
 * thousands of sites: the list is singly linked (prune is a full walk
 * anyway), the generation is the low 32 bits of the list's and the line
 * number saturates at UINT32_MAX.
 */
struct allocinfo_entry {
	uint64_t hash;
	struct allocinfo_entry *hnext;		/* hash chain */
	int64_t bytes;
	uint64_t calls;
	uint32_t gen;				/* generation last seen in */
	uint32_t lineno;			/* line number in that read */
	uint32_t line, occ, flen, fnlen, mlen;
	uint8_t has_module, vanished;
	struct kvdata *kv;
	struct allocinfo_entry *next;		/* list order: first seen */
	void *uptr;				/* caller-owned */
	uint64_t u64;				/* caller-owned */
	char strs[];				/* file \0 func \0 [module \0] */
};

_Static_assert(sizeof(struct allocinfo_entry) <= 96 || sizeof(void *) > 8,
	       "allocinfo_entry grew");

#define E_FILE(e) ((e)->strs)
#define E_FUNC(e) ((e)->strs + (e)->flen + 1)
#define E_MODSTR(e) ((e)->strs + (e)->flen + 1 + (e)->fnlen + 1)
#define E_MOD(e) ((e)->has_module ? E_MODSTR(e) : NULL)

struct hdr_kv {
	char *key, *value;
};

struct allocinfo_list {
	struct allocinfo_entry *head, *tail;
	struct allocinfo_entry **buckets;
	size_t nbuckets, count, present, gen;
	int error, sys_errno;
	int vmajor, vminor;
	size_t mal_count;
	size_t mal_line[ALLOCINFO_MALFORMED_MAX];
	const char *mal_reason[ALLOCINFO_MALFORMED_MAX];
	struct hdr_kv *hdr;
	size_t nhdr;
	char *rbuf;
	size_t rcap, rlen;
	size_t max_input;		/* 0: no limit */
	int raw_valid;
};

static const char *const errstr[ALLOCINFO_NERRORS] = {
	[ALLOCINFO_OK] = "success",
	[ALLOCINFO_ENOMEM] = "out of memory",
	[ALLOCINFO_EINVAL] = "invalid argument",
	[ALLOCINFO_EACCES] = "permission denied",
	[ALLOCINFO_ENOENT] = "no such file",
	[ALLOCINFO_EIO] = "system error while reading",
	[ALLOCINFO_ENOHEADER] = "not an allocinfo file: missing 'allocinfo - version: X.Y' header",
	[ALLOCINFO_EVERSION] = "unsupported allocinfo format version",
	[ALLOCINFO_ETOOBIG] = "input too large",
};

const char *allocinfo_strerror(int error)
{
	if (error < 0 || error >= ALLOCINFO_NERRORS || !errstr[error])
		return "unknown error";
	return errstr[error];
}

struct allocinfo_list *allocinfo_list_new(void)
{
	struct allocinfo_list *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->nbuckets = 256;
	l->max_input = ALLOCINFO_MAX_INPUT_DEFAULT;
	l->buckets = calloc(l->nbuckets, sizeof(*l->buckets));
	if (!l->buckets) {
		free(l);
		return NULL;
	}
	return l;
}

static void entry_free(struct allocinfo_entry *e)
{
	if (e->kv) {
		free(e->kv->buf);
		free(e->kv->kv);
		free(e->kv);
	}
	free(e);
}

static void hdr_clear(struct allocinfo_list *l)
{
	for (size_t i = 0; i < l->nhdr; i++) {
		free(l->hdr[i].key);
		free(l->hdr[i].value);
	}
	free(l->hdr);
	l->hdr = NULL;
	l->nhdr = 0;
}

void allocinfo_list_free(struct allocinfo_list *l)
{
	struct allocinfo_entry *e, *n;

	if (!l)
		return;
	for (e = l->head; e; e = n) {
		n = e->next;
		entry_free(e);
	}
	hdr_clear(l);
	free(l->buckets);
	free(l->rbuf);
	free(l);
}

static int set_error(struct allocinfo_list *l, int error, int sys)
{
	l->error = error;
	l->sys_errno = sys;
	return error;
}

int allocinfo_list_read_path(struct allocinfo_list *l, const char *path)
{
	int fd, ret, e;

	if (!l || !path)
		return l ? set_error(l, ALLOCINFO_EINVAL, 0) : ALLOCINFO_EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		if (e == EACCES || e == EPERM)
			return set_error(l, ALLOCINFO_EACCES, e);
		if (e == ENOENT)
			return set_error(l, ALLOCINFO_ENOENT, e);
		return set_error(l, ALLOCINFO_EIO, e);
	}
	ret = allocinfo_list_read_fd(l, fd);
	close(fd);
	return ret;
}

static int parse_buffer(struct allocinfo_list *l, const char *buf, size_t len);

int allocinfo_list_read_fd(struct allocinfo_list *l, int fd)
{
	size_t len = 0;
	ssize_t n;
	int ret;

	if (!l || fd < 0)
		return l ? set_error(l, ALLOCINFO_EINVAL, 0) : ALLOCINFO_EINVAL;
	l->raw_valid = 0;
	for (;;) {
		if (l->max_input && len > l->max_input)
			return set_error(l, ALLOCINFO_ETOOBIG, 0);
		if (l->rcap - len < 4096) {
			size_t ncap = l->rcap ? l->rcap * 2 : 65536;
			char *nb;

			/* one byte past the limit tells a file of exactly max */
			if (l->max_input && ncap > l->max_input + 4097)
				ncap = l->max_input + 4097;
			if (ncap <= l->rcap)
				ncap = l->rcap + 4096;
			nb = realloc(l->rbuf, ncap);
			if (!nb)
				return set_error(l, ALLOCINFO_ENOMEM, ENOMEM);
			l->rbuf = nb;
			l->rcap = ncap;
		}
		n = read(fd, l->rbuf + len, l->rcap - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EACCES || errno == EPERM)
				return set_error(l, ALLOCINFO_EACCES, errno);
			return set_error(l, ALLOCINFO_EIO, errno);
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	l->rlen = len;
	ret = parse_buffer(l, l->rbuf, len);
	l->raw_valid = ret == ALLOCINFO_OK;
	return ret;
}

int allocinfo_list_read_buffer(struct allocinfo_list *l, const char *buf,
			       size_t len)
{
	if (!l || (!buf && len))
		return l ? set_error(l, ALLOCINFO_EINVAL, 0) : ALLOCINFO_EINVAL;
	l->raw_valid = 0;
	if (l->max_input && len > l->max_input)
		return set_error(l, ALLOCINFO_ETOOBIG, 0);
	return parse_buffer(l, buf ? buf : "", len);
}

int allocinfo_list_set_max_input(struct allocinfo_list *l, size_t max)
{
	if (!l)
		return ALLOCINFO_EINVAL;
	l->max_input = max;
	return ALLOCINFO_OK;
}

/* ---- hashing ---------------------------------------------------------- */

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v;
	h *= 0x9e3779b97f4a7c15ULL;
	return h ^ (h >> 32);
}

/* eight bytes at a time; the tail is padded with its length */
static inline uint64_t hash_bytes(uint64_t h, const char *s, size_t n)
{
	uint64_t v;

	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&v, s, 8);
		h = mix(h, v);
	}
	v = 0;
	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)(unsigned char)s[i] << (8 * i);
	return mix(h, v ^ ((uint64_t)n << 59));
}

static uint64_t key_hash(const char *f, size_t fl, unsigned long line,
			 const char *fn, size_t fnl, const char *m, size_t ml)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	h = hash_bytes(h, f, fl);
	h = mix(h, line);
	h = hash_bytes(h, fn, fnl);
	h = hash_bytes(h ^ (m ? 0xff : 0), m ? m : "", ml);
	return h;
}

static int grow_table(struct allocinfo_list *l, size_t nb)
{
	struct allocinfo_entry **b = calloc(nb, sizeof(*b));

	if (!b)
		return -1;
	for (size_t i = 0; i < l->nbuckets; i++) {
		struct allocinfo_entry *e = l->buckets[i], *n;

		for (; e; e = n) {
			n = e->hnext;
			e->hnext = b[e->hash & (nb - 1)];
			b[e->hash & (nb - 1)] = e;
		}
	}
	free(l->buckets);
	l->buckets = b;
	l->nbuckets = nb;
	return 0;
}

/* A parsed row: slices into the input buffer. */
struct row {
	int64_t bytes;
	uint64_t calls;
	const char *file, *func, *module, *kv;
	size_t flen, fnlen, mlen, kvlen;
	unsigned long line;
};

static int key_equal(const struct allocinfo_entry *e, const struct row *r)
{
	return e->line == r->line && e->flen == r->flen && e->fnlen == r->fnlen &&
	       e->mlen == r->mlen && e->has_module == (r->module != NULL) &&
	       !memcmp(E_FILE(e), r->file, r->flen) &&
	       !memcmp(E_FUNC(e), r->func, r->fnlen) &&
	       (!r->mlen || !memcmp(E_MODSTR(e), r->module, r->mlen));
}

static struct allocinfo_entry *lookup(const struct allocinfo_list *l,
				      uint64_t h, const struct row *r,
				      unsigned occ)
{
	struct allocinfo_entry *e = l->buckets[h & (l->nbuckets - 1)];

	for (; e; e = e->hnext)
		if (e->hash == h && e->occ == occ && key_equal(e, r))
			return e;
	return NULL;
}

static struct allocinfo_entry *entry_new(struct allocinfo_list *l, uint64_t h,
					 const struct row *r, unsigned occ)
{
	size_t sz = r->flen + 1 + r->fnlen + 1 + (r->module ? r->mlen + 1 : 0);
	struct allocinfo_entry *e;
	char *p;

	if (r->flen > UINT32_MAX - 1 || r->fnlen > UINT32_MAX - 1 || r->mlen > UINT32_MAX - 1)
		return NULL;
	/* up to two entries a bucket: chains stay short, the table half the size */
	if (l->count >= 2 * l->nbuckets && grow_table(l, l->nbuckets * 2))
		return NULL;
	e = malloc(sizeof(*e) + sz);
	if (!e)
		return NULL;
	memset(e, 0, sizeof(*e));
	p = e->strs;
	memcpy(p, r->file, r->flen);
	p[r->flen] = '\0';
	p += r->flen + 1;
	memcpy(p, r->func, r->fnlen);
	p[r->fnlen] = '\0';
	p += r->fnlen + 1;
	if (r->module) {
		memcpy(p, r->module, r->mlen);
		p[r->mlen] = '\0';
		e->has_module = 1;
	}
	e->flen = (uint32_t)r->flen;
	e->fnlen = (uint32_t)r->fnlen;
	e->mlen = (uint32_t)r->mlen;
	e->line = (uint32_t)r->line;
	e->hash = h;
	e->occ = occ;
	e->hnext = l->buckets[h & (l->nbuckets - 1)];
	l->buckets[h & (l->nbuckets - 1)] = e;
	if (l->tail)
		l->tail->next = e;
	else
		l->head = e;
	l->tail = e;
	l->count++;
	return e;
}

static int isws(char c)
{
	return c == ' ' || c == '\t';
}

/* Store the " key:value" tail of a row if it changed since the last read. */
static int entry_set_kv(struct allocinfo_entry *e, const char *kv, size_t len)
{
	struct kvdata *d = e->kv;
	size_t n = 0;
	char *s, *end;

	if (!d) {
		if (!len)
			return 0;
		d = e->kv = calloc(1, sizeof(*d));
		if (!d)
			return -1;
	}
	if (len == d->raw_len && (!len || !memcmp(d->buf, kv, len)))
		return 0;
	if (2 * (len + 1) > d->cap) {
		char *nb = realloc(d->buf, 2 * (len + 1));

		if (!nb)
			return -1;
		d->buf = nb;
		d->cap = 2 * (len + 1);
	}
	memcpy(d->buf, kv, len);
	d->raw_len = len;
	s = d->buf + len + 1;
	memcpy(s, kv, len);
	s[len] = '\0';
	end = s + len;
	/* count tokens first, to size the pointer array */
	for (char *p = s; p < end;) {
		while (p < end && isws(*p))
			p++;
		if (p >= end)
			break;
		n++;
		while (p < end && !isws(*p))
			p++;
	}
	if (2 * n > d->ptr_cap) {
		const char **nk = realloc(d->kv, 2 * n * sizeof(*nk));

		if (!nk)
			return -1;
		d->kv = nk;
		d->ptr_cap = 2 * n;
	}
	d->n = 0;
	for (char *p = s; p < end;) {
		char *t, *c;

		while (p < end && isws(*p))
			*p++ = '\0';
		if (p >= end)
			break;
		t = p;
		while (p < end && !isws(*p))
			p++;
		if (p < end)
			*p++ = '\0';
		c = strchr(t, ':');	/* the parser guarantees one */
		*c = '\0';
		d->kv[2 * d->n] = t;
		d->kv[2 * d->n + 1] = c + 1;
		d->n++;
	}
	return 0;
}

/* ---- row parsing ------------------------------------------------------ */

#define U64_TENTH (UINT64_MAX / 10)	/* 1844674407370955161, last digit 5 */

static const char *parse_row(const char *p, const char *end, struct row *r)
{
	int neg = 0;
	uint64_t v = 0;
	const char *t;

	memset(r, 0, sizeof(*r));
	while (p < end && isws(*p))
		p++;
	if (p < end && (*p == '-' || *p == '+'))
		neg = *p++ == '-';
	if (p >= end || *p < '0' || *p > '9')
		return "size is not a number";
	while (p < end && *p >= '0' && *p <= '9') {
		unsigned d = (unsigned)(*p++ - '0');

		if (v >= U64_TENTH && (v > U64_TENTH || d > 5))
			return "size out of range";
		v = v * 10 + d;
	}
	if (neg ? v > (uint64_t)INT64_MAX + 1 : v > (uint64_t)INT64_MAX)
		return "size out of range";
	r->bytes = neg ? (v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v)
		       : (int64_t)v;
	if (p >= end)
		return "missing calls";
	if (!isws(*p))
		return "size is not a number";
	while (p < end && isws(*p))
		p++;
	if (p >= end)
		return "missing calls";
	if (*p < '0' || *p > '9')
		return "calls is not a number";
	v = 0;
	while (p < end && *p >= '0' && *p <= '9') {
		unsigned d = (unsigned)(*p++ - '0');

		if (v >= U64_TENTH && (v > U64_TENTH || d > 5))
			return "calls out of range";
		v = v * 10 + d;
	}
	r->calls = v;
	if (p >= end || !isws(*p))
		return p >= end ? "missing file:line" : "calls is not a number";
	while (p < end && isws(*p))
		p++;
	/* file:line, split at the last colon */
	t = p;
	{
		const char *c = NULL;
		unsigned long ln = 0;

		for (; p < end && !isws(*p); p++)
			if (*p == ':')
				c = p + 1;
		if (!c || c <= t + 1 || c == p)
			return "bad file:line";
		for (const char *d = c; d < p; d++) {
			unsigned dg = (unsigned)(*d - '0');

			if (dg > 9)
				return "bad file:line";
			if (ln >= 429496729UL && (ln > 429496729UL || dg > 5))
				return "line number out of range";
			ln = ln * 10 + dg;
		}
		r->file = t;
		r->flen = (size_t)(c - 1 - t);
		r->line = ln;
	}
	while (p < end && isws(*p))
		p++;
	if (p < end && *p == '[') {
		t = p;
		while (p < end && !isws(*p))
			p++;
		if (p - t < 3 || p[-1] != ']')
			return "bad [module]";
		r->module = t + 1;
		r->mlen = (size_t)(p - t - 2);
		while (p < end && isws(*p))
			p++;
	}
	if (end - p < 5 || memcmp(p, "func:", 5))
		return "missing func:";
	p += 5;
	t = p;
	while (p < end && !isws(*p))
		p++;
	if (p == t)
		return "empty func: name";
	r->func = t;
	r->fnlen = (size_t)(p - t);
	while (p < end && isws(*p))
		p++;
	/*
	 * Pairs are read whatever the version: kernels have backported the
	 * 2.0 marker (accurate:no) without bumping the version line.
	 */
	r->kv = p;
	r->kvlen = (size_t)(end - p);
	while (p < end) {
		t = p;
		while (p < end && !isws(*p) && *p != ':')
			p++;
		if (p == t || p >= end || *p != ':')
			return "bad key:value pair";
		while (p < end && !isws(*p))
			p++;
		while (p < end && isws(*p))
			p++;
	}
	return NULL;
}

static void malformed(struct allocinfo_list *l, size_t lineno, const char *why)
{
	if (l->mal_count < ALLOCINFO_MALFORMED_MAX) {
		l->mal_line[l->mal_count] = lineno;
		l->mal_reason[l->mal_count] = why;
	}
	l->mal_count++;
}

/* Next line [*s, *e) after trimming CR and trailing blanks; returns 0 at end. */
static int next_line(const char **pos, const char *bend, const char **s,
		     const char **e)
{
	const char *p = *pos, *nl;

	if (p >= bend)
		return 0;
	nl = memchr(p, '\n', (size_t)(bend - p));
	if (!nl)
		nl = bend;
	*s = p;
	*pos = nl < bend ? nl + 1 : bend;
	while (nl > p && (nl[-1] == '\r' || isws(nl[-1])))
		nl--;
	*e = nl;
	return 1;
}

static const char *skip_ws(const char *p, const char *e)
{
	while (p < e && isws(*p))
		p++;
	return p;
}

static char *dupn(const char *s, size_t n)
{
	char *d = malloc(n + 1);

	if (d) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

static int parse_header(struct allocinfo_list *l, const char *buf, size_t len,
			const char **rows, size_t *rows_lineno)
{
	static const char tag[] = "allocinfo - version:";
	const char *pos = buf, *bend = buf + len, *s, *e;
	size_t lineno = 0;
	struct hdr_kv *hdr = NULL;
	size_t nhdr = 0;
	unsigned long maj = 0, min = 0;
	int found = 0;

	/* a UTF-8 byte order mark, as some editors add when saving a copy */
	if (len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3))
		pos += 3;

	while (next_line(&pos, bend, &s, &e)) {
		lineno++;
		if (memchr(s, '\0', (size_t)(e - s)))
			break;
		s = skip_ws(s, e);
		if (s == e)
			continue;
		if (*s == '#') {
			/* "# key: value" lines before the version (snapshots) */
			const char *k = skip_ws(s + 1, e), *c = k;
			struct hdr_kv *nh;

			while (c < e && *c != ':' && !isws(*c))
				c++;
			if (c == k || c >= e || *c != ':')
				continue;
			nh = realloc(hdr, (nhdr + 1) * sizeof(*hdr));
			if (!nh)
				goto nomem;
			hdr = nh;
			hdr[nhdr].key = dupn(k, (size_t)(c - k));
			c = skip_ws(c + 1, e);
			hdr[nhdr].value = dupn(c, (size_t)(e - c));
			nhdr++;
			if (!hdr[nhdr - 1].key || !hdr[nhdr - 1].value)
				goto nomem;
			continue;
		}
		if ((size_t)(e - s) < sizeof(tag) - 1 ||
		    memcmp(s, tag, sizeof(tag) - 1))
			break;
		s = skip_ws(s + sizeof(tag) - 1, e);
		if (s == e || *s < '0' || *s > '9')
			break;
		while (s < e && *s >= '0' && *s <= '9' && maj < 100000)
			maj = maj * 10 + (unsigned long)(*s++ - '0');
		if (s < e && *s == '.') {
			s++;
			if (s == e || *s < '0' || *s > '9')
				break;
			while (s < e && *s >= '0' && *s <= '9' && min < 100000)
				min = min * 10 + (unsigned long)(*s++ - '0');
		}
		/* further components (1.0.1) number revisions of the same format */
		while (s < e && *s == '.' && s + 1 < e && s[1] >= '0' && s[1] <= '9')
			for (s++; s < e && *s >= '0' && *s <= '9'; s++)
				;
		if (s != e)
			break;
		found = 1;
		break;
	}
	if (!found) {
		for (size_t i = 0; i < nhdr; i++) {
			free(hdr[i].key);
			free(hdr[i].value);
		}
		free(hdr);
		return set_error(l, ALLOCINFO_ENOHEADER, 0);
	}
	if (maj < 1 || maj > 2) {
		for (size_t i = 0; i < nhdr; i++) {
			free(hdr[i].key);
			free(hdr[i].value);
		}
		free(hdr);
		l->vmajor = (int)maj;	/* reported by the caller's message */
		l->vminor = (int)min;
		return set_error(l, ALLOCINFO_EVERSION, 0);
	}
	hdr_clear(l);
	l->hdr = hdr;
	l->nhdr = nhdr;
	l->vmajor = (int)maj;
	l->vminor = (int)min;
	*rows = pos;
	*rows_lineno = lineno;
	return 0;
nomem:
	for (size_t i = 0; i < nhdr; i++) {
		free(hdr[i].key);
		free(hdr[i].value);
	}
	free(hdr);
	return set_error(l, ALLOCINFO_ENOMEM, ENOMEM);
}

static int parse_buffer(struct allocinfo_list *l, const char *buf, size_t len)
{
	const char *pos, *bend = buf + len, *s, *e;
	size_t lineno;
	int in_header = 1, has_nul;
	struct allocinfo_entry *en, *cursor;
	struct row r;
	uint32_t gen;

	if (parse_header(l, buf, len, &pos, &lineno))
		return l->error;
	has_nul = memchr(pos, '\0', (size_t)(bend - pos)) != NULL;
	/* size the table for the rows to come (60 to 100 bytes a row) */
	if (!l->count && (size_t)(bend - pos) / 96 > l->nbuckets) {
		size_t nb = l->nbuckets;

		while (nb < (size_t)(bend - pos) / 96)
			nb *= 2;
		if (grow_table(l, nb))
			return set_error(l, ALLOCINFO_ENOMEM, ENOMEM);
	}
	l->gen++;
	gen = (uint32_t)l->gen;
	l->mal_count = 0;
	l->present = 0;
	cursor = l->head;
	while (next_line(&pos, bend, &s, &e)) {
		const char *why;
		uint64_t h;
		unsigned occ = 0;

		lineno++;
		if (has_nul && memchr(s, '\0', (size_t)(pos - s))) {
			malformed(l, lineno, "NUL byte in line");
			continue;
		}
		s = skip_ws(s, e);
		if (s == e)
			continue;
		if (*s == '#') {
			if (!in_header)
				malformed(l, lineno, "comment after the first row");
			continue;
		}
		in_header = 0;
		why = parse_row(s, e, &r);
		if (why) {
			malformed(l, lineno, why);
			continue;
		}
		/*
		 * The kernel prints sites in a stable order, so first try the
		 * entry after the last one matched.  An occurrence-0 entry not
		 * yet seen in this read is the right one for an equal key: an
		 * earlier row with that key would have claimed it.
		 */
		en = cursor;
		if (!en || en->occ || en->gen == gen || !key_equal(en, &r)) {
			h = key_hash(r.file, r.flen, r.line, r.func, r.fnlen,
				     r.module, r.mlen);
			while ((en = lookup(l, h, &r, occ)) && en->gen == gen)
				occ++;
			if (!en && !(en = entry_new(l, h, &r, occ)))
				return set_error(l, ALLOCINFO_ENOMEM, ENOMEM);
		}
		cursor = en->next;
		if (entry_set_kv(en, r.kv, r.kvlen))
			return set_error(l, ALLOCINFO_ENOMEM, ENOMEM);
		en->bytes = r.bytes;
		en->calls = r.calls;
		en->gen = gen;
		en->lineno = lineno < UINT32_MAX ? (uint32_t)lineno : UINT32_MAX;
		en->vanished = 0;
		l->present++;
	}
	/* rows matched clear their flag; only a shortfall needs a walk */
	if (l->present < l->count)
		for (en = l->head; en; en = en->next)
			en->vanished = en->gen != gen;
	return set_error(l, ALLOCINFO_OK, 0);
}

size_t allocinfo_list_prune(struct allocinfo_list *l)
{
	struct allocinfo_entry *e, *n, **pp, **link, *last = NULL;
	size_t pruned = 0;

	if (!l)
		return 0;
	for (link = &l->head, e = l->head; e; e = n) {
		n = e->next;
		if (!e->vanished) {
			last = e;
			link = &e->next;
			continue;
		}
		for (pp = &l->buckets[e->hash & (l->nbuckets - 1)]; *pp != e;
		     pp = &(*pp)->hnext)
			;
		*pp = e->hnext;
		*link = n;
		entry_free(e);
		l->count--;
		pruned++;
	}
	l->tail = last;
	return pruned;
}

int allocinfo_list_geterror(const struct allocinfo_list *l)
{
	return l ? l->error : ALLOCINFO_EINVAL;
}

int allocinfo_list_errno(const struct allocinfo_list *l)
{
	return l ? l->sys_errno : 0;
}

int allocinfo_list_version_major(const struct allocinfo_list *l)
{
	return l ? l->vmajor : 0;
}

int allocinfo_list_version_minor(const struct allocinfo_list *l)
{
	return l ? l->vminor : 0;
}

size_t allocinfo_list_count(const struct allocinfo_list *l)
{
	return l ? l->count : 0;
}

size_t allocinfo_list_present(const struct allocinfo_list *l)
{
	return l ? l->present : 0;
}

size_t allocinfo_list_generation(const struct allocinfo_list *l)
{
	return l ? l->gen : 0;
}

size_t allocinfo_list_malformed_count(const struct allocinfo_list *l)
{
	return l ? l->mal_count : 0;
}

size_t allocinfo_list_malformed_line(const struct allocinfo_list *l, size_t i)
{
	if (!l || i >= l->mal_count || i >= ALLOCINFO_MALFORMED_MAX)
		return 0;
	return l->mal_line[i];
}

const char *allocinfo_list_malformed_reason(const struct allocinfo_list *l,
					    size_t i)
{
	if (!l || i >= l->mal_count || i >= ALLOCINFO_MALFORMED_MAX)
		return NULL;
	return l->mal_reason[i];
}

const char *allocinfo_list_raw(const struct allocinfo_list *l, size_t *len)
{
	if (!l || !l->raw_valid)
		return NULL;
	if (len)
		*len = l->rlen;
	return l->rbuf;
}

const char *allocinfo_list_header(const struct allocinfo_list *l,
				  const char *key)
{
	if (!l || !key)
		return NULL;
	for (size_t i = 0; i < l->nhdr; i++)
		if (!strcmp(l->hdr[i].key, key))
			return l->hdr[i].value;
	return NULL;
}

struct allocinfo_entry *allocinfo_list_first(const struct allocinfo_list *l)
{
	return l ? l->head : NULL;
}

struct allocinfo_entry *allocinfo_entry_next(const struct allocinfo_entry *e)
{
	return e ? e->next : NULL;
}

struct allocinfo_entry *allocinfo_list_find(const struct allocinfo_list *l,
					    const char *file, unsigned long line,
					    const char *func, const char *module)
{
	struct allocinfo_entry *e;

	if (!l || !file)
		return NULL;
	if (func) {
		struct row r = {
			.file = file, .flen = strlen(file), .line = line,
			.func = func, .fnlen = strlen(func),
			.module = module, .mlen = module ? strlen(module) : 0,
		};
		uint64_t h = key_hash(r.file, r.flen, line, func, r.fnlen,
				      module, r.mlen);

		return lookup(l, h, &r, 0);
	}
	for (e = l->head; e; e = e->next)
		if (e->line == line && !strcmp(E_FILE(e), file) &&
		    (!module || (e->has_module && !strcmp(E_MODSTR(e), module))))
			return e;
	return NULL;
}

struct allocinfo_entry *allocinfo_list_find_func(const struct allocinfo_list *l,
						 const char *func,
						 const struct allocinfo_entry *after)
{
	struct allocinfo_entry *e;

	if (!l || !func)
		return NULL;
	for (e = after ? after->next : l->head; e; e = e->next)
		if (!strcmp(E_FUNC(e), func))
			return e;
	return NULL;
}

struct allocinfo_entry *allocinfo_list_find_module(const struct allocinfo_list *l,
						   const char *module,
						   const struct allocinfo_entry *after)
{
	struct allocinfo_entry *e;

	if (!l)
		return NULL;
	for (e = after ? after->next : l->head; e; e = e->next)
		if (module ? e->has_module && !strcmp(E_MODSTR(e), module) : !e->has_module)
			return e;
	return NULL;
}

int64_t allocinfo_entry_bytes(const struct allocinfo_entry *e) { return e ? e->bytes : 0; }
uint64_t allocinfo_entry_calls(const struct allocinfo_entry *e) { return e ? e->calls : 0; }
const char *allocinfo_entry_file(const struct allocinfo_entry *e) { return e ? E_FILE(e) : NULL; }
unsigned long allocinfo_entry_line(const struct allocinfo_entry *e) { return e ? e->line : 0; }
const char *allocinfo_entry_func(const struct allocinfo_entry *e) { return e ? E_FUNC(e) : NULL; }
const char *allocinfo_entry_module(const struct allocinfo_entry *e) { return e ? E_MOD(e) : NULL; }
unsigned allocinfo_entry_occurrence(const struct allocinfo_entry *e) { return e ? e->occ : 0; }
size_t allocinfo_entry_lineno(const struct allocinfo_entry *e) { return e ? e->lineno : 0; }
int allocinfo_entry_vanished(const struct allocinfo_entry *e) { return e ? e->vanished : 0; }
size_t allocinfo_entry_kv_count(const struct allocinfo_entry *e) { return e && e->kv ? e->kv->n : 0; }

int allocinfo_entry_kv_get(const struct allocinfo_entry *e, size_t i,
			   const char **key, const char **value)
{
	if (!e || !e->kv || i >= e->kv->n)
		return ALLOCINFO_EINVAL;
	if (key)
		*key = e->kv->kv[2 * i];
	if (value)
		*value = e->kv->kv[2 * i + 1];
	return ALLOCINFO_OK;
}

const char *allocinfo_entry_kv_find(const struct allocinfo_entry *e,
				    const char *key)
{
	if (!e || !key || !e->kv)
		return NULL;
	for (size_t i = 0; i < e->kv->n; i++)
		if (!strcmp(e->kv->kv[2 * i], key))
			return e->kv->kv[2 * i + 1];
	return NULL;
}

void *allocinfo_entry_get_ptr(const struct allocinfo_entry *e) { return e ? e->uptr : NULL; }
void allocinfo_entry_set_ptr(struct allocinfo_entry *e, void *v) { if (e) e->uptr = v; }
uint64_t allocinfo_entry_get_u64(const struct allocinfo_entry *e) { return e ? e->u64 : 0; }
void allocinfo_entry_set_u64(struct allocinfo_entry *e, uint64_t v) { if (e) e->u64 = v; }
