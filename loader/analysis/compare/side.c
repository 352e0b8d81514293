// SPDX-License-Identifier: GPL-2.0
/*
 * side.c - a side's rounds from disk (side.h): one results file, or an arm
 * directory of round files, loaded with fb_result_load() into the model.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/compare/side.h"
#include "model/rounds.h"
#include "util/util.h"

static int ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

/*
 * The rounds of path through model/rounds.c (each round once, symlinked
 * directories not followed, FIFOs refused); what was used and dropped goes
 * to stderr, so every number can be traced to its files.
 */
static int side_rounds(struct fb_side *s, const char *path, int quiet, int *is_dir, char *err,
		       size_t errlen)
{
	struct fb_rounds rs;

	if (fb_rounds_load(&rs, path, FB_CMP_MAX_ROUNDS, err, errlen)) {
		fb_rounds_free(&rs);
		return -1;
	}
	*is_dir = rs.is_dir;
	if (rs.is_dir && !quiet)
		fb_rounds_print(stderr, path, &rs);
	s->files = calloc((size_t)rs.n, sizeof(*s->files));
	s->r = calloc((size_t)rs.n, sizeof(*s->r));
	if (!s->files || !s->r) {
		fb_rounds_free(&rs);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (int i = 0; i < rs.n; i++) {
		s->files[i] = rs.v[i].path;
		s->r[i] = rs.v[i].r;
		rs.v[i].path = NULL;
		rs.v[i].r = NULL;
	}
	s->n = rs.n;
	fb_rounds_free(&rs);
	return 0;
}

int fb_side_load(struct fb_side *s, const char *path, int quiet, char *err, size_t errlen)
{
	const char *base;
	int is_dir = 0;
	size_t l;

	memset(s, 0, sizeof(*s));
	snprintf(s->path, sizeof(s->path), "%s", path);
	if (side_rounds(s, path, quiet, &is_dir, err, errlen))
		return -1;
	/* name: directory name, else the arm the kernel was booted as */
	l = strlen(path);
	while (l > 1 && path[l - 1] == '/')
		l--;
	base = path;
	for (size_t i = 0; i < l; i++)
		if (path[i] == '/' && i + 1 < l)
			base = path + i + 1;
	if (is_dir) {
		const char *arm = s->r[0]->host.arm;

		for (int i = 1; i < s->n && arm[0]; i++)
			if (strcmp(s->r[i]->host.arm, arm))
				arm = "";
		/* an ab arm directory booted as another arm: "patched (regress)" */
		if (arm[0] && (strlen(arm) != l - (size_t)(base - path) ||
			       strncmp(arm, base, strlen(arm))))
			snprintf(s->name, sizeof(s->name), "%.*s (%.24s)",
				 (int)(l - (size_t)(base - path) > 32 ? 32 : l - (size_t)(base - path)),
				 base, arm);
		else
			snprintf(s->name, sizeof(s->name), "%.*s", (int)(l - (size_t)(base - path)),
				 base);
	}
	else if (s->r[0]->host.arm[0])
		snprintf(s->name, sizeof(s->name), "%s", s->r[0]->host.arm);
	else
		snprintf(s->name, sizeof(s->name), "%.*s", (int)(l - (size_t)(base - path) -
			 (ends_with(path, ".json") ? 5 : 0)), base);
	return 0;
}

/* Every round of both sides under one clock mode: ns of one kind only. */
static int sides_same_clock(const struct fb_cmp *c, char *err, size_t errlen)
{
	const struct fb_result **all = fb_calloc_err((size_t)(c->base.n + c->new.n), sizeof(*all),
						     err, errlen);
	int n = 0, r;

	if (!all)
		return -1;
	for (int i = 0; i < c->base.n; i++)
		all[n++] = c->base.r[i];
	for (int i = 0; i < c->new.n; i++)
		all[n++] = c->new.r[i];
	r = fb_results_same_clock(all, n, "this comparison", err, errlen);
	free(all);
	return r;
}

/* FNV-1a of a file's bytes and its size; 0 with *h set, -1 if unreadable */
static int file_hash(const char *path, uint64_t *h, long *size)
{
	unsigned char buf[65536];
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f)
		return -1;
	*h = 1469598103934665603ull;
	*size = 0;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
		for (size_t i = 0; i < n; i++)
			*h = (*h ^ buf[i]) * 1099511628211ull;
		*size += (long)n;
	}
	fclose(f);
	return 0;
}

int fb_cmp_distinct(const struct fb_cmp *c, char *err, size_t errlen)
{
	uint64_t *ha = calloc((size_t)c->base.n + 1, sizeof(*ha));
	long *sa = calloc((size_t)c->base.n + 1, sizeof(*sa));
	char a[PATH_MAX], b[PATH_MAX];
	int ret = 0;

	if (realpath(c->base.path, a) && realpath(c->new.path, b) && !strcmp(a, b)) {
		snprintf(err, errlen, "BASE and NEW are the same rounds (%s): nothing to compare "
			 "(give two arms, or one ab directory)", c->base.path);
		ret = -1;
	}
	if (!ha || !sa) {
		snprintf(err, errlen, "out of memory");
		ret = -1;
	}
	for (int i = 0; !ret && i < c->base.n; i++)
		if (file_hash(c->base.files[i], &ha[i], &sa[i]))
			sa[i] = -1;
	for (int j = 0; !ret && j < c->new.n; j++) {
		uint64_t h;
		long sz;

		if (file_hash(c->new.files[j], &h, &sz))
			continue;
		for (int i = 0; i < c->base.n && !ret; i++)
			if (sa[i] == sz && ha[i] == h) {
				snprintf(err, errlen, "BASE and NEW share a round: %s and %s are the "
					 "same measurement (one boot is not two arms; give two arms' "
					 "rounds)", c->base.files[i], c->new.files[j]);
				ret = -1;
			}
	}
	free(ha);
	free(sa);
	return ret;
}

static int is_dir(const char *p)
{
	struct stat st;

	return !stat(p, &st) && S_ISDIR(st.st_mode);
}

int fb_cmp_open(struct fb_cmp *c, int npaths, char **paths,
		const char *base_arm, const char *new_arm,
		double alpha, double min_effect, unsigned int flags, char *err, size_t errlen)
{
	char bp[600], np[600];

	memset(c, 0, sizeof(*c));
	c->alpha = alpha;
	c->min_effect = min_effect;
	if (npaths == 1) {
		if (!is_dir(paths[0])) {
			snprintf(err, errlen, "%s: not a directory (give an ab directory, or BASE NEW)",
				 paths[0]);
			return -1;
		}
		snprintf(bp, sizeof(bp), "%s/%s", paths[0], base_arm ? base_arm : "baseline");
		snprintf(np, sizeof(np), "%s/%s", paths[0], new_arm ? new_arm : "patched");
		if (!is_dir(bp) || !is_dir(np)) {
			snprintf(err, errlen, "%s: expected arm directories %s/ and %s/ in it "
				 "(choose with --base-arm/--new-arm, or give BASE NEW)", paths[0],
				 base_arm ? base_arm : "baseline", new_arm ? new_arm : "patched");
			return -1;
		}
	} else if (npaths == 2) {
		snprintf(bp, sizeof(bp), "%s", paths[0]);
		snprintf(np, sizeof(np), "%s", paths[1]);
	} else {
		snprintf(err, errlen, "expected BASE NEW, or one ab directory");
		return -1;
	}
	if (fb_side_load(&c->base, bp, !!(flags & FB_CMP_QUIET_BASE), err, errlen) ||
	    fb_side_load(&c->new, np, !!(flags & FB_CMP_QUIET_NEW), err, errlen))
		return -1;
	if (sides_same_clock(c, err, errlen))
		return -1;
	fb_runs_side(&c->base.iss, c->base.path, c->base.r, c->base.files, c->base.n);
	fb_runs_side(&c->new.iss, c->new.path, c->new.r, c->new.files, c->new.n);
	if (!strcmp(c->base.name, c->new.name)) {	/* A/A: keep the arms apart */
		snprintf(c->base.name, sizeof(c->base.name), "base");
		snprintf(c->new.name, sizeof(c->new.name), "new");
	}
	return fb_cmp_build(c, err, errlen);
}

