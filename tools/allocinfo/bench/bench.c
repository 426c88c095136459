// SPDX-License-Identifier: GPL-2.0
/*
 * allocinfo benchmark.  Usage: bench BUILD-DIR
 *
 * 1. Generates files of 1k, 5k, 20k and 100k rows with BUILD-DIR/gen.
 * 2. Times, from memory (no I/O), the median of many runs of (CPU time of
 *    the thread, so that other jobs on a shared machine do not count; the
 *    wall-clock median is printed beside it):
 *    - a first read into a new list (allocates every entry),
 *    - an update read into a filled list (the steady state of top/diff),
 *    - an update read plus sorting all entries by bytes.
 * 3. Checks linearity: from one size to the next (5x, 4x, 5x more rows) the
 *    time per row may grow at most 2.5x (a quadratic parser would grow 4-5x;
 *    caches explain a slow rise), and the targets 5k rows < 1 ms and 20k
 *    rows < 5 ms for both first and update reads (CPU time).
 * 4. (Run first, while this process is small.) Runs "allocinfo top -d 1"
 *    on a 5k-row file for 5 refreshes and on a 20k-row file for 10, and
 *    reports the CPU use and maximum RSS of each from wait4(2)'s rusage.
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

int main(int argc, char **argv)
{
	static const long sizes[] = { 1000, 5000, 20000, 100000 };
	static const int runs[] = { 401, 401, 201, 41 };
	const char *b = argc > 1 ? argv[1] : "build";
	double per_row[4], t_first[4], t_upd[4], t_sort[4], w_first[4], w_upd[4];
	char path[4096], cmd[8300];
	int bad = 0;

	mallopt(M_TRIM_THRESHOLD, 512 << 20);
	/* allocinfo top, first, while this process is small (fork) */
	if (run_top(b, 5000, 5) || run_top(b, 20000, 10))
		return 1;

	printf("median of 401/401/201/41 interleaved runs; CPU time (wall-clock in brackets)\n");
	printf("%8s %22s %22s %16s %8s\n", "rows", "first read ms", "update read ms",
	       "update+sort ms", "ns/row");
	/*
	 * Rounds interleave the sizes, so that a burst of load from other jobs
	 * hits every size alike instead of skewing one of them.
	 */
	{
		char *buf[4];
		size_t len[4];
		struct allocinfo_list *upd[4];
		struct item *arr[4];
		double *v[4][3], *w[4][2];
		int maxr = 0;

		for (int s = 0; s < 4; s++) {
			snprintf(path, sizeof(path), "%s/bench-%ld.txt", b, sizes[s]);
			snprintf(cmd, sizeof(cmd), "%s/gen %ld 42 > %s", b, sizes[s], path);
			if (system(cmd) || !(buf[s] = slurp(path, &len[s]))) {
				fprintf(stderr, "bench: cannot generate %s\n", path);
				return 1;
			}
			upd[s] = allocinfo_list_new();
			arr[s] = malloc(sizeof(*arr[s]) * (size_t)sizes[s]);
			for (int k = 0; k < 3; k++)
				v[s][k] = malloc(sizeof(double) * (size_t)runs[s]);
			for (int k = 0; k < 2; k++)
				w[s][k] = malloc(sizeof(double) * (size_t)runs[s]);
			if (!upd[s] || !arr[s] || !v[s][2] || !w[s][1] ||
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
			}
		}
		for (int s = 0; s < 4; s++) {
			t_first[s] = median(v[s][0], runs[s]);
			t_upd[s] = median(v[s][1], runs[s]);
			t_sort[s] = median(v[s][2], runs[s]);
			w_first[s] = median(w[s][0], runs[s]);
			w_upd[s] = median(w[s][1], runs[s]);
			per_row[s] = t_first[s] / (double)sizes[s] * 1e9;
			printf("%8ld %8.3f [%10.3f] %8.3f [%10.3f] %16.3f %8.1f\n", sizes[s],
			       t_first[s] * 1e3, w_first[s] * 1e3, t_upd[s] * 1e3,
			       w_upd[s] * 1e3, t_sort[s] * 1e3, per_row[s]);
			allocinfo_list_free(upd[s]);
			free(buf[s]);
			free(arr[s]);
			for (int k = 0; k < 3; k++)
				free(v[s][k]);
			for (int k = 0; k < 2; k++)
				free(w[s][k]);
		}
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

	return bad;
}
