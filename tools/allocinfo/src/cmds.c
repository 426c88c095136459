// SPDX-License-Identifier: GPL-2.0
/*
 * allocinfo subcommands: snapshot, diff, top and growth.
 *
 * diff, top and growth lean on the list's update-in-place semantics: the
 * first read fills the list, later reads update the same entries, so the
 * per-entry caller pointer and u64 carry the earlier values (old counters,
 * previous bytes, sample series) without any matching on our side.
 */
#define _DEFAULT_SOURCE
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/utsname.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

static struct allocinfo_list *new_list(void)
{
	struct allocinfo_list *l = allocinfo_list_new();

	if (!l)
		err(EX_RUNTIME, "allocinfo_list_new");
	return l;
}

static const char *one_source(int npos, char **pos)
{
	if (npos > 1)
		usage_error("too many arguments");
	if (npos == 1) {
		if (opt.input)
			usage_error("give the input either with -f or as an argument");
		return pos[0];
	}
	return opt.input;
}

/* "file:line" padded to width, whatever the length of the name */
static const char *loc_str(const char *file, unsigned long line, int width)
{
	static char *buf;
	static size_t cap;
	size_t need = strlen(file) + 32 + (size_t)(width > 0 ? width : 0);
	int n;

	if (need > cap) {
		free(buf);
		cap = need * 2;
		buf = xmalloc(cap);
	}
	n = snprintf(buf, cap, "%s:%lu", file, line);
	while (n < width)
		buf[n++] = ' ';
	buf[n] = '\0';
	return buf;
}

static char *boot_id_now(void)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/sys/kernel/random/boot_id", proc_root);
	return read_small(path);
}

/* ---- snapshot ------------------------------------------------------- */

int cmd_snapshot(int npos, char **pos)
{
	const char *src = one_source(npos, pos), *raw, *body, *p, *v;
	struct allocinfo_list *l = new_list();
	size_t len;
	char tbuf[64], *tmp = NULL;
	time_t now = time(NULL);
	FILE *out = stdout;
	int rc;

	if (opt.delay >= 0 || opt.iterations >= 0 || opt.count >= 0 || opt.unchanged ||
	    opt.nfilters || opt.group || opt.fmt != FMT_TABLE || opt.min_bytes_set ||
	    opt.min_calls_set || opt.nonzero || opt.limit != -2)
		usage_error("snapshot saves the source as it is: only -f, -o and --strict apply");
	if ((rc = load(l, src, 1)))
		goto out;
	raw = allocinfo_list_raw(l, &len);
	if (!raw) {
		warnx("%s: cannot keep the raw text", src_name(src));
		rc = EX_RUNTIME;
		goto out;
	}
	/* the body starts at the version line; any older header is replaced */
	for (body = NULL, p = raw; p < raw + len;) {
		const char *q = p, *nl = memchr(p, '\n', (size_t)(raw + len - p));

		while (q < raw + len && (*q == ' ' || *q == '\t'))
			q++;
		if ((size_t)(raw + len - q) >= 20 && !memcmp(q, "allocinfo - version:", 20)) {
			body = p;
			break;
		}
		p = nl ? nl + 1 : raw + len;
	}
	if (!body) {
		warnx("%s: no version line", src_name(src));
		rc = EX_RUNTIME;
		goto out;
	}
	if (opt.output && strcmp(opt.output, "-")) {
		size_t n = strlen(opt.output) + 16;

		int fd;

		tmp = xmalloc(n);
		snprintf(tmp, n, "%s.tmp%ld", opt.output, (long)getpid());
		/* private like the source (mode 0400), and never through a link */
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0 || !(out = fdopen(fd, "w")))
			err(EX_RUNTIME, "%s", tmp);
	}
	fputs("# allocinfo-snapshot: 1\n", out);
	if (is_live(src)) {
		struct utsname u;
		char *bid = boot_id_now();

		strftime(tbuf, sizeof(tbuf), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
		fprintf(out, "# time: %s\n# epoch: %lld\n", tbuf, (long long)now);
		if (!uname(&u))
			fprintf(out, "# kernel: %s\n", u.release);
		if (bid)
			fprintf(out, "# boot_id: %s\n", bid);
		free(bid);
	} else {
		static const char *const keep[] = { "time", "epoch", "kernel", "boot_id" };

		for (size_t i = 0; i < 4; i++)
			if ((v = allocinfo_list_header(l, keep[i])))
				fprintf(out, "# %s: %s\n", keep[i], v);
		if (!allocinfo_list_header(l, "epoch")) {
			strftime(tbuf, sizeof(tbuf), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
			fprintf(out, "# saved: %s\n", tbuf);
		}
	}
	fprintf(out, "# source: %s\n", src_name(src));
	fwrite(body, 1, (size_t)(raw + len - body), out);
	if (len && raw[len - 1] != '\n')
		fputc('\n', out);
	if (out != stdout) {
		if (ferror(out) | fclose(out)) {
			warn("%s", tmp);
			unlink(tmp);
			rc = EX_RUNTIME;
		} else if (rename(tmp, opt.output)) {
			warn("rename %s", opt.output);
			unlink(tmp);
			rc = EX_RUNTIME;
		}
	}
out:
	free(tmp);
	allocinfo_list_free(l);
	return rc;
}

/* ---- diff ------------------------------------------------------------ */

struct old {
	int64_t bytes;
	uint64_t calls;
	struct stats st;
};

/* Growth of a lifetime count; 0 if the counter went backwards (reboot). */
static uint64_t dcount(uint64_t now, uint64_t old)
{
	return now > old ? now - old : 0;
}

static int64_t dbytes(const struct row *r)
{
	return sat_sub(r->bytes, r->old_bytes);
}

static int cmp_diff(const void *pa, const void *pb)
{
	const struct row *a = pa, *b = pb;
	int64_t da = sat_abs(dbytes(a)), db = sat_abs(dbytes(b));
	int c;

	if (da != db)
		return da > db ? -1 : 1;
	if ((c = strcmp(a->file, b->file)))
		return c;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	if ((c = strcmp(a->func, b->func)))
		return c;
	if ((c = strcmp(modname(a->module), modname(b->module))))
		return c;
	return a->occ < b->occ ? -1 : a->occ > b->occ;
}

static const char *status_name(int s)
{
	return s == 1 ? "new" : s == 2 ? "gone" : "";
}

int cmd_diff(int npos, char **pos)
{
	struct allocinfo_list *l = new_list();
	struct allocinfo_entry *e;
	const char *a, *b;
	char *boot_a = NULL, *boot_b = NULL;
	struct row *rows = NULL;
	size_t n = 0, shown;
	int64_t tdelta = 0;
	int rc, hs = 0;
	struct namew w;

	if (npos < 1 || npos > 2 || (npos == 2 && opt.input))
		usage_error("diff takes OLD and optionally NEW (default: the live file)");
	if (opt.fmt == FMT_OPENMETRICS || opt.fmt == FMT_FOLDED || opt.group)
		usage_error("diff prints a table, --json or --csv, without --group");
	if (opt.output || opt.delay >= 0 || opt.iterations >= 0 || opt.count >= 0)
		usage_error("-o, -d, -i and -c do not apply to diff");
	a = pos[0];
	b = npos == 2 ? pos[1] : opt.input;
	if (a && b && !strcmp(a, "-") && !strcmp(b, "-"))
		usage_error("only one input can be standard input");
	if ((rc = load(l, a, 1)))
		goto out;
	if (allocinfo_list_header(l, "boot_id"))
		boot_a = xstrdup(allocinfo_list_header(l, "boot_id"));
	for (e = allocinfo_list_first(l); e; e = allocinfo_entry_next(e)) {
		struct old *o = xmalloc(sizeof(*o));

		o->bytes = allocinfo_entry_bytes(e);
		o->calls = allocinfo_entry_calls(e);
		stats_read(&o->st, e);
		allocinfo_entry_set_ptr(e, o);
	}
	if ((rc = load(l, b, 1)))
		goto out;
	if (is_live(b))
		boot_b = boot_id_now();
	else if (allocinfo_list_header(l, "boot_id"))
		boot_b = xstrdup(allocinfo_list_header(l, "boot_id"));
	if (boot_a && boot_b && strcmp(boot_a, boot_b))
		warnx("warning: %s and %s come from different boots (boot_id %s vs %s): "
		      "call sites and counters are not comparable", src_name(a),
		      src_name(b), boot_a, boot_b);
	rows = xcalloc(allocinfo_list_count(l), sizeof(*rows));
	for (e = allocinfo_list_first(l); e; e = allocinfo_entry_next(e)) {
		struct row *r = &rows[n], probe;
		struct old *o = allocinfo_entry_get_ptr(e);

		row_fill(r, e);
		if (allocinfo_entry_vanished(e)) {
			r->status = 2;
			r->bytes = 0;
			r->calls = 0;
		} else if (!o) {
			r->status = 1;
		}
		r->old_bytes = o ? o->bytes : 0;
		r->old_calls = o ? o->calls : 0;
		/* A new site's lifetime counts all grew since the old file. */
		if (o && o->st.valid)
			r->old_st = o->st;
		else if (o)
			r->st.valid = 0;
		hs |= r->st.valid;
		if (!opt.unchanged && !r->status && r->bytes == r->old_bytes &&
		    r->calls == r->old_calls && r->st.allocs == r->old_st.allocs &&
		    r->st.failed == r->old_st.failed)
			continue;
		probe = *r;
		probe.bytes = sat_abs(dbytes(r));
		probe.calls = r->calls > r->old_calls ? r->calls - r->old_calls
						      : r->old_calls - r->calls;
		if (!row_match(&probe))
			continue;
		tdelta = sat_add(tdelta, dbytes(r));
		n++;
	}
	if (n > 1)
		qsort(rows, n, sizeof(*rows), cmp_diff);
	shown = n;
	if (opt.limit == -2 ? opt.fmt == FMT_TABLE && n > 20 : opt.limit >= 0 && (size_t)opt.limit < n)
		shown = opt.limit == -2 ? 20 : (size_t)opt.limit;
	if (opt.fmt == FMT_CSV)
		puts("delta_bytes,old_bytes,new_bytes,delta_calls,old_calls,new_calls,file,line,func,module,status");
	else if (opt.fmt == FMT_JSON)
		printf("{\"count\":%zu,\"shown\":%zu,\"total_delta_bytes\":%" PRId64 ",\"rows\":[",
		       n, shown, tdelta);
	else {
		namew_init(&w);
		for (size_t i = 0; i < shown; i++)
			namew_add(&w, &rows[i]);
		printf("%10s %10s %10s %8s%s  %-*s %-*s %-*s %s\n", "CHANGE", "OLD", "NEW",
		       "CALLS+-", hs ? "   ALLOCS+    CHURN+  FAILED+" : "", w.loc, "LOCATION",
		       w.func, "FUNCTION", w.mod, "MODULE", "STATUS");
	}
	for (size_t i = 0; i < shown; i++) {
		struct row *r = &rows[i];
		char d[32], o[32], nw[32];
		int64_t dc = r->calls >= r->old_calls
			? (r->calls - r->old_calls > INT64_MAX ? INT64_MAX : (int64_t)(r->calls - r->old_calls))
			: (r->old_calls - r->calls > INT64_MAX ? INT64_MIN : -(int64_t)(r->old_calls - r->calls));

		if (opt.fmt == FMT_CSV) {
			printf("%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRIu64 ",%" PRIu64
			       ",", dbytes(r), r->old_bytes, r->bytes, dc, r->old_calls, r->calls);
			csv_str(stdout, r->file);
			printf(",%lu,", r->line);
			csv_str(stdout, r->func);
			putchar(',');
			csv_str(stdout, modname(r->module));
			printf(",%s\n", status_name(r->status));
			continue;
		}
		if (opt.fmt == FMT_JSON) {
			printf("%s\n{\"delta_bytes\":%" PRId64 ",\"old_bytes\":%" PRId64
			       ",\"new_bytes\":%" PRId64 ",\"delta_calls\":%" PRId64
			       ",\"old_calls\":%" PRIu64 ",\"new_calls\":%" PRIu64 ",\"file\":",
			       i ? "," : "", dbytes(r), r->old_bytes, r->bytes, dc,
			       r->old_calls, r->calls);
			json_str(stdout, r->file);
			printf(",\"line\":%lu,\"func\":", r->line);
			json_str(stdout, r->func);
			fputs(",\"module\":", stdout);
			json_str(stdout, modname(r->module));
			if (r->st.valid)
				printf(",\"delta_total_calls\":%" PRIu64 ",\"delta_total_bytes\":%" PRIu64
				       ",\"delta_failed\":%" PRIu64,
				       dcount(r->st.allocs, r->old_st.allocs),
				       dcount(r->st.churn, r->old_st.churn),
				       dcount(r->st.failed, r->old_st.failed));
			printf(",\"status\":\"%s\"}", r->status ? status_name(r->status) : "changed");
			continue;
		}
		fmt_size(d, sizeof(d), dbytes(r), opt.raw);
		if (dbytes(r) > 0) {
			memmove(d + 1, d, strlen(d) + 1);
			d[0] = '+';
		}
		printf("%10s %10s %10s %+8" PRId64, d,
		       r->status == 1 ? "-" : fmt_size(o, sizeof(o), r->old_bytes, opt.raw),
		       r->status == 2 ? "-" : fmt_size(nw, sizeof(nw), r->bytes, opt.raw), dc);
		if (hs && r->st.valid) {
			uint64_t ch = dcount(r->st.churn, r->old_st.churn);

			printf(" %9" PRIu64 " %9s %8" PRIu64, dcount(r->st.allocs, r->old_st.allocs),
			       fmt_size(o, sizeof(o), ch > INT64_MAX ? INT64_MAX : (int64_t)ch, opt.raw),
			       dcount(r->st.failed, r->old_st.failed));
		} else if (hs) {
			printf(" %9s %9s %8s", "-", "-", "-");
		}
		fputs("  ", stdout);
		put_loc(stdout, r->file, r->line, w.loc);
		printf(" %-*s %-*s%s%s\n", w.func, r->func, r->status ? w.mod : 0,
		       modname(r->module), r->status ? " " : "", status_name(r->status));
	}
	if (opt.fmt == FMT_JSON) {
		puts("\n]}");
	} else if (opt.fmt == FMT_TABLE) {
		char t[32];

		fmt_size(t, sizeof(t), tdelta, opt.raw);
		printf("-- %zu changed call sites (%zu shown), net change %s%s\n", n, shown,
		       tdelta > 0 ? "+" : "", t);
	}
out:
	for (e = allocinfo_list_first(l); e; e = allocinfo_entry_next(e))
		free(allocinfo_entry_get_ptr(e));
	free(rows);
	free(boot_a);
	free(boot_b);
	allocinfo_list_free(l);
	return rc;
}

/* ---- top ------------------------------------------------------------ */

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

static double now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static char seen_mark;
static int tty_cols;	/* > 0: cut lines to the terminal width */

/* printf, cut to the terminal's width in terminal mode */
static void outf(const char *fmt, ...)
{
	static char *buf;
	static size_t cap;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, cap, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= cap) {
		free(buf);
		cap = (size_t)n + 256;
		buf = xmalloc(cap);
		va_start(ap, fmt);
		vsnprintf(buf, cap, fmt, ap);
		va_end(ap);
	}
	if (tty_cols > 0 && n > tty_cols) {
		buf[tty_cols] = '\n';
		buf[tty_cols + 1] = '\0';
	}
	fputs(buf, stdout);
}

/*
 * How many rows top shows: -n, -a, or what fits the terminal (20 when not
 * a terminal).  Sets tty_cols as a side effect in terminal mode.
 */
static size_t top_limit(int tty, size_t count)
{
	long lim = opt.limit;

	if (tty) {
		struct winsize ws;

		tty_cols = 0;
		if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws)) {
			if (lim == -2 && ws.ws_row > 5)
				lim = ws.ws_row - 4;
			tty_cols = ws.ws_col > 1 ? ws.ws_col - 1 : 0;
		}
	}
	if (lim == -2)
		lim = 20;
	if (lim < 0 || (size_t)lim > count)
		return count;
	return (size_t)lim;
}

static void draw_top(const struct row *rows, size_t shown, size_t n, int tty,
		     const char *src, int64_t total, double trate)
{
	char b[32], r[40], t[32], tr[40];
	time_t now = time(NULL);
	char when[32];
	struct namew w;

	strftime(when, sizeof(when), "%H:%M:%S", localtime(&now));
	if (tty)
		fputs("\033[H\033[2J", stdout);
	fmt_size(t, sizeof(t), total, opt.raw);
	fmt_size(tr, sizeof(tr), d2i64(trate), opt.raw);
	outf("allocinfo top - %s  %zu sites  total %s  change %s/s%s  %s\n",
	     when, n, t, tr, tty ? "  [b]ytes [c]alls [r]ate [q]uit" : "", src);
	namew_init(&w);
	for (size_t i = 0; i < shown; i++)
		namew_add(&w, &rows[i]);
	outf("%10s %10s %12s  %-*s %-*s %-*s %s\n", "BYTES", "CALLS", "RATE/s",
	     w.loc, "LOCATION", w.func, "FUNCTION", w.mod, "MODULE", "STATUS");
	for (size_t i = 0; i < shown; i++) {
		char c[32];
		int gone = rows[i].status == 2;

		fmt_size(b, sizeof(b), rows[i].bytes, opt.raw);
		snprintf(c, sizeof(c), "%" PRIu64, rows[i].calls);
		fmt_size(r, sizeof(r), d2i64(rows[i].rate), opt.raw);
		outf("%10s %10s %12s  %s %-*s %-*s %s\n", gone ? "-" : b,
		     gone ? "-" : c, r, loc_str(rows[i].file, rows[i].line, w.loc),
		     w.func, rows[i].func, w.mod, modname(rows[i].module),
		     rows[i].status == 1 ? "new" : gone ? "gone" : "");
	}
	if (!tty)
		putchar('\n');
	fflush(stdout);
}

/*
 * The rows top shows, without a row for every call site: a heap of the k
 * rows that sort first, whose root is the one that sorts last, so a site
 * that sorts after the root costs one comparison.  An entry's u64 holds
 * its bytes at the previous sample (set before each read, see cmd_top) and
 * its pointer marks it as present then; dt is the time between the samples.
 */
struct topsel {
	struct row *heap;
	size_t k, n, cap;	/* wanted, held, allocated */
	size_t matched;
	int64_t total;
	double trate;
};

static void heap_down(struct row *h, size_t n, size_t i)
{
	for (;;) {
		size_t c = 2 * i + 1, m = i;
		struct row tmp;

		if (c < n && rows_cmp(&h[c], &h[m]) > 0)
			m = c;
		if (c + 1 < n && rows_cmp(&h[c + 1], &h[m]) > 0)
			m = c + 1;
		if (m == i)
			return;
		tmp = h[i];
		h[i] = h[m];
		h[m] = tmp;
		i = m;
	}
}

static void heap_up(struct row *h, size_t i)
{
	while (i) {
		size_t p = (i - 1) / 2;
		struct row tmp;

		if (rows_cmp(&h[i], &h[p]) <= 0)
			return;
		tmp = h[i];
		h[i] = h[p];
		h[p] = tmp;
		i = p;
	}
}

static void top_select(struct topsel *s, const struct allocinfo_list *l,
		       double dt, size_t k)
{
	const struct allocinfo_entry *e;

	if (k > s->cap) {
		free(s->heap);
		s->heap = xcalloc(k, sizeof(*s->heap));
		s->cap = k;
	}
	s->k = k;
	s->n = 0;
	s->matched = 0;
	s->total = 0;
	s->trate = 0;
	for (e = allocinfo_list_first(l); e; e = allocinfo_entry_next(e)) {
		struct row r;

		row_fill(&r, e);
		/*
		 * A site is new when the previous sample did not have it (its
		 * bytes came from nothing), gone when this one lacks it (its
		 * bytes went to nothing); both belong in the rates and in the
		 * total's change.  Gone sites are pruned at the next tick.
		 */
		if (allocinfo_entry_vanished(e)) {
			r.status = 2;
			r.bytes = 0;
			r.calls = 0;
		} else if (!allocinfo_entry_get_ptr(e) && dt > 0) {
			r.status = 1;
		}
		if (dt > 0)
			r.rate = ((double)r.bytes - (allocinfo_entry_get_ptr(e) ?
				  (double)(int64_t)allocinfo_entry_get_u64(e) : 0)) / dt;
		if (!row_match(&r))
			continue;
		s->matched++;
		s->total = sat_add(s->total, r.bytes);
		s->trate += r.rate;
		if (!k)
			continue;
		if (s->n < k) {
			s->heap[s->n] = r;
			heap_up(s->heap, s->n++);
		} else if (rows_cmp(&r, &s->heap[0]) < 0) {
			s->heap[0] = r;
			heap_down(s->heap, s->n, 0);
		}
	}
	rows_sort(s->heap, s->n);
}

int cmd_top(int npos, char **pos)
{
	const char *src = one_source(npos, pos);
	struct allocinfo_list *l;
	struct sigaction sa;
	int tty, rc = 0, have = 0;
	size_t count = 0;
	long iter = 0;
	double delay = opt.delay >= 0 ? opt.delay : 2.0, last = 0;
	struct topsel sel = { 0 };

	if (opt.fmt != FMT_TABLE || opt.group || opt.output || opt.count >= 0 || opt.unchanged)
		usage_error("top shows a table; --group, formats, -o, -c and --unchanged do not apply");
	if (src && !strcmp(src, "-"))
		usage_error("top needs a file it can re-read, not standard input");
	if (opt.iterations == 0)
		usage_error("-i needs at least 1 iteration");
	/* a shorter delay re-reads the kernel's file in a busy loop */
	if (opt.delay >= 0 && opt.delay < 0.1)
		usage_error("-d must be at least 0.1 seconds");
	l = new_list();
	tty = isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	if (tty && !tcgetattr(STDIN_FILENO, &saved_tio)) {
		struct termios raw = saved_tio;

		raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		raw.c_cc[VMIN] = 1;
		raw.c_cc[VTIME] = 0;
		tio_saved = 1;
		atexit(tty_restore);
		tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw);
	}
	while (!stop) {
		double t = now_sec(), dt = last ? t - last : 0, deadline;
		struct allocinfo_entry *e;

		/*
		 * Each entry remembers its bytes of the sample before the
		 * read (u64) and that it was there (pointer); the rates are
		 * computed from these, so no copy of the list is kept.
		 */
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
		if ((rc = load(l, src, !have))) {
			if (!have)
				break;
			rc = 0;
		} else {
			have = 1;
			count = allocinfo_list_count(l);
			last = t;
			top_select(&sel, l, dt, top_limit(tty, count));
			draw_top(sel.heap, sel.n, sel.matched, tty, src_name(src),
				 sel.total, sel.trate);
		}
		if (opt.iterations >= 0 && ++iter >= opt.iterations)
			break;
		if (opt.iterations < 0)
			iter++;
		deadline = t + delay;
		while (!stop) {
			double left = deadline - now_sec();

			if (left <= 0)
				break;
			if (tty) {
				struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
				char c;

				if (poll(&pfd, 1, (int)(left * 1000) + 1) <= 0)
					continue;
				if (read(STDIN_FILENO, &c, 1) != 1) {
					stop = 1;
					break;
				}
				if (c == 'q' || c == 'Q') {
					stop = 1;
				} else if (c == 'b' || c == 'c' || c == 'r') {
					opt.nsort = 1;
					opt.sort[0].key = c == 'b' ? K_BYTES : c == 'c' ? K_CALLS : K_RATE;
					opt.sort[0].desc = 1;
					top_select(&sel, l, dt, top_limit(tty, count));
					draw_top(sel.heap, sel.n, sel.matched, tty,
						 src_name(src), sel.total, sel.trate);
				}
			} else {
				struct timespec ts = {
					.tv_sec = (time_t)left,
					.tv_nsec = (long)((left - (double)(time_t)left) * 1e9),
				};

				nanosleep(&ts, NULL);
			}
		}
	}
	tty_restore();
	free(sel.heap);
	allocinfo_list_free(l);
	return rc;
}

/* ---- growth --------------------------------------------------------- */

struct series {
	size_t n;
	double *t, *y;
};

struct grow {
	double slope, mono;
	int suspect;
	size_t n;
	int64_t first, last;
	struct row r;
};

static int cmp_grow(const void *pa, const void *pb)
{
	const struct grow *a = pa, *b = pb;

	if (a->suspect != b->suspect)
		return b->suspect - a->suspect;
	if (a->slope != b->slope)
		return a->slope > b->slope ? -1 : 1;
	return strcmp(a->r.file, b->r.file);
}

static void fit(struct series *s, double *slope, double *mono, int *suspect)
{
	double mt = 0, my = 0, sxy = 0, sxx = 0;
	size_t up = 0, down = 0;

	/* offline samples may come in any order: put them in time order */
	for (size_t i = 1; i < s->n; i++)
		for (size_t j = i; j > 0 && s->t[j - 1] > s->t[j]; j--) {
			double x = s->t[j];

			s->t[j] = s->t[j - 1];
			s->t[j - 1] = x;
			x = s->y[j];
			s->y[j] = s->y[j - 1];
			s->y[j - 1] = x;
		}
	for (size_t i = 0; i < s->n; i++) {
		mt += s->t[i];
		my += s->y[i];
	}
	mt /= (double)s->n;
	my /= (double)s->n;
	for (size_t i = 0; i < s->n; i++) {
		sxy += (s->t[i] - mt) * (s->y[i] - my);
		sxx += (s->t[i] - mt) * (s->t[i] - mt);
		if (i && s->y[i] > s->y[i - 1])
			up++;
		else if (i && s->y[i] < s->y[i - 1])
			down++;
	}
	*slope = sxx > 0 ? sxy / sxx : 0;
	*mono = ((double)up - (double)down) / (double)(s->n - 1);
	*suspect = s->n >= 3 && *slope > 0 && down == 0 && 2 * up >= s->n - 1;
}

int cmd_growth(int npos, char **pos)
{
	struct allocinfo_list *l = new_list();
	struct allocinfo_entry *e;
	struct grow *g = NULL;
	long count = opt.count >= 0 ? opt.count : 5;
	double delay = opt.delay >= 0 ? opt.delay : 1.0, t0 = now_sec();
	size_t ng = 0, shown;
	struct namew w;
	/* one argument is a source to sample, like -f; several are snapshots */
	int rc = 0, offline = npos > 1;
	const char *input = npos == 1 ? pos[0] : opt.input;

	if (opt.fmt != FMT_TABLE || opt.group || opt.output || opt.iterations >= 0 || opt.unchanged)
		usage_error("growth shows a table; --group, formats, -o, -i and --unchanged do not apply");
	if (npos && opt.input)
		usage_error("give the source either with -f or as an argument");
	if (offline) {
		if (opt.count >= 0)
			usage_error("-c counts samples of a source; with snapshot files, "
				    "each file is a sample");
		count = npos;
	}
	if (count < 2)
		usage_error("growth needs at least 2 samples");
	if (!offline && input && !strcmp(input, "-"))
		usage_error("growth needs a file it can re-read, not standard input");
	if (!offline && opt.delay >= 0 && opt.delay < 0.1)
		usage_error("-d must be at least 0.1 seconds between samples");
	if (offline && opt.delay == 0)
		usage_error("-d spaces snapshots without an epoch: it must be more than 0");
	for (long i = 0; i < count && !stop; i++) {
		const char *src = offline ? pos[i] : input, *ep;
		double t;

		if ((rc = load(l, src, i == 0 || offline)))
			goto out;
		ep = allocinfo_list_header(l, "epoch");
		if (offline)
			t = ep ? strtod(ep, NULL) : (double)i * delay;
		else
			t = now_sec() - t0;
		for (e = allocinfo_list_first(l); e; e = allocinfo_entry_next(e)) {
			struct series *s = allocinfo_entry_get_ptr(e);

			if (allocinfo_entry_vanished(e))
				continue;
			if (!s) {
				s = xcalloc(1, sizeof(*s));
				s->t = xcalloc((size_t)count, sizeof(double));
				s->y = xcalloc((size_t)count, sizeof(double));
				allocinfo_entry_set_ptr(e, s);
			}
			s->t[s->n] = t;
			s->y[s->n] = (double)allocinfo_entry_bytes(e);
			s->n++;
		}
		if (!offline && i + 1 < count) {
			struct timespec ts = {
				.tv_sec = (time_t)delay,
				.tv_nsec = (long)((delay - (double)(time_t)delay) * 1e9),
			};

			nanosleep(&ts, NULL);
		}
	}
	g = xcalloc(allocinfo_list_count(l), sizeof(*g));
	for (e = allocinfo_list_first(l); e; e = allocinfo_entry_next(e)) {
		struct series *s = allocinfo_entry_get_ptr(e);
		struct grow *x = &g[ng];

		if (!s || s->n < 2)
			continue;
		fit(s, &x->slope, &x->mono, &x->suspect);
		if (x->slope <= 0)
			continue;
		row_fill(&x->r, e);
		if (!row_match(&x->r))
			continue;
		x->n = s->n;
		x->first = d2i64(s->y[0]);
		x->last = d2i64(s->y[s->n - 1]);
		ng++;
	}
	if (ng > 1)
		qsort(g, ng, sizeof(*g), cmp_grow);
	shown = ng;
	if (opt.limit == -2 && ng > 20)
		shown = 20;
	else if (opt.limit >= 0 && (size_t)opt.limit < ng)
		shown = (size_t)opt.limit;
	namew_init(&w);
	for (size_t i = 0; i < shown; i++)
		namew_add(&w, &g[i].r);
	printf("%12s %5s %10s %10s %3s  %-*s %-*s %-*s %s\n", "SLOPE/s", "MONO", "FIRST",
	       "LAST", "N", w.loc, "LOCATION", w.func, "FUNCTION", w.mod, "MODULE",
	       "VERDICT");
	for (size_t i = 0; i < shown; i++) {
		char s[40], f[32], la[32];

		if (opt.raw)
			snprintf(s, sizeof(s), "%.1f", g[i].slope);
		else if (g[i].slope < 1024)
			snprintf(s, sizeof(s), "%.1fB", g[i].slope);
		else
			fmt_size(s, sizeof(s), d2i64(g[i].slope), 0);
		printf("%12s %5.2f %10s %10s %3zu  %s %-*s %-*s %s\n", s, g[i].mono,
		       fmt_size(f, sizeof(f), g[i].first, opt.raw),
		       fmt_size(la, sizeof(la), g[i].last, opt.raw), g[i].n,
		       loc_str(g[i].r.file, g[i].r.line, w.loc),
		       w.func, g[i].r.func, w.mod, modname(g[i].r.module),
		       g[i].suspect ? "leak-suspect" : "growing");
	}
	printf("-- %zu growing call sites (%zu shown) over %ld samples\n", ng, shown, count);
out:
	for (e = allocinfo_list_first(l); e; e = allocinfo_entry_next(e)) {
		struct series *s = allocinfo_entry_get_ptr(e);

		if (s) {
			free(s->t);
			free(s->y);
			free(s);
		}
	}
	free(g);
	allocinfo_list_free(l);
	return rc;
}
