// SPDX-License-Identifier: GPL-2.0
/*
 * vmio.c - the plumbing of a guest boot: the job file, relay FIFOs, qemu's
 * process group, the console log's tail and qemu's triple-fault log.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest/vmio.h"
#include "util/util.h"

extern char **environ;

static void vmio_shq(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	}
	fputc('\'', f);
}

int vmio_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	if (remove(path) < 0)
		fb_err("vm: cannot remove %s: %s", path, strerror(errno));
	return 0;
}

/* Removes the private control directory and whatever the guest left in it. */
void vmio_rm_tree(const char *dir)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}


void vmio_relay_read(struct relay *r)
{
	char buf[65536];
	ssize_t n;

	for (;;) {
		n = read(r->fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {
			close(r->fd);
			r->fd = -1;
			return;
		}
		if (r->keep) {
			size_t room = r->keep_cap - 1 - r->keep_len;

			if ((size_t)n > room)
				n = (ssize_t)room;
			memcpy(r->keep + r->keep_len, buf, (size_t)n);
			r->keep_len += (size_t)n;
			r->keep[r->keep_len] = '\0';
			continue;
		}
		for (ssize_t off = 0; off < n;) {
			ssize_t w = write(r->dst, buf + off, (size_t)(n - off));

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				break;	/* reader gone: drop */
			off += w;
		}
	}
}

/* Opens our ends of FIFO base.out (read) and base.in (kept for qemu). */
int vmio_fifo_pair(const char *dir, const char *name, int *rfd, int *wfd)
{
	char in[PATH_MAX], out[PATH_MAX];

	fb_fmt(in, sizeof(in), "%s/%s.in", dir, name);
	fb_fmt(out, sizeof(out), "%s/%s.out", dir, name);
	if (mkfifo(in, 0600) < 0 || mkfifo(out, 0600) < 0)
		return -1;
	*rfd = open(out, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (*rfd < 0)
		return -1;
	/* A writer of our own: no EOF before we stop reading. */
	*wfd = open(out, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	if (*wfd < 0)
		return -1;
	return 0;
}

/*
 * 1 once qemu (pid) has exited; it stays a zombie, so its pid and process
 * group id cannot be reused before vmio_reap().
 */
int vmio_exited(pid_t pid)
{
	siginfo_t si = { 0 };

	if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0)
		return errno == ECHILD;
	return si.si_pid == pid;
}

/* Kills what is left of qemu's process group and reaps qemu. */
void vmio_reap(pid_t pid, int *status)
{
	kill(-pid, SIGKILL);
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
}

/* SIGTERM to qemu's group, SIGKILL after 3 s; reaps qemu. */
void vmio_kill_group(pid_t pid, int *status)
{
	kill(-pid, SIGTERM);
	for (int i = 0; i < 30 && !vmio_exited(pid); i++)
		usleep(100000);
	vmio_reap(pid, status);
}

int vmio_write_job(const char *path, const char *cwd, const char *results,
		     char *const argv[])
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs("# written by foliobench vm, sourced by guest-init.sh\nFB_CWD=", f);
	vmio_shq(f, cwd);
	fputs("\nFB_RESULTS=", f);
	vmio_shq(f, results);
	fputc('\n', f);
	for (char **e = environ; *e; e++) {
		const char *eq = strchr(*e, '=');
		size_t nl;

		if (strncmp(*e, "FB_", 3) || !eq)
			continue;
		nl = (size_t)(eq - *e);
		if (nl == strlen("FB_RESULTS") && !strncmp(*e, "FB_RESULTS", nl))
			continue;
		/* only names the shell accepts */
		if (strspn(*e, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") != nl)
			continue;
		fprintf(f, "export %.*s=", (int)nl, *e);
		vmio_shq(f, eq + 1);
		fputc('\n', f);
	}
	fputs("set --", f);
	for (int i = 0; argv[i]; i++) {
		fputc(' ', f);
		vmio_shq(f, argv[i]);
	}
	fputc('\n', f);
	return fclose(f) ? -1 : 0;
}

/*
 * qemu's -d cpu_reset log says "Triple fault" when the guest kernel crashed
 * too hard to print anything (TCG).  1 if there was one; with note, the
 * log's lines from there are appended to the console log.
 */
int vmio_triple_fault(const char *qlog, const char *log, int note)
{
	size_t cap = 1 << 20;
	char *buf = malloc(cap), *tf;
	int len, found = 0;
	FILE *f;

	if (!buf)
		return 0;
	len = fb_read_file(qlog, buf, cap);
	tf = len > 0 ? strstr(buf, "Triple fault") : NULL;
	if (tf) {
		found = 1;
		f = note ? fopen(log, "a") : NULL;
		if (f) {
			fprintf(f, "\n---- foliobench: qemu's -d cpu_reset log ----\n%.4000s\n",
				tf);
			fclose(f);
		}
	}
	free(buf);
	return found;
}

void vmio_print_tail(const char *log, int n)
{
	char *buf = malloc(1 << 20);
	int len, start, cnt = 0;

	if (!buf)
		return;
	len = fb_read_file(log, buf, 1 << 20);
	if (len <= 0) {
		free(buf);
		return;
	}
	start = len;
	while (start > 0 && cnt <= n) {
		start--;
		if (buf[start] == '\n' && start != len - 1)
			cnt++;
	}
	if (buf[start] == '\n')
		start++;
	fprintf(stderr, "---- last console lines (%s) ----\n%s%s----\n", log,
		buf + start, buf[len - 1] == '\n' ? "" : "\n");
	free(buf);
}

