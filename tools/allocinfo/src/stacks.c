// SPDX-License-Identifier: GPL-2.0
/*
 * stacks.c - allocinfo stacks FILE:LINE: which callers of one line hold
 * its memory
 *
 * Arms the call site through vm.mem_profiling_stacks, waits while the
 * kernel records the stack of every allocation charged to it, prints
 * the site's entries of /proc/allocinfo_stacks and disarms it again,
 * also when interrupted.  A site that someone else armed is shown but
 * left armed.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <err.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"

#define STACKS_WAIT_DEFAULT 10.0

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* Write @cmd to the control file; 0 or an errno value. */
static int ctl_write(const char *ctl, const char *cmd)
{
	FILE *f = fopen(ctl, "we");
	int err = 0;

	if (!f)
		return errno;
	if (fputs(cmd, f) == EOF)
		err = errno;
	if (fclose(f) && !err)
		err = errno;
	return err;
}

static const char *arm_error(int err)
{
	switch (err) {
	case ENOENT: return "no such call site in /proc/allocinfo";
	case EINVAL: return "not a FILE:LINE";
	case ENOSPC: return "the kernel's limit of armed call sites is reached";
	case EACCES:
	case EPERM: return "arming needs root (CAP_SYS_ADMIN)";
	default: return strerror(err);
	}
}

/*
 * Print the entries of @site ("FILE:LINE") from the stacks file @path:
 * each from its "site" line to the next.  Return: entries printed, or
 * -1 if the file cannot be read or is not a stacks file.
 */
static int print_site(const char *path, const char *site)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	int printing = 0, n = 0, first = 1;
	ssize_t len;

	if (!f) {
		warn("%s", path);
		return -1;
	}
	while ((len = getline(&line, &cap, f)) > 0) {
		if (first) {
			first = 0;
			if (strncmp(line, "allocinfo_stacks - version: 1.", 30)) {
				warnx("%s: not an allocinfo_stacks file", path);
				n = -1;
				break;
			}
			continue;
		}
		if (!strncmp(line, "site ", 5)) {
			char b[32], c[32], loc[4096];

			printing = sscanf(line, "site %31s %31s %4095s", b, c, loc) == 3 &&
				   !strcmp(loc, site);
			n += printing;
		}
		if (printing)
			fwrite(line, 1, (size_t)len, stdout);
	}
	if (first && n >= 0) {
		warnx("%s: empty", path);
		n = -1;
	}
	free(line);
	fclose(f);
	return n;
}

int cmd_stacks(int npos, char **pos, struct opts *o)
{
	char ctl[4096], list[4096], *disarm;
	double wait = o->delay >= 0 ? o->delay : STACKS_WAIT_DEFAULT;
	struct sigaction sa;
	int err, armed = 0, n;

	if (npos != 1)
		usage_error("stacks takes one FILE:LINE");
	if (!strchr(pos[0], ':') || pos[0][0] == '-')
		usage_error("'%s' is not a FILE:LINE as /proc/allocinfo prints them",
			    pos[0]);
	snprintf(ctl, sizeof(ctl), "%s/sys/vm/mem_profiling_stacks", o->proc_root);
	snprintf(list, sizeof(list), "%s/allocinfo_stacks", o->proc_root);
	if (access(ctl, F_OK)) {
		warnx("this kernel cannot record stacks (no %s)", ctl);
		return EX_RUNTIME;
	}

	err = ctl_write(ctl, pos[0]);
	if (err == EBUSY) {
		warnx("%s is armed already: showing it, leaving it armed", pos[0]);
	} else if (err) {
		warnx("cannot arm %s: %s", pos[0], arm_error(err));
		return EX_RUNTIME;
	} else {
		armed = 1;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	if (o->verbose)
		fprintf(stderr, "allocinfo: recording the stacks of %s for %g s\n",
			pos[0], wait);
	if (!interrupted)
		sleep_sec(wait);

	n = print_site(list, pos[0]);
	if (armed) {
		disarm = xmalloc(strlen(pos[0]) + 2);
		sprintf(disarm, "-%s", pos[0]);
		err = ctl_write(ctl, disarm);
		free(disarm);
		if (err) {
			warnx("cannot disarm %s: %s", pos[0], strerror(err));
			return EX_RUNTIME;
		}
	}
	if (n < 0)
		return EX_RUNTIME;
	if (!n)
		warnx("%s: no stacks listed", pos[0]);
	return n ? EX_OK_ : EX_RUNTIME;
}
