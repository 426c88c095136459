// SPDX-License-Identifier: GPL-2.0
/*
 * metrics.c - OpenMetrics and Prometheus text output
 *
 * The same series in both flavours, so that a dashboard does not care
 * which one fed it.  First what the run says about its source:
 *
 *   allocinfo_read_success                 1: read whole, 0: the read failed
 *   allocinfo_read_error{reason="R"}       1 for the reason it failed, else 0
 *   allocinfo_malformed_lines              lines that did not parse
 *   allocinfo_last_success_timestamp_seconds   (live file) Unix time
 *   allocinfo_profiling_enabled            (live file) vm.mem_profiling is 1
 *   allocinfo_profiling_state{state="S"}   (live file) 1 for the state, else 0
 *   allocinfo_call_sites, allocinfo_total_bytes, allocinfo_total_calls
 *                                          over every row of the source
 *                                          (--numa: every call site)
 *
 * then its rows:
 *
 *   allocinfo_bytes{site} and allocinfo_calls{site}    gauges
 *   allocinfo_kv{site,key="K"} V                       a pair whose value is a number
 *   allocinfo_kv_text_info{site,key="K",value="V"} 1   any other pair
 *   allocinfo_node_bytes{site,node="N"}, allocinfo_node_calls   (--numa)
 *
 * where {site} is file, line, func, module (and occurrence for the second
 * and later rows of one location in the source), or the group's name with
 * --group.
 * Keys are label values, not parts of metric names: the kernel's keys are
 * not ours to name, and a key such as lat_ms, fooBar or x_total in a
 * metric name fails promtool's checks (units, snake_case, suffixes) while
 * any UTF-8 is a valid label value.  A row contributes the first pair of
 * a key it repeats, as in JSON and allocinfo_entry_kv_find().
 *
 * A read that fails still gives a complete exposition: the read families
 * say so and why, and the rows and totals, which would be a part of the
 * source or none of it, are left out.  The time of the last successful
 * read is this run's when it succeeds; a failed run carries it over from
 * the file -o replaces (a textfile collector's previous output), and
 * leaves it out when there is none.  The enumerations (reason, state)
 * give every value, 1 for the one that holds, so that a series does not
 * vanish when the state changes.
 *
 * The flavours differ only where their parsers do: OpenMetrics has UNIT
 * lines, the info type (family allocinfo_kv_text, samples _info) and a
 * final "# EOF"; the Prometheus text format 0.0.4, which promtool and
 * node_exporter's textfile collector parse, knows neither, so there the
 * text pairs are a gauge named allocinfo_kv_text_info with the same
 * samples, and HELP escapes only backslash and newline.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"

static const char *const reason_names[RR_N] = {
	[RR_NOT_FOUND] = "not_found", [RR_PERMISSION] = "permission",
	[RR_FORMAT] = "format", [RR_MALFORMED] = "malformed",
	[RR_TOO_LARGE] = "too_large", [RR_IO] = "io",
};

static const char *const state_names[PS_N] = {
	[PS_ENABLED] = "enabled", [PS_DISABLED] = "disabled",
	[PS_NEVER] = "never", [PS_ABSENT] = "absent", [PS_UNKNOWN] = "unknown",
};

#define LAST_SUCCESS "allocinfo_last_success_timestamp_seconds"

/* TYPE, UNIT and HELP of a family, in the order each flavour wants */
static void family(FILE *f, const struct opts *o, const char *name,
		   const char *type, const char *unit, const char *help)
{
	if (o->fmt == FMT_OPENMETRICS) {
		fprintf(f, "# TYPE %s %s\n", name, type);
		if (unit)
			fprintf(f, "# UNIT %s %s\n", name, unit);
		fprintf(f, "# HELP %s %s\n", name, help);
	} else {
		/* the text format has no info type: the samples' own name, a gauge */
		if (!strcmp(type, "info"))
			fprintf(f, "# HELP %s_info %s\n# TYPE %s_info gauge\n", name, help, name);
		else
			fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
	}
}

/* the row's labels, without the closing brace */
static void labels_open(FILE *f, const struct row *r, const struct opts *o)
{
	if (o->group) {
		fprintf(f, "{%s=", group_name(o));
		put_label_str(f, r->key);
		return;
	}
	fputs("{file=", f);
	put_label_str(f, r->file);
	fprintf(f, ",line=\"%lu\",func=", r->line);
	put_label_str(f, r->func);
	fputs(",module=", f);
	put_label_str(f, modname(r->module));
	if (r->occ)
		fprintf(f, ",occurrence=\"%u\"", r->occ);
}

/*
 * A value both parsers take as a number, printed as the kernel printed
 * it: optional sign, digits, optional fraction and exponent, finite as a
 * double (1e400 is refused by promtool).
 */
static int is_number(const char *v)
{
	const char *p = v;
	char *end;
	double d;

	if (*p == '-' || *p == '+')
		p++;
	if (*p < '0' || *p > '9')
		return 0;
	while (*p >= '0' && *p <= '9')
		p++;
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return 0;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '-' || *p == '+')
			p++;
		if (*p < '0' || *p > '9')
			return 0;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p)
		return 0;
	errno = 0;
	d = strtod(v, &end);
	return !errno && isfinite(d);
}

/* is pair i's key the key of an earlier pair of the entry? */
static int repeated(const struct allocinfo_entry *e, size_t i, const char *k)
{
	const char *k2 = NULL, *v = NULL;

	for (size_t j = 0; j < i; j++) {
		allocinfo_entry_kv_get(e, j, &k2, &v);
		if (!strcmp(k, k2))
			return 1;
	}
	return 0;
}

/* The pairs of the rows shown: numeric ones (text 0) or the others (1). */
static void kv_samples(FILE *f, const struct row *rows, size_t n, int text,
		       const struct opts *o)
{
	const char *name = text ? "allocinfo_kv_text_info" : "allocinfo_kv";
	const char *k = NULL, *v = NULL;
	int any = 0;

	for (size_t i = 0; i < n; i++) {
		const struct allocinfo_entry *e = rows[i].e;

		for (size_t j = 0; e && j < allocinfo_entry_kv_count(e); j++) {
			allocinfo_entry_kv_get(e, j, &k, &v);
			if (is_number(v) == text || repeated(e, j, k))
				continue;
			if (!any++)
				family(f, o, text ? "allocinfo_kv_text" : "allocinfo_kv",
				       text ? "info" : "gauge", NULL, text ?
				       "Key:value pairs of the call site whose values are not numbers." :
				       "Key:value pairs of the call site whose values are numbers.");
			fputs(name, f);
			labels_open(f, &rows[i], o);
			fputs(",key=", f);
			put_label_str(f, k);
			if (text) {
				fputs(",value=", f);
				put_label_str(f, v);
				fputs("} 1\n", f);
			} else {
				fprintf(f, "} %s\n", v);
			}
		}
	}
}

/*
 * vm.mem_profiling as the kernel shows it: 1 or 0; a kernel booted with
 * sysctl.vm.mem_profiling=never reads 0 and has no /proc/allocinfo (a
 * kernel that prints "never" is taken at its word); no file: a kernel
 * without CONFIG_MEM_ALLOC_PROFILING.
 */
static enum prof_state prof_state(const struct opts *o)
{
	const char *path = live_path(o, "sys/vm/mem_profiling");
	char *v = read_small(path);
	enum prof_state ps = PS_UNKNOWN;

	if (!v)
		ps = access(path, F_OK) ? PS_ABSENT : PS_UNKNOWN;
	else if (!strcmp(v, "1"))
		ps = PS_ENABLED;
	else if (!strcmp(v, "never"))
		ps = PS_NEVER;
	else if (!strcmp(v, "0"))
		ps = access(live_path(o, "allocinfo"), F_OK) ? PS_NEVER : PS_DISABLED;
	free(v);
	return ps;
}

/*
 * The time of the last successful read that the file -o replaces holds
 * (a textfile collector's previous output, written by an earlier run);
 * -1 if there is none.  Only a regular file is read: a FIFO or a device
 * given to -o is written, never read.
 */
static int64_t previous_success(const struct opts *o)
{
	static const char name[] = LAST_SUCCESS " ";
	struct stat st;
	char *line = NULL, *end;
	size_t cap = 0;
	int64_t t = -1;
	FILE *f;

	if (!o->output || !strcmp(o->output, "-") || stat(o->output, &st) ||
	    !S_ISREG(st.st_mode) || !(f = fopen(o->output, "re")))
		return -1;
	while (getline(&line, &cap, f) > 0) {
		double d;

		if (strncmp(line, name, sizeof(name) - 1))
			continue;
		errno = 0;
		d = strtod(line + sizeof(name) - 1, &end);
		if (!errno && end != line + sizeof(name) - 1 &&
		    (*end == '\n' || !*end) && d >= 0 && d < 9e15)
			t = (int64_t)d;
		break;
	}
	free(line);
	fclose(f);
	return t;
}

void readinfo_start(struct readinfo *ri, const struct opts *o, const char *path)
{
	memset(ri, 0, sizeof(*ri));
	ri->last_success = -1;
	ri->live = path != core_source && is_live(o, path);
}

/* A call site of the source, shown or not. */
void readinfo_add(struct readinfo *ri, int64_t bytes, uint64_t calls)
{
	ri->sites++;
	ri->total_bytes = sat_add(ri->total_bytes, bytes);
	ri->total_calls = sat_addu(ri->total_calls, calls);
}

/* What a live source says beside its rows: the switch, the last read. */
static void readinfo_live(struct readinfo *ri, const struct opts *o)
{
	if (!ri->live)
		return;
	ri->prof = prof_state(o);
	ri->last_success = ri->ok ? (int64_t)time(NULL) : previous_success(o);
}

/* A read that failed before the source was parsed, for @reason. */
void readinfo_failed(struct readinfo *ri, const struct opts *o,
		     enum read_reason reason)
{
	ri->ok = 0;
	ri->reason = reason;
	readinfo_live(ri, o);
}

/*
 * After the read: rc is the view's exit status so far (0, or the failure
 * source.c said), l the list that read (its error says why), too_big the
 * rows went past the memory limit.
 */
void readinfo_done(struct readinfo *ri, const struct opts *o, int rc,
		   const struct allocinfo_list *l, int too_big)
{
	ri->ok = !rc && !too_big;
	ri->malformed = allocinfo_list_malformed_count(l);
	if (too_big)
		ri->reason = RR_TOO_LARGE;
	else if (rc == EX_MALFORMED)
		ri->reason = RR_MALFORMED;
	else switch (allocinfo_list_geterror(l)) {
	case ALLOCINFO_ENOENT: ri->reason = RR_NOT_FOUND; break;
	case ALLOCINFO_EACCES: ri->reason = RR_PERMISSION; break;
	case ALLOCINFO_ENOHEADER:
	case ALLOCINFO_EVERSION: ri->reason = RR_FORMAT; break;
	case ALLOCINFO_ETOOBIG: ri->reason = RR_TOO_LARGE; break;
	default: ri->reason = RR_IO; break;
	}
	readinfo_live(ri, o);
}

/* The exposition of a failed read; returns the exit status. */
int metrics_failed(const struct readinfo *ri, const struct opts *o, int rc)
{
	struct outfile of;
	int wrc;

	out_open(&of, o, 0644);
	metrics_rows(of.f, NULL, 0, ri, o);
	wrc = out_close(&of, 1);
	return rc ? rc : wrc ? wrc : EX_RUNTIME;
}

/* readinfo_done(), then the exposition of the failed read. */
int metrics_read_failed(struct readinfo *ri, const struct opts *o, int rc,
			const struct allocinfo_list *l, int too_big)
{
	readinfo_done(ri, o, rc, l, too_big);
	return metrics_failed(ri, o, rc);
}

/* readinfo_failed() for @reason, then the exposition of the failed read. */
int metrics_unread(struct readinfo *ri, const struct opts *o,
		   enum read_reason reason, int rc)
{
	readinfo_failed(ri, o, reason);
	return metrics_failed(ri, o, rc);
}

/* the families of the read and of the source as a whole */
static void metrics_source(FILE *f, const struct readinfo *ri,
			   const struct opts *o)
{
	family(f, o, "allocinfo_read_success", "gauge", NULL,
	       "1 if this run read the source whole, 0 if the read failed "
	       "(allocinfo_read_error says why).");
	fprintf(f, "allocinfo_read_success %d\n", ri->ok);
	family(f, o, "allocinfo_read_error", "gauge", NULL,
	       "Why the read failed: 1 for the reason, 0 for the others "
	       "(all 0 after a successful read).");
	for (int i = 0; i < RR_N; i++)
		fprintf(f, "allocinfo_read_error{reason=\"%s\"} %d\n", reason_names[i],
			!ri->ok && ri->reason == (enum read_reason)i);
	family(f, o, "allocinfo_malformed_lines", "gauge", NULL,
	       "Lines of the source that did not parse: skipped, or the read "
	       "fails with --strict.");
	fprintf(f, "allocinfo_malformed_lines %zu\n", ri->malformed);
	if (ri->live && ri->last_success >= 0) {
		family(f, o, LAST_SUCCESS, "gauge", "seconds",
		       "Unix time of the last successful read of the live profile "
		       "(a failed run carries it over from the file -o replaces).");
		fprintf(f, LAST_SUCCESS " %" PRId64 "\n", ri->last_success);
	}
	if (ri->live) {
		family(f, o, "allocinfo_profiling_enabled", "gauge", NULL,
		       "1 if allocation profiling is on (vm.mem_profiling is 1), "
		       "0 otherwise.");
		fprintf(f, "allocinfo_profiling_enabled %d\n", ri->prof == PS_ENABLED);
		family(f, o, "allocinfo_profiling_state", "gauge", NULL,
		       "State of vm.mem_profiling, 1 for the current one: enabled, "
		       "disabled (stale counts), never (off for this boot), absent "
		       "(a kernel without profiling) or unknown.");
		for (int i = 0; i < PS_N; i++)
			fprintf(f, "allocinfo_profiling_state{state=\"%s\"} %d\n",
				state_names[i], ri->prof == (enum prof_state)i);
	}
	if (!ri->ok)
		return;
	family(f, o, "allocinfo_call_sites", "gauge", NULL,
	       "Call sites (rows) in the source, all of them whatever the filters "
	       "and -n output.");
	fprintf(f, "allocinfo_call_sites %zu\n", ri->sites);
	family(f, o, "allocinfo_total_bytes", "gauge", "bytes",
	       "Bytes currently allocated from all call sites of the source, "
	       "whatever the filters and -n output.");
	fprintf(f, "allocinfo_total_bytes %" PRId64 "\n", ri->total_bytes);
	family(f, o, "allocinfo_total_calls", "gauge", NULL,
	       "Live allocations from all call sites of the source, whatever the "
	       "filters and -n output.");
	fprintf(f, "allocinfo_total_calls %" PRIu64 "\n", ri->total_calls);
}

void metrics_rows(FILE *f, const struct row *rows, size_t n,
		  const struct readinfo *ri, const struct opts *o)
{
	if (ri)
		metrics_source(f, ri, o);
	if (ri && !ri->ok) {
		if (o->fmt == FMT_OPENMETRICS)
			fputs("# EOF\n", f);
		return;
	}
	family(f, o, "allocinfo_bytes", "gauge", "bytes",
	       o->group ? "Bytes currently allocated from the call sites of the group." :
	       "Bytes currently allocated from the call site.");
	for (size_t i = 0; i < n; i++) {
		fputs("allocinfo_bytes", f);
		labels_open(f, &rows[i], o);
		fprintf(f, "} %" PRId64 "\n", rows[i].bytes);
	}
	family(f, o, "allocinfo_calls", "gauge", NULL,
	       o->group ? "Live allocations made from the call sites of the group." :
	       "Live allocations made from the call site.");
	for (size_t i = 0; i < n; i++) {
		fputs("allocinfo_calls", f);
		labels_open(f, &rows[i], o);
		fprintf(f, "} %" PRIu64 "\n", rows[i].calls);
	}
	if (!o->group) {
		kv_samples(f, rows, n, 0, o);
		kv_samples(f, rows, n, 1, o);
	}
	if (o->fmt == FMT_OPENMETRICS)
		fputs("# EOF\n", f);
}

/*
 * per-node rows of --numa, after the families of the read (the totals are
 * over the call sites, each site's rows merged): each row's aux is its
 * struct nodes
 */
void metrics_numa(FILE *f, const struct row *rows, size_t n, int nodes,
		  const struct readinfo *ri, const struct opts *o)
{
	metrics_source(f, ri, o);
	family(f, o, "allocinfo_node_bytes", "gauge", "bytes",
	       "Bytes currently allocated from the call site on the NUMA node.");
	for (size_t i = 0; i < n; i++)
		for (int nid = 0; nid < nodes; nid++) {
			fputs("allocinfo_node_bytes", f);
			labels_open(f, &rows[i], o);
			fprintf(f, ",node=\"%d\"} %" PRId64 "\n", nid,
				((const struct nodes *)rows[i].aux)->bytes[nid]);
		}
	family(f, o, "allocinfo_node_calls", "gauge", NULL,
	       "Live allocations made from the call site on the NUMA node.");
	for (size_t i = 0; i < n; i++)
		for (int nid = 0; nid < nodes; nid++) {
			fputs("allocinfo_node_calls", f);
			labels_open(f, &rows[i], o);
			fprintf(f, ",node=\"%d\"} %" PRIu64 "\n", nid,
				((const struct nodes *)rows[i].aux)->calls[nid]);
		}
	if (o->fmt == FMT_OPENMETRICS)
		fputs("# EOF\n", f);
}
