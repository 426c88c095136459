/* SPDX-License-Identifier: GPL-2.0 */
/*
 * internal.h - what the files of liballocinfo share, and nobody else
 *
 * The library is three parts:
 *   allocinfo.c  lists and entries: identity, update in place, scans,
 *                accessors;
 *   text.c       the text backend: reading a source (with the input limit),
 *                the version line, and rows as slices of the text;
 *   kernel.c     the ioctl backend: a filtered read of the live file
 *                that the kernel answers without printing text;
 *   query.c      the query object: filters a read applies to each row
 *                before it costs an entry.
 * A read pulls rows from a backend one at a time (struct ai_row), tests
 * them against the list's query, and stores or returns them; nothing
 * above the backends knows which one filled the row.
 */
#ifndef ALLOCINFO_INTERNAL_H
#define ALLOCINFO_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "allocinfo.h"

/* One row from a backend: slices of its text, valid until the next row. */
struct ai_row {
	int64_t bytes;
	uint64_t calls;
	const char *file, *func, *module, *kv;	/* module NULL: built-in */
	size_t flen, fnlen, mlen, kvlen;
	unsigned long line;
	size_t lineno;				/* line in the source */
};

/*
 * The text backend's state for one read.  The window [buf + pos, buf + len)
 * holds text not yet parsed.  With fd < 0 the whole text is in memory from
 * the start (a list read, which keeps it for allocinfo_list_raw(), or a
 * caller's buffer); otherwise the reader owns buf and refills it from fd,
 * keeping only the line in progress, so a scan holds one chunk of a source
 * of any length.
 */
struct ai_text {
	int fd;
	char *own;		/* buf when the reader owns it */
	const char *buf;
	size_t pos, len, cap;
	size_t total, max;	/* bytes read from fd so far, limit (0: none) */
	size_t lineno;
	int eof, nul;		/* source ended; a NUL byte in the window */
	int in_header;		/* no row seen yet: comments allowed */
};

int ai_read_all(int fd, char **buf, size_t *cap, size_t *len, size_t max,
		int *sys);
void ai_text_init_mem(struct ai_text *t, const char *buf, size_t len);
void ai_text_init_fd(struct ai_text *t, int fd, size_t max);
void ai_text_release(struct ai_text *t);
int ai_text_header(struct ai_text *t, struct allocinfo_list *l);
int ai_text_next(struct ai_text *t, struct ai_row *r, struct allocinfo_list *l);
#ifdef AI_TEST_HOOKS
extern size_t ai_test_fast_rows;	/* rows fast_row() read: the unit tests' */
#endif

/* The ioctl backend's rows for one read (struct allocinfo_tag_data). */
struct ai_kernel {
	struct allocinfo_tag_data *rows;
	size_t n, cap, next;
};

#define AI_KERNEL_NO (-1)	/* ai_kernel_collect(): read the text instead */

int ai_kernel_collect(struct ai_kernel *k, int fd,
		      const struct allocinfo_query *q, int forced, int *sys);
int ai_kernel_next(struct ai_kernel *k, struct ai_row *r);
void ai_kernel_release(struct ai_kernel *k);

/* allocinfo.c, for the backends */
int ai_set_error(struct allocinfo_list *l, int error, int sys);
void ai_malformed(struct allocinfo_list *l, size_t lineno, const char *why);
void ai_set_version(struct allocinfo_list *l, int vmajor, int vminor);
void ai_set_header(struct allocinfo_list *l, char **kv, size_t n);

/* query.c */
#define AI_BUILTIN_MODULE "vmlinux"	/* what module patterns see for built-in code */
int ai_query_needs_names(const struct allocinfo_query *q);
const char *ai_query_exact_name(const struct allocinfo_query *q, int field);
int64_t ai_query_min_bytes(const struct allocinfo_query *q);
int ai_query_values(const struct allocinfo_query *q, int64_t bytes,
		    uint64_t calls);
int ai_query_names(const struct allocinfo_query *q, const char *file,
		   const char *func, const char *module);

#endif
