// SPDX-License-Identifier: GPL-2.0
/*
 * aiq: query /proc/allocinfo through its ioctls (linux/alloc_tag.h) for
 * the guest tests.
 *
 *   aiq id                 the content id
 *   aiq rows [FILTER...]   every call site passing the filter, one a line:
 *                          "bytes calls file:line module function accurate"
 *                          (module "-" for vmlinux), walked with GET_AT
 *                          from position 0 (or -p POS) and GET_NEXT
 *   aiq across N CMD [FILTER...]
 *                          as rows, but runs the shell command CMD (its
 *                          output to stderr) after the first N rows, then
 *                          goes on with the walk; fails if CMD fails or
 *                          the walk has fewer than N rows
 *   aiq errors             bad requests, one a line: "what errno-name"
 *   aiq unpriv [PATH [w]]  open PATH (/proc/allocinfo), for writing with
 *                          w, as user nobody: the errno name
 *   aiq time N [FILTER...] N filtered walks, then N reads of the text
 *                          file filtered on the same file name; prints
 *                          "ioctl NS text NS" per walk (CLOCK_MONOTONIC)
 *
 * FILTER: -m MODULE -f FUNCTION -F FILE -l LINE -a INACCURATE(0|1)
 *         -s MIN_BYTES -S MAX_BYTES.  Exits 2 without the ioctls.
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#if __has_include(<linux/alloc_tag.h>)
#include <linux/alloc_tag.h>
#endif

#ifndef ALLOCINFO_IOC_GET_AT
int main(void)
{
	fprintf(stderr, "aiq: built without linux/alloc_tag.h\n");
	return 2;
}
#else

static const char *errname(int e)
{
	switch (e) {
	case 0: return "ok";
	case EINVAL: return "EINVAL";
	case ENOENT: return "ENOENT";
	case EFAULT: return "EFAULT";
	case ENOTTY: return "ENOTTY";
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	default: return strerror(e);
	}
}

static int open_allocinfo(void)
{
	int fd = open("/proc/allocinfo", O_RDONLY);

	if (fd < 0) {
		fprintf(stderr, "aiq: /proc/allocinfo: %s\n", strerror(errno));
		exit(1);
	}
	return fd;
}

static void set_name(char *field, const char *s)
{
	size_t len = strlen(s);

	if (len >= ALLOCINFO_STR_SIZE)
		s += len - (ALLOCINFO_STR_SIZE - 1);
	strncpy(field, s, ALLOCINFO_STR_SIZE - 1);
}

/* Parses FILTER options from argv[i...]; returns the position asked for. */
static unsigned long long parse_filter(int argc, char **argv, int i,
				       struct allocinfo_filter *f)
{
	unsigned long long pos = 0;

	memset(f, 0, sizeof(*f));
	for (; i + 1 < argc; i += 2) {
		const char *v = argv[i + 1];

		if (!strcmp(argv[i], "-m")) {
			f->mask |= ALLOCINFO_FILTER_MASK_MODNAME;
			set_name(f->fields.modname, v);
		} else if (!strcmp(argv[i], "-f")) {
			f->mask |= ALLOCINFO_FILTER_MASK_FUNCTION;
			set_name(f->fields.function, v);
		} else if (!strcmp(argv[i], "-F")) {
			f->mask |= ALLOCINFO_FILTER_MASK_FILENAME;
			set_name(f->fields.filename, v);
		} else if (!strcmp(argv[i], "-l")) {
			f->mask |= ALLOCINFO_FILTER_MASK_LINENO;
			f->fields.lineno = strtoull(v, NULL, 0);
		} else if (!strcmp(argv[i], "-a")) {
			f->mask |= ALLOCINFO_FILTER_MASK_INACCURATE;
			f->inaccurate = strtoull(v, NULL, 0);
		} else if (!strcmp(argv[i], "-s")) {
			f->mask |= ALLOCINFO_FILTER_MASK_MIN_SIZE;
			f->min_size = strtoull(v, NULL, 0);
		} else if (!strcmp(argv[i], "-S")) {
			f->mask |= ALLOCINFO_FILTER_MASK_MAX_SIZE;
			f->max_size = strtoull(v, NULL, 0);
		} else if (!strcmp(argv[i], "-p")) {
			pos = strtoull(v, NULL, 0);
		} else {
			fprintf(stderr, "aiq: unknown option %s\n", argv[i]);
			exit(1);
		}
	}
	return pos;
}

static void print_row(const struct allocinfo_tag_data *d)
{
	printf("%llu %llu %s:%llu %s %s %u\n",
	       (unsigned long long)d->counter.bytes,
	       (unsigned long long)d->counter.calls, d->tag.filename,
	       (unsigned long long)d->tag.lineno,
	       d->tag.modname[0] ? d->tag.modname : "-", d->tag.function,
	       d->counter.accurate);
}

/* Runs the shell command @cmd in the middle of a walk, or exits. */
static void run_between(const char *cmd)
{
	char line[4096];
	int status;

	if (snprintf(line, sizeof(line), "(%s) >&2", cmd) >= (int)sizeof(line)) {
		fprintf(stderr, "aiq: command too long\n");
		exit(1);
	}
	fflush(stdout);
	status = system(line);
	if (status) {
		fprintf(stderr, "aiq: '%s' failed (status %d)\n", cmd, status);
		exit(1);
	}
}

/*
 * One walk; returns the rows found, -1 on an unexpected error.  @cmd,
 * if not NULL, runs after @cmd_after rows.
 */
static long walk(int fd, const struct allocinfo_filter *f,
		 unsigned long long pos, int print, long cmd_after,
		 const char *cmd)
{
	struct allocinfo_get_at at = { .pos = pos, .filter = *f };
	struct allocinfo_tag_data d;
	long n = 0;

	if (ioctl(fd, ALLOCINFO_IOC_GET_AT, &at))
		return errno == ENOENT ? 0 : -1;
	do {
		if (print)
			print_row(n ? &d : &at.data);
		if (++n == cmd_after && cmd)
			run_between(cmd);
	} while (!ioctl(fd, ALLOCINFO_IOC_GET_NEXT, &d));
	return errno == ENOENT ? n : -1;
}

static int cmd_rows(int argc, char **argv)
{
	int across = !strcmp(argv[1], "across");
	long cmd_after = across && argc > 3 ? strtol(argv[2], NULL, 10) : 0;
	const char *cmd = across && argc > 3 ? argv[3] : NULL;
	struct allocinfo_filter f;
	unsigned long long pos;
	long rows;
	int fd;

	if (across && cmd_after < 1) {
		fprintf(stderr, "usage: aiq across N CMD [FILTER...], N >= 1\n");
		return 1;
	}
	pos = parse_filter(argc, argv, across ? 4 : 2, &f);
	fd = open_allocinfo();
	rows = walk(fd, &f, pos, 1, cmd_after, cmd);
	if (rows < 0) {
		fprintf(stderr, "aiq: walk: %s\n", strerror(errno));
		return 1;
	}
	if (rows < cmd_after) {
		fprintf(stderr, "aiq: %ld rows, '%s' not run\n", rows, cmd);
		return 1;
	}
	return 0;
}

static int get_at_errno(int fd, struct allocinfo_get_at *at)
{
	return ioctl(fd, ALLOCINFO_IOC_GET_AT, at) ? errno : 0;
}

static int next_errno(int fd, struct allocinfo_tag_data *d)
{
	return ioctl(fd, ALLOCINFO_IOC_GET_NEXT, d) ? errno : 0;
}

static int cmd_errors(void)
{
	int fd = open_allocinfo();
	struct allocinfo_get_at at;
	struct allocinfo_tag_data d;
	struct allocinfo_tag second;
	int last;

	memset(&at, 0, sizeof(at));
	at.filter.mask = 1ULL << (__ALLOCINFO_FILTER_LAST + 1);
	printf("unknown-mask-bit %s\n", errname(get_at_errno(fd, &at)));

	memset(&at, 0, sizeof(at));
	at.filter.mask = ALLOCINFO_FILTER_MASK_FILENAME;
	memset(at.filter.fields.filename, 'x', ALLOCINFO_STR_SIZE);
	printf("unterminated-name %s\n", errname(get_at_errno(fd, &at)));

	memset(&at, 0, sizeof(at));
	at.filter.mask = ALLOCINFO_FILTER_MASK_MIN_SIZE |
			 ALLOCINFO_FILTER_MASK_MAX_SIZE;
	at.filter.min_size = 2;
	at.filter.max_size = 1;
	printf("min-above-max %s\n", errname(get_at_errno(fd, &at)));

	memset(&at, 0, sizeof(at));
	at.pos = ~0ULL;
	printf("pos-past-end %s\n", errname(get_at_errno(fd, &at)));

	memset(&at, 0, sizeof(at));
	at.filter.mask = ALLOCINFO_FILTER_MASK_FILENAME;
	strcpy(at.filter.fields.filename, "no/such/file.c");
	printf("no-match %s\n", errname(get_at_errno(fd, &at)));

	printf("bad-pointer %s\n", errname(ioctl(fd, ALLOCINFO_IOC_GET_AT,
						 (void *)16) ? errno : 0));
	printf("unknown-command %s\n",
	       errname(ioctl(fd, _IOR(ALLOCINFO_IOC_BASE, 3,
				      struct allocinfo_tag_data), &d) ? errno : 0));

	/*
	 * As upstream's: GET_NEXT fails once at the end, then starts over;
	 * a GET_AT that finds nothing ends a walk in progress, one past
	 * every call site leaves it where it was.
	 */
	memset(&at, 0, sizeof(at));
	if (!ioctl(fd, ALLOCINFO_IOC_GET_AT, &at)) {
		while (!(last = next_errno(fd, &d)))
			;
		printf("next-at-end %s", errname(last));
		printf(", then %s\n", errname(next_errno(fd, &d)));
	}
	memset(&at, 0, sizeof(at));
	get_at_errno(fd, &at);
	strcpy(at.filter.fields.filename, "no/such/file.c");
	at.filter.mask = ALLOCINFO_FILTER_MASK_FILENAME;
	last = get_at_errno(fd, &at);
	printf("get-at-no-match-in-walk %s", errname(last));
	printf(", next %s\n", errname(next_errno(fd, &d)));
	memset(&at, 0, sizeof(at));
	at.pos = 1;
	get_at_errno(fd, &at);
	second = at.data.tag;
	memset(&at, 0, sizeof(at));
	get_at_errno(fd, &at);
	at.pos = ~0ULL;
	last = get_at_errno(fd, &at);
	printf("get-at-past-end-in-walk %s", errname(last));
	last = next_errno(fd, &d);
	printf(", next %s%s\n", errname(last),
	       !last && !memcmp(&d.tag, &second, sizeof(second)) ? " (the second row)" : "");
	return 0;
}

static int cmd_unpriv(int argc, char **argv)
{
	const char *path = argc > 2 ? argv[2] : "/proc/allocinfo";
	int flags = argc > 3 && !strcmp(argv[3], "w") ? O_WRONLY : O_RDONLY;

	if (setgid(65534) || setuid(65534)) {
		perror("aiq: setuid");
		return 1;
	}
	printf("%s\n", errname(open(path, flags) < 0 ? errno : 0));
	return 0;
}

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Rows of the text file whose file name is @file, as a parser would. */
static long text_rows(const char *file)
{
	static char buf[1 << 16];
	char line[1024];
	size_t flen = strlen(file), used = 0;
	long rows = 0;
	FILE *fp = fopen("/proc/allocinfo", "r");

	if (!fp)
		return -1;
	setvbuf(fp, buf, _IOFBF, sizeof(buf));
	while (fgets(line, sizeof(line), fp)) {
		char *p = line;

		used++;
		while (*p == ' ')
			p++;
		p = strchr(p, ' ');		/* after bytes */
		if (!p)
			continue;
		while (*p == ' ')
			p++;
		p = strchr(p, ' ');		/* after calls */
		if (p && !strncmp(p + 1, file, flen) && p[1 + flen] == ':')
			rows++;
	}
	fclose(fp);
	return used ? rows : -1;
}

static int cmd_time(int argc, char **argv)
{
	struct allocinfo_filter f;
	int n = argc > 2 ? atoi(argv[2]) : 0;
	int fd = open_allocinfo(), i;
	unsigned long long t0, t1, t2;
	long rows = 0, trows = 0;

	parse_filter(argc, argv, 3, &f);
	if (n <= 0 || !(f.mask & ALLOCINFO_FILTER_MASK_FILENAME)) {
		fprintf(stderr, "aiq: time N -F FILE [FILTER...]\n");
		return 1;
	}
	t0 = now_ns();
	for (i = 0; i < n; i++)
		rows = walk(fd, &f, 0, 0, 0, NULL);
	t1 = now_ns();
	for (i = 0; i < n; i++)
		trows = text_rows(f.fields.filename);
	t2 = now_ns();
	printf("ioctl %llu text %llu rows %ld %ld\n", (t1 - t0) / n,
	       (t2 - t1) / n, rows, trows);
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";

	if (!strcmp(cmd, "id")) {
		struct allocinfo_content_id id;

		if (ioctl(open_allocinfo(), ALLOCINFO_IOC_CONTENT_ID, &id)) {
			perror("aiq: CONTENT_ID");
			return 1;
		}
		printf("%llu\n", (unsigned long long)id.id);
		return 0;
	}
	if (!strcmp(cmd, "rows") || !strcmp(cmd, "across"))
		return cmd_rows(argc, argv);
	if (!strcmp(cmd, "errors"))
		return cmd_errors();
	if (!strcmp(cmd, "unpriv"))
		return cmd_unpriv(argc, argv);
	if (!strcmp(cmd, "time"))
		return cmd_time(argc, argv);
	fprintf(stderr, "usage: aiq id|rows|errors|unpriv|time ...\n");
	return 1;
}
#endif
