// SPDX-License-Identifier: GPL-2.0
/*
 * thp: hold anonymous transparent huge pages for the guest tests and cut
 * pieces out of them on command, so that the kernel has to split them.
 *
 * Usage: thp N
 * Maps N huge pages (2 MiB each) of anonymous memory at a 2 MiB aligned
 * address, asks for huge pages with MADV_HUGEPAGE, writes all of it and
 * prints "ready".  Then reads commands, one a line:
 *   munmap|dontneed|protect I OFF LEN
 * which munmap(), madvise(MADV_DONTNEED) or mprotect(PROT_READ) LEN KiB
 * at OFF KiB into huge page I, and answers "ok";
 *   node I
 * which answers the NUMA node huge page I is on; and
 *   move I NODE
 * which moves huge page I to NODE with move_pages() and answers "ok" once
 * the kernel reports it there.  At the end of its input it unmaps
 * everything and exits 0; on any error it exits 1.
 *
 * Usage: thp -g NODE
 * Maps one 1 GiB hugetlb page from the pool of NODE instead (huge page 0
 * of the commands node and move).
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define HPAGE (2UL << 20)
#define GPAGE (1UL << 30)
#define MAP_HUGE_1GB_ (30 << 26)	/* MAP_HUGE_SHIFT */
#define MPOL_BIND 2
#define MPOL_MF_MOVE (1 << 1)

/*
 * The node of the page at P, or with NODE >= 0 move it there first (a
 * huge page moves whole).  Returns the node, or -1 after printing why.
 */
static int page_node(char *p, int node)
{
	void *pages[1] = { p };
	int status[1] = { -1 };
	long r;

	r = syscall(SYS_move_pages, 0, 1UL, pages, node < 0 ? NULL : &node,
		    status, node < 0 ? 0 : MPOL_MF_MOVE);
	if (r < 0 || status[0] < 0) {
		fprintf(stderr, "thp: move_pages: %s\n",
			strerror(r < 0 ? errno : -status[0]));
		return -1;
	}
	if (r > 0) {
		fprintf(stderr, "thp: move_pages: page not migrated\n");
		return -1;
	}
	return status[0];
}

/* Apply CMD to LEN bytes at P; 0 on success, else an error is printed. */
static int cut(char *p, const char *cmd, size_t len)
{
	int r;

	if (!strcmp(cmd, "munmap"))
		r = munmap(p, len);
	else if (!strcmp(cmd, "dontneed"))
		r = madvise(p, len, MADV_DONTNEED);
	else if (!strcmp(cmd, "protect"))
		r = mprotect(p, len, PROT_READ);
	else {
		fprintf(stderr, "thp: unknown command '%s'\n", cmd);
		return -1;
	}
	if (r)
		perror(cmd);
	return r;
}

/* One gigantic hugetlb page from NODE's pool, faulted in; NULL on error. */
static char *gigantic(int node)
{
	unsigned long mask = 1UL << node;
	char *p = mmap(NULL, GPAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_HUGE_1GB_,
		       -1, 0);

	if (p == MAP_FAILED) {
		perror("thp: mmap(MAP_HUGETLB, 1 GiB)");
		return NULL;
	}
	if (syscall(SYS_mbind, p, GPAGE, MPOL_BIND, &mask, 8 * sizeof(mask), 0)) {
		perror("thp: mbind");
		return NULL;
	}
	p[0] = 0x5a;
	return p;
}

int main(int argc, char **argv)
{
	int giga = argc == 3 && !strcmp(argv[1], "-g");
	unsigned long n = giga ? 1 : argc == 2 ? strtoul(argv[1], NULL, 10) : 0;
	unsigned long i, off, len;
	char line[80], cmd[16], *raw, *mem;
	size_t size = giga ? GPAGE : (n + 1) * HPAGE;

	if (n < 1 || n > 64) {
		fprintf(stderr, "usage: thp N (1 to 64 huge pages) | thp -g NODE\n");
		return 1;
	}
	if (giga) {
		raw = mem = gigantic(atoi(argv[2]) & 63);
		if (!mem)
			return 1;
	} else {
		raw = mmap(NULL, size, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (raw == MAP_FAILED) {
			perror("thp: mmap");
			return 1;
		}
		mem = (char *)(((uintptr_t)raw + HPAGE - 1) & ~(HPAGE - 1));
		if (madvise(mem, n * HPAGE, MADV_HUGEPAGE)) {
			perror("thp: madvise(MADV_HUGEPAGE)");
			return 1;
		}
		memset(mem, 0x5a, n * HPAGE);
	}
	printf("ready\n");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		int fields = sscanf(line, "%15s %lu %lu %lu", cmd, &i, &off, &len);

		if (fields >= 2 && i < n && !strcmp(cmd, "node")) {
			int node = page_node(mem + i * HPAGE, -1);

			if (node < 0)
				return 1;
			printf("%d\n", node);
			fflush(stdout);
			continue;
		}
		if (fields >= 3 && i < n && !strcmp(cmd, "move")) {
			if (page_node(mem + i * HPAGE, (int)off) != (int)off)
				return 1;
			printf("ok\n");
			fflush(stdout);
			continue;
		}
		if (fields != 4 || i >= n || off + len > HPAGE / 1024 ||
		    off % 4 || len % 4) {
			fprintf(stderr, "thp: bad command: %s", line);
			return 1;
		}
		if (cut(mem + i * HPAGE + off * 1024, cmd, len * 1024))
			return 1;
		printf("ok\n");
		fflush(stdout);
	}
	return munmap(raw, size) ? 1 : 0;
}
