// SPDX-License-Identifier: GPL-2.0
/*
 * allocinfo benchmark.  Usage: bench BUILD-DIR [TOP10.AWK]
 *
 * 1. Generates files of 1k, 5k, 20k and 100k rows with BUILD-DIR/gen.
 * 2. Times, from memory (no I/O), the median of many runs of (CPU time of
 *    the thread, so that other jobs on a shared machine do not count; the
 *    wall-clock median is printed beside it):
 *    - a first read into a new list (allocates every entry),
 *    - an update read into a filled list (the steady state of top/diff),
 *    - an update read plus sorting all entries by bytes;
 *    - a scan (what the default view does): every row, nothing stored.
 * 3. Checks linearity: from one size to the next (5x, 4x, 5x more rows) the
 *    time per row may grow at most 2.5x (a quadratic parser would grow 4-5x;
 *    caches explain a slow rise), and the targets 5k rows < 1 ms and 20k
 *    rows < 5 ms for both first and update reads (CPU time).
 * 4. (Run first, while this process is small.) Runs "allocinfo top -d 1"
 *    on a 5k-row file for 5 refreshes and on a 20k-row file for 10, and
 *    reports the CPU use and maximum RSS of each from wait4(2)'s rusage.
 * 5. (Also first.) Whole processes, as a user runs them, on 5,000 and
 *    200,000 rows: "allocinfo -n 10 FILE" beside the documentation's
 *    one-liner "sort -g FILE | tail | numfmt --to=iec" and a one-pass
 *    mawk top-10 (bench/top10.awk), in interleaved rounds; the median CPU
 *    time (user + system of the process and all it waited for, from
 *    wait4(2)), wall time and maximum RSS of each.  The three must find
 *    the same ten byte counts.  Targets: 5,000 rows in at most half of
 *    mawk's CPU time; 200,000 rows in at most mawk's, under 8 MB RSS.
 * 6. (Last.) The 5k- and 20k-row files as they are (rows ending in "\n",
 *    as older kernels print them) and with a blank before each row's
 *    newline (as upstream's kernels and ours print them now): first read,
 *    update read and scan of both in interleaved runs; the rows ending in
 *    a blank may take at most ROW_END_LIMIT times as long (the margin is
 *    for noise: the parser reads both in the same one pass).
 * The first-read loop frees and rebuilds a list each run; M_TRIM_THRESHOLD
 * is raised so that glibc keeps the freed heap instead of handing it back
 * and page-faulting it in again, which would time the kernel, not the
 * parser.  A new process pays those faults once (see the top figures).
 * Exits 1 if a target or the linearity check fails.
 */
#define _DEFAULT_SOURCE
#include <fcntl.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "allocinfo.h"

#define ROW_END_LIMIT 1.10

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct item {
	int64_t bytes;
	struct allocinfo_entry *e;
};

static int cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int cmp_bytes(const void *a, const void *b)
{
	int64_t x = ((const struct item *)a)->bytes, y = ((const struct item *)b)->bytes;

	return x < y ? 1 : x > y ? -1 : 0;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmpd);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static char *slurp(const char *path, size_t *len)
{
	struct stat st;
	int fd = open(path, O_RDONLY);
	char *b;

	if (fd < 0 || fstat(fd, &st))
		return NULL;
	b = malloc((size_t)st.st_size);
	if (!b || read(fd, b, (size_t)st.st_size) != st.st_size)
		return NULL;
	close(fd);
	*len = (size_t)st.st_size;
	return b;
}

/*
 * Runs "allocinfo top -d 1 -i ITERS" on a generated file of ROWS rows,
 * output to /dev/null, and prints its CPU use (user + system, over the wall
 * time) and maximum RSS, both from wait4(2)'s rusage.
 */
static int run_top(const char *b, long rows, int iters)
{
	struct rusage ru;
	int st;
	double t0, wall, cpu;
	pid_t pid;
	char path[4096], cmd[8300], it[16];

	snprintf(path, sizeof(path), "%s/bench-top-%ld.txt", b, rows);
	snprintf(cmd, sizeof(cmd), "%s/gen %ld 42 > %s", b, rows, path);
	if (system(cmd)) {
		fprintf(stderr, "bench: cannot generate %s\n", path);
		return 1;
	}
	snprintf(cmd, sizeof(cmd), "%s/allocinfo", b);
	snprintf(it, sizeof(it), "%d", iters);
	t0 = now();
	pid = fork();
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		dup2(fd, 1);
		execl(cmd, "allocinfo", "top", "-d", "1", "-i", it, path, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || wait4(pid, &st, 0, &ru) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "bench: allocinfo top failed\n");
		return 1;
	}
	wall = now() - t0;
	cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	      (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	printf("allocinfo top -d 1 -i %d on %ld rows: wall %.2f s, cpu %.3f s (%.2f%%), "
	       "max RSS %ld KiB\n", iters, rows, wall, cpu, 100 * cpu / wall, ru.ru_maxrss);
	return 0;
}

/* ---- whole processes ---------------------------------------------------- */

struct proc {
	const char *name;
	char *const *argv;	/* run with stdout to /dev/null */
};

struct usage {
	double cpu, wall;	/* seconds */
	long rss;		/* KiB */
};

/* Run argv with stdout to out (a path); its rusage and wall time. */
static int run_proc(char *const *argv, const char *out, struct usage *u)
{
	struct rusage ru;
	double t0 = now();
	int st;
	pid_t pid = fork();

	if (pid == 0) {
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd < 0 || dup2(fd, 1) < 0)
			_exit(126);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || wait4(pid, &st, 0, &ru) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "bench: %s failed\n", argv[0]);
		return 1;
	}
	u->wall = now() - t0;
	u->cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
		 (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	u->rss = ru.ru_maxrss;
	return 0;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return x < y ? -1 : x > y;
}

/* the byte counts a command printed, one per line, sorted: the first field */
static int top_bytes(const char *path, int csv, long long *v, int max)
{
	FILE *f = fopen(path, "r");
	char line[8192];
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f) && n < max) {
		char *end;
		long long x = strtoll(line, &end, 10);

		if (end != line && (csv ? *end == ',' : *end == ' ' || *end == '\t'))
			v[n++] = x;
	}
	fclose(f);
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && v[j - 1] < v[j]; j--) {
			long long t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return n;
}

/*
 * The three ways to a top-10 on a file of ROWS rows.  Returns 0 if the
 * targets are met, 1 if not, -1 on an error.
 */
static int compare(const char *b, const char *awk, long rows, int runs)
{
	char path[4096], cmd[8300], prog[4096], oneliner[8300], out[4096];
	char *ai[] = { prog, "-n", "10", path, NULL };
	char *sh[] = { "sh", "-c", oneliner, NULL };
	char *mk[] = { "mawk", "-f", (char *)awk, path, NULL };
	struct proc p[] = { { "allocinfo -n 10", ai }, { "sort|tail|numfmt", sh },
			    { "mawk top10.awk", mk } };
	double *cpu[3], *wall[3];
	long *rss[3];
	double mc[3], mw[3];
	long mr[3];
	long long want[10], got[10];
	int nw, ng, bad = 0;

	snprintf(path, sizeof(path), "%s/bench-cmp-%ld.txt", b, rows);
	snprintf(cmd, sizeof(cmd), "%s/gen %ld 42 > %s", b, rows, path);
	snprintf(prog, sizeof(prog), "%s/allocinfo", b);
	snprintf(out, sizeof(out), "%s/bench-cmp.out", b);
	snprintf(oneliner, sizeof(oneliner), "sort -g %s | tail | numfmt --to=iec", path);
	if (system(cmd)) {
		fprintf(stderr, "bench: cannot generate %s\n", path);
		return -1;
	}
	/* the same ten sizes, raw, from each (numfmt would round them) */
	{
		char *ai_raw[] = { prog, "-n", "10", "--bytes", "--csv", path, NULL };
		char raw[8300];
		char *sh_raw[] = { "sh", "-c", raw, NULL };
		struct usage u;

		snprintf(raw, sizeof(raw), "sort -g %s | tail", path);
		if (run_proc(ai_raw, out, &u) || (nw = top_bytes(out, 1, want, 10)) != 10 ||
		    run_proc(mk, out, &u) || (ng = top_bytes(out, 0, got, 10)) != 10 ||
		    memcmp(want, got, sizeof(want)) ||
		    run_proc(sh_raw, out, &u) || (ng = top_bytes(out, 0, got, 10)) != 10 ||
		    memcmp(want, got, sizeof(want))) {
			fprintf(stderr, "bench: the three top-10s of %s differ\n", path);
			return -1;
		}
	}
	for (int k = 0; k < 3; k++) {
		cpu[k] = calloc((size_t)runs, sizeof(double));
		wall[k] = calloc((size_t)runs, sizeof(double));
		rss[k] = calloc((size_t)runs, sizeof(long));
		if (!cpu[k] || !wall[k] || !rss[k])
			return -1;
	}
	/* rounds interleave the commands: a burst of load hits them alike */
	for (int r = 0; r < runs; r++)
		for (int k = 0; k < 3; k++) {
			struct usage u;

			if (run_proc(p[k].argv, out, &u))
				return -1;
			cpu[k][r] = u.cpu;
			wall[k][r] = u.wall;
			rss[k][r] = u.rss;
		}
	for (int k = 0; k < 3; k++) {
		mc[k] = median(cpu[k], runs);
		mw[k] = median(wall[k], runs);
		qsort(rss[k], (size_t)runs, sizeof(long), cmp_long);
		mr[k] = rss[k][runs / 2];
		printf("%8ld %-18s %9.2f %9.2f %9ld\n", rows, p[k].name, mc[k] * 1e3,
		       mw[k] * 1e3, mr[k]);
		free(cpu[k]);
		free(wall[k]);
		free(rss[k]);
	}
	printf("%8ld allocinfo / mawk: CPU x%.2f, wall x%.2f; allocinfo / one-liner: CPU x%.2f\n",
	       rows, mc[0] / mc[2], mw[0] / mw[2], mc[0] / mc[1]);
	if (rows <= 5000) {
		printf("target %ld rows: CPU at most half of mawk's: %.2f ms <= %.2f ms: %s\n",
		       rows, mc[0] * 1e3, mc[2] * 1e3 / 2, mc[0] <= mc[2] / 2 ? "ok" : "FAIL");
		bad |= mc[0] > mc[2] / 2;
	} else {
		printf("target %ld rows: CPU at most mawk's: %.2f ms <= %.2f ms: %s\n", rows,
		       mc[0] * 1e3, mc[2] * 1e3, mc[0] <= mc[2] ? "ok" : "FAIL");
		printf("target %ld rows: max RSS under 8 MB: %ld KiB (%ld bytes): %s\n", rows,
		       mr[0], mr[0] * 1024, mr[0] * 1024 < 8000000 ? "ok" : "FAIL");
		bad |= mc[0] > mc[2] || mr[0] * 1024 >= 8000000;
	}
	return bad;
}

/* s with a blank before the newline of every row, as kernels end them now */
static char *blank_ends(const char *s, size_t len, size_t *out)
{
	char *d = malloc(2 * len + 1), *o = d;
	int row = 0, at_start = 1;

	if (!d)
		return NULL;
	for (size_t i = 0; i < len; i++) {
		if (at_start)
			row = s[i] == ' ' || s[i] == '-' || (s[i] >= '0' && s[i] <= '9');
		if (s[i] == '\n' && row)
			*o++ = ' ';
		*o++ = s[i];
		at_start = s[i] == '\n';
	}
	*out = (size_t)(o - d);
	return d;
}

/*
 * The rows of the file of ROWS rows ending in "\n" and in " \n": median
 * CPU times of a first read, an update read and a scan of each, in
 * interleaved runs.  Returns 1 if those ending in a blank take more than
 * ROW_END_LIMIT times as long, -1 on an error.
 */
static int row_ends(const char *b, long rows, int runs)
{
	static const char *const form[] = { "\"\\n\"", "\" \\n\"" };
	char path[4096], *text[2];
	size_t len[2];
	double *v[2][3], t[2][3];
	struct allocinfo_list *upd[2], *scan = allocinfo_list_new();
	int bad = 0;

	snprintf(path, sizeof(path), "%s/bench-%ld.txt", b, rows);
	if (!(text[0] = slurp(path, &len[0])) || !(text[1] = blank_ends(text[0], len[0], &len[1])))
		return -1;
	for (int k = 0; k < 2; k++) {
		upd[k] = allocinfo_list_new();
		if (!upd[k] || allocinfo_list_read_buffer(upd[k], text[k], len[k]))
			return -1;
		for (int op = 0; op < 3; op++)
			if (!(v[k][op] = malloc(sizeof(double) * (size_t)runs)))
				return -1;
	}
	for (int r = 0; r < runs; r++)
		for (int k = 0; k < 2; k++) {
			struct allocinfo_list *l;
			double c0 = cpu();
			size_t n = 0;

			l = allocinfo_list_new();
			if (!l || allocinfo_list_read_buffer(l, text[k], len[k]) ||
			    allocinfo_list_count(l) != (size_t)rows)
				return -1;
			v[k][0][r] = cpu() - c0;
			allocinfo_list_free(l);

			c0 = cpu();
			allocinfo_list_read_buffer(upd[k], text[k], len[k]);
			v[k][1][r] = cpu() - c0;

			c0 = cpu();
			if (allocinfo_list_scan_buffer(scan, text[k], len[k]))
				return -1;
			while (allocinfo_list_scan_next(scan))
				n++;
			v[k][2][r] = cpu() - c0;
			if (n != (size_t)rows)
				return -1;
		}
	for (int k = 0; k < 2; k++) {
		for (int op = 0; op < 3; op++) {
			t[k][op] = median(v[k][op], runs);
			free(v[k][op]);
		}
		printf("%8ld %-6s %13.3f %13.3f %9.3f\n", rows, form[k], t[k][0] * 1e3,
		       t[k][1] * 1e3, t[k][2] * 1e3);
		allocinfo_list_free(upd[k]);
		free(text[k]);
	}
	printf("%8ld %-6s", rows, "ratio");
	for (int op = 0; op < 3; op++) {
		char x[32];

		snprintf(x, sizeof(x), "x%.2f", t[1][op] / t[0][op]);
		printf(" %*s", op < 2 ? 13 : 9, x);
		bad |= t[1][op] > ROW_END_LIMIT * t[0][op];
	}
	putchar('\n');
	printf("target %ld rows ending in a blank no slower (x%.2f at most): %s\n", rows,
	       ROW_END_LIMIT, bad ? "FAIL" : "ok");
	allocinfo_list_free(scan);
	return bad;
}

int main(int argc, char **argv)
{
	static const long sizes[] = { 1000, 5000, 20000, 100000 };
	static const int runs[] = { 401, 401, 201, 41 };
	const char *b = argc > 1 ? argv[1] : "build";
	const char *awk = argc > 2 ? argv[2] : "bench/top10.awk";
	double per_row[4], t_first[4], t_upd[4], t_sort[4], t_scan[4], w_first[4], w_upd[4];
	char path[4096], cmd[8300];
	int bad = 0;

	mallopt(M_TRIM_THRESHOLD, 512 << 20);
	/* whole processes and allocinfo top, first, while this process is small (fork) */
	{
		int c5, c200;

		printf("whole processes, median of interleaved runs (51 at 5,000 rows, 11 at 200,000)\n");
		printf("%8s %-18s %9s %9s %9s\n", "rows", "command", "CPU ms", "wall ms",
		       "RSS KiB");
		c5 = compare(b, awk, 5000, 51);
		c200 = compare(b, awk, 200000, 11);
		if (c5 < 0 || c200 < 0)
			return 1;
		bad |= c5 | c200;
	}
	if (run_top(b, 5000, 5) || run_top(b, 20000, 10))
		return 1;

	printf("median of 401/401/201/41 interleaved runs; CPU time (wall-clock in brackets)\n");
	printf("%8s %22s %22s %16s %8s %9s %8s\n", "rows", "first read ms", "update read ms",
	       "update+sort ms", "ns/row", "scan ms", "ns/row");
	/*
	 * Rounds interleave the sizes, so that a burst of load from other jobs
	 * hits every size alike instead of skewing one of them.
	 */
	{
		char *buf[4];
		size_t len[4];
		struct allocinfo_list *upd[4];
		struct item *arr[4];
		double *v[4][4], *w[4][2];
		int maxr = 0;
		struct allocinfo_list *scan = allocinfo_list_new();

		for (int s = 0; s < 4; s++) {
			snprintf(path, sizeof(path), "%s/bench-%ld.txt", b, sizes[s]);
			snprintf(cmd, sizeof(cmd), "%s/gen %ld 42 > %s", b, sizes[s], path);
			if (system(cmd) || !(buf[s] = slurp(path, &len[s]))) {
				fprintf(stderr, "bench: cannot generate %s\n", path);
				return 1;
			}
			upd[s] = allocinfo_list_new();
			arr[s] = malloc(sizeof(*arr[s]) * (size_t)sizes[s]);
			for (int k = 0; k < 4; k++)
				v[s][k] = malloc(sizeof(double) * (size_t)runs[s]);
			for (int k = 0; k < 2; k++)
				w[s][k] = malloc(sizeof(double) * (size_t)runs[s]);
			if (!upd[s] || !arr[s] || !v[s][2] || !v[s][3] || !w[s][1] ||
			    allocinfo_list_read_buffer(upd[s], buf[s], len[s]))
				return 1;
			maxr = runs[s] > maxr ? runs[s] : maxr;
		}
		for (int r = 0; r < maxr; r++) {
			for (int s = 0; s < 4; s++) {
				struct allocinfo_list *l;
				double t0, c0;
				size_t n = 0;

				if (r >= runs[s])
					continue;
				t0 = now();
				c0 = cpu();
				l = allocinfo_list_new();
				if (!l || allocinfo_list_read_buffer(l, buf[s], len[s]) ||
				    allocinfo_list_count(l) != (size_t)sizes[s])
					return 1;
				v[s][0][r] = cpu() - c0;
				w[s][0][r] = now() - t0;
				allocinfo_list_free(l);

				t0 = now();
				c0 = cpu();
				allocinfo_list_read_buffer(upd[s], buf[s], len[s]);
				v[s][1][r] = cpu() - c0;
				w[s][1][r] = now() - t0;

				c0 = cpu();
				allocinfo_list_read_buffer(upd[s], buf[s], len[s]);
				for (struct allocinfo_entry *e = allocinfo_list_first(upd[s]); e;
				     e = allocinfo_entry_next(e)) {
					arr[s][n].bytes = allocinfo_entry_bytes(e);
					arr[s][n++].e = e;
				}
				qsort(arr[s], n, sizeof(*arr[s]), cmp_bytes);
				v[s][2][r] = cpu() - c0;

				c0 = cpu();
				n = 0;
				if (allocinfo_list_scan_buffer(scan, buf[s], len[s]))
					return 1;
				while (allocinfo_list_scan_next(scan))
					n++;
				v[s][3][r] = cpu() - c0;
				if (n != (size_t)sizes[s])
					return 1;
			}
		}
		for (int s = 0; s < 4; s++) {
			t_first[s] = median(v[s][0], runs[s]);
			t_upd[s] = median(v[s][1], runs[s]);
			t_sort[s] = median(v[s][2], runs[s]);
			t_scan[s] = median(v[s][3], runs[s]);
			w_first[s] = median(w[s][0], runs[s]);
			w_upd[s] = median(w[s][1], runs[s]);
			per_row[s] = t_first[s] / (double)sizes[s] * 1e9;
			printf("%8ld %8.3f [%10.3f] %8.3f [%10.3f] %16.3f %8.1f %9.3f %8.1f\n",
			       sizes[s], t_first[s] * 1e3, w_first[s] * 1e3, t_upd[s] * 1e3,
			       w_upd[s] * 1e3, t_sort[s] * 1e3, per_row[s], t_scan[s] * 1e3,
			       t_scan[s] / (double)sizes[s] * 1e9);
			allocinfo_list_free(upd[s]);
			free(buf[s]);
			free(arr[s]);
			for (int k = 0; k < 4; k++)
				free(v[s][k]);
			for (int k = 0; k < 2; k++)
				free(w[s][k]);
		}
		allocinfo_list_free(scan);
	}
	for (int s = 1; s < 4; s++) {
		double g = per_row[s] / per_row[s - 1];

		printf("linearity %ld -> %ld rows: time per row x%.2f (limit 2.5): %s\n",
		       sizes[s - 1], sizes[s], g, g <= 2.5 ? "ok" : "FAIL");
		bad |= g > 2.5;
	}
	printf("target 5k rows < 1 ms: first %.3f ms, update %.3f ms: %s\n", t_first[1] * 1e3,
	       t_upd[1] * 1e3, t_first[1] < 1e-3 && t_upd[1] < 1e-3 ? "ok" : "FAIL");
	printf("target 20k rows < 5 ms: first %.3f ms, update %.3f ms: %s\n", t_first[2] * 1e3,
	       t_upd[2] * 1e3, t_first[2] < 5e-3 && t_upd[2] < 5e-3 ? "ok" : "FAIL");
	bad |= !(t_first[1] < 1e-3 && t_upd[1] < 1e-3 && t_first[2] < 5e-3 && t_upd[2] < 5e-3);

	printf("the same rows ending in \"\\n\" and in \" \\n\", median of 401/201 interleaved "
	       "runs; CPU ms\n");
	printf("%8s %-6s %13s %13s %9s\n", "rows", "end", "first read", "update read", "scan");
	for (int s = 1; s < 3; s++) {
		int rc = row_ends(b, sizes[s], runs[s]);

		if (rc < 0)
			return 1;
		bad |= rc;
	}
	return bad;
}
