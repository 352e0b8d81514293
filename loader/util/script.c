// SPDX-License-Identifier: GPL-2.0
/*
 * script.c - one of the repository's scripts run for its last line
 * (script.h): the fork, the pipe, the signals passed on, the reaping.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/script.h"
#include "util/util.h"

#define SCRIPT_MAX_ARGS	8

static volatile sig_atomic_t script_sig;

static void script_on_signal(int sig)
{
	script_sig = sig;
	fb_stop = 1;
}

static void script_child(int fd, const char *script, const char *const *args)
{
	const char *argv[SCRIPT_MAX_ARGS + 3] = { "bash", script };
	int n = 2;

	for (int i = 0; args[i] && i < SCRIPT_MAX_ARGS; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	dup2(fd, STDOUT_FILENO);
	execv("/bin/bash", (char *const *)argv);
	dprintf(STDERR_FILENO, "foliobench: error: cannot run %s: %s\n", script, strerror(errno));
	_exit(127);
}

/* The child's stdout into out (its tail: the last line matters), then its status. */
static int script_collect(int fd, pid_t pid, char *out, size_t cap)
{
	size_t used = 0;
	int status = 0;
	ssize_t n;

	for (;;) {
		n = read(fd, out + used, cap - 1 - used);
		if (n < 0 && errno == EINTR) {
			if (script_sig)
				kill(pid, SIGTERM);
			continue;
		}
		if (n <= 0)
			break;
		used += (size_t)n;
		if (used == cap - 1)
			used = 0;	/* only the last line matters */
	}
	out[used] = '\0';
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		if (script_sig)
			kill(pid, SIGTERM);
	return status;
}

static void last_line(char *out, char *last, size_t len)
{
	size_t used = strlen(out);
	char *nl;

	while (used && (out[used - 1] == '\n' || out[used - 1] == ' '))
		out[--used] = '\0';
	nl = strrchr(out, '\n');
	if ((size_t)fb_fmt(last, len, "%s", nl ? nl + 1 : out) >= len)
		last[0] = '\0';
}

int fb_script_run(const char *name, const char *const *args, char *last, size_t len,
		  int *interrupted)
{
	char repo[PATH_MAX], script[PATH_MAX + 64], out[4096];
	struct sigaction sa, old_int, old_term;
	int fds[2], status = 0;
	pid_t pid;

	last[0] = '\0';
	*interrupted = 0;
	if (fb_repo_dir(repo, sizeof(repo)) < 0)
		return -1;
	fb_fmt(script, sizeof(script), "%s/scripts/%s", repo, name);
	if (pipe2(fds, O_CLOEXEC) < 0) {
		fb_err("%s: pipe: %s", name, strerror(errno));
		return -1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = script_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	script_sig = 0;
	fflush(NULL);
	pid = fork();
	if (pid == 0)
		script_child(fds[1], script, args);
	close(fds[1]);
	if (pid < 0)
		fb_err("%s: fork: %s", name, strerror(errno));
	else
		status = script_collect(fds[0], pid, out, sizeof(out));
	close(fds[0]);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	*interrupted = script_sig != 0;
	if (pid < 0 || !WIFEXITED(status))
		return -1;
	last_line(out, last, len);
	return WEXITSTATUS(status);
}
