// SPDX-License-Identifier: GPL-2.0
/*
 * kernel.c - the ioctl backend of liballocinfo: filtered live reads
 *
 * A kernel with the query interface (kabi.h) answers, on an open
 * /proc/allocinfo, "the call sites that pass this filter" without
 * formatting a row of text: it compares names and sums per-CPU counters
 * only where the filter lets a site through.  The query's filters that the
 * kernel can apply (one exact name per field, a minimum size) go down as
 * one struct allocinfo_filter; ai_query_names() and ai_query_values() still
 * test every row that comes back, so a read returns the same rows as the
 * text backend would.
 *
 * The rows are collected before the first is handed out, for two reasons:
 * a module loaded or unloaded during the walk moves the positions it
 * steps through (the content id tells, and the walk starts again), and a
 * row whose name may have been cut to the interface's 63 characters has
 * to be read from the text instead, before any row of the read is used.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/vfs.h>

#include "internal.h"
#include "kabi.h"

#define PROC_FS_MAGIC 0x9fa0	/* statfs f_type of /proc */
#define WALK_TRIES 4		/* walks a stream of module loads may spoil */

static const char inaccurate_kv[] = "accurate:no";

/* Names the interface may have cut: as long as it carries. */
static int name_cut(const char *name)
{
	return strnlen(name, ALLOCINFO_STR_SIZE) >= ALLOCINFO_STR_SIZE - 1;
}

static int row_cut(const struct allocinfo_tag *t)
{
	return name_cut(t->modname) || name_cut(t->function) ||
	       name_cut(t->filename);
}

static int push(struct ai_kernel *k, const struct allocinfo_tag_data *d)
{
	if (k->n == k->cap) {
		size_t cap = k->cap ? 2 * k->cap : 64;
		struct allocinfo_tag_data *rows = realloc(k->rows, cap * sizeof(*rows));

		if (!rows)
			return -1;
		k->rows = rows;
		k->cap = cap;
	}
	k->rows[k->n++] = *d;
	return 0;
}

/* A name as the interface holds it: its last ALLOCINFO_STR_SIZE - 1 bytes. */
static void put_name(char *to, const char *name)
{
	size_t len = strlen(name);

	if (len >= ALLOCINFO_STR_SIZE) {
		name += len - (ALLOCINFO_STR_SIZE - 1);
		len = ALLOCINFO_STR_SIZE - 1;
	}
	memcpy(to, name, len + 1);
}

/* The filters of @q that the kernel applies; 0 when there are none. */
static int kernel_filter(const struct allocinfo_query *q, struct allocinfo_filter *f)
{
	const char *file = ai_query_exact_name(q, ALLOCINFO_FIELD_FILE);
	const char *func = ai_query_exact_name(q, ALLOCINFO_FIELD_FUNC);
	const char *mod = ai_query_exact_name(q, ALLOCINFO_FIELD_MODULE);
	int64_t min = ai_query_min_bytes(q);

	if (file) {
		f->mask |= ALLOCINFO_FILTER_MASK_FILENAME;
		put_name(f->fields.filename, file);
	}
	if (func) {
		f->mask |= ALLOCINFO_FILTER_MASK_FUNCTION;
		put_name(f->fields.function, func);
	}
	if (mod) {
		/* the interface's name of built-in code is "" */
		f->mask |= ALLOCINFO_FILTER_MASK_MODNAME;
		put_name(f->fields.modname, strcmp(mod, AI_BUILTIN_MODULE) ? mod : "");
	}
	if (min > 0) {
		f->mask |= ALLOCINFO_FILTER_MASK_MIN_SIZE;
		f->min_size = (uint64_t)min;
	}
	return f->mask != 0;
}

static int content_id(int fd, uint64_t *id)
{
	struct allocinfo_content_id c;

	if (ioctl(fd, ALLOCINFO_IOC_CONTENT_ID, &c))
		return -1;
	*id = c.id;
	return 0;
}

/* One walk of every site that passes @req's filter; 0, or -1 with errno. */
static int walk(struct ai_kernel *k, int fd, struct allocinfo_get_at *req)
{
	struct allocinfo_tag_data d;

	k->n = 0;
	req->pos = 0;
	if (ioctl(fd, ALLOCINFO_IOC_GET_AT, req))
		return errno == ENOENT ? 0 : -1;
	if (push(k, &req->data))
		return -1;
	while (!ioctl(fd, ALLOCINFO_IOC_GET_NEXT, &d))
		if (push(k, &d))
			return -1;
	return errno == ENOENT ? 0 : -1;
}

static int is_proc(int fd)
{
	struct statfs s;

	return !fstatfs(fd, &s) && s.f_type == PROC_FS_MAGIC;
}

int ai_kernel_collect(struct ai_kernel *k, int fd,
		      const struct allocinfo_query *q, int forced, int *sys)
{
	struct allocinfo_get_at req = { 0 };
	uint64_t before, after;
	int tries;

	*sys = 0;
	k->n = k->next = 0;
	if (!kernel_filter(q, &req.filter) && !forced)
		return AI_KERNEL_NO;
	if (!forced && !is_proc(fd))
		return AI_KERNEL_NO;
	if (content_id(fd, &before)) {
		if (errno == ENOTTY || errno == EINVAL)
			return forced ? ALLOCINFO_ENOIOCTL : AI_KERNEL_NO;
		*sys = errno;
		return errno == EACCES || errno == EPERM ? ALLOCINFO_EACCES : ALLOCINFO_EIO;
	}
	for (tries = 0; tries < WALK_TRIES; tries++, before = after) {
		if (walk(k, fd, &req) || content_id(fd, &after)) {
			*sys = errno;
			return errno == ENOMEM ? ALLOCINFO_ENOMEM : ALLOCINFO_EIO;
		}
		if (after == before)
			break;
	}
	/* modules kept coming and going: the text is one consistent pass */
	if (tries == WALK_TRIES && !forced)
		return AI_KERNEL_NO;
	for (size_t i = 0; i < k->n && !forced; i++)
		if (row_cut(&k->rows[i].tag))
			return AI_KERNEL_NO;
	return ALLOCINFO_OK;
}

int ai_kernel_next(struct ai_kernel *k, struct ai_row *r)
{
	const struct allocinfo_tag_data *d;

	if (k->next >= k->n)
		return 0;
	d = &k->rows[k->next++];
	memset(r, 0, sizeof(*r));
	r->bytes = d->counter.bytes > INT64_MAX ? INT64_MAX : (int64_t)d->counter.bytes;
	r->calls = d->counter.calls;
	r->file = d->tag.filename;
	r->flen = strnlen(d->tag.filename, ALLOCINFO_STR_SIZE);
	r->func = d->tag.function;
	r->fnlen = strnlen(d->tag.function, ALLOCINFO_STR_SIZE);
	if (d->tag.modname[0]) {
		r->module = d->tag.modname;
		r->mlen = strnlen(d->tag.modname, ALLOCINFO_STR_SIZE);
	}
	if (!d->counter.accurate) {
		r->kv = inaccurate_kv;
		r->kvlen = sizeof(inaccurate_kv) - 1;
	}
	r->line = (unsigned long)d->tag.lineno;
	r->lineno = k->next;
	return 1;
}

void ai_kernel_release(struct ai_kernel *k)
{
	free(k->rows);
	memset(k, 0, sizeof(*k));
}
