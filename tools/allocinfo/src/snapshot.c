// SPDX-License-Identifier: GPL-2.0
/*
 * snapshot.c - save the source with a header that dates it
 *
 * "#" lines before the version line (the time, the epoch, the kernel
 * release, the boot id, the source), then the kernel's text unchanged.
 * The parser returns those lines as header fields, so diff can warn about
 * different boots and growth can order snapshots by time.
 */
#define _POSIX_C_SOURCE 200809L
#include <err.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "cmd.h"

/* where the kernel's text starts: the version line; older headers go */
static const char *body_of(const char *raw, size_t len)
{
	for (const char *p = raw; p < raw + len;) {
		const char *q = p, *nl = memchr(p, '\n', (size_t)(raw + len - p));

		while (q < raw + len && (*q == ' ' || *q == '\t'))
			q++;
		if ((size_t)(raw + len - q) >= 20 && !memcmp(q, "allocinfo - version:", 20))
			return p;
		p = nl ? nl + 1 : raw + len;
	}
	return NULL;
}

int cmd_snapshot(int npos, char **pos, struct opts *o)
{
	const char *src = one_source(o, npos, pos), *raw, *body, *v;
	struct allocinfo_list *l = list_new();
	struct outfile of;
	size_t len;
	char tbuf[64];
	time_t now = time(NULL);
	FILE *out;
	int rc;

	if (o->delay >= 0 || o->iterations >= 0 || o->count >= 0 || o->unchanged ||
	    o->npat || o->group || o->fmt_given || o->min_bytes_set ||
	    o->min_calls_set || o->nonzero || o->limit != LIMIT_DEFAULT ||
	    o->sort_given)
		usage_error("snapshot saves the source as it is: only -f, -o, --strict "
			    "and --max-input apply");
	if ((rc = load(l, o, src, 1)))
		goto out;
	raw = allocinfo_list_raw(l, &len);
	if (!raw || !(body = body_of(raw, len))) {
		warnx("%s: cannot keep the raw text", src_name(o, src));
		rc = EX_RUNTIME;
		goto out;
	}
	/* private like the source (mode 0400) */
	out = out_open(&of, o, 0600);
	fputs("# allocinfo-snapshot: 1\n", out);
	if (is_live(o, src)) {
		struct utsname u;
		char *bid = boot_id_now(o);

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
	fprintf(out, "# source: %s\n", src_name(o, src));
	fwrite(body, 1, (size_t)(raw + len - body), out);
	if (len && raw[len - 1] != '\n')
		fputc('\n', out);
	rc = out_close(&of, 1);
out:
	allocinfo_list_free(l);
	return rc;
}
