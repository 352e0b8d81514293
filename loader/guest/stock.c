// SPDX-License-Identifier: GPL-2.0
/*
 * stock.c - `--kernel debian:V`: runs scripts/stock-kernel.sh (fetch,
 * sha256 check against the Packages index, unpack, initramfs, all cached
 * under $FB_CACHE/stock/) and hands vm the kernel directory.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest/kernel.h"
#include "guest/stock.h"
#include "util/util.h"

#define PREFIX	"debian:"

static volatile sig_atomic_t stock_sig;

static void stock_on_signal(int sig)
{
	stock_sig = sig;
	fb_stop = 1;
}

int fb_stock_spec(const char *spec)
{
	return spec && !strncmp(spec, PREFIX, strlen(PREFIX));
}

/* Reads the child's stdout into out (NUL-terminated), forwarding signals. */
static void read_child(int fd, pid_t pid, char *out, size_t len)
{
	size_t used = 0;
	ssize_t n;

	for (;;) {
		n = read(fd, out + used, len - 1 - used);
		if (n < 0 && errno == EINTR) {
			if (stock_sig)
				kill(pid, SIGTERM);
			continue;
		}
		if (n <= 0)
			break;
		used += (size_t)n;
		if (used == len - 1)
			used = 0;	/* only the last line matters */
	}
	out[used] = '\0';
}

static int run_script(const char *spec, char *out, size_t len)
{
	char repo[PATH_MAX], script[PATH_MAX + 32];
	struct sigaction sa = { .sa_handler = stock_on_signal }, oi, ot;
	int fds[2], st = 0;
	pid_t pid;

	if (fb_repo_dir(repo, sizeof(repo)) < 0)
		return -1;
	fb_fmt(script, sizeof(script), "%s/scripts/stock-kernel.sh", repo);
	if (pipe2(fds, O_CLOEXEC) < 0) {
		fb_err("kernel %s: pipe: %s", spec, strerror(errno));
		return -1;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &oi);
	sigaction(SIGTERM, &sa, &ot);
	stock_sig = 0;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		dup2(fds[1], STDOUT_FILENO);
		execl("/bin/bash", "bash", script, spec, (char *)NULL);
		dprintf(STDERR_FILENO, "foliobench: error: cannot run %s: %s\n", script,
			strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	if (pid > 0) {
		read_child(fds[0], pid, out, len);
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
	}
	close(fds[0]);
	sigaction(SIGINT, &oi, NULL);
	sigaction(SIGTERM, &ot, NULL);
	if (pid < 0 || stock_sig || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

int fb_stock_dir(const char *spec, char *dir, size_t len)
{
	char out[4096], *last;
	int r = run_script(spec, out, sizeof(out));

	if (r == 2)
		return 2;
	if (stock_sig)
		return 130;
	if (r) {
		if (!stock_sig)
			fb_err("kernel %s: scripts/stock-kernel.sh failed (exit %d)", spec, r);
		return -1;
	}
	while (*out && out[strlen(out) - 1] == '\n')
		out[strlen(out) - 1] = '\0';
	last = strrchr(out, '\n');
	last = last ? last + 1 : out;
	if (!*last || (size_t)fb_fmt(dir, len, "%s", last) >= len) {
		fb_err("kernel %s: scripts/stock-kernel.sh printed no directory", spec);
		return -1;
	}
	return 0;
}

int fb_stock_bzimage(const char *spec, char *bzimage, size_t len)
{
	char dir[PATH_MAX];

	if (fb_stock_dir(spec, dir, sizeof(dir)))
		return -1;
	fb_fmt(bzimage, len, "%s/bzImage", dir);
	return 0;
}

int fb_stock_initrd(const char *bz, char *buf, size_t len)
{
	const char *slash = strrchr(bz, '/');
	int dl = slash ? (int)(slash - bz) : 1;

	fb_fmt(buf, len, "%.*s/initrd.cpio", dl, slash ? bz : ".");
	return access(buf, R_OK) == 0;
}
