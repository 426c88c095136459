// SPDX-License-Identifier: GPL-2.0
/*
 * top.c - the profile refreshed like slabtop, for a terminal left open
 *
 * The list is re-read every delay seconds.  Each entry carries, in its
 * caller-owned pointer, what top knows of it: its bytes at the previous
 * sample and at the first one, and what the last read made of them (rate,
 * change since the start, new or gone), so a redraw on a key press needs
 * no read and no copy of the previous sample.  A site the previous sample
 * lacked is new (its bytes came from nothing); a vanished one is shown once
 * as gone (its bytes went to nothing): both count in the rates, the change
 * since the start and the totals.  A site gone before the last sample is
 * no longer shown but stays in the list, as the kernel's sites are a fixed
 * set: its change since the start (minus its first bytes) still counts in
 * the header's and its group's, and if it comes back it is new again.
 *
 * Only the rows on the screen are selected (a bounded heap), or summed by
 * group with -g.  On a terminal: scrolling, a "/" filter (an extended
 * regular expression on "file:line function module", or on a group's
 * name), every sort key of the table on a key, reverse order; a read that
 * fails after the first is shown in the status line and the last good
 * sample stays.  Not on a terminal, each refresh is printed as a batch.
 */
#define _DEFAULT_SOURCE
#include <err.h>
#include <inttypes.h>
#include <poll.h>
#include <regex.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"

static volatile sig_atomic_t stop;
static struct termios saved_tio;
static int tio_saved;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void tty_restore(void)
{
	if (tio_saved) {
		tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved_tio);
		tio_saved = 0;
	}
}

/* what top knows of a call site (the entry's caller-owned pointer) */
struct site {
	int64_t prev;		/* bytes at the previous sample */
	int64_t start;		/* bytes at the first sample; 0 if it came later */
	double rate;		/* of the last read */
	int64_t change;		/* since the first sample */
	enum status status;
	int departed;		/* gone before the last sample: no row */
};

struct top {
	struct opts *o;
	const char *src;
	struct allocinfo_list *l;
	struct sel s;
	int tty, cols, rows;
	size_t offset;		/* first row shown (scrolling) */
	size_t page;		/* rows that fit */
	regex_t re;		/* the "/" filter */
	int have_re;
	char pattern[256];	/* the active filter's text */
	char edit[256];		/* the filter being typed after "/" */
	size_t elen;
	int typing;		/* reading a filter after "/" */
	char status[512];	/* a message for the status line */
	int stale;		/* status says a read failed */
	char sampled[16];	/* time of the last good sample */
	FILE *mem;		/* the line being built */
	char *buf;
	size_t len;
};

/* ---- samples ---------------------------------------------------------- */

/* After a good read: rates over dt, changes since the start, new and gone. */
static void update(struct allocinfo_list *l, double dt, int first)
{
	for (struct allocinfo_entry *e = allocinfo_list_first(l); e;
	     e = allocinfo_entry_next(e)) {
		struct site *st = allocinfo_entry_get_ptr(e);
		int64_t cur = allocinfo_entry_vanished(e) ? 0 : allocinfo_entry_bytes(e);

		if (!st) {
			st = xcalloc(1, sizeof(*st));
			allocinfo_entry_set_ptr(e, st);
			/* at the first sample, the start; later, new: from nothing */
			st->start = st->prev = first ? cur : 0;
			st->status = first ? ST_SAME : ST_NEW;
		} else if (allocinfo_entry_vanished(e)) {
			/* shown once as gone; after that only its change counts */
			st->departed = st->departed || st->status == ST_GONE;
			st->status = ST_GONE;
		} else {
			/* back after it vanished: from nothing, as a new site */
			st->status = st->departed || st->status == ST_GONE ? ST_NEW : ST_SAME;
			st->departed = 0;
		}
		st->rate = dt > 0 ? ((double)cur - (double)st->prev) / dt : 0;
		st->change = sat_sub(cur, st->start);
		st->prev = cur;
	}
}

/* Does the row pass the "/" filter? */
static int filter_match(struct top *t, const struct row *r)
{
	char *s = NULL;
	size_t n = 0;
	FILE *m;
	int hit;

	if (!t->have_re)
		return 1;
	if (r->key)
		return !regexec(&t->re, r->key, 0, NULL, 0);
	m = open_memstream(&s, &n);
	if (!m)
		err(EX_RUNTIME, "open_memstream");
	fprintf(m, "%s:%lu %s %s", r->file, r->line, r->func, modname(r->module));
	fclose(m);
	hit = !regexec(&t->re, s, 0, NULL, 0);
	free(s);
	return hit;
}

/* A site's row as top shows it; 0 if the filters drop it. */
static int site_row(struct top *t, struct row *r, const struct allocinfo_entry *e,
		    const struct site *st)
{
	row_fill(r, e);
	r->status = st->status;
	r->rate = st->rate;
	r->change = st->change;
	if (st->status == ST_GONE) {
		r->bytes = 0;
		r->calls = 0;
	}
	return row_values_match(r, t->o) && (t->o->group || filter_match(t, r));
}

/*
 * The "/" filter on groups, which exist only once all sites are summed:
 * keep the groups that match, count them and their totals, then the
 * first k of them.
 */
static void filter_groups(struct top *t, size_t k)
{
	struct sel *s = &t->s;
	size_t n = 0;

	s->total_bytes = s->total_change = 0;
	s->total_calls = s->sites = 0;
	s->total_rate = 0;
	for (size_t i = 0; i < s->n; i++) {
		struct row *r = &s->rows[i];

		if (!filter_match(t, r)) {
			row_release(r);
			continue;
		}
		s->total_bytes = sat_add(s->total_bytes, r->bytes);
		s->total_calls = sat_addu(s->total_calls, r->calls);
		s->total_rate += r->rate;
		s->total_change = sat_add(s->total_change, r->change);
		s->sites += r->sites;
		s->rows[n++] = *r;
	}
	s->matched = n;
	while (n > k)
		row_release(&s->rows[--n]);
	s->n = n;
}

/* The rows of the sample into the selection: the first k, or all groups. */
static void select_rows(struct top *t, size_t k)
{
	struct opts *o = t->o;
	const struct allocinfo_entry *e;
	const struct site *st;
	struct row r;

	sel_free(&t->s);
	/* groups are cut to k after the "/" filter, not before */
	sel_init(&t->s, o, o->group && t->have_re ? SIZE_MAX : k, 0);
	for (e = allocinfo_list_first(t->l); e; e = allocinfo_entry_next(e))
		if ((st = allocinfo_entry_get_ptr(e)) && !st->departed &&
		    site_row(t, &r, e, st))
			sel_add(&t->s, &r);
	/* sites gone before the last sample: their change since the start */
	for (e = allocinfo_list_first(t->l); e; e = allocinfo_entry_next(e))
		if ((st = allocinfo_entry_get_ptr(e)) && st->departed && st->change &&
		    site_row(t, &r, e, st))
			sel_add_change(&t->s, &r);
	sel_finish(&t->s);
	if (o->group && t->have_re)
		filter_groups(t, k);
}

/* ---- drawing ---------------------------------------------------------- */

/* end the line being built, cut to the terminal's width */
static void line_end(struct top *t)
{
	fflush(t->mem);
	if (t->cols > 0 && t->len > (size_t)t->cols)
		t->len = (size_t)t->cols;
	fwrite(t->buf, 1, t->len, stdout);
	fputc('\n', stdout);
	rewind(t->mem);
	t->len = 0;
}

static void window_size(struct top *t)
{
	struct winsize ws;

	t->cols = t->rows = 0;
	if (t->tty && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws)) {
		t->rows = ws.ws_row;
		t->cols = ws.ws_col > 1 ? ws.ws_col - 1 : 0;
	}
	/* header, status line, column titles, and one line to spare */
	if (t->o->limit == LIMIT_DEFAULT && t->tty && t->rows > 5)
		t->page = (size_t)t->rows - 4;
	else
		t->page = limit_of(t->o, 1);
}

static void put_status(struct top *t)
{
	const struct opts *o = t->o;
	size_t first = t->s.n > t->offset ? t->offset + 1 : 0, last = t->s.n;
	FILE *f = t->mem;

	if (t->typing) {
		fprintf(f, "filter (extended regex, empty: none, Esc: cancel): /%.*s_",
			(int)t->elen, t->edit);
		return;
	}
	fprintf(f, "sort %s%s  rows %zu-%zu of %zu", key_name(o->sort[0].key),
		o->sort[0].desc ? " (descending)" : " (ascending)", first, last,
		t->s.matched);
	if (t->have_re)
		fprintf(f, "  filter /%s/", t->pattern);
	if (t->status[0])
		fprintf(f, "  %s", t->status);
	else
		fputs("  keys: b c a r s f l n m < > sort  R reverse  / filter"
		      "  arrows PgUp PgDn Home End  q quit", f);
}

/* the number cells of a row: bytes, calls, rate, change */
static void top_cells(char cell[][NUMCELL], const struct row *x,
		      const struct opts *o)
{
	int gone = x->status == ST_GONE;

	if (gone) {
		strcpy(cell[0], "-");
		strcpy(cell[1], "-");
	} else {
		fmt_size(cell[0], NUMCELL, x->bytes, o->raw);
		snprintf(cell[1], NUMCELL, "%" PRIu64, x->calls);
	}
	fmt_size(cell[2], NUMCELL, d2i64(x->rate), o->raw);
	fmt_delta(cell[3], NUMCELL, x->change, o->raw);
}

static void draw(struct top *t)
{
	static const int minw[] = { 10, 10, 12, 10 };
	const struct opts *o = t->o;
	const struct sel *s = &t->s;
	char cell[4][NUMCELL], tb[32], tr[40], ch[32], when[32];
	time_t now = time(NULL);
	struct numcols nc;
	struct namew w;
	FILE *f = t->mem;
	int wk = 6;

	strftime(when, sizeof(when), "%H:%M:%S", localtime(&now));
	if (t->tty)
		fputs("\033[H\033[2J", stdout);
	fprintf(f, "allocinfo top - %s  %zu %s  total %s  change %s/s  since start %s  ",
		when, s->matched, o->group ? "groups" : "sites",
		fmt_size(tb, sizeof(tb), s->total_bytes, o->raw),
		fmt_size(tr, sizeof(tr), d2i64(s->total_rate), o->raw),
		fmt_delta(ch, sizeof(ch), s->total_change, o->raw));
	put_text(f, t->src);
	line_end(t);
	if (t->tty) {
		put_status(t);
		line_end(t);
	}
	namew_init(&w);
	numcols_init(&nc, 4, minw);
	for (size_t i = t->offset; i < s->n; i++) {
		if (o->group)
			wk = text_width(s->rows[i].key) > wk ? text_width(s->rows[i].key) : wk;
		else
			namew_add(&w, &s->rows[i]);
		top_cells(cell, &s->rows[i], o);
		numcols_add(&nc, cell);
	}
	numcols_put(f, &nc, (char[4][NUMCELL]){ "BYTES", "CALLS", "RATE/s", "CHANGE" });
	fputs("  ", f);
	if (o->group)
		fprintf(f, "%6s  %-*s %s", "SITES", wk, group_title(o), "STATUS");
	else
		fprintf(f, "%-*s %-*s %-*s %s", w.loc, "LOCATION", w.func, "FUNCTION",
			w.mod, "MODULE", "STATUS");
	line_end(t);
	for (size_t i = t->offset; i < s->n; i++) {
		const struct row *x = &s->rows[i];

		top_cells(cell, x, o);
		numcols_put(f, &nc, cell);
		fputs("  ", f);
		if (o->group) {
			fprintf(f, "%6zu  ", x->sites);
			put_padded(f, x->key, wk, 1);
		} else {
			put_loc(f, x->file, x->line, w.loc);
			fputc(' ', f);
			put_padded(f, x->func, w.func, 1);
			fputc(' ', f);
			put_padded(f, modname(x->module), w.mod, 1);
		}
		fprintf(f, " %s", x->status == ST_NEW ? "new" :
			x->status == ST_GONE ? "gone" : "");
		line_end(t);
	}
	if (!t->tty)
		putchar('\n');
	fflush(stdout);
}

/*
 * Select the rows of the screen, keep the scroll position sane, draw.
 * Returns 1, without drawing, if the rows would take more than the
 * selection's memory limit (all of them with -a, or the groups).
 */
static int refresh(struct top *t)
{
	window_size(t);
	if (t->page == SIZE_MAX) {
		t->offset = 0;
		select_rows(t, SIZE_MAX);
	} else {
		select_rows(t, t->offset + t->page);
		if (t->offset && t->offset + t->page > t->s.matched) {
			/* scrolled past the end (fewer rows now): show the last page */
			t->offset = t->s.matched > t->page ? t->s.matched - t->page : 0;
			select_rows(t, t->offset + t->page);
		}
	}
	if (t->s.too_big)
		return 1;
	/* the selection keeps rows 0..offset+page; show from offset */
	if (t->offset > t->s.n)
		t->offset = t->s.n;
	draw(t);
	return 0;
}

/* ---- keys ------------------------------------------------------------- */

enum { K_UP = 256, K_DOWN, K_PGUP, K_PGDN, K_HOME, K_END, K_ESC };

/* A key, with the escape sequences of arrows and paging decoded; -1 at EOF. */
static int read_key(void)
{
	unsigned char c, seq[8];
	struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
	size_t n = 0;

	if (read(STDIN_FILENO, &c, 1) != 1)
		return -1;
	if (c != 27)
		return c;
	/* an escape sequence arrives at once; a lone Esc does not */
	while (n < sizeof(seq) && poll(&pfd, 1, 30) > 0 && read(STDIN_FILENO, &seq[n], 1) == 1) {
		n++;
		if (n >= 2 && seq[n - 1] >= 0x40 && seq[n - 1] <= 0x7e)
			break;
	}
	if (n < 2 || (seq[0] != '[' && seq[0] != 'O'))
		return K_ESC;
	switch (seq[n - 1]) {
	case 'A': return K_UP;
	case 'B': return K_DOWN;
	case 'H': return K_HOME;
	case 'F': return K_END;
	case '~':
		switch (seq[1]) {
		case '5': return K_PGUP;
		case '6': return K_PGDN;
		case '1': case '7': return K_HOME;
		case '4': case '8': return K_END;
		}
	}
	return 0;
}

static void set_sort(struct opts *o, enum key k)
{
	static const int desc[K_NKEYS] = {
		[K_BYTES] = 1, [K_CALLS] = 1, [K_AVG] = 1, [K_RATE] = 1,
		[K_CHANGE] = 1, [K_ALLOCS] = 1, [K_CHURN] = 1, [K_FAILED] = 1,
		[K_SLACK] = 1,
	};

	o->nsort = 1;
	o->sort[0].key = k;
	o->sort[0].desc = desc[k];
}

/*
 * Enter on a typed filter: an empty one clears the filter, a bad one is
 * said on the status line and leaves the active filter as it was.
 */
static void filter_apply(struct top *t)
{
	regex_t re;
	char msg[200];
	int rc;

	t->edit[t->elen] = '\0';
	if (t->elen && (rc = regcomp(&re, t->edit, REG_EXTENDED | REG_NOSUB))) {
		regerror(rc, &re, msg, sizeof(msg));
		snprintf(t->status, sizeof(t->status), "bad filter /%s/: %s",
			 t->edit, msg);
		return;
	}
	if (t->elen)
		regfree(&re);	/* a regex_t is not copied: compiled again below */
	if (t->have_re)
		regfree(&t->re);
	t->have_re = t->elen &&
		     !regcomp(&t->re, t->edit, REG_EXTENDED | REG_NOSUB);
	memcpy(t->pattern, t->edit, t->elen + 1);
	t->offset = 0;
}

/* a key while typing a filter; returns 1 to redraw */
static int filter_key(struct top *t, int c)
{
	if (c == K_ESC) {
		t->typing = 0;
		return 1;
	}
	if (c == '\r' || c == '\n') {
		t->typing = 0;
		filter_apply(t);
		return 1;
	}
	if ((c == 127 || c == 8) && t->elen)
		t->elen--;
	else if (c >= 0x20 && c < 0x7f && t->elen + 1 < sizeof(t->edit))
		t->edit[t->elen++] = (char)c;
	return 1;
}

/* A key on a terminal; returns 1 to redraw. */
static int key(struct top *t, int c)
{
	static const struct { int c; enum key k; } keys[] = {
		{ 'b', K_BYTES }, { 'c', K_CALLS }, { 'a', K_AVG }, { 'r', K_RATE },
		{ 's', K_CHANGE }, { 'f', K_FILE }, { 'l', K_LINE }, { 'n', K_FUNC },
		{ 'm', K_MODULE },
	};
	struct opts *o = t->o;
	size_t last = t->s.matched > t->page ? t->s.matched - t->page : 0;

	if (t->typing)
		return filter_key(t, c);
	t->status[0] = '\0';
	t->stale = 0;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (c == keys[i].c) {
			set_sort(o, keys[i].k);
			t->offset = 0;
			return 1;
		}
	switch (c) {
	case 'q': case 'Q': case -1:
		stop = 1;
		return 0;
	case '<': case '>':
		/* every key of the table, in turn */
		set_sort(o, (enum key)((o->sort[0].key + (c == '>' ? 1 : K_NKEYS - 1)) % K_NKEYS));
		t->offset = 0;
		return 1;
	case 'R':
		o->sort[0].desc = !o->sort[0].desc;
		t->offset = 0;
		return 1;
	case '/':
		t->typing = 1;
		t->elen = 0;
		return 1;
	case 'j': case K_DOWN:
		t->offset += t->offset < last;
		return 1;
	case 'k': case K_UP:
		t->offset -= t->offset > 0;
		return 1;
	case ' ': case K_PGDN:
		t->offset = t->offset + t->page < last ? t->offset + t->page : last;
		return 1;
	case K_PGUP:
		t->offset = t->offset > t->page ? t->offset - t->page : 0;
		return 1;
	case 'g': case K_HOME:
		t->offset = 0;
		return 1;
	case 'G': case K_END:
		t->offset = last;
		return 1;
	}
	return 0;
}

int cmd_top(int npos, char **pos, struct opts *o)
{
	const char *src = one_source(o, npos, pos);
	struct allocinfo_query *q;
	struct sigaction sa;
	struct top t;
	int rc = 0, have = 0, fresh;
	long iter = 0;
	double delay = o->delay >= 0 ? o->delay : 2.0, last = 0;

	if (o->fmt != FMT_TABLE || o->output || o->count >= 0 || o->unchanged)
		usage_error("top shows a table; formats, -o, -c and --unchanged do not apply");
	if (src && !strcmp(src, "-"))
		usage_error("top needs a file it can re-read, not standard input");
	if (o->iterations == 0)
		usage_error("-i needs at least 1 iteration");
	/* a shorter delay re-reads the kernel's file in a busy loop */
	if (o->delay >= 0 && o->delay < 0.1)
		usage_error("-d must be at least 0.1 seconds");
	memset(&t, 0, sizeof(t));
	t.o = o;
	t.src = src_name(o, src);
	t.l = list_new();
	q = query_new(o, 0);
	allocinfo_list_set_query(t.l, q);
	sel_init(&t.s, o, 0, 0);
	t.mem = open_memstream(&t.buf, &t.len);
	if (!t.mem)
		err(EX_RUNTIME, "open_memstream");
	t.tty = isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	if (t.tty && !tcgetattr(STDIN_FILENO, &saved_tio)) {
		struct termios raw = saved_tio;

		raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		raw.c_cc[VMIN] = 1;
		raw.c_cc[VTIME] = 0;
		tio_saved = 1;
		atexit(tty_restore);
		tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw);
	}
	while (!stop) {
		double now = now_sec(), deadline;

		/*
		 * Only the first read must work: a later one that fails (the
		 * file replaced under us, a kernel hiccup) is reported, the
		 * last good sample stays, and the next tick tries again.
		 */
		fresh = 0;
		if (t.tty && have) {
			/* on the screen, not under it: stderr is the same terminal */
			int e = allocinfo_list_read_path(t.l, src ? src : live_path(o, "allocinfo"));
			size_t nm = allocinfo_list_malformed_count(t.l);

			if (e)
				snprintf(t.status, sizeof(t.status), "read failed: %s%s%s; "
					 "showing the sample of %s", allocinfo_strerror(e),
					 allocinfo_list_errno(t.l) ? ": " : "",
					 allocinfo_list_errno(t.l) ? strerror(allocinfo_list_errno(t.l)) : "",
					 t.sampled);
			else if (nm && o->strict)
				snprintf(t.status, sizeof(t.status), "%zu malformed lines (--strict): "
					 "showing the sample of %s", nm, t.sampled);
			else
				fresh = 1;
			t.stale |= !fresh;
		} else if ((rc = load(t.l, o, src, !have))) {
			if (!have)
				break;
			rc = 0;
		} else {
			fresh = 1;
		}
		if (fresh) {
			time_t wall = time(NULL);

			if (t.stale)	/* the failure is over: the sample is new */
				t.status[0] = '\0';
			t.stale = 0;
			update(t.l, have ? now - last : 0, !have);
			have = 1;
			last = now;
			strftime(t.sampled, sizeof(t.sampled), "%H:%M:%S", localtime(&wall));
		}
		/* a batch is printed for each good sample; a terminal shows the failure */
		if ((fresh || (t.tty && have)) && refresh(&t)) {
			rc = too_big(o, src);
			break;
		}
		if (o->iterations >= 0 && ++iter >= o->iterations)
			break;
		deadline = now + delay;
		while (!stop) {
			double left = deadline - now_sec();
			struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };

			if (left <= 0)
				break;
			if (!t.tty) {
				sleep_sec(left);
				continue;
			}
			if (poll(&pfd, 1, (int)(left * 1000) + 1) <= 0)
				continue;
			if (key(&t, read_key()) && !stop && refresh(&t)) {
				rc = too_big(o, src);
				stop = 1;
			}
		}
	}
	tty_restore();
	sel_free(&t.s);
	if (t.have_re)
		regfree(&t.re);
	fclose(t.mem);
	free(t.buf);
	for (struct allocinfo_entry *e = allocinfo_list_first(t.l); e;
	     e = allocinfo_entry_next(e))
		free(allocinfo_entry_get_ptr(e));
	allocinfo_list_free(t.l);
	allocinfo_query_free(q);
	return rc;
}
