// SPDX-License-Identifier: GPL-2.0
/*
 * source.c - opening sources, and what to say when that goes wrong
 *
 * A source is the live file (/proc/allocinfo, or $ALLOCINFO_PROC_ROOT's),
 * a saved copy or snapshot, standard input ("-"), or a kernel core dump
 * (--core, read through the library's core reader).  The views that follow
 * entries across reads (diff, top, growth, numa) load it into a list; the
 * default view scans it, keeping only the rows it shows.  Either way the
 * messages are the same: the reason for a failure, every malformed line
 * with its number, and a warning when the live counters are stale.
 */
#define _POSIX_C_SOURCE 200809L
#include <err.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"

/* path of NAME under the proc root ("allocinfo", "sys/vm/mem_profiling") */
const char *live_path(const struct opts *o, const char *name)
{
	static char buf[4][4200];
	static int next;
	char *b = buf[next++ & 3];

	snprintf(b, sizeof(buf[0]), "%s/%s", o->proc_root, name);
	return b;
}

int is_live(const struct opts *o, const char *path)
{
	return !path || !strcmp(path, live_path(o, "allocinfo")) ||
	       !strcmp(path, "/proc/allocinfo");
}

/* The source of --core, told from file names by its address. */
const char core_source[] = "<core>";

const char *src_name(const struct opts *o, const char *path)
{
	if (path == core_source)
		return o->core;
	if (!path)
		return live_path(o, "allocinfo");
	return strcmp(path, "-") ? path : "<stdin>";
}

char *boot_id_now(const struct opts *o)
{
	return read_small(live_path(o, "sys/kernel/random/boot_id"));
}

/*
 * The boot a loaded source is of: this boot for the live file, else its
 * snapshot's boot_id header; NULL when unknown.  The caller frees it.
 */
char *boot_of(const struct allocinfo_list *l, const struct opts *o,
	      const char *path)
{
	const char *h;

	if (is_live(o, path))
		return boot_id_now(o);
	h = allocinfo_list_header(l, "boot_id");
	return h ? xstrdup(h) : NULL;
}

/*
 * Counters of sources A and B, of boots BOOT_A and BOOT_B (NULL: unknown),
 * are compared (diff, growth): warn when both boots are known and differ.
 * Returns 1 if they do.
 */
int warn_boots(const char *a, const char *boot_a, const char *b,
	       const char *boot_b)
{
	if (!boot_a || !boot_b || !strcmp(boot_a, boot_b))
		return 0;
	warnx("warning: %s and %s come from different boots (boot_id %s vs %s): "
	      "call sites and counters are not comparable", a, b, boot_a, boot_b);
	return 1;
}

/* the source of a view that takes at most one: argument or -f */
const char *one_source(const struct opts *o, int npos, char **pos)
{
	if (npos > 1)
		usage_error("too many arguments");
	if (npos == 1) {
		if (o->input)
			usage_error("give the input either with %s or as an argument",
				    o->input == core_source ? "--core" : "-f");
		return pos[0];
	}
	return o->input;
}

struct allocinfo_list *list_new(void)
{
	struct allocinfo_list *l = allocinfo_list_new();

	if (!l)
		err(EX_RUNTIME, "allocinfo_list_new");
	return l;
}

/*
 * The library query for the filters of the options: the patterns, and
 * with values the minimum bytes and calls and --nonzero.  NULL when there
 * is nothing to filter.
 */
struct allocinfo_query *query_new(const struct opts *o, int values)
{
	struct allocinfo_query *q;

	if (!o->npat && !(values && (o->min_bytes_set || o->min_calls_set || o->nonzero)))
		return NULL;
	q = allocinfo_query_new();
	if (!q)
		err(EX_RUNTIME, "allocinfo_query_new");
	for (int i = 0; i < o->npat; i++)
		if (allocinfo_query_add_match(q, o->pat[i].field, o->pat[i].re,
					      o->pat[i].flags |
					      (o->exact ? ALLOCINFO_MATCH_EXACT : 0)))
			usage_error("bad regular expression '%s': %s", o->pat[i].re,
				    allocinfo_query_error(q));
	if (values && o->min_bytes_set)
		allocinfo_query_set_min_bytes(q, o->min_bytes);
	if (values && o->min_calls_set)
		allocinfo_query_set_min_calls(q, o->min_calls);
	if (values && o->nonzero)
		allocinfo_query_set_nonzero(q, 1);
	return q;
}

static void check_sysctl(const struct opts *o)
{
	const char *path = live_path(o, "sys/vm/mem_profiling");
	char *v = read_small(path);

	if (!v)
		warnx("warning: %s not found: allocation profiling may be off, "
		      "numbers may be stale or not collected", path);
	else if (!strcmp(v, "0"))
		warnx("warning: allocation profiling is disabled (vm.mem_profiling=0): "
		      "numbers are stale, not being updated");
	else if (!strcmp(v, "never"))
		warnx("warning: allocation profiling is off (vm.mem_profiling=never): "
		      "numbers were not collected");
	free(v);
}

/* Why a read or scan of PATH failed; returns the exit status. */
int source_error(const struct allocinfo_list *l, const struct opts *o,
		 const char *path, int rc)
{
	const char *name = src_name(o, path);
	int live = is_live(o, path), e = allocinfo_list_errno(l);
	char lim[32];

	switch (rc) {
	case ALLOCINFO_EACCES:
		if (live)
			warnx("%s: permission denied: the file is mode 0400, "
			      "reading it needs root", name);
		else
			warnx("%s: %s", name, strerror(e));
		break;
	case ALLOCINFO_ENOENT:
		if (live && !access(live_path(o, "sys/vm/mem_profiling"), F_OK))
			warnx("%s: not found: profiling is built in but off for this "
			      "boot (sysctl.vm.mem_profiling=never); boot with 0 or 1 "
			      "to collect", name);
		else if (live)
			warnx("%s: not found: this kernel lacks memory allocation "
			      "profiling (CONFIG_MEM_ALLOC_PROFILING)", name);
		else
			warnx("%s: %s", name, strerror(e));
		break;
	case ALLOCINFO_EIO:
		warnx("%s: %s", name, strerror(e));
		break;
	case ALLOCINFO_ETOOBIG:
		/* the text fits, but its call sites would not (ENOMEM) */
		if (e == ENOMEM)
			return too_big(o, path);
		warnx("%s: input too large: more than %s (--max-input raises the limit)",
		      name, fmt_size(lim, sizeof(lim), (int64_t)o->max_input, 0));
		break;
	case ALLOCINFO_ENOIOCTL:
		warnx("%s: no allocinfo query ioctls here (they need Linux 7.3 or "
		      "allocprof's 6.1 series, and the live file); --text reads the text",
		      name);
		break;
	case ALLOCINFO_EVERSION:
		warnx("%s: unsupported format version %d.%d (this allocinfo reads 1.x and 2.x)",
		      name, allocinfo_list_version_major(l),
		      allocinfo_list_version_minor(l));
		break;
	default:
		warnx("%s: %s", name, allocinfo_strerror(rc));
		break;
	}
	return EX_RUNTIME;
}

/*
 * The rows a view keeps, or the call sites of a list, went past
 * mem_limit(); returns the exit status.
 */
int too_big(const struct opts *o, const char *path)
{
	size_t max = mem_limit(o);
	char lim[32];

	warnx("%s: input too large: its rows would take more than %s of memory "
	      "(--max-input raises the limit)", src_name(o, path),
	      fmt_size(lim, sizeof(lim), max > INT64_MAX ? INT64_MAX : (int64_t)max, 0));
	return EX_RUNTIME;
}

/* The malformed lines of the last read or scan; returns the exit status. */
static int report_malformed(const struct allocinfo_list *l,
			    const struct opts *o, const char *name, int report)
{
	size_t nm = allocinfo_list_malformed_count(l);
	size_t shown = nm < ALLOCINFO_MALFORMED_MAX ? nm : ALLOCINFO_MALFORMED_MAX;

	if (nm && (report || o->strict)) {
		for (size_t i = 0; i < shown; i++)
			warnx("%s:%zu: malformed line: %s", name,
			      allocinfo_list_malformed_line(l, i),
			      allocinfo_list_malformed_reason(l, i));
		if (nm > shown)
			warnx("%s: ... and %zu more malformed lines", name, nm - shown);
		warnx("%s: %zu malformed line%s skipped%s", name, nm, nm == 1 ? "" : "s",
		      o->strict ? " (fatal with --strict)" : "");
	}
	return nm && o->strict ? EX_MALFORMED : 0;
}

/* The lifetime count pairs, in the kernel's order. */
static const char *const stats_keys[] = {
	"total_calls", "total_bytes", "failed", "requested",
};

int stats_key(const char *key)
{
	for (size_t i = 0; i < sizeof(stats_keys) / sizeof(stats_keys[0]); i++)
		if (!strcmp(key, stats_keys[i]))
			return 1;
	return 0;
}

/* Parse an unsigned decimal count, all of @v; 0 if malformed. */
int parse_count(const char *v, uint64_t *out)
{
	uint64_t n = 0;

	if (!*v)
		return 0;
	for (; *v; v++) {
		if (*v < '0' || *v > '9')
			return 0;
		if (n > (UINT64_MAX - (uint64_t)(*v - '0')) / 10)
			return 0;
		n = n * 10 + (uint64_t)(*v - '0');
	}
	*out = n;
	return 1;
}

void stats_read(struct stats *s, const struct allocinfo_entry *e)
{
	uint64_t *f[] = { &s->allocs, &s->churn, &s->failed, &s->requested };

	memset(s, 0, sizeof(*s));
	if (!allocinfo_entry_kv_count(e))
		return;
	for (size_t i = 0; i < sizeof(stats_keys) / sizeof(stats_keys[0]); i++) {
		const char *v = allocinfo_entry_kv_find(e, stats_keys[i]);

		if (!v || !parse_count(v, f[i])) {
			memset(s, 0, sizeof(*s));
			return;
		}
	}
	s->valid = 1;
}

/*
 * Lifetime count pairs must hold counts; a row with a bad one is shown
 * without lifetime counts.  Says so (the first ALLOCINFO_MALFORMED_MAX
 * times, counted in *nbad) and returns 1 for such a row.
 */
int stats_bad(const struct allocinfo_entry *e, const struct opts *o,
	      const char *name, size_t *nbad)
{
	uint64_t n;

	if (!allocinfo_entry_kv_count(e))
		return 0;
	for (size_t i = 0; i < sizeof(stats_keys) / sizeof(stats_keys[0]); i++) {
		const char *v = allocinfo_entry_kv_find(e, stats_keys[i]);

		if (!v || parse_count(v, &n))
			continue;
		if ((*nbad)++ < ALLOCINFO_MALFORMED_MAX)
			warnx("%s:%zu: malformed %s:%s: expected an unsigned decimal count%s",
			      name, allocinfo_entry_lineno(e), stats_keys[i], v,
			      o->strict ? " (fatal with --strict)" : "");
		return 1;
	}
	return 0;
}

/*
 * How to read: as asked, else the library's choice, but the text when a
 * sort key needs the lifetime counts, which the ioctls do not carry.
 */
static void set_backend(struct allocinfo_list *l, const struct opts *o)
{
	int backend = o->backend;

	for (int i = 0; i < o->nsort && backend == ALLOCINFO_BACKEND_AUTO; i++)
		if (is_stats_key(o->sort[i].key))
			backend = ALLOCINFO_BACKEND_TEXT;
	allocinfo_list_set_backend(l, backend);
}

static void say_backend(const struct allocinfo_list *l, const struct opts *o,
			const char *path)
{
	if (o->verbose)
		fprintf(stderr, "allocinfo: %s: read %s\n", src_name(o, path),
			allocinfo_list_backend(l) == ALLOCINFO_BACKEND_IOCTL ?
			"through the query ioctls" : "as text");
}

/*
 * Load a source into a list.  Returns 0, or an exit status after printing
 * the reason.  report: say something about malformed lines and the sysctl
 * (the first read of a view; later ones would repeat it).
 */
/* The reader of --core, from its start to its end (one at a time). */
static struct allocinfo_core *core;

static int core_start(const struct opts *o)
{
	const char *reader = getenv("ALLOCINFO_CORE_READER");

	core = allocinfo_core_open(o->core, o->vmlinux,
				   o->numa ? ALLOCINFO_CORE_NUMA : 0);
	if (core)
		return 0;
	warn("cannot run the core reader %s", reader && *reader ? reader :
	     ALLOCINFO_CORE_READER);
	return -1;
}

/* The reader's failure outranks what reading its output found. */
static int core_finish(int rc)
{
	int core_rc = allocinfo_core_close(core);

	core = NULL;
	return core_rc ? core_rc : rc;
}

int load(struct allocinfo_list *l, const struct opts *o, const char *path,
	 int report)
{
	const char *name = src_name(o, path);
	size_t bad = 0;
	int rc;

	allocinfo_list_set_max_input(l, o->max_input);
	allocinfo_list_set_max_memory(l, mem_limit(o));
	set_backend(l, o);
	if (path == core_source) {
		if (core_start(o))
			return EX_RUNTIME;
		rc = core_finish(allocinfo_list_read_fd(l, allocinfo_core_fd(core)));
	} else if (path && !strcmp(path, "-"))
		rc = allocinfo_list_read_fd(l, 0);
	else
		rc = allocinfo_list_read_path(l, path ? path : live_path(o, "allocinfo"));
	if (rc)
		return source_error(l, o, path, rc);
	if (report)
		say_backend(l, o, path);
	if (report && is_live(o, path))
		check_sysctl(o);
	if ((rc = report_malformed(l, o, name, report)))
		return rc;
	if (!report && !o->strict)
		return 0;
	for (struct allocinfo_entry *e = allocinfo_list_first(l); e;
	     e = allocinfo_entry_next(e))
		if (!allocinfo_entry_vanished(e))
			stats_bad(e, o, name, &bad);
	return bad && o->strict ? EX_MALFORMED : 0;
}

/* Start a scan of a source; returns 0 or an exit status (said why). */
int scan_open(struct allocinfo_list *l, const struct opts *o, const char *path)
{
	int rc;

	allocinfo_list_set_max_input(l, o->max_input);
	set_backend(l, o);
	if (path == core_source) {
		if (core_start(o))
			return EX_RUNTIME;
		rc = allocinfo_list_scan_fd(l, allocinfo_core_fd(core));
		if (rc)
			rc = core_finish(rc);
	} else if (path && !strcmp(path, "-"))
		rc = allocinfo_list_scan_fd(l, 0);
	else
		rc = allocinfo_list_scan_path(l, path ? path : live_path(o, "allocinfo"));
	if (rc)
		return source_error(l, o, path, rc);
	say_backend(l, o, path);
	if (is_live(o, path))
		check_sysctl(o);
	return 0;
}

/*
 * After the last row of a scan: a read error, malformed lines, malformed
 * lifetime counts (bad_stats rows).  Returns 0 or an exit status.
 */
int scan_close(struct allocinfo_list *l, const struct opts *o,
	       const char *path, size_t bad_stats)
{
	int rc = allocinfo_list_geterror(l);

	if (path == core_source)
		rc = core_finish(rc);
	if (rc)
		return source_error(l, o, path, rc);
	if ((rc = report_malformed(l, o, src_name(o, path), 1)))
		return rc;
	return bad_stats && o->strict ? EX_MALFORMED : 0;
}
