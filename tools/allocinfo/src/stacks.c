// SPDX-License-Identifier: GPL-2.0
/*
 * stacks.c - allocinfo stacks FILE:LINE: which callers of one line hold
 * its memory
 *
 * Arms the call site through vm.mem_profiling_stacks, waits while the
 * kernel records the stack of every allocation charged to it, reads the
 * site's entries of /proc/allocinfo_stacks and disarms it again, also
 * when interrupted.  A site that someone else armed is shown but left
 * armed.  With -f FILE it reads a saved copy instead (allocinfo-core
 * --stacks of a dump, or a cat of the file), every site of it or those at
 * FILE:LINE, and arms nothing.
 *
 * The kernel's text (lib/alloc_tag_stacks.c, stacks_show()):
 *
 *   allocinfo_stacks - version: 1.0
 *   site <bytes> <calls> <file>:<line> [<module>] func:<function> armed:yes|no complete:yes|no missed:<N>
 *   unrecorded <bytes> <calls>
 *   stack <bytes> <calls>
 *   	<frame>			(%pS, or the name a gone module's frame had)
 *   	...
 *
 * for each armed site, and each disarmed one whose stacks still hold
 * objects; the module part only for modules; missed:N since allocprof's
 * bounded capture (older captures lack it).  The entries are parsed into
 * sites and printed as a table in IEC units, as JSON or folded for a flame
 * graph (-n: the largest N stacks of each site).  A line that does not
 * parse is skipped with a warning naming it, fatal with --strict, as in
 * the other views; a site line that does not parse takes the lines of its
 * entry with it.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <err.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"

#define STACKS_WAIT_DEFAULT 10.0
#define STACKS_HEADER "allocinfo_stacks - version: "
/* Longer lines are malformed; the kernel's are a few hundred bytes. */
#define STACKS_LINE_MAX 65536
/* Fields of a site line: its seven, and room for pairs of later kernels */
#define SITE_FIELDS_MAX 64

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* Write @cmd to the control file; 0 or an errno value. */
static int ctl_write(const char *ctl, const char *cmd)
{
	FILE *f = fopen(ctl, "we");
	int err = 0;

	if (!f)
		return errno;
	if (fputs(cmd, f) == EOF)
		err = errno;
	if (fclose(f) && !err)
		err = errno;
	return err;
}

static const char *arm_error(int err)
{
	switch (err) {
	case ENOENT: return "no such call site in /proc/allocinfo";
	case EINVAL: return "not a FILE:LINE";
	case ENOSPC: return "the kernel's limit of armed call sites is reached";
	case EOPNOTSUPP: return "this kernel's stack walker finds no frames";
	case EACCES:
	case EPERM: return "arming needs root (CAP_SYS_ADMIN)";
	default: return strerror(err);
	}
}

/* ---- the parsed file -------------------------------------------------- */

struct stack {
	int64_t bytes;
	uint64_t calls;
	size_t first, n;	/* its frames: frames[first .. first + n) */
};

struct site {
	char *file, *func, *module;	/* module NULL: vmlinux */
	unsigned long line;
	int64_t bytes;
	uint64_t calls;
	int armed, complete;
	int has_missed;			/* missed:N given (not before allocprof's bounded capture) */
	uint64_t missed;
	int has_unrec;			/* the unrecorded line was there and parsed */
	int64_t unrec_bytes;
	uint64_t unrec_calls;
	struct stack *st;
	size_t nst, cap;
};

struct stacks_file {
	const char *name;		/* for messages */
	int major, minor;
	struct site *sites;
	size_t n, cap;
	char **frames;
	size_t nframes, fcap;
	size_t malformed;
	size_t mem, mem_max;		/* what the entries take, and its limit (0: none) */
	/* FILE:LINE of the command line: only its sites are kept (NULL: all) */
	const char *want_file;
	unsigned long want_line;
};

static void sf_free(struct stacks_file *sf)
{
	for (size_t i = 0; i < sf->n; i++) {
		free(sf->sites[i].file);
		free(sf->sites[i].func);
		free(sf->sites[i].module);
		free(sf->sites[i].st);
	}
	for (size_t i = 0; i < sf->nframes; i++)
		free(sf->frames[i]);
	free(sf->sites);
	free(sf->frames);
}

/* Count @n bytes kept; 1 once they go past the limit. */
static int sf_charge(struct stacks_file *sf, size_t n)
{
	sf->mem = sf->mem > SIZE_MAX - n ? SIZE_MAX : sf->mem + n;
	return sf->mem_max && sf->mem > sf->mem_max;
}

static void bad_line(struct stacks_file *sf, size_t lineno, const char *why)
{
	if (sf->malformed++ < ALLOCINFO_MALFORMED_MAX)
		warnx("%s:%zu: malformed line: %s", sf->name, lineno, why);
}

/* a whole token as a signed decimal count (unsigned ones: parse_count()) */
static int parse_i64(const char *s, int64_t *out)
{
	int neg = *s == '-';
	uint64_t v;

	if (!parse_count(s + neg, &v) || v > (uint64_t)INT64_MAX + neg)
		return 0;
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 1;
}

/* "FILE:LINE" as the kernel prints and parses it (the last colon) */
static int parse_loc(const char *s, size_t *flen, unsigned long *line)
{
	const char *c = strrchr(s, ':');
	uint64_t v;

	if (!c || c == s || !parse_count(c + 1, &v) || !v || v > UINT_MAX)
		return 0;
	*flen = (size_t)(c - s);
	*line = (unsigned long)v;
	return 1;
}

/* Split @s at blanks, in place; the number of fields, or -1 past @max. */
static int split(char *s, char **f, int max)
{
	int n = 0;

	for (;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			return n;
		if (n == max)
			return -1;
		f[n++] = s;
		while (*s && *s != ' ' && *s != '\t')
			s++;
		if (*s)
			*s++ = '\0';
	}
}

static int yes_no(const char *v, int *out)
{
	if (!strcmp(v, "yes"))
		*out = 1;
	else if (!strcmp(v, "no"))
		*out = 0;
	else
		return 0;
	return 1;
}

/*
 * A site line, split into @f[0..n).  Fills @s (names pointing into the
 * line); returns NULL, or why the line is malformed.
 */
static const char *parse_site(char **f, int n, struct site *s, size_t *flen)
{
	int i = 4, armed = 0, complete = 0;

	memset(s, 0, sizeof(*s));
	if (n < 5)
		return "expected 'site BYTES CALLS FILE:LINE [MODULE] func:NAME armed:yes|no "
		       "complete:yes|no missed:N'";
	if (!parse_i64(f[1], &s->bytes))
		return "site bytes: expected a signed decimal count";
	if (!parse_count(f[2], &s->calls))
		return "site calls: expected an unsigned decimal count";
	if (!parse_loc(f[3], flen, &s->line))
		return "expected FILE:LINE after the counts";
	s->file = f[3];
	if (f[4][0] == '[') {
		size_t l = strlen(f[4]);

		if (l < 3 || f[4][l - 1] != ']')
			return "expected [MODULE] after FILE:LINE";
		f[4][l - 1] = '\0';
		s->module = f[4] + 1;
		i++;
	}
	if (i >= n || strncmp(f[i], "func:", 5) || !f[i][5])
		return "expected func:NAME";
	s->func = f[i] + 5;
	/* armed, complete, missed; pairs of later kernels are passed over */
	for (i++; i < n; i++) {
		const char *c = strchr(f[i], ':'), *v = c ? c + 1 : NULL;
		size_t kl = c ? (size_t)(c - f[i]) : 0;

		if (!kl)
			return "expected key:value pairs after func:NAME";
		if (kl == 5 && !strncmp(f[i], "armed", 5)) {
			if (armed++ || !yes_no(v, &s->armed))
				return "expected one armed:yes or armed:no";
		} else if (kl == 8 && !strncmp(f[i], "complete", 8)) {
			if (complete++ || !yes_no(v, &s->complete))
				return "expected one complete:yes or complete:no";
		} else if (kl == 6 && !strncmp(f[i], "missed", 6)) {
			if (s->has_missed++ || !parse_count(v, &s->missed))
				return "expected one missed:N, N an unsigned decimal count";
		}
	}
	if (!armed)
		return "no armed:yes|no";
	if (!complete)
		return "no complete:yes|no";
	return NULL;
}

/* "unrecorded B C" or "stack B C" */
static const char *parse_counts(char **f, int n, int64_t *b, uint64_t *c)
{
	if (n != 3)
		return n < 3 ? "expected BYTES CALLS after the keyword" :
			       "more than BYTES CALLS after the keyword";
	if (!parse_i64(f[1], b))
		return "bytes: expected a signed decimal count";
	if (!parse_count(f[2], c))
		return "calls: expected an unsigned decimal count";
	return NULL;
}

/* The reader's state between lines. */
struct pstate {
	size_t lineno;
	int in_site;		/* a site line parsed, whether kept or not */
	int skip;		/* lines of a malformed site line's entry: passed over */
	struct site *cur;	/* the site kept, NULL if filtered out */
	int has_unrec;
	size_t site_line;
	int in_stack;		/* frames may follow */
	int stack_kept;
};

/* the end of a site's entry: its unrecorded line must have come */
static void site_end(struct stacks_file *sf, struct pstate *p)
{
	if (p->in_site && !p->has_unrec)
		bad_line(sf, p->site_line, "a site without its unrecorded line");
	p->in_site = 0;
	p->cur = NULL;
	p->in_stack = 0;
}

/* One line after the header, without its newline and trailing blanks. */
static int parse_line(struct stacks_file *sf, struct pstate *p, char *line)
{
	char *f[SITE_FIELDS_MAX];
	const char *why;
	int n;

	if (!*line)
		return 0;
	if (*line == ' ' || *line == '\t') {	/* a frame */
		if (p->skip)
			return 0;
		if (!p->in_stack) {
			bad_line(sf, p->lineno, "a frame outside a stack");
			return 0;
		}
		if (p->stack_kept) {
			struct stack *st = &p->cur->st[p->cur->nst - 1];

			while (*line == ' ' || *line == '\t')
				line++;
			if (sf->nframes == sf->fcap) {
				sf->fcap = sf->fcap ? sf->fcap * 2 : 256;
				sf->frames = xrealloc(sf->frames, sf->fcap, sizeof(*sf->frames));
			}
			sf->frames[sf->nframes++] = xstrdup(line);
			st->n++;
			if (sf_charge(sf, strlen(line) + 1 + 16 + sizeof(char *)))
				return -1;
		}
		return 0;
	}
	n = split(line, f, SITE_FIELDS_MAX);
	if (!strcmp(f[0], "site")) {
		struct site s;
		size_t flen = 0;
		int keep;

		site_end(sf, p);
		p->skip = 0;
		why = n < 0 ? "too many fields" : parse_site(f, n, &s, &flen);
		if (why) {
			bad_line(sf, p->lineno, why);
			p->skip = 1;
			return 0;
		}
		p->in_site = 1;
		p->has_unrec = 0;
		p->site_line = p->lineno;
		keep = !sf->want_file || (s.line == sf->want_line &&
					  strlen(sf->want_file) == flen &&
					  !strncmp(s.file, sf->want_file, flen));
		if (!keep)
			return 0;
		s.file = xstrdup(s.file);
		s.file[flen] = '\0';
		s.func = xstrdup(s.func);
		if (s.module)
			s.module = xstrdup(s.module);
		if (sf->n == sf->cap) {
			sf->cap = sf->cap ? sf->cap * 2 : 8;
			sf->sites = xrealloc(sf->sites, sf->cap, sizeof(*sf->sites));
		}
		sf->sites[sf->n] = s;
		p->cur = &sf->sites[sf->n++];
		return sf_charge(sf, sizeof(s) + strlen(s.file) + strlen(s.func) +
				 (s.module ? strlen(s.module) : 0) + 48) ? -1 : 0;
	}
	if (!strcmp(f[0], "unrecorded") || !strcmp(f[0], "stack")) {
		int unrec = f[0][0] == 'u';
		int64_t b = 0;
		uint64_t c = 0;

		if (p->skip)
			return 0;
		if (!p->in_site)
			why = unrec ? "an unrecorded line before any site line" :
			      "a stack line before any site line";
		else if (n < 0)
			why = "too many fields";
		else
			why = parse_counts(f, n, &b, &c);
		if (!why && unrec && p->has_unrec)
			why = "a second unrecorded line for one site";
		if (why) {
			bad_line(sf, p->lineno, why);
			/* a bad stack line's frames go with it */
			p->in_stack = !unrec;
			p->stack_kept = 0;
			/* a bad unrecorded line is said once: its site is not without one */
			p->has_unrec |= unrec && p->in_site;
			return 0;
		}
		if (unrec) {
			p->has_unrec = 1;
			if (p->cur) {
				p->cur->has_unrec = 1;
				p->cur->unrec_bytes = b;
				p->cur->unrec_calls = c;
			}
			return 0;
		}
		p->in_stack = 1;
		p->stack_kept = p->cur != NULL;
		if (!p->cur)
			return 0;
		if (p->cur->nst == p->cur->cap) {
			p->cur->cap = p->cur->cap ? p->cur->cap * 2 : 8;
			p->cur->st = xrealloc(p->cur->st, p->cur->cap, sizeof(*p->cur->st));
		}
		p->cur->st[p->cur->nst++] = (struct stack){ b, c, sf->nframes, 0 };
		return sf_charge(sf, sizeof(struct stack)) ? -1 : 0;
	}
	if (p->skip)
		return 0;
	bad_line(sf, p->lineno, "not a site, unrecorded, stack or frame line");
	p->in_stack = 0;
	return 0;
}

/*
 * A line too long or with a NUL byte: what it was decides what its
 * followers belong to.  A site line takes its entry with it, a stack
 * line its frames; a lost frame leaves its stack one frame short.
 */
static void lost_line(struct stacks_file *sf, struct pstate *p, const char *line,
		      const char *why)
{
	bad_line(sf, p->lineno, why);
	if (*line == ' ' || *line == '\t' || p->skip)
		return;
	if (!strncmp(line, "site", 4)) {
		site_end(sf, p);
		p->skip = 1;
	} else if (!strncmp(line, "stack", 5)) {
		p->in_stack = p->in_site;
		p->stack_kept = 0;
	} else {
		p->in_stack = 0;
		if (!strncmp(line, "unrecorded", 10))
			p->has_unrec = 1;	/* said once */
	}
}

/* "allocinfo_stacks - version: X.Y[...]": 1 and the version, or 0 */
static int parse_header(const char *line, int *major, int *minor)
{
	const char *v = line + strlen(STACKS_HEADER);
	char *end;
	long ma, mi;

	if (strncmp(line, STACKS_HEADER, strlen(STACKS_HEADER)) || *v < '0' || *v > '9')
		return 0;
	errno = 0;
	ma = strtol(v, &end, 10);
	if (*end != '.' || end[1] < '0' || end[1] > '9')
		return 0;
	mi = strtol(end + 1, &end, 10);
	if (errno || ma > INT_MAX || mi > INT_MAX || (*end && *end != '.'))
		return 0;
	*major = (int)ma;
	*minor = (int)mi;
	return 1;
}

/*
 * Read the stacks file @path ("-": standard input) into @sf, keeping
 * the sites at @sf->want_file:@sf->want_line (all if want_file is NULL).
 * Returns 0, or an exit status after saying why.
 */
static int read_stacks(struct stacks_file *sf, const struct opts *o,
		       const char *path, int live)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "re") : stdin;
	char *line = xmalloc(STACKS_LINE_MAX + 1);
	struct pstate p;
	size_t total = 0;
	int header = 0, rc = 0, c = 0;

	memset(&p, 0, sizeof(p));
	if (!f) {
		if (live && (errno == EACCES || errno == EPERM))
			warnx("%s: permission denied: the file is mode 0400, reading "
			      "it needs root", sf->name);
		else
			warn("%s", sf->name);
		free(line);
		return EX_RUNTIME;
	}
	while (c != EOF) {
		size_t len = 0, nul = 0, over = 0;

		/* one line: bytes past STACKS_LINE_MAX are counted, not kept */
		while ((c = getc_unlocked(f)) != EOF) {
			if (o->max_input && ++total > o->max_input)
				break;
			if (c == '\n')
				break;
			if (len < STACKS_LINE_MAX)
				line[len++] = (char)c;
			else
				over = 1;
			nul |= !c;
		}
		if (o->max_input && total > o->max_input) {
			char lim[32];

			warnx("%s: input too large: more than %s (--max-input raises the limit)",
			      sf->name, fmt_size(lim, sizeof(lim), (int64_t)o->max_input, 0));
			rc = EX_RUNTIME;
			break;
		}
		if (c == EOF && !len && !over)
			break;
		p.lineno++;
		while (len && (line[len - 1] == '\r' || line[len - 1] == ' ' ||
			       line[len - 1] == '\t'))
			len--;
		line[len] = '\0';
		if (!header) {
			/* comment lines may come first, as in snapshots */
			if (!len || line[0] == '#')
				continue;
			if (!parse_header(line, &sf->major, &sf->minor)) {
				warnx("%s: not an allocinfo_stacks file (no '%s1.0' line "
				      "first)", sf->name, STACKS_HEADER);
				rc = EX_RUNTIME;
				break;
			}
			if (sf->major != 1) {
				warnx("%s: unsupported format version %d.%d (this allocinfo "
				      "reads allocinfo_stacks 1.x)", sf->name, sf->major,
				      sf->minor);
				rc = EX_RUNTIME;
				break;
			}
			header = 1;
			continue;
		}
		if (over || nul) {
			lost_line(sf, &p, line, over ? "longer than 65536 bytes" : "a NUL byte");
			continue;
		}
		if (parse_line(sf, &p, line)) {
			rc = too_big(o, path);
			break;
		}
	}
	if (!rc && ferror(f)) {
		warn("%s", sf->name);
		rc = EX_RUNTIME;
	}
	if (!rc && !header) {
		warnx("%s: %s", sf->name, p.lineno ? "not an allocinfo_stacks file (no "
		      "version line)" : "empty");
		rc = EX_RUNTIME;
	}
	if (!rc)
		site_end(sf, &p);
	if (f != stdin)
		fclose(f);
	free(line);
	if (rc)
		return rc;
	if (sf->malformed) {
		if (sf->malformed > ALLOCINFO_MALFORMED_MAX)
			warnx("%s: ... and %zu more malformed lines", sf->name,
			      sf->malformed - ALLOCINFO_MALFORMED_MAX);
		warnx("%s: %zu malformed line%s skipped%s", sf->name, sf->malformed,
		      sf->malformed == 1 ? "" : "s",
		      o->strict ? " (fatal with --strict)" : "");
		if (o->strict)
			return EX_MALFORMED;
	}
	return 0;
}

/* ---- output ----------------------------------------------------------- */

/* largest first; ties by calls, then as listed */
static int stack_cmp(const void *a, const void *b)
{
	const struct stack *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	if (x->calls != y->calls)
		return x->calls < y->calls ? 1 : -1;
	return (x->first > y->first) - (x->first < y->first);
}

static void fmt_avg(char *buf, size_t len, int64_t bytes, uint64_t calls, int raw)
{
	if (calls)
		fmt_size(buf, len, avg_bytes(bytes, calls), raw);
	else
		snprintf(buf, len, "-");
}

static void count_cells(char cell[][NUMCELL], int64_t bytes, uint64_t calls, int raw)
{
	fmt_size(cell[0], NUMCELL, bytes, raw);
	fmt_uint(cell[1], NUMCELL, calls);
	fmt_avg(cell[2], NUMCELL, bytes, calls, raw);
}

/* a size in a sentence: IEC units, or with -b "N bytes" */
static char *prose_size(char *buf, size_t len, int64_t v, int raw)
{
	size_t n;

	fmt_size(buf, len, v, raw);
	n = strlen(buf);
	if (raw)
		snprintf(buf + n, len - n, v == 1 || v == -1 ? " byte" : " bytes");
	return buf;
}

static void site_title(FILE *f, const struct site *s, const struct opts *o)
{
	char b[NUMCELL];

	put_text(f, s->file);
	fprintf(f, ":%lu ", s->line);
	put_text(f, s->func);
	if (s->module) {
		fputs(" [", f);
		put_text(f, s->module);
		fputc(']', f);
	}
	fprintf(f, ": %s in %" PRIu64 " call%s, %s, ",
		prose_size(b, sizeof(b), s->bytes, o->raw), s->calls,
		s->calls == 1 ? "" : "s", s->armed ? "armed" : "disarmed, draining");
	if (s->complete)
		fputs("complete", f);
	else if (s->has_missed)
		fprintf(f, "incomplete: %" PRIu64 " charge%s missed", s->missed,
			s->missed == 1 ? "" : "s");
	else
		fputs("incomplete", f);
	fputc('\n', f);
}

static void table_site(FILE *f, const struct stacks_file *sf, const struct site *s,
		       size_t shown, const struct opts *o)
{
	static const int minw[3] = { 5, 5, 3 };
	static const char *const title[3] = { "BYTES", "CALLS", "AVG" };
	char cell[3][NUMCELL];
	struct numcols nc;
	int64_t hb = 0;
	uint64_t hc = 0;

	numcols_init(&nc, 3, minw);
	for (size_t i = 0; i < shown; i++) {
		count_cells(cell, s->st[i].bytes, s->st[i].calls, o->raw);
		numcols_add(&nc, cell);
	}
	if (s->has_unrec) {
		count_cells(cell, s->unrec_bytes, s->unrec_calls, o->raw);
		numcols_add(&nc, cell);
	}
	site_title(f, s, o);
	for (int i = 0; i < 3; i++)
		snprintf(cell[i], NUMCELL, "%s", title[i]);
	numcols_put(f, &nc, cell);
	fputs("  STACK\n", f);
	for (size_t i = 0; i < shown; i++) {
		const struct stack *st = &s->st[i];

		count_cells(cell, st->bytes, st->calls, o->raw);
		numcols_put(f, &nc, cell);
		fputs("  ", f);
		if (!st->n)
			fputs("(no frames)\n", f);
		for (size_t j = 0; j < st->n; j++) {
			if (j) {
				for (int k = 0; k < 3; k++)
					cell[k][0] = '\0';
				numcols_put(f, &nc, cell);
				fputs("  ", f);
			}
			put_text(f, sf->frames[st->first + j]);
			fputc('\n', f);
		}
	}
	if (s->has_unrec)
		count_cells(cell, s->unrec_bytes, s->unrec_calls, o->raw);
	else
		for (int k = 0; k < 3; k++)
			snprintf(cell[k], NUMCELL, "-");
	numcols_put(f, &nc, cell);
	fputs("  [unrecorded]\n", f);
	fprintf(f, "-- %zu stack%s (%zu shown)", s->nst, s->nst == 1 ? "" : "s", shown);
	for (size_t i = shown; i < s->nst; i++) {
		hb = sat_add(hb, s->st[i].bytes);
		hc = sat_addu(hc, s->st[i].calls);
	}
	if (shown + 1 == s->nst)
		fputs(", the other holds ", f);
	else if (shown < s->nst)
		fprintf(f, ", the other %zu hold ", s->nst - shown);
	if (shown < s->nst)
		fprintf(f, "%s in %" PRIu64 " call%s",
			prose_size(cell[0], NUMCELL, hb, o->raw), hc, hc == 1 ? "" : "s");
	fputc('\n', f);
}

static void json_site(FILE *f, const struct stacks_file *sf, const struct site *s,
		      size_t shown)
{
	fputs("{\"file\":", f);
	put_json_str(f, s->file);
	fprintf(f, ",\"line\":%lu,\"func\":", s->line);
	put_json_str(f, s->func);
	fputs(",\"module\":", f);
	put_json_str(f, modname(s->module));
	fprintf(f, ",\"bytes\":%" PRId64 ",\"calls\":%" PRIu64 ",\"armed\":%s"
		",\"complete\":%s,\"missed\":", s->bytes, s->calls,
		s->armed ? "true" : "false", s->complete ? "true" : "false");
	if (s->has_missed)
		fprintf(f, "%" PRIu64, s->missed);
	else
		fputs("null", f);
	fputs(",\"unrecorded\":", f);
	if (s->has_unrec)
		fprintf(f, "{\"bytes\":%" PRId64 ",\"calls\":%" PRIu64 "}", s->unrec_bytes,
			s->unrec_calls);
	else
		fputs("null", f);
	fprintf(f, ",\"count\":%zu,\"shown\":%zu,\"stacks\":[", s->nst, shown);
	for (size_t i = 0; i < shown; i++) {
		const struct stack *st = &s->st[i];

		fprintf(f, "%s\n{\"bytes\":%" PRId64 ",\"calls\":%" PRIu64 ",\"avg\":",
			i ? "," : "", st->bytes, st->calls);
		if (st->calls)
			fprintf(f, "%" PRId64, avg_bytes(st->bytes, st->calls));
		else
			fputs("null", f);
		fputs(",\"frames\":[", f);
		for (size_t j = 0; j < st->n; j++) {
			if (j)
				fputc(',', f);
			put_json_str(f, sf->frames[st->first + j]);
		}
		fputs("]}", f);
	}
	fputs("]}", f);
}

/* a frame's part of a folded line: ';' and blanks would split it */
static void folded_name(FILE *f, const char *s, size_t n)
{
	for (size_t i = 0; i < n && s[i]; i++)
		fputc(s[i] == ';' || s[i] == ' ' || s[i] == '\t' ? '_' : s[i], f);
}

/* The function of a frame as %pS prints it: "sym+0xoff/0xsize [mod]" */
static size_t frame_func(const char *fr)
{
	size_t n = strcspn(fr, " \t");
	const char *plus = NULL;

	for (const char *p = fr; p < fr + n; p++)
		if (p[0] == '+' && p[1] == '0' && p[2] == 'x')
			plus = p;
	return plus && plus > fr ? (size_t)(plus - fr) : n;
}

/* symbol @sym (@n bytes) is function @fn or a compiler clone of it (fn.isra.0) */
static int frame_is(const char *sym, size_t n, const char *fn)
{
	size_t l = strlen(fn);

	return n >= l && !strncmp(sym, fn, l) && (n == l || sym[l] == '.');
}

/*
 * Root first, callers joined by ';', the site's function as the leaf,
 * then the bytes: the stack's first frame, the site's function (or a
 * clone of it), is that leaf.  Stacks of no or negative bytes are left
 * out, as in the default view's --folded.
 */
static void folded_site(FILE *f, const struct stacks_file *sf, const struct site *s,
			size_t shown)
{
	for (size_t i = 0; i < shown; i++) {
		const struct stack *st = &s->st[i];
		size_t n = st->n;

		if (st->bytes <= 0)
			continue;
		if (n) {
			const char *leaf = sf->frames[st->first];

			if (frame_is(leaf, frame_func(leaf), s->func))
				n--;
		}
		for (size_t j = st->first + st->n; n; n--) {
			const char *fr = sf->frames[--j];

			folded_name(f, fr, frame_func(fr));
			fputc(';', f);
		}
		folded_name(f, s->func, SIZE_MAX);
		fprintf(f, " %" PRId64 "\n", st->bytes);
	}
	if (s->has_unrec && s->unrec_bytes > 0) {
		fputs("[unrecorded];", f);
		folded_name(f, s->func, SIZE_MAX);
		fprintf(f, " %" PRId64 "\n", s->unrec_bytes);
	}
}

static void output_stacks(FILE *f, struct stacks_file *sf, const struct opts *o)
{
	size_t lim = limit_of(o, o->fmt == FMT_TABLE);

	if (o->fmt == FMT_JSON)
		fprintf(f, "{\"version\":\"%d.%d\",\"count\":%zu,\"malformed\":%zu,\"sites\":[",
			sf->major, sf->minor, sf->n, sf->malformed);
	else if (o->fmt == FMT_TABLE && !sf->n)
		fputs("-- no call site armed or draining\n", f);
	for (size_t i = 0; i < sf->n; i++) {
		struct site *s = &sf->sites[i];
		size_t shown = s->nst < lim ? s->nst : lim;

		if (s->nst > 1)
			qsort(s->st, s->nst, sizeof(*s->st), stack_cmp);
		switch (o->fmt) {
		case FMT_JSON:
			fputs(i ? ",\n" : "\n", f);
			json_site(f, sf, s, shown);
			break;
		case FMT_FOLDED:
			folded_site(f, sf, s, shown);
			break;
		default:
			if (i)
				fputc('\n', f);
			table_site(f, sf, s, shown, o);
			break;
		}
	}
	if (o->fmt == FMT_JSON)
		fputs("\n]}\n", f);
}

/* ---- the command ------------------------------------------------------ */

static void check_stacks_opts(const struct opts *o)
{
	if (o->fmt != FMT_TABLE && o->fmt != FMT_JSON && o->fmt != FMT_FOLDED)
		usage_error("stacks prints a table, --json or --folded");
	if (o->group)
		usage_error("stacks lists the stacks of call sites: --group does not apply");
	if (o->npat || o->min_bytes_set || o->min_calls_set || o->nonzero)
		usage_error("stacks selects its call sites by FILE:LINE: the filters do "
			    "not apply");
	if (o->sort_given)
		usage_error("stacks orders the stacks of a site itself (largest first): "
			    "-s does not apply");
	if (o->iterations >= 0 || o->count >= 0 || o->unchanged)
		usage_error("-i, -c and --unchanged belong to other subcommands");
	if (o->input && o->delay >= 0)
		usage_error("-d is how long a live site records: a saved copy (-f) "
			    "has no wait");
}

/* FILE:LINE of the command line, into the filter of @sf */
static void want_site(struct stacks_file *sf, const char *arg, const struct opts *o)
{
	size_t flen;

	if (arg[0] == '-' || !parse_loc(arg, &flen, &sf->want_line))
		usage_error("'%s' is not a FILE:LINE as /proc/allocinfo prints them%s",
			    arg, !o->input && !strchr(arg, ':') ?
			    " (a saved copy of /proc/allocinfo_stacks is read with -f)" : "");
	sf->want_file = strndup(arg, flen);
	if (!sf->want_file)
		err(EX_RUNTIME, "strndup");
}

/* Arm, wait, read, disarm: 0 or an exit status; @sf read when 0. */
static int record_live(struct stacks_file *sf, const char *site, struct opts *o)
{
	char ctl[4096], list[4096], *disarm;
	double wait = o->delay >= 0 ? o->delay : STACKS_WAIT_DEFAULT;
	struct sigaction sa;
	int err, armed = 0, rc;

	snprintf(ctl, sizeof(ctl), "%s/sys/vm/mem_profiling_stacks", o->proc_root);
	snprintf(list, sizeof(list), "%s/allocinfo_stacks", o->proc_root);
	if (access(ctl, F_OK)) {
		warnx("this kernel cannot record stacks (no %s)", ctl);
		return EX_RUNTIME;
	}
	err = ctl_write(ctl, site);
	if (err == EBUSY) {
		warnx("%s is armed already: showing it, leaving it armed", site);
	} else if (err) {
		warnx("cannot arm %s: %s", site, arm_error(err));
		return EX_RUNTIME;
	} else {
		armed = 1;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	if (o->verbose)
		fprintf(stderr, "allocinfo: recording the stacks of %s for %g s\n",
			site, wait);
	if (!interrupted)
		sleep_sec(wait);

	sf->name = list;
	rc = read_stacks(sf, o, list, 1);
	sf->name = NULL;
	if (armed) {
		disarm = xmalloc(strlen(site) + 2);
		sprintf(disarm, "-%s", site);
		err = ctl_write(ctl, disarm);
		free(disarm);
		if (err) {
			warnx("cannot disarm %s: %s", site, strerror(err));
			return EX_RUNTIME;
		}
	}
	return rc;
}

int cmd_stacks(int npos, char **pos, struct opts *o)
{
	struct stacks_file sf;
	struct outfile of;
	const char *site = npos ? pos[0] : NULL;
	int rc;

	check_stacks_opts(o);
	if (npos > 1 || (!o->input && npos != 1))
		usage_error(o->input ? "stacks -f FILE takes at most one FILE:LINE" :
			    "stacks takes one FILE:LINE (or -f FILE, a saved copy)");
	memset(&sf, 0, sizeof(sf));
	sf.mem_max = mem_limit(o);
	if (site)
		want_site(&sf, site, o);
	if (o->input) {
		sf.name = src_name(o, o->input);
		rc = read_stacks(&sf, o, o->input, 0);
	} else {
		rc = record_live(&sf, site, o);
	}
	if (!rc && site && !sf.n) {
		if (o->input)
			warnx("%s: no stacks listed in %s", site, sf.name);
		else
			warnx("%s: no stacks listed", site);
		rc = EX_RUNTIME;
	}
	if (!rc) {
		out_open(&of, o, 0644);
		output_stacks(of.f, &sf, o);
		rc = out_close(&of, 1);
	}
	free((char *)sf.want_file);
	sf_free(&sf);
	return rc;
}
