// SPDX-License-Identifier: GPL-2.0
/*
 * text.c - the text backend of liballocinfo: /proc/allocinfo as printed
 *
 * The kernel prints "allocinfo - version: X.Y", a "#" column header, then
 * one row per tag: "bytes calls file:line [module] func:name" with any
 * whitespace and numbers of any width, then (2.0, and 1.0 kernels that
 * backported them) " key:value" pairs, and a blank before the newline
 * (upstream's rows, and ours now; older files end without it and read
 * alike: blanks that end a line are no part of it).  Rows come out as
 * slices of the text (struct ai_row); nothing here allocates per row.  A
 * row that does not parse is reported through ai_malformed() with its
 * line number and reason, never returned as zeros.
 *
 * Sources are read to the end (a list read, one consistent view) or a
 * chunk at a time (a scan, which keeps only the line in progress); either
 * way at most max bytes, so /dev/zero or an endless pipe fail with
 * ALLOCINFO_ETOOBIG instead of filling memory.
 *
 * Rows in the kernel's own layout are read in one pass (fast_row(), with
 * SSE2 on x86-64); every other row, and every malformed one, by the
 * general parser, which says what is wrong.  Both give the same fields for
 * any row (the unit tests, and the fuzzers' AI_CHECK_FAST builds).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

/*
 * A scan reads 16 KiB at a time: a top-10 of a few thousand rows is mostly
 * process start-up, and each page of a bigger buffer costs a page fault
 * the first time it is filled, more than the reads it saves.  A list read
 * keeps the whole text and starts at 64 KiB.
 */
#define CHUNK 16384
#define READ_START 65536

static int read_errno(int e)
{
	return e == EACCES || e == EPERM ? ALLOCINFO_EACCES : ALLOCINFO_EIO;
}

/*
 * Read fd to its end into *buf (grown as needed, never past max + CHUNK).
 * Returns ALLOCINFO_OK, ALLOCINFO_ETOOBIG (more than max bytes; max 0 is no
 * limit), ALLOCINFO_ENOMEM, or a read error with *sys set to errno.
 */
int ai_read_all(int fd, char **buf, size_t *cap, size_t *len, size_t max,
		int *sys)
{
	size_t n = 0;
	ssize_t got;

	*sys = 0;
	for (;;) {
		if (max && n > max)
			return ALLOCINFO_ETOOBIG;
		if (*cap - n < 4096) {
			size_t ncap = *cap ? *cap * 2 : READ_START;
			char *nb;

			/* one byte past the limit tells a source of exactly max */
			if (max && ncap > max + 4097)
				ncap = max + 4097;
			if (ncap <= *cap)
				ncap = *cap + 4096;
			nb = realloc(*buf, ncap);
			if (!nb) {
				*sys = ENOMEM;
				return ALLOCINFO_ENOMEM;
			}
			*buf = nb;
			*cap = ncap;
		}
		got = read(fd, *buf + n, *cap - n);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			*sys = errno;
			return read_errno(errno);
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	*len = n;
	return ALLOCINFO_OK;
}

void ai_text_init_mem(struct ai_text *t, const char *buf, size_t len)
{
	memset(t, 0, sizeof(*t));
	t->fd = -1;
	t->buf = buf ? buf : "";
	t->len = len;
	t->eof = 1;
	t->nul = memchr(t->buf, '\0', len) != NULL;
	t->in_header = 1;
}

void ai_text_init_fd(struct ai_text *t, int fd, size_t max)
{
	memset(t, 0, sizeof(*t));
	t->fd = fd;
	t->max = max;
	t->buf = "";
	t->in_header = 1;
}

void ai_text_release(struct ai_text *t)
{
	free(t->own);
	t->own = NULL;
	t->buf = "";
	t->pos = t->len = t->cap = 0;
}

/*
 * Move the line in progress to the front of the buffer (growing it when
 * that line fills it) and read more after it.  Returns 0, or an error code
 * with the list's error set.
 */
static int refill(struct ai_text *t, struct allocinfo_list *l)
{
	size_t keep = t->len - t->pos;
	ssize_t got;

	if (t->pos && keep)
		memmove(t->own, t->own + t->pos, keep);
	t->pos = 0;
	t->len = keep;
	/* keep a byte after the text: a scan ends its last name there */
	if (t->cap - t->len < CHUNK / 2) {
		size_t ncap = t->cap ? t->cap * 2 : CHUNK;
		char *nb = realloc(t->own, ncap);

		if (!nb)
			return ai_set_error(l, ALLOCINFO_ENOMEM, ENOMEM);
		t->own = nb;
		t->cap = ncap;
	}
	t->buf = t->own;
	for (;;) {
		got = read(t->fd, t->own + t->len, t->cap - t->len - 1);
		if (got >= 0)
			break;
		if (errno != EINTR)
			return ai_set_error(l, read_errno(errno), errno);
	}
	if (got == 0)
		t->eof = 1;
	t->len += (size_t)got;
	t->total += (size_t)got;
	if (t->max && t->total > t->max)
		return ai_set_error(l, ALLOCINFO_ETOOBIG, 0);
	/* a NUL makes the lines that hold one malformed; look once per chunk */
	t->nul = memchr(t->own, '\0', t->len) != NULL;
	return 0;
}

/* [s, e) without the CR and the blanks a line ends in */
static const char *trim_end(const char *s, const char *e)
{
	while (e > s && (e[-1] == '\r' || e[-1] == ' ' || e[-1] == '\t'))
		e--;
	return e;
}

/*
 * The next line: [*s, *e) without its CR and trailing blanks; *raw_end is
 * where the line ends before trimming.  Returns 1, 0 at the end of the
 * source, -1 on a read error (the list's error is set).
 */
static int next_line(struct ai_text *t, struct allocinfo_list *l,
		     const char **s, const char **e, const char **raw_end)
{
	const char *p, *nl;

	for (;;) {
		p = t->buf + t->pos;
		nl = memchr(p, '\n', t->len - t->pos);
		if (nl || t->eof)
			break;
		if (refill(t, l))
			return -1;
	}
	if (!nl) {
		if (t->pos >= t->len)
			return 0;
		nl = t->buf + t->len;
	}
	*s = p;
	*raw_end = nl;
	t->pos = (size_t)(nl - t->buf) + (nl < t->buf + t->len);
	*e = trim_end(p, nl);
	t->lineno++;
	return 1;
}

/* separators are blanks; every other byte, NUL aside, belongs to a token */
static int isws(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * Most of the parser's time goes to finding where runs of blanks and
 * tokens end, and most of that to mispredicted loop exits.  So eight
 * bytes are looked at at once (a little-endian load), and the first byte
 * of interest found from a mask with one top bit per such byte.
 */
#define ONES 0x0101010101010101ULL
#define TOPS 0x8080808080808080ULL

#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define WORDS 1
static inline size_t first_flagged(uint64_t m)
{
	return (size_t)__builtin_ctzll(m) >> 3;
}
#else
#define WORDS 0
#endif

/* runs of blanks longer than a word: the kernel's right-aligned numbers */
static const char *skip_ws_long(const char *p, const char *e)
{
#if WORDS
	while (e - p >= 8) {
		uint64_t x, m;

		memcpy(&x, p, 8);
		x ^= ONES * ' ';
		/* bytes that are not spaces: their top bit, exactly */
		m = (x | ((x & ~TOPS) + ~TOPS)) & TOPS;
		if (!m) {
			p += 8;
			continue;
		}
		p += first_flagged(m);
		if (*p != '\t')
			return p;
		p++;
	}
#endif
	while (p < e && isws(*p))
		p++;
	return p;
}

/* tokens are mostly one blank apart: that case takes two comparisons */
static inline const char *skip_ws(const char *p, const char *e)
{
	if (p >= e || !isws(*p))
		return p;
	if (++p >= e || !isws(*p))
		return p;
	return skip_ws_long(p, e);
}

/*
 * The end of the token at p: the first blank.  A byte below 0x21 sets its
 * top bit in (x - 0x21...) & ~x (every byte at or above 0x21 absorbs the
 * borrow, so the lowest flag is exact); it may be another control
 * character, which a token may hold.
 */
static inline const char *token_end(const char *p, const char *e)
{
	while (e - p >= 8) {
		uint64_t x, m;

		memcpy(&x, p, 8);
		m = (x - ONES * 0x21) & ~x & TOPS;
		if (!m) {
			p += 8;
			continue;
		}
#if WORDS
		p += first_flagged(m);
		if (isws(*p))
			return p;
		p++;
#else
		break;
#endif
	}
	while (p < e && !isws(*p))
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

static void free_pairs(char **kv, size_t n)
{
	for (size_t i = 0; i < 2 * n; i++)
		free(kv[i]);
	free(kv);
}

/*
 * Read up to the version line: "# key: value" lines before it become the
 * list's header fields (snapshots), other comments and blank lines are
 * skipped.  Returns 0 with the version and header installed in the list,
 * or an error code (the list's header and entries untouched).
 */
int ai_text_header(struct ai_text *t, struct allocinfo_list *l)
{
	static const char tag[] = "allocinfo - version:";
	const char *s, *e, *raw;
	char **kv = NULL;
	size_t n = 0;
	unsigned long maj = 0, min = 0;
	int found = 0, rc, err = ALLOCINFO_ENOHEADER;

	while ((rc = next_line(t, l, &s, &e, &raw)) > 0) {
		/* a UTF-8 byte order mark, as some editors add when saving a copy */
		if (t->lineno == 1 && e - s >= 3 && !memcmp(s, "\xef\xbb\xbf", 3))
			s += 3;
		if (t->nul && memchr(s, '\0', (size_t)(raw - s)))
			break;
		s = skip_ws(s, e);
		if (s == e)
			continue;
		if (*s == '#') {
			const char *k = skip_ws(s + 1, e), *c = k;
			char **nk;

			while (c < e && *c != ':' && !isws(*c))
				c++;
			if (c == k || c >= e || *c != ':')
				continue;
			nk = realloc(kv, 2 * (n + 1) * sizeof(*kv));
			if (!nk)
				goto nomem;
			kv = nk;
			kv[2 * n] = dupn(k, (size_t)(c - k));
			c = skip_ws(c + 1, e);
			kv[2 * n + 1] = dupn(c, (size_t)(e - c));
			n++;
			if (!kv[2 * n - 2] || !kv[2 * n - 1])
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
	if (rc < 0) {
		free_pairs(kv, n);
		return allocinfo_list_geterror(l);
	}
	if (found && maj >= 1 && maj <= 2) {
		ai_set_version(l, (int)maj, (int)min);
		ai_set_header(l, kv, n);
		return ALLOCINFO_OK;
	}
	free_pairs(kv, n);
	if (found) {
		ai_set_version(l, (int)maj, (int)min);	/* for the caller's message */
		err = ALLOCINFO_EVERSION;
	}
	return ai_set_error(l, err, 0);
nomem:
	free_pairs(kv, n);
	return ai_set_error(l, ALLOCINFO_ENOMEM, ENOMEM);
}

/* ---- rows ------------------------------------------------------------- */

#define U64_TENTH (UINT64_MAX / 10)	/* 1844674407370955161, last digit 5 */

/* Parse the row [p, end); returns NULL, or why it is malformed. */
#if WORDS
/* the bytes of x equal to c, as top bits; exact (no carry between bytes) */
static inline uint64_t bytes_eq(uint64_t x, unsigned char c)
{
	uint64_t y = x ^ (ONES * c);

	return ~(((y & ~TOPS) + ~TOPS) | y) & TOPS;
}

/* the bytes of x that are ASCII digits, as top bits; exact */
static inline uint64_t bytes_digit(uint64_t x)
{
	uint64_t y = x ^ (ONES * '0');			/* digits: 0 to 9 */
	uint64_t hi = y & (ONES * 0xf0);		/* must be 0 */
	uint64_t lo = (y & (ONES * 0x0f)) + ONES * 6;	/* bit 4 set: above 9 */

	return ~(((hi & ~TOPS) + ~TOPS) | hi) & TOPS & (~lo & (ONES * 0x10)) << 3;
}

static inline uint64_t lowest(uint64_t m)
{
	return m & (~m + 1);
}

/* m (top bits) is empty or a run of bytes up to the word's last byte */
static inline int suffix(uint64_t m)
{
	return m == (m ? ~(lowest(m) - 1) & TOPS : 0);
}

/* eight digit values, the most significant in the lowest byte: their number */
static inline uint64_t conv8(uint64_t v)
{
	v = v * 10 + (v >> 8);
	return (((v & 0x000000ff000000ffULL) * (100 + (1000000ULL << 32))) +
		(((v >> 16) & 0x000000ff000000ffULL) * (1 + (10000ULL << 32)))) >> 32;
}

/*
 * The kernel prints "%12lli %8llu " before the location.  A row in exactly
 * that layout has both numbers read eight bytes at a time: blanks and a
 * minus become zeros and the digits are combined without a branch each.
 * Returns the blank after the calls, or NULL for any other layout: the
 * general parser then reads the row, and says what is wrong with it.
 */
static const char *fast_numbers(const char *p, const char *end, struct ai_row *r)
{
	uint64_t a, b, c, sa, sb, sc, da, db, dc, ma, mb, na, nb;
	uint64_t v;

	if (end - p < 23 || p[12] != ' ' || p[21] != ' ' || isws(p[22]))
		return NULL;
	memcpy(&a, p, 8);		/* columns 0-7 of the size */
	memcpy(&b, p + 4, 8);		/* columns 4-11 */
	memcpy(&c, p + 13, 8);		/* the calls */
	sa = bytes_eq(a, ' ');
	sb = bytes_eq(b, ' ');
	sc = bytes_eq(c, ' ');
	da = bytes_digit(a);
	db = bytes_digit(b);
	dc = bytes_digit(c);
	ma = bytes_eq(a, '-');
	mb = bytes_eq(b, '-');
	na = ~sa & TOPS;
	nb = ~sb & TOPS;
	/* blanks, an optional minus, digits to the last column */
	if ((sa | da | ma) != TOPS || (sb | db | mb) != TOPS || (sc | dc) != TOPS ||
	    !suffix(na) || !suffix(nb) || !suffix(dc) || !(db >> 63) || !(dc >> 63) ||
	    (na & ~da) != (ma ? lowest(na) : 0) || (nb & ~db) != (mb ? lowest(nb) : 0))
		return NULL;
	a += (sa >> 3) + (ma >> 7) * ('0' - '-') - ONES * '0';
	b += (sb >> 3) + (mb >> 7) * ('0' - '-') - ONES * '0';
	c += (sc >> 3) - ONES * '0';
	v = conv8(a << 32) * 100000000 + conv8(b);
	r->bytes = ma | mb ? -(int64_t)v : (int64_t)v;
	r->calls = conv8(c);
	return p + 21;
}
#endif

/*
 * Parse the row [p, end) (p at the line's first column); returns NULL, or
 * why it is malformed.
 */
static const char *parse_row(const char *p, const char *end, struct ai_row *r)
{
	int neg = 0;
	uint64_t v = 0;
	const char *t;

	r->module = NULL;
	r->mlen = 0;
#if WORDS
	if ((t = fast_numbers(p, end, r))) {
#ifdef AI_CHECK_FAST
		struct ai_row slow = *r;
		const char *q = p;

		/* the fuzzers' builds: the general parser must agree */
		q = skip_ws(q, end);
		q += *q == '-';
		slow.bytes = strtoll(p, NULL, 10);
		slow.calls = strtoull(p + 13, NULL, 10);
		if (slow.bytes != r->bytes || slow.calls != r->calls || (unsigned)(*q - '0') > 9)
			abort();
#endif
		p = t;
		goto location;
	}
#endif
	p = skip_ws(p, end);
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
	p = skip_ws(p, end);
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
#if WORDS
location:
#endif
	p = skip_ws(p, end);
	/* file:line, split at the last colon: the line's digits read backwards */
	t = p;
	p = token_end(p, end);
	{
		const char *c = p;
		uint64_t ln = 0, scale = 1;

		/* eleven digits are out of range whatever they are: stop there */
		while (c > t && (unsigned)(c[-1] - '0') <= 9 && p - c < 11) {
			ln += (uint64_t)(c[-1] - '0') * scale;
			scale *= 10;
			c--;
		}
		if (c == p || c - 1 <= t || c[-1] != ':') {
			/* more than ten digits, or not digits after the last colon */
			while (c > t && c[-1] != ':')
				c--;
			if (c == t || c <= t + 1 || c == p)
				return "bad file:line";
			for (const char *d = c; d < p; d++)
				if ((unsigned)(*d - '0') > 9)
					return "bad file:line";
			return "line number out of range";
		}
		if (ln > UINT32_MAX)
			return "line number out of range";
		r->file = t;
		r->flen = (size_t)(c - 1 - t);
		r->line = ln;
	}
	p = skip_ws(p, end);
	if (p < end && *p == '[') {
		t = p;
		p = token_end(p, end);
		if (p - t < 3 || p[-1] != ']')
			return "bad [module]";
		r->module = t + 1;
		r->mlen = (size_t)(p - t - 2);
		p = skip_ws(p, end);
	}
	if (end - p < 5 || p[0] != 'f' || p[1] != 'u' || p[2] != 'n' || p[3] != 'c' ||
	    p[4] != ':')
		return "missing func:";
	p += 5;
	t = p;
	p = token_end(p, end);
	if (p == t)
		return "empty func: name";
	r->func = t;
	r->fnlen = (size_t)(p - t);
	p = skip_ws(p, end);
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
		p = skip_ws(token_end(p, end), end);
	}
	return NULL;
}

#if WORDS && defined(__SSE2__)
/*
 * Rows as the kernel prints them, read in one pass without a branch per
 * byte: "%12lli %8llu " and then, within the next 64 bytes and ending in a
 * newline, tokens one blank apart without control characters, a line
 * number of at most eight digits, and a blank before the newline (as the
 * kernel ends rows now) or none (as older kernels did).  The numbers and
 * the bytes of interest after them (blanks, colons, the line's end) are
 * found sixteen bytes at a time with SSE2, which every x86-64 has, as bit
 * masks of the line.  Any other row, every malformed one included, is left
 * to parse_row(), which also says what is wrong.
 */
#include <emmintrin.h>
#define FAST_ROWS 1
#define FAST_TAIL 64			/* bytes looked at after the numbers */
#define FAST_SPAN (22 + FAST_TAIL)	/* bytes a row's fast way reads */

static inline unsigned mask16(__m128i eq)
{
	return (unsigned)_mm_movemask_epi8(eq);
}

/* the digits of v as values, other bytes zero; *digits: which are digits */
static inline __m128i digit_values(__m128i v, unsigned *digits)
{
	__m128i d = _mm_sub_epi8(v, _mm_set1_epi8('0'));
	__m128i is = _mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(9)), d);

	*digits = mask16(is);
	return _mm_and_si128(d, is);
}

/*
 * A right-aligned number in a field of width columns (bit i: column i):
 * digits to the last column, and below them blanks, or blanks and a sign
 * right before the digits (sign: where minus signs are, or 0).  Returns 1
 * for a number without a sign, 2 for a negative one, 0 for any other
 * layout.
 */
static inline unsigned number_field(unsigned digits, unsigned blanks, unsigned sign,
				    unsigned width)
{
	unsigned first = digits & -digits, below = first - 1;

	sign &= first >> 1;
	if (digits + first != 1u << width || ((blanks | sign) & below) != below)
		return 0;
	return sign ? 2 : 1;
}

/*
 * Sixteen digit values (the most significant first) of a and eight of b
 * as numbers: the first eight of a, its last eight, and b's.
 */
static inline void digits_to_numbers(__m128i a, __m128i b, uint32_t out[3])
{
	const __m128i zero = _mm_setzero_si128();
	const __m128i by10 = _mm_setr_epi16(10, 1, 10, 1, 10, 1, 10, 1);
	const __m128i by100 = _mm_setr_epi16(100, 1, 100, 1, 100, 1, 100, 1);
	const __m128i by10k = _mm_setr_epi16(10000, 1, 10000, 1, 10000, 1, 10000, 1);
	__m128i a2lo = _mm_madd_epi16(_mm_unpacklo_epi8(a, zero), by10);
	__m128i a2hi = _mm_madd_epi16(_mm_unpackhi_epi8(a, zero), by10);
	__m128i b2 = _mm_madd_epi16(_mm_unpacklo_epi8(b, zero), by10);
	__m128i a4 = _mm_madd_epi16(_mm_packs_epi32(a2lo, a2hi), by100);
	__m128i b4 = _mm_madd_epi16(_mm_packs_epi32(b2, b2), by100);
	__m128i n8 = _mm_madd_epi16(_mm_packs_epi32(a4, b4), by10k);

	out[0] = (uint32_t)_mm_cvtsi128_si32(n8);
	out[1] = (uint32_t)_mm_cvtsi128_si32(_mm_srli_si128(n8, 4));
	out[2] = (uint32_t)_mm_cvtsi128_si32(_mm_srli_si128(n8, 8));
}

/*
 * The numbers of a row in the kernel's columns: the size right-aligned in
 * columns 0-11 (blanks, an optional minus, digits), a blank, the calls in
 * columns 13-20, a blank.  Returns 0 for any other layout.
 */
static int fast_row_numbers(const char *p, struct ai_row *r)
{
	__m128i size_text = _mm_loadu_si128((const __m128i *)(const void *)p);
	__m128i calls_text = _mm_loadl_epi64((const __m128i *)(const void *)(p + 13));
	__m128i size, calls;
	unsigned size_digits, calls_digits, size_blanks, calls_blanks, minus, sign;
	uint32_t n[3];
	uint64_t v;

	if (p[12] != ' ' || p[21] != ' ')
		return 0;
	size = digit_values(size_text, &size_digits);
	calls = digit_values(calls_text, &calls_digits);
	size_blanks = mask16(_mm_cmpeq_epi8(size_text, _mm_set1_epi8(' ')));
	calls_blanks = mask16(_mm_cmpeq_epi8(calls_text, _mm_set1_epi8(' ')));
	minus = mask16(_mm_cmpeq_epi8(size_text, _mm_set1_epi8('-')));
	/* the size in columns 0-11, the calls (no sign) in 13-20 */
	sign = number_field(size_digits & 0xfff, size_blanks, minus, 12);
	if (!sign || !number_field(calls_digits & 0xff, calls_blanks, 0, 8))
		return 0;
	/* columns 0-11 as the last twelve of sixteen digits */
	size = _mm_slli_si128(_mm_and_si128(size, _mm_setr_epi32(-1, -1, -1, 0)), 4);
	digits_to_numbers(size, calls, n);
	v = (uint64_t)n[0] * 100000000 + n[1];
	r->bytes = sign == 2 ? -(int64_t)v : (int64_t)v;
	r->calls = n[2];
	return 1;
}

/* bit i of each mask: p[i] is a blank; a colon; a control character */
struct tail_masks {
	uint64_t blank, colon, control;
};

/* the sixteen bytes at p + at into the masks, at bit at */
static inline void block_masks(const char *p, unsigned at, struct tail_masks *m)
{
	const __m128i blank = _mm_set1_epi8(' '), colon = _mm_set1_epi8(':');
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + at));
	/* bytes up to a blank: controls (the newline among them) and blanks */
	__m128i low = _mm_cmpeq_epi8(_mm_min_epu8(v, blank), v);
	__m128i is_blank = _mm_cmpeq_epi8(v, blank);

	m->blank |= (uint64_t)mask16(is_blank) << at;
	m->colon |= (uint64_t)mask16(_mm_cmpeq_epi8(v, colon)) << at;
	m->control |= (uint64_t)mask16(_mm_andnot_si128(is_blank, low)) << at;
}

static inline void tail_masks(const char *p, struct tail_masks *m)
{
	m->blank = m->colon = m->control = 0;
	block_masks(p, 0, m);
	block_masks(p, 16, m);
	block_masks(p, 32, m);
	block_masks(p, 48, m);
}

/* bits from..to-1 (to at most 63) */
static inline uint64_t bit_range(unsigned from, unsigned to)
{
	return ((1ULL << to) - 1) & ~((1ULL << from) - 1);
}

/* the end of the token at bit from: the next blank, or the line's end n */
static inline unsigned token_stop(uint64_t blanks, unsigned from, unsigned n)
{
	uint64_t after = blanks & ~((2ULL << from) - 1);

	return after ? (unsigned)__builtin_ctzll(after) : n;
}

/*
 * file:line: the last colon ends the file, one to eight digits follow.
 * The digits are read as the top bytes of the word that ends the token.
 */
static inline int fast_location(const char *q, unsigned end, uint64_t colons,
				struct ai_row *r)
{
	uint64_t c = colons & bit_range(0, end), x, keep;
	unsigned last, digits;

	if (!c)
		return 0;
	last = 63 - (unsigned)__builtin_clzll(c);
	digits = end - last - 1;
	if (last == 0 || digits == 0 || digits > 8)
		return 0;
	memcpy(&x, q + end - 8, 8);
	keep = ~0ULL << (8 * (8 - digits));
	if ((bytes_digit(x) & keep) != (TOPS & keep))
		return 0;
	r->file = q;
	r->flen = last;
	r->line = (unsigned long)conv8((x ^ (ONES * '0')) & keep);
	return 1;
}

/*
 * The row at p, when it is in the kernel's layout and all of it lies in
 * the FAST_SPAN bytes from p: *r filled, and the length of the line with
 * its newline returned.  0: read it the general way.
 */
static size_t fast_row(const char *p, struct ai_row *r)
{
	const char *q = p + 22;		/* the location */
	struct tail_masks m;
	uint64_t blanks;
	unsigned n, e, from, to;

	if (!fast_row_numbers(p, r))
		return 0;
	tail_masks(q, &m);
	if (!m.control)
		return 0;
	/* the first control character ends the line; any other: not here */
	n = (unsigned)__builtin_ctzll(m.control);
	if (q[n] != '\n' || n == 0)
		return 0;
	/*
	 * Tokens one blank apart: none first or after another.  A blank last
	 * is the one the kernel ends rows with: the row's text ends at e.  It
	 * ends the last token as any blank does, so that only the checks of
	 * where the row ends wait for e (the rows of older kernels, without
	 * it, took 6% longer when the tokens were cut at e).
	 */
	blanks = m.blank & bit_range(0, n);
	e = n - (unsigned)(blanks >> (n - 1));
	if ((blanks & 1) || (blanks & (blanks >> 1)))
		return 0;
	to = token_stop(blanks, 0, n);
	if (to >= e || !fast_location(q, to, m.colon, r))
		return 0;
	from = to + 1;
	to = token_stop(blanks, from, n);
	r->module = NULL;
	r->mlen = 0;
	if (q[from] == '[') {
		if (to - from < 3 || q[to - 1] != ']' || to >= e)
			return 0;
		r->module = q + from + 1;
		r->mlen = to - from - 2;
		from = to + 1;
		to = token_stop(blanks, from, n);
	}
	if (to - from <= 5 || memcmp(q + from, "func:", 5))
		return 0;
	r->func = q + from + 5;
	r->fnlen = to - from - 5;
	r->kv = q + (to < e ? to + 1 : e);
	r->kvlen = e - (size_t)(r->kv - q);
	/* key:value pairs: a colon, not first */
	while (to < e) {
		uint64_t c;

		from = to + 1;
		to = token_stop(blanks, from, n);
		c = m.colon & bit_range(from, to);
		if (!c || (unsigned)__builtin_ctzll(c) == from)
			return 0;
	}
	return 22 + n + 1;
}
#endif

#ifdef AI_TEST_HOOKS
size_t ai_test_fast_rows;	/* for the unit tests: rows fast_row() read */
#endif

#if defined(FAST_ROWS) && defined(AI_CHECK_FAST)
/* the fuzzers' builds: the general parser must read the row alike */
static void check_fast_row(const char *p, size_t n, const struct ai_row *r)
{
	struct ai_row slow;

	/* the general parser's line, as next_line() trims it */
	if (parse_row(p, trim_end(p, p + n - 1), &slow) || slow.bytes != r->bytes ||
	    slow.calls != r->calls || slow.file != r->file || slow.flen != r->flen ||
	    slow.line != r->line || slow.func != r->func || slow.fnlen != r->fnlen ||
	    slow.module != r->module || slow.mlen != r->mlen || slow.kv != r->kv ||
	    slow.kvlen != r->kvlen)
		abort();
}
#endif

/*
 * The next row of the source.  Returns 1 with *r filled, 0 at the end, -1
 * on an error (the list's error is set).  Malformed lines are reported to
 * the list and skipped.
 */
int ai_text_next(struct ai_text *t, struct ai_row *r, struct allocinfo_list *l)
{
	const char *s, *e, *raw, *why, *f;
	int rc;

#ifdef FAST_ROWS
	if (!t->nul && t->len - t->pos >= FAST_SPAN) {
		size_t n = fast_row(t->buf + t->pos, r);

		if (n) {
#ifdef AI_CHECK_FAST
			check_fast_row(t->buf + t->pos, n, r);
#endif
#ifdef AI_TEST_HOOKS
			ai_test_fast_rows++;
#endif
			t->pos += n;
			t->lineno++;
			t->in_header = 0;
			r->lineno = t->lineno;
			return 1;
		}
	}
#endif
	while ((rc = next_line(t, l, &s, &e, &raw)) > 0) {
		if (t->nul && memchr(s, '\0', (size_t)(raw - s))) {
			ai_malformed(l, t->lineno, "NUL byte in line");
			continue;
		}
		f = skip_ws(s, e);
		if (f == e)
			continue;
		if (*f == '#') {
			if (!t->in_header)
				ai_malformed(l, t->lineno, "comment after the first row");
			continue;
		}
		t->in_header = 0;
		/* from the first column: the kernel's layout is in columns */
		why = parse_row(s, e, r);
		if (why) {
			ai_malformed(l, t->lineno, why);
			continue;
		}
		r->lineno = t->lineno;
		return 1;
	}
	return rc;
}
