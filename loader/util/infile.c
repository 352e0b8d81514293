// SPDX-License-Identifier: GPL-2.0
/*
 * infile.c - opening input files: regular files only, no open that can
 * hang (infile.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/infile.h"

const char *fb_file_type(unsigned int m)
{
	return S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket" :
	       S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device" :
	       S_ISLNK(m) ? "a symlink" : S_ISREG(m) ? "a regular file" : "not a regular file";
}

static int refuse(const char *path, const struct stat *st, const char *what, char *err,
		  size_t errlen)
{
	snprintf(err, errlen, "%s: %s, not %s", path, fb_file_type(st->st_mode), what);
	return -1;
}

int fb_in_open(const char *path, const char *what, char *err, size_t errlen)
{
	struct stat st;
	int fd, fl;

	if (stat(path, &st)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode))
		return refuse(path, &st, what, err, errlen);
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {	/* replaced between the stat and the open */
		close(fd);
		return refuse(path, &st, what, err, errlen);
	}
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

FILE *fb_in_fopen(const char *path, const char *what, char *err, size_t errlen)
{
	int fd = fb_in_open(path, what, err, errlen);
	FILE *f;

	if (fd < 0)
		return NULL;
	f = fdopen(fd, "r");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
	}
	return f;
}

char *fb_in_read(const char *path, size_t max, size_t *len, const char *what, char *err,
		 size_t errlen)
{
	int fd = fb_in_open(path, what, err, errlen);
	size_t cap = 0, n = 0, want = 4096;
	char *buf = NULL;
	struct stat st;

	*len = 0;
	if (fd < 0)
		return NULL;
	if (!fstat(fd, &st) && st.st_size > 0)	/* one byte more: EOF without a realloc */
		want = ((size_t)st.st_size < max ? (size_t)st.st_size : max) + 1;
	for (;;) {
		ssize_t r;

		if (n == cap) {
			size_t ncap = cap ? cap * 2 : want;
			char *nb;

			if (cap > max)		/* read max + 1 bytes: too large */
				break;
			ncap = ncap > max + 1 ? max + 1 : ncap;
			nb = realloc(buf, ncap + 1);
			if (!nb) {
				snprintf(err, errlen, "%s: out of memory", path);
				goto fail;
			}
			buf = nb;
			cap = ncap;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			goto fail;
		}
		if (!r)
			break;
		n += (size_t)r;
	}
	if (n > max) {
		if (max >= 1 << 20)
			snprintf(err, errlen, "%s: larger than %zu MiB", path, (max + 1) >> 20);
		else
			snprintf(err, errlen, "%s: larger than %zu bytes", path, max);
		goto fail;
	}
	close(fd);
	buf[n] = '\0';
	*len = n;
	return buf;
fail:
	close(fd);
	free(buf);
	return NULL;
}
