// SPDX-License-Identifier: GPL-2.0
/*
 * core.c - the rows of a kernel that is gone, from its core dump
 *
 * The walk of a dump's tags needs the kernel's types, so it lives in the
 * reader allocinfo-core (drgn); this runs it and hands its output, text
 * in the /proc/allocinfo format, to the read and scan functions.
 */
/* pipe2(): neither end of the reader's pipe may leak into other programs */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "allocinfo.h"

extern char **environ;

struct allocinfo_core {
	pid_t pid;
	int fd;
};

static const char *reader_path(void)
{
	const char *path = getenv("ALLOCINFO_CORE_READER");

	return path && *path ? path : ALLOCINFO_CORE_READER;
}

struct allocinfo_core *allocinfo_core_open(const char *core, const char *vmlinux,
					   unsigned int flags)
{
	posix_spawn_file_actions_t actions;
	struct allocinfo_core *c;
	char *argv[6];
	int pipefd[2], rc, i = 0;

	if (!core || !vmlinux || (flags & ~ALLOCINFO_CORE_NUMA)) {
		errno = EINVAL;
		return NULL;
	}
	c = malloc(sizeof(*c));
	if (!c)
		return NULL;
	if (pipe2(pipefd, O_CLOEXEC)) {
		free(c);
		return NULL;
	}
	argv[i++] = (char *)reader_path();
	if (flags & ALLOCINFO_CORE_NUMA)
		argv[i++] = "--numa";
	argv[i++] = "--";
	argv[i++] = (char *)core;
	argv[i++] = (char *)vmlinux;
	argv[i] = NULL;
	/* The reader keeps only the copy of the write end on its stdout. */
	rc = posix_spawn_file_actions_init(&actions);
	if (!rc)
		rc = posix_spawn_file_actions_adddup2(&actions, pipefd[1], STDOUT_FILENO);
	if (!rc)
		rc = posix_spawnp(&c->pid, argv[0], &actions, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&actions);
	close(pipefd[1]);
	if (rc) {
		close(pipefd[0]);
		free(c);
		errno = rc;
		return NULL;
	}
	c->fd = pipefd[0];
	return c;
}

int allocinfo_core_fd(const struct allocinfo_core *core)
{
	return core ? core->fd : -1;
}

int allocinfo_core_close(struct allocinfo_core *core)
{
	int status;
	pid_t pid;

	if (!core)
		return ALLOCINFO_EINVAL;
	/* A reader not yet done (the caller stopped early) is not waited for. */
	close(core->fd);
	while ((pid = waitpid(core->pid, &status, 0)) < 0 && errno == EINTR)
		;
	free(core);
	if (pid < 0)
		return ALLOCINFO_EIO;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return ALLOCINFO_OK;
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGPIPE)
		return ALLOCINFO_OK;
	return ALLOCINFO_ECORE;
}
