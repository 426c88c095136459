/* SPDX-License-Identifier: GPL-2.0 */
/*
 * allocinfo.h - public interface of liballocinfo
 *
 * liballocinfo reads the kernel's /proc/allocinfo (memory allocation
 * profiling, versions 1.x and 2.x) or a saved copy of it into a list of
 * call-site entries.  A filtered read of the live file is answered by the
 * kernel's query ioctls where it has them (Linux 7.3, allocprof 6.1).  A list is filled by one read and updated in place by
 * later reads: an entry keeps its address across reads for as long as the
 * list lives, so callers may keep pointers to entries and attach their own
 * data to them.  All types are opaque; use the accessors.  See
 * liballocinfo(3).
 */
#ifndef ALLOCINFO_H
#define ALLOCINFO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ALLOCINFO_LIB_VERSION "1.3.0"

/* Where the kernel publishes the profile (mode 0400, root only). */
#define ALLOCINFO_PROC_PATH "/proc/allocinfo"

/* Error codes returned by the read functions and allocinfo_list_geterror(). */
enum allocinfo_error {
	ALLOCINFO_OK = 0,
	ALLOCINFO_ENOMEM,	/* out of memory */
	ALLOCINFO_EINVAL,	/* invalid argument */
	ALLOCINFO_EACCES,	/* permission denied opening the source */
	ALLOCINFO_ENOENT,	/* source does not exist */
	ALLOCINFO_EIO,		/* other system error; see allocinfo_list_errno() */
	ALLOCINFO_ENOHEADER,	/* no "allocinfo - version: X.Y" header */
	ALLOCINFO_EVERSION,	/* unsupported major format version */
	ALLOCINFO_ETOOBIG,	/* input (or its entries) larger than the list's limit */
	ALLOCINFO_ENOIOCTL,	/* ALLOCINFO_BACKEND_IOCTL: the source has no query ioctls */
	ALLOCINFO_ECORE,	/* the core reader failed; it said why on stderr */
	ALLOCINFO_NERRORS
};

/*
 * Default limit on the bytes a read takes from its source: 64 MiB, some
 * eight times the largest /proc/allocinfo seen (tens of thousands of rows
 * with 2.x pairs), so that /dev/zero or an endless pipe fail instead of
 * filling memory.
 */
#define ALLOCINFO_MAX_INPUT_DEFAULT ((size_t)64 << 20)

/* How many malformed line numbers a list remembers per read. */
#define ALLOCINFO_MALFORMED_MAX 64

struct allocinfo_list;
struct allocinfo_entry;
struct allocinfo_query;

/* Fields a query can match (allocinfo_query_add_match()). */
enum allocinfo_field {
	ALLOCINFO_FIELD_FILE = 1,
	ALLOCINFO_FIELD_FUNC,
	ALLOCINFO_FIELD_MODULE,		/* built-in code is "vmlinux" */
};

/*
 * How a read or scan of a file descriptor or path gets its rows.  AUTO
 * (the default) asks the kernel by ioctl when the source is the live file,
 * the kernel answers queries, and the list's query has a filter the kernel
 * applies (an exact name of a file, function or module, a minimum of
 * bytes); otherwise, and when a row's name may be cut to the interface's
 * 63 characters, it reads the text.  Rows read by ioctl carry bytes, calls
 * and accurate:no, the fields of the interface, and no other key:value
 * pairs; their allocinfo_entry_lineno() is their rank in the answer.
 */
enum allocinfo_backend {
	ALLOCINFO_BACKEND_AUTO = 0,
	ALLOCINFO_BACKEND_TEXT,		/* always the text */
	ALLOCINFO_BACKEND_IOCTL,	/* always the ioctls, with or without a filter */
};

#define ALLOCINFO_MATCH_EXCLUDE	1u	/* rows that match are dropped */
#define ALLOCINFO_MATCH_EXACT	2u	/* the whole string, not a regex */

const char *allocinfo_strerror(int error);

/* List management. */
struct allocinfo_list *allocinfo_list_new(void);
void allocinfo_list_free(struct allocinfo_list *list);
int allocinfo_list_read_path(struct allocinfo_list *list, const char *path);
int allocinfo_list_read_fd(struct allocinfo_list *list, int fd);
int allocinfo_list_read_buffer(struct allocinfo_list *list, const char *buf,
			       size_t len);
size_t allocinfo_list_prune(struct allocinfo_list *list);
int allocinfo_list_set_max_input(struct allocinfo_list *list, size_t max);
int allocinfo_list_set_max_memory(struct allocinfo_list *list, size_t max);
int allocinfo_list_set_backend(struct allocinfo_list *list, int backend);
int allocinfo_list_backend(const struct allocinfo_list *list);
int allocinfo_list_geterror(const struct allocinfo_list *list);
int allocinfo_list_errno(const struct allocinfo_list *list);

/* Queries: which rows a read stores or a scan returns. */
struct allocinfo_query *allocinfo_query_new(void);
void allocinfo_query_free(struct allocinfo_query *query);
int allocinfo_query_add_match(struct allocinfo_query *query, int field,
			      const char *pattern, unsigned flags);
int allocinfo_query_set_min_bytes(struct allocinfo_query *query, int64_t min);
int allocinfo_query_set_min_calls(struct allocinfo_query *query, uint64_t min);
int allocinfo_query_set_nonzero(struct allocinfo_query *query, int on);
const char *allocinfo_query_error(const struct allocinfo_query *query);
int allocinfo_query_test(const struct allocinfo_query *query,
			 const struct allocinfo_entry *entry);
int allocinfo_list_set_query(struct allocinfo_list *list,
			     const struct allocinfo_query *query);

/* Scans: every row once, nothing stored. */
int allocinfo_list_scan_path(struct allocinfo_list *list, const char *path);
int allocinfo_list_scan_fd(struct allocinfo_list *list, int fd);
int allocinfo_list_scan_buffer(struct allocinfo_list *list, const char *buf,
			       size_t len);
const struct allocinfo_entry *allocinfo_list_scan_next(struct allocinfo_list *list);

/*
 * A kernel core dump as a source: allocinfo_core_open() starts the reader
 * (allocinfo-core, or $ALLOCINFO_CORE_READER) on a vmcore, QEMU dump or
 * /proc/kcore and the dumped kernel's vmlinux; read or scan the rows from
 * allocinfo_core_fd(), then allocinfo_core_close() reaps the reader and
 * returns ALLOCINFO_ECORE if it failed (it says why on stderr).
 * ALLOCINFO_CORE_NUMA: the per-node rows of /proc/allocinfo_numa instead.
 */
#ifndef ALLOCINFO_CORE_READER
#define ALLOCINFO_CORE_READER "allocinfo-core"
#endif
#define ALLOCINFO_CORE_NUMA	1u

struct allocinfo_core;
struct allocinfo_core *allocinfo_core_open(const char *core, const char *vmlinux,
					   unsigned int flags);
int allocinfo_core_fd(const struct allocinfo_core *core);
int allocinfo_core_close(struct allocinfo_core *core);

/* What the last successful read (or the scan) saw. */
int allocinfo_list_version_major(const struct allocinfo_list *list);
int allocinfo_list_version_minor(const struct allocinfo_list *list);
size_t allocinfo_list_count(const struct allocinfo_list *list);
size_t allocinfo_list_present(const struct allocinfo_list *list);
size_t allocinfo_list_generation(const struct allocinfo_list *list);
size_t allocinfo_list_malformed_count(const struct allocinfo_list *list);
size_t allocinfo_list_malformed_line(const struct allocinfo_list *list,
				     size_t index);
const char *allocinfo_list_malformed_reason(const struct allocinfo_list *list,
					    size_t index);
const char *allocinfo_list_raw(const struct allocinfo_list *list, size_t *len);
const char *allocinfo_list_header(const struct allocinfo_list *list,
				  const char *key);

/* Iteration and lookup. */
struct allocinfo_entry *allocinfo_list_first(const struct allocinfo_list *list);
struct allocinfo_entry *allocinfo_entry_next(const struct allocinfo_entry *entry);
struct allocinfo_entry *allocinfo_list_find(const struct allocinfo_list *list,
					    const char *file, unsigned long line,
					    const char *func, const char *module);
struct allocinfo_entry *allocinfo_list_find_func(const struct allocinfo_list *list,
						 const char *func,
						 const struct allocinfo_entry *after);
struct allocinfo_entry *allocinfo_list_find_module(const struct allocinfo_list *list,
						   const char *module,
						   const struct allocinfo_entry *after);

/* Entry accessors. */
int64_t allocinfo_entry_bytes(const struct allocinfo_entry *entry);
uint64_t allocinfo_entry_calls(const struct allocinfo_entry *entry);
const char *allocinfo_entry_file(const struct allocinfo_entry *entry);
unsigned long allocinfo_entry_line(const struct allocinfo_entry *entry);
const char *allocinfo_entry_func(const struct allocinfo_entry *entry);
const char *allocinfo_entry_module(const struct allocinfo_entry *entry);
unsigned allocinfo_entry_occurrence(const struct allocinfo_entry *entry);
size_t allocinfo_entry_lineno(const struct allocinfo_entry *entry);
int allocinfo_entry_vanished(const struct allocinfo_entry *entry);
size_t allocinfo_entry_kv_count(const struct allocinfo_entry *entry);
int allocinfo_entry_kv_get(const struct allocinfo_entry *entry, size_t index,
			   const char **key, const char **value);
const char *allocinfo_entry_kv_find(const struct allocinfo_entry *entry,
				    const char *key);

/* Copies that outlive their read. */
struct allocinfo_entry *allocinfo_entry_dup(const struct allocinfo_entry *entry);
void allocinfo_entry_free(struct allocinfo_entry *entry);

/* Caller-owned fields; the library never reads them and keeps them across reads. */
void *allocinfo_entry_get_ptr(const struct allocinfo_entry *entry);
void allocinfo_entry_set_ptr(struct allocinfo_entry *entry, void *value);
uint64_t allocinfo_entry_get_u64(const struct allocinfo_entry *entry);
void allocinfo_entry_set_u64(struct allocinfo_entry *entry, uint64_t value);

#ifdef __cplusplus
}
#endif

#endif /* ALLOCINFO_H */
