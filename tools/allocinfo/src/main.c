// SPDX-License-Identifier: GPL-2.0
/*
 * allocinfo - show and compare the kernel's memory allocation profile
 *
 * main() parses the options into one struct opts and hands it to the view
 * the first argument names (the default view, snapshot, diff, top,
 * growth); the views live in files of their own (see cmd.h).
 *
 * Exit status: 0 success, 1 runtime error, 2 usage error, 3 malformed input
 * under --strict, 4 a finding (--fail-above, --max-bytes, leak suspects).
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

#define VERSION "1.3.0"

static void usage(FILE *f)
{
	fputs("Usage: allocinfo [OPTIONS] [FILE]\n"
	      "       allocinfo snapshot [-o FILE] [OPTIONS] [SOURCE]\n"
	      "       allocinfo diff [OPTIONS] OLD [NEW]\n"
	      "       allocinfo top [-d SECONDS] [-i N] [OPTIONS] [SOURCE]\n"
	      "       allocinfo growth [-c COUNT] [-d SECONDS] [OPTIONS] [SOURCE | SNAPSHOT...]\n"
	      "       allocinfo stacks [-d SECONDS] [OPTIONS] FILE:LINE\n"
	      "       allocinfo stacks -f FILE [OPTIONS] [FILE:LINE]\n"
	      "Show the kernel's memory allocation profile (/proc/allocinfo).\n"
	      "FILE may be a saved copy, a snapshot, or - for standard input.\n"
	      "\n"
	      "Source and input:\n"
	      "  -f, --input FILE        read FILE instead of /proc/allocinfo (stacks:\n"
	      "                          a saved /proc/allocinfo_stacks)\n"
	      "      --strict            malformed lines are fatal (exit status 3)\n"
	      "      --max-input SIZE    refuse sources larger than SIZE (default 64M,\n"
	      "                          0: no limit)\n"
	      "      --ioctl, --text     read the live file through the kernel's query\n"
	      "                          ioctls, or as text (default: ioctls when the\n"
	      "                          kernel has them and can filter the rows)\n"
	      "  -v, --verbose           say how each source was read\n"
	      "      --core VMCORE       read a kernel core dump (kdump vmcore, QEMU\n"
	      "                          dump-guest-memory -p, /proc/kcore) instead,\n"
	      "                          through allocinfo-core (drgn)\n"
	      "      --vmlinux VMLINUX   the dumped kernel's vmlinux, with debug info\n"
	      "Selection and order:\n"
	      "  -n, --lines N           show the first N rows (table default 20)\n"
	      "  -a, --all               show all rows\n"
	      "  -s, --sort KEYS         comma-separated keys: bytes calls avg file line\n"
	      "                          func module allocs churn failed slack, and in\n"
	      "                          top rate change;\n"
	      "                          prefix - descending, + ascending\n"
	      "                          (default: bytes, descending)\n"
	      "      --module RE         keep modules matching RE (vmlinux: built-in)\n"
	      "      --exclude-module RE drop modules matching RE\n"
	      "      --file RE, --exclude-file RE, --func RE, --exclude-func RE\n"
	      "                          the same for the source file and function\n"
	      "  -x, --exact             the patterns are whole names, not regular\n"
	      "                          expressions\n"
	      "      --min-bytes N       keep rows with at least N bytes (K/M/G suffixes)\n"
	      "      --min-calls N       keep rows with at least N calls\n"
	      "      --nonzero           drop rows with zero bytes\n"
	      "  -g, --group WHAT        sum by module, dir[:N], file or func\n"
	      "Output:\n"
	      "  -b, --bytes             raw byte counts instead of IEC units\n"
	      "      --json, --csv, --folded, --format FMT\n"
	      "      --openmetrics       OpenMetrics text (ends with # EOF)\n"
	      "      --prometheus        Prometheus text format 0.0.4 (promtool,\n"
	      "                          node_exporter's textfile collector)\n"
	      "  -o, --output FILE       write to FILE (a temporary file renamed over it)\n"
	      "  -d, --delay SECONDS     top, growth: seconds between samples;\n"
	      "                          stacks: seconds to record (default 10)\n"
	      "  -i, --iterations N      top: stop after N refreshes\n"
	      "  -c, --count N           growth: number of samples (default 5)\n"
	      "      --unchanged         diff: also list unchanged call sites\n"
	      "      --numa              bytes per NUMA node, from /proc/allocinfo_numa\n"
	      "                          (or FILE, a saved copy of it); table, --csv,\n"
	      "                          --openmetrics or --prometheus\n"
	      "Checks (exit status 4 when they find something):\n"
	      "      --max-bytes SIZE    a call site (a group, with -g) holds more\n"
	      "      --fail-above SIZE   diff: a call site, a group or the total grew\n"
	      "                          by more\n"
	      "  -h, --help              show this help\n"
	      "  -V, --version           show the version\n"
	      "\n"
	      "Exit status: 0 success, 1 runtime error, 2 usage error,\n"
	      "3 malformed input with --strict, 4 a check found something\n"
	      "(--max-bytes, --fail-above, growth's leak suspects).\n", f);
}

enum {
	O_STRICT = 256, O_MODULE, O_XMODULE, O_FILE, O_XFILE, O_FUNC, O_XFUNC,
	O_MINB, O_MINC, O_NONZERO, O_JSON, O_CSV, O_OM, O_FOLDED, O_FORMAT,
	O_UNCHANGED, O_NUMA, O_MAXIN, O_PROM, O_MAXB, O_FAILA, O_IOCTL, O_TEXT,
	O_CORE, O_VMLINUX,
};

static const struct option longopts[] = {
	{ "input", required_argument, NULL, 'f' },
	{ "strict", no_argument, NULL, O_STRICT },
	{ "lines", required_argument, NULL, 'n' },
	{ "all", no_argument, NULL, 'a' },
	{ "sort", required_argument, NULL, 's' },
	{ "module", required_argument, NULL, O_MODULE },
	{ "exclude-module", required_argument, NULL, O_XMODULE },
	{ "file", required_argument, NULL, O_FILE },
	{ "exclude-file", required_argument, NULL, O_XFILE },
	{ "func", required_argument, NULL, O_FUNC },
	{ "exclude-func", required_argument, NULL, O_XFUNC },
	{ "min-bytes", required_argument, NULL, O_MINB },
	{ "min-calls", required_argument, NULL, O_MINC },
	{ "nonzero", no_argument, NULL, O_NONZERO },
	{ "group", required_argument, NULL, 'g' },
	{ "bytes", no_argument, NULL, 'b' },
	{ "json", no_argument, NULL, O_JSON },
	{ "csv", no_argument, NULL, O_CSV },
	{ "openmetrics", no_argument, NULL, O_OM },
	{ "prometheus", no_argument, NULL, O_PROM },
	{ "folded", no_argument, NULL, O_FOLDED },
	{ "format", required_argument, NULL, O_FORMAT },
	{ "output", required_argument, NULL, 'o' },
	{ "delay", required_argument, NULL, 'd' },
	{ "iterations", required_argument, NULL, 'i' },
	{ "count", required_argument, NULL, 'c' },
	{ "unchanged", no_argument, NULL, O_UNCHANGED },
	{ "numa", no_argument, NULL, O_NUMA },
	{ "exact", no_argument, NULL, 'x' },
	{ "ioctl", no_argument, NULL, O_IOCTL },
	{ "text", no_argument, NULL, O_TEXT },
	{ "core", required_argument, NULL, O_CORE },
	{ "vmlinux", required_argument, NULL, O_VMLINUX },
	{ "verbose", no_argument, NULL, 'v' },
	{ "max-input", required_argument, NULL, O_MAXIN },
	{ "max-bytes", required_argument, NULL, O_MAXB },
	{ "fail-above", required_argument, NULL, O_FAILA },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static long long parse_num(const char *s, const char *what, int suffixes, int allow_neg)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (end == s || errno || (!allow_neg && v < 0))
		usage_error("invalid %s '%s'", what, s);
	if (suffixes && *end) {
		const char *u = "KMGTP";
		const char *p = strchr(u, toupper((unsigned char)*end));
		int shift;

		if (!p || !*p)
			usage_error("invalid %s '%s'", what, s);
		shift = 10 * (int)(p - u + 1);
		end++;
		if (*end == 'i' && end[1] == 'B')
			end += 2;
		else if (*end == 'B')
			end++;
		if (v > (LLONG_MAX >> shift) || v < -(LLONG_MAX >> shift))
			usage_error("%s '%s' out of range", what, s);
		v *= 1LL << shift;
	}
	if (*end)
		usage_error("invalid %s '%s'", what, s);
	return v;
}
static double parse_delay(const char *s)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(s, &end);
	if (end == s || *end || errno || !(d >= 0) || d > 86400)
		usage_error("invalid delay '%s'", s);
	return d;
}

static void parse_sort(struct opts *o, const char *s)
{
	static const struct { const char *name; enum key k; int desc; } keys[] = {
		{ "bytes", K_BYTES, 1 }, { "calls", K_CALLS, 1 }, { "avg", K_AVG, 1 },
		{ "rate", K_RATE, 1 }, { "change", K_CHANGE, 1 }, { "file", K_FILE, 0 },
		{ "line", K_LINE, 0 }, { "func", K_FUNC, 0 }, { "module", K_MODULE, 0 },
		{ "allocs", K_ALLOCS, 1 }, { "churn", K_CHURN, 1 },
		{ "failed", K_FAILED, 1 }, { "slack", K_SLACK, 1 },
	};
	char *dup = xstrdup(s), *tok, *save = NULL;

	o->nsort = 0;
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int dir = -1;
		size_t i;

		if (*tok == '-' || *tok == '+')
			dir = *tok++ == '-';
		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (!strcmp(tok, keys[i].name))
				break;
		if (i == sizeof(keys) / sizeof(keys[0]))
			usage_error("unknown sort key '%s' (keys: bytes, calls, avg, rate, "
				    "change, file, line, func, module, allocs, churn, failed, "
				    "slack)", tok);
		if (o->nsort == 16)
			usage_error("too many sort keys");
		o->sort[o->nsort].key = keys[i].k;
		o->sort[o->nsort].desc = dir < 0 ? keys[i].desc : dir;
		o->nsort++;
	}
	free(dup);
	if (!o->nsort)
		usage_error("empty sort specification");
	o->sort_given = 1;
}

static void add_pattern(struct opts *o, const char *re, int field, unsigned flags)
{
	o->pat = xrealloc(o->pat, (size_t)o->npat + 1, sizeof(*o->pat));
	o->pat[o->npat].field = field;
	o->pat[o->npat].flags = flags;
	o->pat[o->npat].re = re;
	o->npat++;
}

static void set_format(struct opts *o, const char *s)
{
	static const struct { const char *name; enum fmt fmt; } f[] = {
		{ "table", FMT_TABLE }, { "json", FMT_JSON }, { "csv", FMT_CSV },
		{ "openmetrics", FMT_OPENMETRICS }, { "prometheus", FMT_PROMETHEUS },
		{ "folded", FMT_FOLDED },
	};

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (!strcmp(s, f[i].name)) {
			o->fmt = f[i].fmt;
			o->fmt_given = 1;
			return;
		}
	usage_error("unknown format '%s' (table, json, csv, openmetrics, prometheus, "
		    "folded)", s);
}

static void set_group(struct opts *o, const char *s)
{
	if (!strcmp(s, "module"))
		o->group = G_MODULE;
	else if (!strcmp(s, "file"))
		o->group = G_FILE;
	else if (!strcmp(s, "func"))
		o->group = G_FUNC;
	else if (!strcmp(s, "dir"))
		o->group = G_DIR;
	else if (!strncmp(s, "dir:", 4)) {
		o->group = G_DIR;
		o->group_depth = (int)parse_num(s + 4, "directory depth", 0, 0);
		if (o->group_depth < 1 || o->group_depth > 1000)
			usage_error("directory depth must be 1 to 1000");
	} else
		usage_error("unknown group '%s' (module, dir[:N], file, func)", s);
}

static void parse_opts(struct opts *o, int argc, char **argv)
{
	int c;

	o->limit = LIMIT_DEFAULT;
	o->delay = -1;
	o->iterations = -1;
	o->count = -1;
	o->max_input = ALLOCINFO_MAX_INPUT_DEFAULT;
	o->nsort = 1;
	o->sort[0].key = K_BYTES;
	o->sort[0].desc = 1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "f:n:as:g:bo:d:i:c:xvhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'f': o->input = optarg; break;
		case O_STRICT: o->strict = 1; break;
		case 'n': o->limit = (long)parse_num(optarg, "row count", 0, 0); break;
		case 'a': o->limit = LIMIT_ALL; break;
		case 's': parse_sort(o, optarg); break;
		case O_MODULE: add_pattern(o, optarg, ALLOCINFO_FIELD_MODULE, 0); break;
		case O_XMODULE:
			add_pattern(o, optarg, ALLOCINFO_FIELD_MODULE, ALLOCINFO_MATCH_EXCLUDE);
			break;
		case O_FILE: add_pattern(o, optarg, ALLOCINFO_FIELD_FILE, 0); break;
		case O_XFILE:
			add_pattern(o, optarg, ALLOCINFO_FIELD_FILE, ALLOCINFO_MATCH_EXCLUDE);
			break;
		case O_FUNC: add_pattern(o, optarg, ALLOCINFO_FIELD_FUNC, 0); break;
		case O_XFUNC:
			add_pattern(o, optarg, ALLOCINFO_FIELD_FUNC, ALLOCINFO_MATCH_EXCLUDE);
			break;
		case O_MINB:
			o->min_bytes = parse_num(optarg, "byte count", 1, 1);
			o->min_bytes_set = 1;
			break;
		case O_MINC:
			o->min_calls = (uint64_t)parse_num(optarg, "call count", 1, 0);
			o->min_calls_set = 1;
			break;
		case O_NONZERO: o->nonzero = 1; break;
		case 'g': set_group(o, optarg); break;
		case 'b': o->raw = 1; break;
		case O_JSON: o->fmt = FMT_JSON; o->fmt_given = 1; break;
		case O_CSV: o->fmt = FMT_CSV; o->fmt_given = 1; break;
		case O_OM: o->fmt = FMT_OPENMETRICS; o->fmt_given = 1; break;
		case O_PROM: o->fmt = FMT_PROMETHEUS; o->fmt_given = 1; break;
		case O_FOLDED: o->fmt = FMT_FOLDED; o->fmt_given = 1; break;
		case O_FORMAT: set_format(o, optarg); break;
		case 'o': o->output = optarg; break;
		case 'd': o->delay = parse_delay(optarg); break;
		case 'i':
			o->iterations = (long)parse_num(optarg, "iteration count", 0, 0);
			break;
		case 'c':
			o->count = (long)parse_num(optarg, "sample count", 0, 0);
			break;
		case O_UNCHANGED: o->unchanged = 1; break;
		case O_NUMA: o->numa = 1; break;
		case 'x': o->exact = 1; break;
		case O_IOCTL: o->backend = ALLOCINFO_BACKEND_IOCTL; break;
		case O_TEXT: o->backend = ALLOCINFO_BACKEND_TEXT; break;
		case O_CORE: o->core = optarg; break;
		case O_VMLINUX: o->vmlinux = optarg; break;
		case 'v': o->verbose = 1; break;
		case O_MAXIN:
			o->max_input = (size_t)parse_num(optarg, "input limit", 1, 0);
			break;
		case O_MAXB:
			o->max_bytes = parse_num(optarg, "byte count", 1, 1);
			o->max_bytes_set = 1;
			break;
		case O_FAILA:
			o->fail_above = parse_num(optarg, "byte count", 1, 0);
			o->fail_above_set = 1;
			break;
		case 'h': usage(stdout); exit(0);
		case 'V':
			printf("allocinfo %s (liballocinfo %s)\n", VERSION, ALLOCINFO_LIB_VERSION);
			exit(0);
		default:
			fprintf(stderr, "Try 'allocinfo --help' for more information.\n");
			exit(EX_USAGE_);
		}
	}
}

/* Options that make sense for one view only, checked once for all. */
static void check_opts(const struct opts *o)
{
	if (o->numa && o->cmd != C_SHOW)
		usage_error("--numa only works without a subcommand");
	if (!o->core != !o->vmlinux)
		usage_error("--core and --vmlinux go together: the dump and its kernel");
	if (o->core && o->cmd != C_SHOW && o->cmd != C_SNAPSHOT)
		usage_error("--core is a source for the default view and snapshot");
	if (o->core && o->input && o->input != core_source)
		usage_error("give the input either with -f or with --core");
	if (o->sort_given && (o->cmd == C_DIFF || o->cmd == C_GROWTH))
		usage_error("%s orders its rows itself (%s): -s does not apply",
			    o->cmd == C_DIFF ? "diff" : "growth",
			    o->cmd == C_DIFF ? "largest change first" :
			    "leak suspects first, then by slope");
	if (o->max_bytes_set && o->cmd != C_SHOW)
		usage_error("--max-bytes checks the default view; diff has --fail-above");
	if (o->fail_above_set && o->cmd != C_DIFF)
		usage_error("--fail-above checks the growth diff finds");
	for (int i = 0; i < o->nsort && o->cmd != C_TOP; i++)
		if (o->sort[i].key == K_RATE || o->sort[i].key == K_CHANGE)
			usage_error("sort key '%s' is a change that only top measures",
				    key_name(o->sort[i].key));
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		enum cmd cmd;
		int (*fn)(int, char **, struct opts *);
	} cmds[] = {
		{ "snapshot", C_SNAPSHOT, cmd_snapshot }, { "diff", C_DIFF, cmd_diff },
		{ "top", C_TOP, cmd_top }, { "growth", C_GROWTH, cmd_growth },
		{ "stacks", C_STACKS, cmd_stacks },
	};
	int (*fn)(int, char **, struct opts *) = cmd_show;
	const char *pr = getenv("ALLOCINFO_PROC_ROOT");
	struct opts o;
	int rc;

	memset(&o, 0, sizeof(o));
	o.cmd = C_SHOW;
	o.proc_root = pr && *pr ? pr : "/proc";
	if (argc > 1) {
		for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
			if (!strcmp(argv[1], cmds[i].name)) {
				fn = cmds[i].fn;
				o.cmd = cmds[i].cmd;
				argv[1] = argv[0];
				argc--;
				argv++;
				break;
			}
	}
	parse_opts(&o, argc, argv);
	check_opts(&o);
	if (o.core)
		o.input = core_source;
	rc = fn(argc - optind, argv + optind, &o);
	if (fflush(stdout) || ferror(stdout)) {
		warn("write error");
		rc = EX_RUNTIME;
	}
	free(o.pat);
	return rc;
}
