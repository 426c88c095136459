// SPDX-License-Identifier: GPL-2.0
/*
 * top.c - the profile refreshed like slabtop
 *
 * The list is re-read every delay seconds; each entry keeps, in its
 * caller-owned u64, its bytes at the previous sample, and in its pointer a
 * mark that it was there, so rates need no copy of the previous sample.
 * A site the previous sample lacked is new (its bytes came from nothing);
 * a vanished one is shown once as gone (its bytes went to nothing) and
 * pruned at the next tick: both count in the rates and in the total's
 * change.  Only the rows shown are selected (a bounded heap).
 */
#define _DEFAULT_SOURCE
#include <err.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
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
static char seen_mark;

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

struct screen {
	int tty;
	int cols;		/* > 0: cut lines to the terminal width */
	int rows;
	FILE *mem;		/* the line being built */
	char *buf;
	size_t len;
};

/* end the line being built, cut to the terminal's width */
static void line_end(struct screen *sc)
{
	fflush(sc->mem);
	if (sc->cols > 0 && sc->len > (size_t)sc->cols)
		sc->len = (size_t)sc->cols;
	fwrite(sc->buf, 1, sc->len, stdout);
	fputc('\n', stdout);
	rewind(sc->mem);
	sc->len = 0;
}

/*
 * How many rows top shows: -n, -a, or what fits the terminal (20 when not
 * a terminal).
 */
static size_t top_limit(struct screen *sc, const struct opts *o)
{
	if (sc->tty) {
		struct winsize ws;

		sc->cols = 0;
		sc->rows = 0;
		if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws)) {
			sc->rows = ws.ws_row;
			sc->cols = ws.ws_col > 1 ? ws.ws_col - 1 : 0;
		}
		if (o->limit == LIMIT_DEFAULT && sc->rows > 5)
			return (size_t)sc->rows - 4;
	}
	return limit_of(o, 1);
}

static void draw(struct screen *sc, const struct sel *s, const char *src,
		 const struct opts *o)
{
	char b[32], r[40], t[32], tr[40], when[32], c[32];
	time_t now = time(NULL);
	struct namew w;
	FILE *f = sc->mem;

	strftime(when, sizeof(when), "%H:%M:%S", localtime(&now));
	if (sc->tty)
		fputs("\033[H\033[2J", stdout);
	fprintf(f, "allocinfo top - %s  %zu sites  total %s  change %s/s%s  ", when,
		s->matched, fmt_size(t, sizeof(t), s->total_bytes, o->raw),
		fmt_size(tr, sizeof(tr), d2i64(s->total_rate), o->raw),
		sc->tty ? "  [b]ytes [c]alls [r]ate [q]uit" : "");
	put_text(f, src);
	line_end(sc);
	namew_init(&w);
	for (size_t i = 0; i < s->n; i++)
		namew_add(&w, &s->rows[i]);
	fprintf(f, "%10s %10s %12s  %-*s %-*s %-*s %s", "BYTES", "CALLS", "RATE/s",
		w.loc, "LOCATION", w.func, "FUNCTION", w.mod, "MODULE", "STATUS");
	line_end(sc);
	for (size_t i = 0; i < s->n; i++) {
		const struct row *x = &s->rows[i];
		int gone = x->status == ST_GONE;

		fmt_size(b, sizeof(b), x->bytes, o->raw);
		snprintf(c, sizeof(c), "%" PRIu64, x->calls);
		fmt_size(r, sizeof(r), d2i64(x->rate), o->raw);
		fprintf(f, "%10s %10s %12s  ", gone ? "-" : b, gone ? "-" : c, r);
		put_loc(f, x->file, x->line, w.loc);
		fputc(' ', f);
		put_padded(f, x->func, w.func, 1);
		fputc(' ', f);
		put_padded(f, modname(x->module), w.mod, 1);
		fprintf(f, " %s", x->status == ST_NEW ? "new" : gone ? "gone" : "");
		line_end(sc);
	}
	if (!sc->tty)
		putchar('\n');
	fflush(stdout);
}

/* The rows of the sample, with their rates over dt, into the selection. */
static void top_select(struct sel *s, const struct allocinfo_list *l, double dt,
		       size_t k, const struct opts *o)
{
	sel_free(s);
	sel_init(s, o, k, 0);
	for (const struct allocinfo_entry *e = allocinfo_list_first(l); e;
	     e = allocinfo_entry_next(e)) {
		int seen = allocinfo_entry_get_ptr(e) != NULL;
		struct row r;

		row_fill(&r, e);
		if (allocinfo_entry_vanished(e)) {
			r.status = ST_GONE;
			r.bytes = 0;
			r.calls = 0;
		} else if (!seen && dt > 0) {
			r.status = ST_NEW;
		}
		if (dt > 0)
			r.rate = ((double)r.bytes - (seen ?
				  (double)(int64_t)allocinfo_entry_get_u64(e) : 0)) / dt;
		if (row_values_match(&r, o))
			sel_add(s, &r);
	}
	sel_finish(s);
}

int cmd_top(int npos, char **pos, struct opts *o)
{
	const char *src = one_source(o, npos, pos);
	struct allocinfo_list *l;
	struct allocinfo_query *q;
	struct sigaction sa;
	struct screen sc = { 0 };
	int rc = 0, have = 0;
	long iter = 0;
	double delay = o->delay >= 0 ? o->delay : 2.0, last = 0, dt = 0;
	struct sel s;

	if (o->fmt != FMT_TABLE || o->group || o->output || o->count >= 0 || o->unchanged)
		usage_error("top shows a table; --group, formats, -o, -c and --unchanged do not apply");
	if (src && !strcmp(src, "-"))
		usage_error("top needs a file it can re-read, not standard input");
	if (o->iterations == 0)
		usage_error("-i needs at least 1 iteration");
	/* a shorter delay re-reads the kernel's file in a busy loop */
	if (o->delay >= 0 && o->delay < 0.1)
		usage_error("-d must be at least 0.1 seconds");
	l = list_new();
	q = query_new(o, 0);
	allocinfo_list_set_query(l, q);
	sel_init(&s, o, 0, 0);
	sc.mem = open_memstream(&sc.buf, &sc.len);
	if (!sc.mem)
		err(EX_RUNTIME, "open_memstream");
	sc.tty = isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	if (sc.tty && !tcgetattr(STDIN_FILENO, &saved_tio)) {
		struct termios raw = saved_tio;

		raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		raw.c_cc[VMIN] = 1;
		raw.c_cc[VTIME] = 0;
		tio_saved = 1;
		atexit(tty_restore);
		tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw);
	}
	while (!stop) {
		double t = now_sec(), deadline;
		struct allocinfo_entry *e;

		/* the sites shown as gone at the last tick go now */
		allocinfo_list_prune(l);
		for (e = allocinfo_list_first(l); e; e = allocinfo_entry_next(e)) {
			allocinfo_entry_set_u64(e, (uint64_t)allocinfo_entry_bytes(e));
			allocinfo_entry_set_ptr(e, &seen_mark);
		}
		/*
		 * Only the first read must work: a later one that fails (the
		 * file replaced under us, a kernel hiccup) is reported, the
		 * last good sample stays, and the next tick tries again.
		 */
		if ((rc = load(l, o, src, !have))) {
			if (!have)
				break;
			rc = 0;
		} else {
			dt = last ? t - last : 0;
			have = 1;
			last = t;
			top_select(&s, l, dt, top_limit(&sc, o), o);
			draw(&sc, &s, src_name(o, src), o);
		}
		if (o->iterations >= 0 && ++iter >= o->iterations)
			break;
		deadline = t + delay;
		while (!stop) {
			double left = deadline - now_sec();
			struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
			char c;

			if (left <= 0)
				break;
			if (!sc.tty) {
				sleep_sec(left);
				continue;
			}
			if (poll(&pfd, 1, (int)(left * 1000) + 1) <= 0)
				continue;
			if (read(STDIN_FILENO, &c, 1) != 1) {
				stop = 1;
				break;
			}
			if (c == 'q' || c == 'Q') {
				stop = 1;
			} else if (c == 'b' || c == 'c' || c == 'r') {
				o->nsort = 1;
				o->sort[0].key = c == 'b' ? K_BYTES : c == 'c' ? K_CALLS : K_RATE;
				o->sort[0].desc = 1;
				top_select(&s, l, dt, top_limit(&sc, o), o);
				draw(&sc, &s, src_name(o, src), o);
			}
		}
	}
	tty_restore();
	sel_free(&s);
	fclose(sc.mem);
	free(sc.buf);
	allocinfo_list_free(l);
	allocinfo_query_free(q);
	return rc;
}
