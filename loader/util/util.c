// SPDX-License-Identifier: GPL-2.0
/* util.c - messages, clocks, small file helpers. */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/util.h"

volatile sig_atomic_t fb_stop;
static int verbose;
static int nerr;

int fb_verbose(void)
{
	return verbose;
}

void fb_set_verbose(int v)
{
	verbose = v;
}

static int quiet = -1;	/* -1: FB_QUIET not read yet */

int fb_quiet(void)
{
	const char *q;

	if (quiet < 0) {
		q = getenv("FB_QUIET");
		quiet = q && *q && strcmp(q, "0");
	}
	return quiet;
}

void fb_set_quiet(int q)
{
	quiet = !!q;
	setenv("FB_QUIET", quiet ? "1" : "0", 1);
}

int fb_progress_due(int done, int total, int steps)
{
	if (!fb_quiet() || done >= total || done <= 1 || total <= steps)
		return 1;
	return (long)done * steps / total != (long)(done - 1) * steps / total;
}

void fb_err(const char *fmt, ...)
{
	va_list ap;

	nerr++;
	fputs("foliobench: error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int fb_err_count(void)
{
	return nerr;
}

void fb_info(const char *fmt, ...)
{
	va_list ap;

	fputs("foliobench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

uint64_t fb_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int fb_read_file(const char *path, char *buf, size_t len)
{
	size_t off = 0;
	ssize_t n;
	int fd;

	if (!len)
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while (off + 1 < len) {
		n = read(fd, buf + off, len - 1 - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	close(fd);
	buf[off] = '\0';
	return (int)off;
}

int fb_write_file(const char *path, const char *s)
{
	size_t len = strlen(s);
	ssize_t n;
	int fd;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = write(fd, s, len);
	if (close(fd) < 0 || n != (ssize_t)len)
		return -1;
	return 0;
}

int fb_parse_u64(const char *s, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !*s || *s == '-')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

int fb_fmt(char *buf, size_t len, const char *f, ...)
{
	va_list ap;
	int n;

	va_start(ap, f);
	n = vsnprintf(buf, len, f, ap);
	va_end(ap);
	return n;
}

void *fb_calloc_err(size_t n, size_t size, char *err, size_t errlen)
{
	void *p = calloc(n, size);

	if (!p)
		snprintf(err, errlen, "out of memory");
	return p;
}

/* mkdir -p */
int fb_mkdir_p(const char *path)
{
	char buf[4096];
	size_t len = strlen(path);

	if (len >= sizeof(buf)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(buf, path, len + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(buf, 0755) < 0 && errno != EEXIST)
		return -1;
	return 0;
}

int fb_match_globs(const char *s, const char *globs)
{
	char *save = NULL, *tok, *dup;
	int hit = 0;

	if (!globs || !(dup = strdup(globs)))
		return 0;
	for (tok = strtok_r(dup, ",", &save); tok && !hit; tok = strtok_r(NULL, ",", &save))
		hit = !fnmatch(tok, s, 0);
	free(dup);
	return hit;
}

int fb_repo_dir(char *buf, size_t len)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	if (n <= 0) {
		fb_err("cannot read /proc/self/exe: %s", strerror(errno));
		return -1;
	}
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	if ((size_t)fb_fmt(buf, len, "%s", exe[0] ? exe : "/") >= len)
		return -1;
	return 0;
}
