// SPDX-License-Identifier: GPL-2.0
/* util.c - memory, numbers and sizes for the allocinfo command */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <err.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd.h"

/* double to int64_t, rounded and clamped (a plain cast out of range is UB) */
int64_t d2i64(double d)
{
	if (!(d == d))
		return 0;
	if (d >= 9223372036854775807.0)
		return INT64_MAX;
	if (d <= -9223372036854775808.0)
		return INT64_MIN;
	return (int64_t)(d < 0 ? d - 0.5 : d + 0.5);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		err(EX_RUNTIME, "malloc");
	return p;
}

void *xcalloc(size_t n, size_t m)
{
	void *p = calloc(n ? n : 1, m ? m : 1);

	if (!p)
		err(EX_RUNTIME, "calloc");
	return p;
}

void *xrealloc(void *p, size_t n, size_t m)
{
	if (m && n > SIZE_MAX / m)
		errx(EX_RUNTIME, "realloc: %zu x %zu bytes", n, m);
	p = realloc(p, n && m ? n * m : 1);
	if (!p)
		err(EX_RUNTIME, "realloc");
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		err(EX_RUNTIME, "strdup");
	return p;
}

const char *modname(const char *m)
{
	return m ? m : "vmlinux";
}

void usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarnx(fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try 'allocinfo --help' for more information.\n");
	exit(EX_USAGE_);
}

/* the decimal digits of v, written backwards from end: the first digit */
static char *digits_before(char *end, uint64_t v)
{
	do
		*--end = (char)('0' + v % 10);
	while ((v /= 10));
	return end;
}

/* v in decimal, then suffix, as "%" PRId64 "%s" prints them */
char *fmt_int(char *buf, size_t len, int64_t v, const char *suffix)
{
	char digits[24], *end = digits + sizeof(digits);
	char *d = digits_before(end, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v);
	size_t n = (size_t)(end - d), sl = strlen(suffix), at = v < 0;

	if (len < at + n + sl + 1) {
		snprintf(buf, len, "%" PRId64 "%s", v, suffix);
		return buf;
	}
	if (v < 0)
		buf[0] = '-';
	memcpy(buf + at, d, n);
	memcpy(buf + at + n, suffix, sl + 1);
	return buf;
}

/* v in decimal, as "%" PRIu64 prints it */
char *fmt_uint(char *buf, size_t len, uint64_t v)
{
	char digits[24], *end = digits + sizeof(digits), *d = digits_before(end, v);

	if (len < (size_t)(end - d) + 1) {
		snprintf(buf, len, "%" PRIu64, v);
		return buf;
	}
	memcpy(buf, d, (size_t)(end - d));
	buf[end - d] = '\0';
	return buf;
}

/* What fmt_size() prints after a size: size_unit[k] for 1024^k bytes. */
static const char *const size_unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };

/*
 * 1.5KiB, -3.0MiB; raw: the number of bytes.  Printed without printf
 * (a table of ten rows formats forty sizes): the tenths are those of
 * "%.1f" of (double)|v| / 1024^k, exactly, to nearest and ties to even,
 * as glibc rounds.
 */
char *fmt_size(char *buf, size_t len, int64_t v, int raw)
{
	uint64_t a = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	uint64_t m, low, tenths, rem, mask;
	char digits[24], *end = digits + sizeof(digits), *d, *o = buf;
	unsigned shift;
	int u = 0;

	if (raw || a < 1024)
		return fmt_int(buf, len, v, raw ? "" : size_unit[0]);
	m = (uint64_t)(double)a;	/* what "%.1f" of a double sees */
	while (u < 5 && m >> (10 * (u + 1)) >= 1024)
		u++;
	shift = 10 * (unsigned)(u + 1);
	mask = (1ULL << shift) - 1;
	low = (m & mask) * 10;		/* below 2^64: shift is at most 60 */
	tenths = (m >> shift) * 10 + (low >> shift);
	rem = low & mask;
	if (rem > mask / 2 + 1 || (rem == mask / 2 + 1 && (tenths & 1)))
		tenths++;
	d = digits_before(end, tenths / 10);
	if (len < 2 + (size_t)(end - d) + 2 + 4) {
		snprintf(buf, len, "%s%" PRIu64 ".%d%s", v < 0 ? "-" : "", tenths / 10,
			 (int)(tenths % 10), size_unit[u + 1]);
		return buf;
	}
	if (v < 0)
		*o++ = '-';
	memcpy(o, d, (size_t)(end - d));
	o += end - d;
	*o++ = '.';
	*o++ = (char)('0' + tenths % 10);
	memcpy(o, size_unit[u + 1], 4);
	return buf;
}

/* a size with its sign: +1.0KiB, -8B, 0B */
char *fmt_delta(char *buf, size_t len, int64_t v, int raw)
{
	if (v <= 0 || len < 2)
		return fmt_size(buf, len, v, raw);
	buf[0] = '+';
	fmt_size(buf + 1, len - 1, v, raw);
	return buf;
}

/* what a size printed by fmt_size() reads as, in bytes */
static double shown_bytes(const char *s)
{
	char *end;
	double d = strtod(s, &end);

	for (size_t i = 0; i < sizeof(size_unit) / sizeof(size_unit[0]); i++, d *= 1024)
		if (!strcmp(end, size_unit[i]))
			break;
	return d;
}

/*
 * A size v above a limit, and the limit, for the checks' messages ("grew
 * by +2.0MiB, more than 2.0MiB").  When the rounded sizes would not show
 * v above the limit, both are given in bytes instead.  delta: v with its
 * sign (fmt_delta()).
 */
void fmt_over(char *vbuf, char *lbuf, size_t len, int64_t v, int64_t limit,
	      int raw, int delta)
{
	char b[32];

	fmt_size(lbuf, len, limit, raw);
	fmt_size(b, sizeof(b), v, raw);
	if (raw || shown_bytes(b) > shown_bytes(lbuf)) {
		(delta ? fmt_delta : fmt_size)(vbuf, len, v, raw);
		return;
	}
	snprintf(vbuf, len, delta && v > 0 ? "+%" PRId64 " bytes" : "%" PRId64 " bytes", v);
	snprintf(lbuf, len, "%" PRId64 " bytes", limit);
}

/* bytes per second: fractions below 1 KiB/s are kept */
char *fmt_rate(char *buf, size_t len, double v, int raw)
{
	if (raw)
		snprintf(buf, len, "%.1f", v);
	else if (v > -1024 && v < 1024)
		snprintf(buf, len, "%.1fB", v);
	else
		fmt_size(buf, len, d2i64(v), 0);
	return buf;
}

/* Read a small text file, without the trailing newline; NULL if unreadable. */
char *read_small(const char *path)
{
	FILE *f = fopen(path, "re");
	char buf[256];
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	return xstrdup(buf);
}

const char *strip_dot(const char *f)
{
	while (f[0] == '.' && f[1] == '/')
		f += 2;
	return f;
}

double now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* sleep, cut short by a signal (top and growth then look at their stop flag) */
void sleep_sec(double s)
{
	struct timespec ts;

	if (s <= 0)
		return;
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
}
