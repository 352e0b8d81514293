// SPDX-License-Identifier: GPL-2.0
/*
 * pathtrust.c - directories root may build from (pathtrust.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/pathtrust.h"

/* Why others can write directory p (st), or NULL; ancestor: a sticky one is fine. */
static const char *writable_by_others(const struct stat *st, int ancestor)
{
	if (st->st_uid != 0)
		return "owned by another user than root";
	if (ancestor && (st->st_mode & S_ISVTX))
		return NULL;
	if (st->st_mode & S_IWOTH)
		return "writable by every user";
	if (st->st_mode & S_IWGRP)
		return "writable by its group";
	return NULL;
}

static int judge(const char *p, int ancestor, char *err, size_t errlen)
{
	struct stat st;
	const char *why;

	if (stat(p, &st)) {
		snprintf(err, errlen, "%s: %s", p, strerror(errno));
		return -1;
	}
	why = writable_by_others(&st, ancestor);
	if (why) {
		snprintf(err, errlen, "%s is %s (uid %u, mode %04o): root does not build from a "
			 "cache others can write (docs/cache.md)", p, why, (unsigned int)st.st_uid,
			 (unsigned int)(st.st_mode & 07777));
		return -1;
	}
	return 0;
}

int fb_root_trusts_dir(const char *dir, const char *const *subs, char *err, size_t errlen)
{
	char path[PATH_MAX + 64], real[PATH_MAX], *slash;
	int exists = 1;

	if (snprintf(path, sizeof(path), "%s", dir) >= (int)sizeof(path)) {
		snprintf(err, errlen, "%.100s...: path too long", dir);
		return -1;
	}
	/* the nearest existing ancestor of a cache not made yet */
	while (!realpath(path, real)) {
		slash = strrchr(path, '/');
		if (errno != ENOENT || !slash) {
			if (errno == ENOENT && !slash && realpath(".", real))
				break;
			snprintf(err, errlen, "%s: %s", dir, strerror(errno));
			return -1;
		}
		*(slash == path ? slash + 1 : slash) = '\0';
		exists = 0;
	}
	/* each directory from / down; the last is the cache itself, unless not made yet */
	if (judge("/", strcmp(real, "/") || !exists, err, errlen))
		return -1;
	for (char *c = real + 1; *c; c++) {
		if (*c != '/')
			continue;
		*c = '\0';
		if (judge(real, 1, err, errlen))
			return -1;
		*c = '/';
	}
	if (strcmp(real, "/") && judge(real, !exists, err, errlen))
		return -1;
	for (int i = 0; exists && subs && subs[i]; i++) {
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", real, subs[i]);
		if (!stat(path, &st) && judge(path, 0, err, errlen))
			return -1;
	}
	return 0;
}
