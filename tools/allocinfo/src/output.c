// SPDX-License-Identifier: GPL-2.0
/*
 * output.c - the table, JSON, CSV and folded formats, and where they go
 *
 * Names come from the kernel as bytes.  Each format escapes what it must:
 * JSON and the metrics formats need valid UTF-8, so a byte that is not
 * becomes the text \xNN, and so it does in the table and top, which also
 * replace control characters, which a terminal would act on, with '?'.
 * Columns of names are as wide as their longest entry among the rows
 * shown.
 *
 * -o FILE is written under a temporary name in FILE's directory and
 * renamed over FILE once complete, so a reader (node_exporter's textfile
 * collector, a script) sees the old file or the new one, never half of
 * one, and a failed run leaves the old one in place.
 */
#define _POSIX_C_SOURCE 200809L
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"

/* ---- -o FILE ---------------------------------------------------------- */

/*
 * Open the output: standard output, or a temporary file beside o->output
 * created with mode (0600 for snapshots, which hold what only root may
 * read; 0644 less the umask otherwise).  A FILE that exists and is not a
 * regular file (/dev/null, a FIFO) is opened and written as it is: a
 * rename would replace the device or the pipe with a file.  Exits on
 * failure.
 */
FILE *out_open(struct outfile *of, const struct opts *o, int mode)
{
	struct stat st;
	size_t n;
	int fd;

	memset(of, 0, sizeof(*of));
	if (!o->output || !strcmp(o->output, "-")) {
		of->f = stdout;
		return of->f;
	}
	of->path = o->output;
	/* a device or a pipe (/dev/null, a FIFO) is written, never replaced */
	if (!stat(o->output, &st) && !S_ISREG(st.st_mode)) {
		if (!(of->f = fopen(o->output, "w")))
			err(EX_RUNTIME, "%s", o->output);
		return of->f;
	}
	n = strlen(o->output) + 16;
	of->tmp = xmalloc(n);
	snprintf(of->tmp, n, "%s.tmp%ld", o->output, (long)getpid());
	/* never through a link someone left at the temporary name */
	fd = open(of->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, (mode_t)mode);
	if (fd < 0 || !(of->f = fdopen(fd, "w")))
		err(EX_RUNTIME, "%s", of->tmp);
	return of->f;
}

/*
 * Finish the output: flush, and for -o make the file durable and rename it
 * over the target; with ok 0 (the view failed) drop it and keep the old
 * file.  Returns 0 or EX_RUNTIME (said why).
 */
int out_close(struct outfile *of, int ok)
{
	int bad;

	if (of->f == stdout) {
		/* out before anything the view says about it on stderr */
		fflush(of->f);
		return 0;	/* main() checks stdout's errors */
	}
	if (!of->tmp) {		/* a device or a pipe, written in place */
		bad = fflush(of->f) || ferror(of->f);
		if (fclose(of->f) || bad) {
			warn("%s", of->path);
			return EX_RUNTIME;
		}
		return 0;
	}
	bad = fflush(of->f) || ferror(of->f) || (ok && fsync(fileno(of->f)));
	if (bad)
		warn("%s", of->path);
	if (fclose(of->f) && !bad) {
		warn("%s", of->path);
		bad = 1;
	}
	if (!bad && ok && rename(of->tmp, of->path)) {
		warn("rename %s to %s", of->tmp, of->path);
		bad = 1;
	}
	if (bad || !ok)
		unlink(of->tmp);
	free(of->tmp);
	of->tmp = NULL;
	return bad ? EX_RUNTIME : 0;
}

/* ---- escaping --------------------------------------------------------- */

/*
 * Length of the valid UTF-8 sequence at s (1 to 4), or 0 if the byte at s
 * does not start one: stray continuation bytes, sequences cut short,
 * overlong forms, surrogates and code points above U+10FFFF are invalid.
 */
static size_t utf8_len(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (u[0] < 0x80)
		return 1;
	if (u[0] >= 0xc2 && u[0] <= 0xdf)
		n = 2;
	else if (u[0] >= 0xe0 && u[0] <= 0xef)
		n = 3;
	else if (u[0] >= 0xf0 && u[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (u[0] == 0xe0)
		lo = 0xa0;
	else if (u[0] == 0xed)
		hi = 0x9f;
	else if (u[0] == 0xf0)
		lo = 0x90;
	else if (u[0] == 0xf4)
		hi = 0x8f;
	if (u[1] < lo || u[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (u[i] < 0x80 || u[i] > 0xbf)
			return 0;
	return n;
}

/*
 * The length of the run at s that JSON and labels write as it is:
 * printable ASCII but the double quote and the backslash, and valid UTF-8
 * sequences.  The escaping functions write such runs with one call and
 * look at the rest one byte at a time.
 */
static size_t plain_run(const char *s)
{
	const char *p = s;

	for (;;) {
		unsigned char c = (unsigned char)*p;
		size_t n;

		if (c >= 0x20 && c < 0x7f) {
			if (c == '"' || c == '\\')
				break;
			p++;
		} else if (c >= 0x80 && (n = utf8_len(p))) {
			p += n;
		} else {
			break;
		}
	}
	return (size_t)(p - s);
}

/*
 * JSON string.  Bytes that are not UTF-8 cannot be in a JSON text: they
 * are written as the four characters \xNN (a backslash escaped as \\),
 * which keeps every byte visible and the file loadable.
 */
void put_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	while (*s) {
		size_t n = plain_run(s);
		unsigned char c;

		fwrite(s, 1, n, f);
		s += n;
		if (!(c = (unsigned char)*s))
			break;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else if (c == 0x7f)
			fputc(c, f);
		else
			fprintf(f, "\\\\x%02x", c);	/* not UTF-8 */
		s++;
	}
	fputc('"', f);
}

/* A row's call site, or with -g its group key and number of sites. */
void put_json_where(FILE *f, const struct row *r, enum group group)
{
	if (group) {
		fprintf(f, ",\"sites\":%zu,\"key\":", r->sites);
		put_json_str(f, r->key);
		return;
	}
	fputs(",\"file\":", f);
	put_json_str(f, r->file);
	fprintf(f, ",\"line\":%lu,\"func\":", r->line);
	put_json_str(f, r->func);
	fputs(",\"module\":", f);
	put_json_str(f, modname(r->module));
}

/*
 * Label value (OpenMetrics and the Prometheus text format alike):
 * backslash, double quote and newline escaped; bytes that are not UTF-8,
 * which both parsers refuse, and other control characters written as the
 * text \xNN.
 */
void put_label_str(FILE *f, const char *s)
{
	fputc('"', f);
	while (*s) {
		size_t n = plain_run(s);
		unsigned char c;

		fwrite(s, 1, n, f);
		s += n;
		if (!(c = (unsigned char)*s))
			break;
		if (c == '\\')
			fputs("\\\\", f);
		else if (c == '"')
			fputs("\\\"", f);
		else if (c == '\n')
			fputs("\\n", f);
		else
			fprintf(f, "\\\\x%02x", c);
		s++;
	}
	fputc('"', f);
}

/* RFC 4180: quoted when it holds a comma, a quote or a line break */
void put_csv_str(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/*
 * For a terminal, names are shown one unit at a time: a printable ASCII
 * character or a valid UTF-8 sequence as it is; a control character,
 * C1 controls (U+0080 to U+009F) included, as '?', so that a name cannot
 * drive the terminal; a byte that is not UTF-8 as the text \xNN, as in
 * JSON and the metrics labels.  The length of the unit at s, and how it
 * is shown.
 */
enum shown { SHOWN_PLAIN, SHOWN_CONTROL, SHOWN_HEX };

static size_t term_unit(const char *s, enum shown *how)
{
	unsigned char c = (unsigned char)*s;
	size_t n;

	*how = SHOWN_PLAIN;
	if (c < 0x20 || c == 0x7f) {
		*how = SHOWN_CONTROL;
		return 1;
	}
	if (c < 0x80)
		return 1;
	n = utf8_len(s);
	if (!n) {
		*how = SHOWN_HEX;
		return 1;
	}
	if (c == 0xc2 && (unsigned char)s[1] < 0xa0)
		*how = SHOWN_CONTROL;
	return n;
}

void put_text(FILE *f, const char *s)
{
	const char *run = s;		/* shown as it is, up to s */

	while (*s) {
		enum shown how;
		size_t n = term_unit(s, &how);

		if (how == SHOWN_PLAIN) {
			s += n;
			continue;
		}
		fwrite(run, 1, (size_t)(s - run), f);
		if (how == SHOWN_CONTROL)
			fputc('?', f);
		else
			fprintf(f, "\\x%02x", (unsigned char)*s);
		s += n;
		run = s;
	}
	fwrite(run, 1, (size_t)(s - run), f);
}

/* columns a name takes on a terminal, as put_text() shows it */
int text_width(const char *s)
{
	int n = 0;

	while (*s) {
		enum shown how;

		s += term_unit(s, &how);
		n += how == SHOWN_HEX ? 4 : 1;
	}
	return n;
}

/* n blanks (none if n <= 0), as "%*s" pads */
static void put_blanks(FILE *f, int n)
{
	static const char blanks[] = "                                ";

	for (; n > 0; n -= (int)sizeof(blanks) - 1)
		fwrite(blanks, 1, n < (int)sizeof(blanks) - 1 ? (size_t)n : sizeof(blanks) - 1, f);
}

/* s right-aligned in width columns, as "%*s" prints it */
static void put_right(FILE *f, const char *s, int width)
{
	put_blanks(f, width - (int)strlen(s));
	fputs(s, f);
}

void put_padded(FILE *f, const char *s, int width, int left)
{
	int pad = width - text_width(s);

	if (!left)
		put_blanks(f, pad);
	put_text(f, s);
	if (left)
		put_blanks(f, pad);
}

int loc_width(const char *file, unsigned long line)
{
	char b[24];

	return text_width(file) + 1 + (int)strlen(fmt_uint(b, sizeof(b), line));
}

/* "file:line" padded to width */
void put_loc(FILE *f, const char *file, unsigned long line, int width)
{
	int pad = width - loc_width(file, line);
	char b[24];

	put_text(f, file);
	fputc(':', f);
	fputs(fmt_uint(b, sizeof(b), line), f);
	put_blanks(f, pad);
}

/*
 * The name columns of a table are as wide as their longest entry in the
 * rows shown, so that a long path widens its column instead of pushing
 * the columns after it out of line.
 */
void namew_init(struct namew *w)
{
	w->loc = 8;
	w->func = 8;
	w->mod = 6;
}

void namew_add(struct namew *w, const struct row *r)
{
	int n = loc_width(r->file, r->line);

	w->loc = n > w->loc ? n : w->loc;
	n = text_width(r->func);
	w->func = n > w->func ? n : w->func;
	n = text_width(modname(r->module));
	w->mod = n > w->mod ? n : w->mod;
}

/*
 * Columns of numbers, right-aligned and one space apart: each as wide as
 * its minimum or its widest cell among the rows shown, since raw byte
 * counts (-b) can be longer than any IEC value.
 */
void numcols_init(struct numcols *c, int n, const int *minw)
{
	c->n = n;
	for (int i = 0; i < n; i++)
		c->w[i] = minw[i];
}

void numcols_add(struct numcols *c, char cell[][NUMCELL])
{
	for (int i = 0; i < c->n; i++) {
		int n = (int)strlen(cell[i]);

		c->w[i] = n > c->w[i] ? n : c->w[i];
	}
}

void numcols_put(FILE *f, const struct numcols *c, char cell[][NUMCELL])
{
	for (int i = 0; i < c->n; i++) {
		if (i)
			fputc(' ', f);
		put_right(f, cell[i], c->w[i]);
	}
}

const char *group_name(const struct opts *o)
{
	static const char *const n[] = { "", "module", "dir", "file", "func" };

	return n[o->group];
}

/* the column title of a group's name */
/* what n rows of a view are: call sites, or groups with -g */
const char *rows_noun(const struct opts *o, size_t n)
{
	if (o->group)
		return n == 1 ? "group" : "groups";
	return n == 1 ? "call site" : "call sites";
}

const char *group_title(const struct opts *o)
{
	static const char *const n[] = { "", "MODULE", "DIR", "FILE", "FUNCTION" };

	return n[o->group];
}

/* ---- key:value pairs -------------------------------------------------- */

/* is pair i's key the key of an earlier pair? */
static int kv_repeated(const struct allocinfo_entry *e, size_t i)
{
	const char *k = NULL, *v = NULL, *k2 = NULL;

	allocinfo_entry_kv_get(e, i, &k, &v);
	for (size_t j = 0; j < i; j++) {
		allocinfo_entry_kv_get(e, j, &k2, &v);
		if (!strcmp(k, k2))
			return 1;
	}
	return 0;
}

/*
 * "extra": each key once, with its first value, as in the metrics formats
 * and allocinfo_entry_kv_find() (a JSON object with a key twice is read
 * differently by different parsers); a row that repeats a key also gets
 * "extra_pairs", every pair in row order, so that nothing is lost.
 */
void put_kv_json(FILE *f, const struct allocinfo_entry *e)
{
	size_t n = allocinfo_entry_kv_count(e);
	const char *k = NULL, *v = NULL;
	int rep = 0, first = 1;

	if (!n)
		return;
	fputs(",\"extra\":{", f);
	for (size_t j = 0; j < n; j++) {
		if (kv_repeated(e, j)) {
			rep = 1;
			continue;
		}
		allocinfo_entry_kv_get(e, j, &k, &v);
		if (!first)
			fputc(',', f);
		first = 0;
		put_json_str(f, k);
		fputc(':', f);
		put_json_str(f, v);
	}
	fputc('}', f);
	if (!rep)
		return;
	fputs(",\"extra_pairs\":[", f);
	for (size_t j = 0; j < n; j++) {
		allocinfo_entry_kv_get(e, j, &k, &v);
		fputs(j ? ",[" : "[", f);
		put_json_str(f, k);
		fputc(',', f);
		put_json_str(f, v);
		fputc(']', f);
	}
	fputc(']', f);
}

/* the pairs as "k:v k:v"; skip_stats leaves out those shown as columns */
static void kv_text(FILE *f, const struct allocinfo_entry *e, int skip_stats,
		    int table)
{
	const char *k = NULL, *v = NULL;
	int n = 0;

	for (size_t i = 0; e && i < allocinfo_entry_kv_count(e); i++) {
		allocinfo_entry_kv_get(e, i, &k, &v);
		if (skip_stats && stats_key(k))
			continue;
		if (n++)
			fputc(' ', f);
		if (table) {
			put_text(f, k);
			fputc(':', f);
			put_text(f, v);
		} else {
			fprintf(f, "%s:%s", k, v);
		}
	}
}

/* Pairs of @r left for the EXTRA column: those not shown as columns. */
static size_t extra_count(const struct row *r, int stats_cols)
{
	size_t n = allocinfo_entry_kv_count(r->e);
	const char *k = NULL, *v = NULL;

	if (!stats_cols || !r->st.valid || !r->e)
		return n;
	for (size_t i = 0; i < allocinfo_entry_kv_count(r->e); i++) {
		allocinfo_entry_kv_get(r->e, i, &k, &v);
		n -= stats_key(k);
	}
	return n;
}

/* ---- table ------------------------------------------------------------ */

/* Widths of the lifetime count columns: ALLOCS CHURN FAILED SLACK. */
struct stats_w {
	int on, a, c, f, s;
};

static int widen(const char *s, int w)
{
	int n = text_width(s);

	return n > w ? n : w;
}

static void stats_text(const struct stats *st, int raw, char a[32], char c[64],
		       char fl[32], char sl[64])
{
	if (!st->valid) {
		strcpy(a, "-");
		strcpy(c, "-");
		strcpy(fl, "-");
		strcpy(sl, "-");
		return;
	}
	snprintf(a, 32, "%" PRIu64, st->allocs);
	fmt_size(c, 64, st->churn > INT64_MAX ? INT64_MAX : (int64_t)st->churn, raw);
	snprintf(fl, 32, "%" PRIu64, st->failed);
	fmt_size(sl, 64, (int64_t)(stats_slack(st) > INT64_MAX ? INT64_MAX : stats_slack(st)),
		 raw);
}

static void stats_widths(struct stats_w *w, const struct row *rows, size_t shown,
			 int raw)
{
	char a[32], c[64], fl[32], sl[64];

	*w = (struct stats_w){ 0, 6, 5, 6, 5 };
	for (size_t i = 0; i < shown; i++) {
		if (!rows[i].st.valid)
			continue;
		w->on = 1;
		stats_text(&rows[i].st, raw, a, c, fl, sl);
		w->a = widen(a, w->a);
		w->c = widen(c, w->c);
		w->f = widen(fl, w->f);
		w->s = widen(sl, w->s);
	}
}

static void stats_cols(FILE *f, const struct stats_w *w, const struct stats *st,
		       int raw)
{
	char a[32], c[64], fl[32], sl[64];

	if (!w->on)
		return;
	stats_text(st, raw, a, c, fl, sl);
	fprintf(f, " %*s %*s %*s %*s", w->a, a, w->c, c, w->f, fl, w->s, sl);
}

static void out_table(FILE *f, const struct row *rows, const struct srcinfo *si,
		      const struct opts *o)
{
	char b[64], c[32], a[64];
	int wb = 5, wc = 5, wa = 3, wl = 8, wf = 8, wm = 6, haskv = 0;
	size_t shown = si->shown;
	struct stats_w sw;

	stats_widths(&sw, rows, shown, o->raw);
	for (size_t i = 0; i < shown; i++) {
		const struct row *r = &rows[i];

		wb = widen(fmt_size(b, sizeof(b), r->bytes, o->raw), wb);
		wc = widen(fmt_uint(c, sizeof(c), r->calls), wc);
		wa = widen(fmt_size(a, sizeof(a), r->calls ? avg_bytes(r->bytes, r->calls) : 0,
				    o->raw), wa);
		if (o->group)
			continue;
		wl = loc_width(r->file, r->line) > wl ? loc_width(r->file, r->line) : wl;
		wf = widen(r->func, wf);
		wm = widen(modname(r->module), wm);
		haskv |= extra_count(r, sw.on) > 0;
	}
	fprintf(f, "%*s %*s %*s", wb, "BYTES", wc, "CALLS", wa, "AVG");
	if (sw.on)
		fprintf(f, " %*s %*s %*s %*s", sw.a, "ALLOCS", sw.c, "CHURN", sw.f,
			"FAILED", sw.s, "SLACK");
	if (o->group)
		fprintf(f, " %6s  %s\n", "SITES", group_title(o));
	else
		fprintf(f, "  %-*s %-*s %-*s%s\n", wl, "LOCATION", wf, "FUNCTION",
			haskv ? wm : 0, "MODULE", haskv ? " EXTRA" : "");
	for (size_t i = 0; i < shown; i++) {
		const struct row *r = &rows[i];

		fmt_uint(c, sizeof(c), r->calls);
		fmt_size(b, sizeof(b), r->bytes, o->raw);
		if (r->calls)
			fmt_size(a, sizeof(a), avg_bytes(r->bytes, r->calls), o->raw);
		else
			strcpy(a, "-");
		put_right(f, b, wb);
		fputc(' ', f);
		put_right(f, c, wc);
		fputc(' ', f);
		put_right(f, a, wa);
		stats_cols(f, &sw, &r->st, o->raw);
		if (o->group) {
			fprintf(f, " %6zu  ", r->sites);
			put_text(f, r->key);
			fputc('\n', f);
			continue;
		}
		fputs("  ", f);
		put_loc(f, r->file, r->line, wl);
		fputc(' ', f);
		put_padded(f, r->func, wf, 1);
		fputc(' ', f);
		put_padded(f, modname(r->module), haskv ? wm : 0, 1);
		if (haskv && extra_count(r, sw.on)) {
			fputc(' ', f);
			kv_text(f, r->e, sw.on && r->st.valid, 1);
		}
		fputc('\n', f);
	}
	fprintf(f, "-- %zu %s%s (%zu shown), total %s in %" PRIu64 " calls\n", si->count,
		o->group ? "group" : "call site", si->count == 1 ? "" : "s", shown,
		fmt_size(b, sizeof(b), si->total_bytes, o->raw), si->total_calls);
}

/*
 * --max-bytes found rows above the limit: say how many and which is the
 * largest (a row that may not be among those shown).
 */
void say_over(size_t over, const struct row *worst, const struct opts *o)
{
	char lim[48], b[48];

	fmt_over(b, lim, sizeof(b), worst->bytes, o->max_bytes, o->raw, 0);
	if (o->group) {
		warnx("%zu group%s hold%s more than %s (--max-bytes); the largest: %s %s",
		      over, over == 1 ? "" : "s", over == 1 ? "s" : "", lim, worst->key, b);
		return;
	}
	warnx("%zu call site%s hold%s more than %s (--max-bytes); the largest: %s:%lu %s %s %s",
	      over, over == 1 ? "" : "s", over == 1 ? "s" : "", lim, worst->file,
	      worst->line, worst->func, modname(worst->module), b);
}

/* ---- JSON, CSV, folded ------------------------------------------------ */

static void out_json(FILE *f, const struct row *rows, const struct srcinfo *si,
		     const struct opts *o)
{
	fprintf(f, "{\"version\":\"%d.%d\",", allocinfo_list_version_major(si->l),
		allocinfo_list_version_minor(si->l));
	if (o->group)
		fprintf(f, "\"group\":\"%s\",", group_name(o));
	fprintf(f, "\"count\":%zu,\"shown\":%zu,\"total_bytes\":%" PRId64
		",\"total_calls\":%" PRIu64 ",\"malformed\":%zu,\"rows\":[",
		si->count, si->shown, si->total_bytes, si->total_calls,
		allocinfo_list_malformed_count(si->l));
	for (size_t i = 0; i < si->shown; i++) {
		const struct row *r = &rows[i];

		fprintf(f, "%s\n{\"bytes\":%" PRId64 ",\"calls\":%" PRIu64 ",\"avg\":",
			i ? "," : "", r->bytes, r->calls);
		if (r->calls)
			fprintf(f, "%" PRId64, avg_bytes(r->bytes, r->calls));
		else
			fputs("null", f);
		if (r->st.valid)
			fprintf(f, ",\"total_calls\":%" PRIu64 ",\"total_bytes\":%" PRIu64
				",\"failed\":%" PRIu64 ",\"requested\":%" PRIu64
				",\"slack\":%" PRIu64, r->st.allocs, r->st.churn,
				r->st.failed, r->st.requested, stats_slack(&r->st));
		put_json_where(f, r, o->group);
		if (!o->group)
			put_kv_json(f, r->e);
		fputc('}', f);
	}
	fputs("\n]}\n", f);
}

static void out_csv(FILE *f, const struct row *rows, const struct srcinfo *si,
		    const struct opts *o)
{
	char buf[64];

	if (o->group)
		fprintf(f, "%s,bytes,calls,avg,sites\n", group_name(o));
	else
		fputs("bytes,calls,avg,file,line,func,module,extra\n", f);
	for (size_t i = 0; i < si->shown; i++) {
		const struct row *r = &rows[i];

		if (r->calls)
			snprintf(buf, sizeof(buf), "%" PRId64, avg_bytes(r->bytes, r->calls));
		else
			buf[0] = '\0';
		if (o->group) {
			put_csv_str(f, r->key);
			fprintf(f, ",%" PRId64 ",%" PRIu64 ",%s,%zu\n", r->bytes, r->calls,
				buf, r->sites);
			continue;
		}
		fprintf(f, "%" PRId64 ",%" PRIu64 ",%s,", r->bytes, r->calls, buf);
		put_csv_str(f, r->file);
		fprintf(f, ",%lu,", r->line);
		put_csv_str(f, r->func);
		fputc(',', f);
		put_csv_str(f, modname(r->module));
		fputc(',', f);
		if (allocinfo_entry_kv_count(r->e)) {
			char *s = NULL;
			size_t sl = 0;
			FILE *m = open_memstream(&s, &sl);

			if (!m)
				err(EX_RUNTIME, "open_memstream");
			kv_text(m, r->e, 0, 0);
			fclose(m);
			put_csv_str(f, s);
			free(s);
		}
		fputc('\n', f);
	}
}

static void folded_part(FILE *f, const char *s, size_t n)
{
	for (size_t i = 0; i < n && s[i]; i++)
		fputc(s[i] == ';' || s[i] == ' ' ? '_' : s[i], f);
}

/* dir;file;func bytes, for flamegraph.pl; rows of no or negative bytes left out */
static void out_folded(FILE *f, const struct row *rows, const struct srcinfo *si,
		       const struct opts *o)
{
	for (size_t i = 0; i < si->shown; i++) {
		const struct row *r = &rows[i];

		if (r->bytes <= 0)
			continue;
		if (o->group) {
			folded_part(f, r->key, SIZE_MAX);
		} else {
			const char *fl = strip_dot(r->file), *sl = strrchr(fl, '/');

			if (sl)
				folded_part(f, fl, (size_t)(sl - fl));
			else
				fputc('.', f);
			fputc(';', f);
			folded_part(f, sl ? sl + 1 : fl, SIZE_MAX);
			fputc(';', f);
			folded_part(f, r->func, SIZE_MAX);
		}
		fprintf(f, " %" PRId64 "\n", r->bytes);
	}
}

void output_rows(FILE *f, const struct row *rows, const struct srcinfo *si,
		 const struct opts *o)
{
	switch (o->fmt) {
	case FMT_TABLE: out_table(f, rows, si, o); break;
	case FMT_JSON: out_json(f, rows, si, o); break;
	case FMT_CSV: out_csv(f, rows, si, o); break;
	case FMT_OPENMETRICS:
	case FMT_PROMETHEUS: metrics_rows(f, rows, si->shown, si->read, o); break;
	case FMT_FOLDED: out_folded(f, rows, si, o); break;
	}
}
