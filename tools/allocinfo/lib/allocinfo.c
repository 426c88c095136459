// SPDX-License-Identifier: GPL-2.0
/*
 * liballocinfo - parse /proc/allocinfo into a list updated in place
 *
 * Design.  A list read loads the whole source into one buffer owned by
 * the list (the kernel file is generated on every read(), so a single pass
 * is the only consistent view), checks the header before touching any
 * entry, then takes the rows one at a time from the text backend (text.c),
 * skips those the list's query rejects (query.c), and stores the others.
 * Each row is identified by file, line, function and module plus an
 * occurrence number, because the kernel may print the same location on
 * several rows (e.g. one tag per inlined copy); the n-th row with a given
 * key in a read matches the entry with occurrence n.  Occurrence-0
 * entries live in a chained hash table keyed on that identity, so a later
 * read finds the same entry in O(1) and updates its counters in place: the
 * entry's address and the caller's pointer and u64 survive.  The later
 * occurrences of a key are kept out of the table, in an array of their
 * own (struct dupset) found from the first, with how many of them this
 * read has claimed: the n-th row of a key costs O(1), not n lookups along
 * a chain of n entries.  Entries that a read did not see are flagged
 * vanished and stay until allocinfo_list_prune() or allocinfo_list_free().
 *
 * A read or scan of the live file with a query the kernel can filter is
 * answered by its query ioctls instead of the text (kernel.c); the rows go
 * through the same query test and the same update of entries.
 *
 * A scan reads a source a chunk at a time and hands out each row that
 * passes the query as one scratch entry, overwritten by the next: memory
 * stays at one chunk whatever the size of the source, and nothing is
 * allocated per row.  A caller that keeps a row copies it
 * (allocinfo_entry_dup()).
 *
 * A row that does not parse is never stored as zeros: the read counts it
 * and remembers its line number and the reason, and the caller decides
 * whether that is fatal.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

/*
 * key:value pairs of a row, allocated only for rows that have them, in one
 * block: the pointer array, the raw text (to see whether a later read
 * changed it), then a copy split into NUL-terminated keys and values.
 */
struct kvdata {
	size_t raw_len, n, size;	/* size: bytes in data[] */
	const char **kv;		/* 2 * n pointers into split */
	char *raw, *split;
	_Alignas(void *) char data[];
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
	uint8_t detached;			/* from allocinfo_entry_dup() */
	uint8_t ext;				/* strs holds pointers (a scan's) */
	struct kvdata *kv;
	struct allocinfo_entry *next;		/* list order: first seen */
	void *uptr;				/* caller-owned */
	uint64_t u64;				/* caller-owned */
	char strs[];				/* file \0 func \0 [module \0] */
};

_Static_assert(sizeof(struct allocinfo_entry) <= 96 || sizeof(void *) > 8,
	       "allocinfo_entry grew");

/*
 * The occurrences of a key that has more than one: e[i] has occurrence i
 * (e[0] is the one in the hash table).  A read claims them in order, so
 * those it has claimed are e[0] to e[claimed - 1] if gen is the read's.
 * Found through a small hash table of their own on e[0]'s hash.
 */
struct dupset {
	struct dupset *hnext;
	struct allocinfo_entry **e;
	size_t n, cap, claimed, gen;
};

#define E_FILE(e) ((e)->strs)
#define E_FUNC(e) ((e)->strs + (e)->flen + 1)
#define E_MODSTR(e) ((e)->strs + (e)->flen + 1 + (e)->fnlen + 1)
#define E_MOD(e) ((e)->has_module ? E_MODSTR(e) : NULL)
/* a scan's entry may point into the text it was parsed from instead */
#define E_EXT(e, i) (((const char *const *)(const void *)(e)->strs)[i])

struct allocinfo_list {
	struct allocinfo_entry *head, *tail;
	struct allocinfo_entry **buckets;
	size_t nbuckets, count, present, gen;
	struct dupset **dbuckets;	/* keys on several rows; NULL until one is */
	size_t ndbuckets, ndups;
	int error, sys_errno;
	int vmajor, vminor;
	size_t mal_count;
	size_t mal_line[ALLOCINFO_MALFORMED_MAX];
	const char *mal_reason[ALLOCINFO_MALFORMED_MAX];
	char **hdr;			/* key, value, key, value, ... */
	size_t nhdr;
	char *rbuf;
	size_t rcap, rlen;
	int raw_valid;
	size_t max_input;		/* 0: no limit */
	size_t mem, max_mem;		/* what the entries take, its limit (0: none) */
	const struct allocinfo_query *query;
	int backend;			/* enum allocinfo_backend: asked */
	int used;			/* and used by the last read or scan */
	struct ai_kernel kern;		/* rows of the last ioctl read or scan */
	char *names;			/* the row's names, NUL-terminated, for the query */
	size_t names_cap;
	/* the scan in progress */
	struct ai_text scan;
	int scanning, scan_fd;		/* scan_fd: opened by scan_path, or -1 */
	struct allocinfo_entry *se;	/* the scratch entry a scan returns */
	size_t se_cap;			/* bytes for its strings */
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
	[ALLOCINFO_ENOIOCTL] = "the source does not answer allocinfo queries (ioctl)",
	[ALLOCINFO_ECORE] = "the core dump could not be read",
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
	l->scan_fd = -1;
	l->buckets = calloc(l->nbuckets, sizeof(*l->buckets));
	if (!l->buckets) {
		free(l);
		return NULL;
	}
	return l;
}

static void entry_free(struct allocinfo_entry *e)
{
	free(e->kv);
	free(e);
}

static void dups_free(struct allocinfo_list *l)
{
	for (size_t i = 0; i < l->ndbuckets; i++) {
		struct dupset *d, *n;

		for (d = l->dbuckets[i]; d; d = n) {
			n = d->hnext;
			free(d->e);
			free(d);
		}
	}
	free(l->dbuckets);
	l->dbuckets = NULL;
	l->ndbuckets = l->ndups = 0;
}

static void hdr_clear(struct allocinfo_list *l)
{
	for (size_t i = 0; i < 2 * l->nhdr; i++)
		free(l->hdr[i]);
	free(l->hdr);
	l->hdr = NULL;
	l->nhdr = 0;
}

static void scan_end(struct allocinfo_list *l)
{
	ai_text_release(&l->scan);
	ai_kernel_release(&l->kern);
	if (l->scan_fd >= 0)
		close(l->scan_fd);
	l->scan_fd = -1;
	l->scanning = 0;
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
	scan_end(l);
	if (l->se)
		entry_free(l->se);
	hdr_clear(l);
	dups_free(l);
	free(l->buckets);
	free(l->rbuf);
	free(l->names);
	free(l);
}

int ai_set_error(struct allocinfo_list *l, int error, int sys)
{
	l->error = error;
	l->sys_errno = sys;
	return error;
}

void ai_malformed(struct allocinfo_list *l, size_t lineno, const char *why)
{
	if (l->mal_count < ALLOCINFO_MALFORMED_MAX) {
		l->mal_line[l->mal_count] = lineno;
		l->mal_reason[l->mal_count] = why;
	}
	l->mal_count++;
}

void ai_set_version(struct allocinfo_list *l, int vmajor, int vminor)
{
	l->vmajor = vmajor;
	l->vminor = vminor;
}

void ai_set_header(struct allocinfo_list *l, char **kv, size_t n)
{
	hdr_clear(l);
	l->hdr = kv;
	l->nhdr = n;
}

static int open_source(struct allocinfo_list *l, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), e;

	if (fd >= 0)
		return fd;
	e = errno;
	if (e == EACCES || e == EPERM)
		ai_set_error(l, ALLOCINFO_EACCES, e);
	else if (e == ENOENT)
		ai_set_error(l, ALLOCINFO_ENOENT, e);
	else
		ai_set_error(l, ALLOCINFO_EIO, e);
	return -1;
}

int allocinfo_list_read_path(struct allocinfo_list *l, const char *path)
{
	int fd, ret;

	if (!l || !path)
		return l ? ai_set_error(l, ALLOCINFO_EINVAL, 0) : ALLOCINFO_EINVAL;
	fd = open_source(l, path);
	if (fd < 0)
		return l->error;
	ret = allocinfo_list_read_fd(l, fd);
	close(fd);
	return ret;
}

static int parse_buffer(struct allocinfo_list *l, const char *buf, size_t len);
static int size_table(struct allocinfo_list *l, size_t rows);
static int store_rows(struct allocinfo_list *l, struct ai_text *t);

/*
 * Collect the rows of fd by ioctl if the list's backend and query call for
 * it: ALLOCINFO_OK with l->used set, AI_KERNEL_NO, or an error (set).  A
 * kernel that answers the ioctls prints the 2.0 text (its rows may end in
 * key:value pairs); the text's header lines are not read.
 */
static int try_kernel(struct allocinfo_list *l, int fd)
{
	int ret, sys;

	l->used = ALLOCINFO_BACKEND_TEXT;
	if (l->backend == ALLOCINFO_BACKEND_TEXT)
		return AI_KERNEL_NO;
	ret = ai_kernel_collect(&l->kern, fd, l->query,
				l->backend == ALLOCINFO_BACKEND_IOCTL, &sys);
	if (ret == ALLOCINFO_OK) {
		l->used = ALLOCINFO_BACKEND_IOCTL;
		ai_set_version(l, 2, 0);
		ai_set_header(l, NULL, 0);
		return ret;
	}
	ai_kernel_release(&l->kern);
	if (ret != AI_KERNEL_NO)
		ai_set_error(l, ret, sys);
	return ret;
}

int allocinfo_list_read_fd(struct allocinfo_list *l, int fd)
{
	int ret, sys;

	if (!l || fd < 0)
		return l ? ai_set_error(l, ALLOCINFO_EINVAL, 0) : ALLOCINFO_EINVAL;
	scan_end(l);
	l->raw_valid = 0;
	ret = try_kernel(l, fd);
	if (ret == ALLOCINFO_OK) {
		ret = size_table(l, l->kern.n) ?
		      ai_set_error(l, ALLOCINFO_ENOMEM, ENOMEM) : store_rows(l, NULL);
		ai_kernel_release(&l->kern);
		return ret;
	}
	if (ret != AI_KERNEL_NO)
		return ret;
	ret = ai_read_all(fd, &l->rbuf, &l->rcap, &l->rlen, l->max_input, &sys);
	if (ret)
		return ai_set_error(l, ret, sys);
	ret = parse_buffer(l, l->rbuf, l->rlen);
	l->raw_valid = ret == ALLOCINFO_OK;
	return ret;
}

int allocinfo_list_read_buffer(struct allocinfo_list *l, const char *buf,
			       size_t len)
{
	if (!l || (!buf && len))
		return l ? ai_set_error(l, ALLOCINFO_EINVAL, 0) : ALLOCINFO_EINVAL;
	scan_end(l);
	l->raw_valid = 0;
	l->used = ALLOCINFO_BACKEND_TEXT;
	if (l->max_input && len > l->max_input)
		return ai_set_error(l, ALLOCINFO_ETOOBIG, 0);
	return parse_buffer(l, buf, len);
}

int allocinfo_list_set_max_input(struct allocinfo_list *l, size_t max)
{
	if (!l)
		return ALLOCINFO_EINVAL;
	l->max_input = max;
	return ALLOCINFO_OK;
}

int allocinfo_list_set_max_memory(struct allocinfo_list *l, size_t max)
{
	if (!l)
		return ALLOCINFO_EINVAL;
	l->max_mem = max;
	return ALLOCINFO_OK;
}

int allocinfo_list_set_backend(struct allocinfo_list *l, int backend)
{
	if (!l || backend < ALLOCINFO_BACKEND_AUTO || backend > ALLOCINFO_BACKEND_IOCTL)
		return ALLOCINFO_EINVAL;
	l->backend = backend;
	return ALLOCINFO_OK;
}

int allocinfo_list_backend(const struct allocinfo_list *l)
{
	return l ? l->used : ALLOCINFO_BACKEND_AUTO;
}

int allocinfo_list_set_query(struct allocinfo_list *l,
			     const struct allocinfo_query *q)
{
	if (!l)
		return ALLOCINFO_EINVAL;
	l->query = q;
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

static int key_equal(const struct allocinfo_entry *e, const struct ai_row *r)
{
	return e->line == r->line && e->flen == r->flen && e->fnlen == r->fnlen &&
	       e->mlen == r->mlen && e->has_module == (r->module != NULL) &&
	       !memcmp(E_FILE(e), r->file, r->flen) &&
	       !memcmp(E_FUNC(e), r->func, r->fnlen) &&
	       (!r->mlen || !memcmp(E_MODSTR(e), r->module, r->mlen));
}

/* The occurrence-0 entry of a key: the only ones in the table. */
static struct allocinfo_entry *lookup(const struct allocinfo_list *l,
				      uint64_t h, const struct ai_row *r)
{
	struct allocinfo_entry *e = l->buckets[h & (l->nbuckets - 1)];

	for (; e; e = e->hnext)
		if (e->hash == h && key_equal(e, r))
			return e;
	return NULL;
}

static size_t names_size(const struct ai_row *r)
{
	return r->flen + 1 + r->fnlen + 1 + (r->module ? r->mlen + 1 : 0);
}

static void names_copy(struct allocinfo_entry *e, const struct ai_row *r)
{
	char *p = e->strs;

	memcpy(p, r->file, r->flen);
	p[r->flen] = '\0';
	p += r->flen + 1;
	memcpy(p, r->func, r->fnlen);
	p[r->fnlen] = '\0';
	p += r->fnlen + 1;
	if (r->module) {
		memcpy(p, r->module, r->mlen);
		p[r->mlen] = '\0';
	}
	e->has_module = r->module != NULL;
	e->flen = (uint32_t)r->flen;
	e->fnlen = (uint32_t)r->fnlen;
	e->mlen = (uint32_t)r->mlen;
	e->line = (uint32_t)r->line;
}

static int too_long(const struct ai_row *r)
{
	return r->flen > UINT32_MAX - 1 || r->fnlen > UINT32_MAX - 1 ||
	       r->mlen > UINT32_MAX - 1;
}

/*
 * Count @n more bytes of entries against the list's memory limit; 1 if
 * that would go past it (the read then fails with ALLOCINFO_ETOOBIG).
 */
static int mem_over(struct allocinfo_list *l, size_t n)
{
	if (!l)
		return 0;
	if (l->max_mem && (n > l->max_mem || l->mem > l->max_mem - n))
		return 1;
	l->mem += n;
	return 0;
}

static struct allocinfo_entry *entry_new(struct allocinfo_list *l, uint64_t h,
					 const struct ai_row *r, unsigned occ)
{
	struct allocinfo_entry *e;

	if (mem_over(l, sizeof(*e) + names_size(r))) {
		ai_set_error(l, ALLOCINFO_ETOOBIG, ENOMEM);
		return NULL;
	}
	/* up to two entries a bucket: chains stay short, the table half the size */
	if (too_long(r) || (l->count >= 2 * l->nbuckets && grow_table(l, l->nbuckets * 2)) ||
	    !(e = malloc(sizeof(*e) + names_size(r)))) {
		ai_set_error(l, ALLOCINFO_ENOMEM, ENOMEM);
		return NULL;
	}
	memset(e, 0, sizeof(*e));
	names_copy(e, r);
	e->hash = h;
	e->occ = occ;
	if (!occ) {	/* later occurrences are in their dupset only */
		e->hnext = l->buckets[h & (l->nbuckets - 1)];
		l->buckets[h & (l->nbuckets - 1)] = e;
	}
	if (l->tail)
		l->tail->next = e;
	else
		l->head = e;
	l->tail = e;
	l->count++;
	return e;
}

/*
 * The dupset of the occurrence-0 entry @first, added if @add and missing;
 * NULL if not found, or on error (set).
 */
static struct dupset *dups_find(struct allocinfo_list *l,
				struct allocinfo_entry *first, int add)
{
	struct dupset *d, **b;

	if (l->ndbuckets)
		for (d = l->dbuckets[first->hash & (l->ndbuckets - 1)]; d; d = d->hnext)
			if (d->e[0] == first)
				return d;
	if (!add)
		return NULL;
	if (mem_over(l, sizeof(*d) + 4 * sizeof(*d->e))) {
		ai_set_error(l, ALLOCINFO_ETOOBIG, ENOMEM);
		return NULL;
	}
	if (l->ndups >= 2 * l->ndbuckets) {
		size_t nb = l->ndbuckets ? 2 * l->ndbuckets : 16;

		if (!(b = calloc(nb, sizeof(*b)))) {
			ai_set_error(l, ALLOCINFO_ENOMEM, ENOMEM);
			return NULL;
		}
		for (size_t i = 0; i < l->ndbuckets; i++) {
			struct dupset *n;

			for (d = l->dbuckets[i]; d; d = n) {
				n = d->hnext;
				d->hnext = b[d->e[0]->hash & (nb - 1)];
				b[d->e[0]->hash & (nb - 1)] = d;
			}
		}
		free(l->dbuckets);
		l->dbuckets = b;
		l->ndbuckets = nb;
	}
	if (!(d = calloc(1, sizeof(*d))) || !(d->e = malloc(4 * sizeof(*d->e)))) {
		free(d);
		ai_set_error(l, ALLOCINFO_ENOMEM, ENOMEM);
		return NULL;
	}
	d->cap = 4;
	d->n = 1;
	d->e[0] = first;
	b = &l->dbuckets[first->hash & (l->ndbuckets - 1)];
	d->hnext = *b;
	*b = d;
	l->ndups++;
	return d;
}

/*
 * The entry for another row of the key of @first, which this read has
 * claimed already: the first occurrence it has not, or a new one at the
 * end.  NULL on error (set).
 */
static struct allocinfo_entry *next_occurrence(struct allocinfo_list *l,
					       struct allocinfo_entry *first,
					       const struct ai_row *r)
{
	struct dupset *d = dups_find(l, first, 1);
	struct allocinfo_entry *e;

	if (!d)
		return NULL;
	if (d->gen != l->gen) {
		d->gen = l->gen;
		d->claimed = 1;
	}
	if (d->claimed < d->n)
		return d->e[d->claimed++];
	if (d->n > UINT32_MAX) {
		ai_set_error(l, ALLOCINFO_ENOMEM, ENOMEM);
		return NULL;
	}
	if (d->n == d->cap) {
		struct allocinfo_entry **ne;

		if (mem_over(l, d->cap * sizeof(*ne))) {
			ai_set_error(l, ALLOCINFO_ETOOBIG, ENOMEM);
			return NULL;
		}
		if (!(ne = realloc(d->e, 2 * d->cap * sizeof(*ne)))) {
			ai_set_error(l, ALLOCINFO_ENOMEM, ENOMEM);
			return NULL;
		}
		d->e = ne;
		d->cap *= 2;
	}
	if (!(e = entry_new(l, first->hash, r, (unsigned)d->n)))
		return NULL;
	d->e[d->n++] = e;
	d->claimed = d->n;
	return e;
}

/*
 * Before a prune: each key's occurrences that stay are the first ones (a
 * read claims them in order, and the rest are vanished), so its dupset is
 * cut at the first vanished one, and freed if that leaves only the first.
 */
static void dups_prune(struct allocinfo_list *l)
{
	for (size_t i = 0; i < l->ndbuckets; i++) {
		struct dupset *d, **pp;

		for (pp = &l->dbuckets[i]; (d = *pp);) {
			size_t k = 0;

			while (k < d->n && !d->e[k]->vanished)
				k++;
			if (k > 1) {
				d->n = k;
				d->claimed = d->claimed < k ? d->claimed : k;
				pp = &d->hnext;
				continue;
			}
			*pp = d->hnext;
			l->mem -= sizeof(*d) + d->cap * sizeof(*d->e);
			free(d->e);
			free(d);
			l->ndups--;
		}
	}
}

static int isws(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * Store the " key:value" tail of a row if it changed since the last read.
 * Returns 0, or -1 out of memory or past the memory limit of @l (its error
 * set; @l NULL: an entry of no list, nothing counted).
 */
static int entry_set_kv(struct allocinfo_list *l, struct allocinfo_entry *e,
			const char *kv, size_t len)
{
	struct kvdata *d = e->kv;
	size_t n = 0, need;
	char *s, *end;

	if (!d && !len)
		return 0;
	if (d && len == d->raw_len && (!len || !memcmp(d->raw, kv, len)))
		return 0;
	/* count tokens first, to size the pointer array */
	for (const char *p = kv, *pe = kv + len; p < pe;) {
		while (p < pe && isws(*p))
			p++;
		if (p >= pe)
			break;
		n++;
		while (p < pe && !isws(*p))
			p++;
	}
	need = 2 * n * sizeof(char *) + len + len + 1;
	if (!d || need > d->size) {
		struct kvdata *nd;

		if (mem_over(l, sizeof(*d) + need - (d ? sizeof(*d) + d->size : 0)))
			return l ? ai_set_error(l, ALLOCINFO_ETOOBIG, ENOMEM), -1 : -1;
		if (!(nd = realloc(d, sizeof(*d) + need)))
			return l ? ai_set_error(l, ALLOCINFO_ENOMEM, ENOMEM), -1 : -1;
		d = e->kv = nd;
		d->size = need;
	}
	d->kv = (const char **)(void *)d->data;
	d->raw = d->data + 2 * n * sizeof(char *);
	d->split = d->raw + len;
	memcpy(d->raw, kv, len);
	d->raw_len = len;
	s = d->split;
	memcpy(s, kv, len);
	s[len] = '\0';
	end = s + len;
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

/*
 * Does the row pass the list's query?  The counters are tested first;
 * names are copied out (NUL-terminated, for regexec) only if a pattern
 * needs them.  Returns 1, 0, or -1 out of memory.
 */
static int row_wanted(struct allocinfo_list *l, const struct ai_row *r)
{
	const struct allocinfo_query *q = l->query;
	size_t need;
	char *f, *fn, *m = NULL;

	if (!q)
		return 1;
	if (!ai_query_values(q, r->bytes, r->calls))
		return 0;
	if (!ai_query_needs_names(q))
		return 1;
	need = names_size(r);
	if (need > l->names_cap) {
		char *nb = realloc(l->names, need);

		if (!nb)
			return -1;
		l->names = nb;
		l->names_cap = need;
	}
	f = l->names;
	memcpy(f, r->file, r->flen);
	f[r->flen] = '\0';
	fn = f + r->flen + 1;
	memcpy(fn, r->func, r->fnlen);
	fn[r->fnlen] = '\0';
	if (r->module) {
		m = fn + r->fnlen + 1;
		memcpy(m, r->module, r->mlen);
		m[r->mlen] = '\0';
	}
	return ai_query_names(q, f, fn, m);
}

/* Rows from the text @t, or from the ioctl backend's rows if @t is NULL. */
static int next_row(struct allocinfo_list *l, struct ai_text *t, struct ai_row *r)
{
	return t ? ai_text_next(t, r, l) : ai_kernel_next(&l->kern, r);
}

/* Make room in the table for about @rows rows, on the first read. */
static int size_table(struct allocinfo_list *l, size_t rows)
{
	size_t nb = l->nbuckets;

	if (l->count || rows <= nb)
		return 0;
	while (nb < rows)
		nb *= 2;
	return grow_table(l, nb);
}

/* Store the rows of a read that pass the query: the text's or the kernel's. */
static int store_rows(struct allocinfo_list *l, struct ai_text *t)
{
	struct allocinfo_entry *en, *cursor;
	struct ai_row r;
	uint32_t gen;
	int rc;

	l->gen++;
	gen = (uint32_t)l->gen;
	l->mal_count = 0;
	l->present = 0;
	cursor = l->head;
	while ((rc = next_row(l, t, &r)) > 0) {
		uint64_t h;
		int want = row_wanted(l, &r);

		if (want < 0)
			return ai_set_error(l, ALLOCINFO_ENOMEM, ENOMEM);
		if (!want)
			continue;
		/*
		 * The kernel prints sites in a stable order, so first try the
		 * entry after the last one matched.  An occurrence-0 entry not
		 * yet seen in this read is the right one for an equal key: an
		 * earlier row with that key would have claimed it.  Once it is
		 * claimed, the key's dupset gives the next occurrence.
		 */
		en = cursor;
		if (!en || en->occ || en->gen == gen || !key_equal(en, &r)) {
			h = key_hash(r.file, r.flen, r.line, r.func, r.fnlen,
				     r.module, r.mlen);
			if (!(en = lookup(l, h, &r)))
				en = entry_new(l, h, &r, 0);
			else if (en->gen == gen)
				en = next_occurrence(l, en, &r);
			if (!en)
				return l->error;
		}
		cursor = en->next;
		if (entry_set_kv(l, en, r.kv, r.kvlen))
			return l->error;
		en->bytes = r.bytes;
		en->calls = r.calls;
		en->gen = gen;
		en->lineno = r.lineno < UINT32_MAX ? (uint32_t)r.lineno : UINT32_MAX;
		en->vanished = 0;
		l->present++;
	}
	if (rc < 0)
		return l->error;
	/* rows matched clear their flag; only a shortfall needs a walk */
	if (l->present < l->count)
		for (en = l->head; en; en = en->next)
			en->vanished = en->gen != gen;
	return ai_set_error(l, ALLOCINFO_OK, 0);
}

static int parse_buffer(struct allocinfo_list *l, const char *buf, size_t len)
{
	struct ai_text t;

	ai_text_init_mem(&t, buf, len);
	if (ai_text_header(&t, l))
		return l->error;
	/* 60 to 100 bytes a row */
	if (size_table(l, (len - t.pos) / 96))
		return ai_set_error(l, ALLOCINFO_ENOMEM, ENOMEM);
	return store_rows(l, &t);
}

/* ---- scans ------------------------------------------------------------ */

static int scan_begin(struct allocinfo_list *l)
{
	l->scanning = 1;
	l->mal_count = 0;
	if (l->used == ALLOCINFO_BACKEND_TEXT && ai_text_header(&l->scan, l)) {
		int rc = l->error;

		scan_end(l);
		return ai_set_error(l, rc, l->sys_errno);
	}
	return ai_set_error(l, ALLOCINFO_OK, 0);
}

/* A scan of fd: by ioctl if try_kernel() says so, else of its text. */
static int scan_begin_fd(struct allocinfo_list *l, int fd)
{
	int ret = try_kernel(l, fd);

	if (ret == AI_KERNEL_NO) {
		ai_text_init_fd(&l->scan, fd, l->max_input);
	} else if (ret != ALLOCINFO_OK) {
		scan_end(l);
		return l->error;
	}
	return scan_begin(l);
}

int allocinfo_list_scan_fd(struct allocinfo_list *l, int fd)
{
	if (!l || fd < 0)
		return l ? ai_set_error(l, ALLOCINFO_EINVAL, 0) : ALLOCINFO_EINVAL;
	scan_end(l);
	return scan_begin_fd(l, fd);
}

int allocinfo_list_scan_path(struct allocinfo_list *l, const char *path)
{
	int fd;

	if (!l || !path)
		return l ? ai_set_error(l, ALLOCINFO_EINVAL, 0) : ALLOCINFO_EINVAL;
	scan_end(l);
	fd = open_source(l, path);
	if (fd < 0)
		return l->error;
	l->scan_fd = fd;
	return scan_begin_fd(l, fd);
}

int allocinfo_list_scan_buffer(struct allocinfo_list *l, const char *buf,
			       size_t len)
{
	if (!l || (!buf && len))
		return l ? ai_set_error(l, ALLOCINFO_EINVAL, 0) : ALLOCINFO_EINVAL;
	scan_end(l);
	l->used = ALLOCINFO_BACKEND_TEXT;
	if (l->max_input && len > l->max_input)
		return ai_set_error(l, ALLOCINFO_ETOOBIG, 0);
	ai_text_init_mem(&l->scan, buf, len);
	return scan_begin(l);
}

const struct allocinfo_entry *allocinfo_list_scan_next(struct allocinfo_list *l)
{
	struct allocinfo_entry *e;
	struct ai_row r;
	size_t need;
	int rc, want, own, kernel;

	if (!l || !l->scanning)
		return NULL;
	kernel = l->used == ALLOCINFO_BACKEND_IOCTL;
	while ((rc = next_row(l, kernel ? NULL : &l->scan, &r)) > 0) {
		if (!l->query || (want = row_wanted(l, &r)) > 0)
			break;
		if (want < 0) {
			rc = -1;
			ai_set_error(l, ALLOCINFO_ENOMEM, ENOMEM);
			break;
		}
	}
	if (rc <= 0) {
		int err = rc < 0 ? l->error : ALLOCINFO_OK, sys = l->sys_errno;

		scan_end(l);
		ai_set_error(l, err, rc < 0 ? sys : 0);
		return NULL;
	}
	/*
	 * Text the scan owns (read from a descriptor) is cut into the names
	 * in place, with NULs where the colon, the blank after the function
	 * and the closing bracket were (the reader keeps a byte after the
	 * text for a last line without a newline): no copy per row.  A
	 * caller's buffer is not ours to write: copied.
	 */
	own = !kernel && l->scan.own && l->scan.buf == l->scan.own;
	need = own ? 3 * sizeof(char *) : names_size(&r);
	if (too_long(&r) || need > l->se_cap || !l->se) {
		size_t cap = need > 256 ? need : 256;

		if (too_long(&r) || !(e = realloc(l->se, sizeof(*e) + cap))) {
			scan_end(l);
			ai_set_error(l, ALLOCINFO_ENOMEM, ENOMEM);
			return NULL;
		}
		if (!l->se)
			memset(e, 0, sizeof(*e));
		l->se = e;
		l->se_cap = cap;
	}
	e = l->se;
	if (own) {
		const char **p = (const char **)(void *)e->strs;

		((char *)r.file)[r.flen] = '\0';
		((char *)r.func)[r.fnlen] = '\0';
		p[0] = r.file;
		p[1] = r.func;
		p[2] = NULL;
		if (r.module) {
			((char *)r.module)[r.mlen] = '\0';
			p[2] = r.module;
		}
		e->ext = 1;
		e->has_module = r.module != NULL;
		e->flen = (uint32_t)r.flen;
		e->fnlen = (uint32_t)r.fnlen;
		e->mlen = (uint32_t)r.mlen;
		e->line = (uint32_t)r.line;
	} else {
		e->ext = 0;
		names_copy(e, &r);
	}
	if ((r.kvlen || e->kv) && entry_set_kv(NULL, e, r.kv, r.kvlen)) {
		scan_end(l);
		ai_set_error(l, ALLOCINFO_ENOMEM, ENOMEM);
		return NULL;
	}
	e->bytes = r.bytes;
	e->calls = r.calls;
	e->lineno = r.lineno < UINT32_MAX ? (uint32_t)r.lineno : UINT32_MAX;
	return e;
}

/* ---- detached copies -------------------------------------------------- */

struct allocinfo_entry *allocinfo_entry_dup(const struct allocinfo_entry *e)
{
	size_t sz;
	struct allocinfo_entry *d;

	if (!e)
		return NULL;
	sz = (size_t)e->flen + 1 + e->fnlen + 1 + (e->has_module ? e->mlen + 1 : 0);
	d = malloc(sizeof(*d) + sz);
	if (!d)
		return NULL;
	if (e->ext) {
		struct ai_row r = {
			.file = E_EXT(e, 0), .flen = e->flen, .func = E_EXT(e, 1),
			.fnlen = e->fnlen, .module = E_EXT(e, 2), .mlen = e->mlen,
			.line = e->line,
		};

		memcpy(d, e, sizeof(*d));
		names_copy(d, &r);
		d->ext = 0;
	} else {
		memcpy(d, e, sizeof(*d) + sz);
	}
	d->hnext = d->next = NULL;
	d->kv = NULL;
	d->detached = 1;
	if (e->kv && entry_set_kv(NULL, d, e->kv->raw, e->kv->raw_len)) {
		free(d);
		return NULL;
	}
	return d;
}

void allocinfo_entry_free(struct allocinfo_entry *e)
{
	if (e && e->detached)
		entry_free(e);
}

size_t allocinfo_list_prune(struct allocinfo_list *l)
{
	struct allocinfo_entry *e, *n, **pp, **link, *last = NULL;
	size_t pruned = 0;

	if (!l)
		return 0;
	dups_prune(l);
	for (link = &l->head, e = l->head; e; e = n) {
		n = e->next;
		if (!e->vanished) {
			last = e;
			link = &e->next;
			continue;
		}
		if (!e->occ) {	/* later occurrences are not in the table */
			for (pp = &l->buckets[e->hash & (l->nbuckets - 1)]; *pp != e;
			     pp = &(*pp)->hnext)
				;
			*pp = e->hnext;
		}
		*link = n;
		l->mem -= sizeof(*e) + e->flen + 1 + e->fnlen + 1 +
			  (e->has_module ? e->mlen + 1 : 0) + (e->kv ? sizeof(*e->kv) + e->kv->size : 0);
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
		if (!strcmp(l->hdr[2 * i], key))
			return l->hdr[2 * i + 1];
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
		struct ai_row r = {
			.file = file, .flen = strlen(file), .line = line,
			.func = func, .fnlen = strlen(func),
			.module = module, .mlen = module ? strlen(module) : 0,
		};
		uint64_t h = key_hash(r.file, r.flen, line, func, r.fnlen,
				      module, r.mlen);

		return lookup(l, h, &r);
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
const char *allocinfo_entry_file(const struct allocinfo_entry *e)
{
	return !e ? NULL : e->ext ? E_EXT(e, 0) : E_FILE(e);
}

unsigned long allocinfo_entry_line(const struct allocinfo_entry *e) { return e ? e->line : 0; }
const char *allocinfo_entry_func(const struct allocinfo_entry *e)
{
	return !e ? NULL : e->ext ? E_EXT(e, 1) : E_FUNC(e);
}

const char *allocinfo_entry_module(const struct allocinfo_entry *e)
{
	return !e ? NULL : e->ext ? E_EXT(e, 2) : E_MOD(e);
}

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
