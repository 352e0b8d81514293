// SPDX-License-Identifier: GPL-2.0
/*
 * side.c - a side's rounds from disk (side.h): one results file, or an arm
 * directory of round files, loaded with fb_result_load() into the model.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/side.h"

static int add_file(struct fb_side *s, const char *path)
{
	char **f;

	if (s->n >= FB_CMP_MAX_ROUNDS)
		return -1;
	f = realloc(s->files, sizeof(*f) * (size_t)(s->n + 1));
	if (!f)
		return -1;
	s->files = f;
	s->files[s->n] = strdup(path);
	if (!s->files[s->n])
		return -1;
	s->n++;
	return 0;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

/* Collects *.json below dir (not ab.json, the ab run's own summary). */
static int scan_dir(struct fb_side *s, const char *dir, int depth, char *err, size_t errlen)
{
	struct dirent **ents;
	int n, ret = 0;

	if (depth > 8)
		return 0;
	n = scandir(dir, &ents, NULL, versionsort);
	if (n < 0) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		char p[1024];
		struct stat st;
		const char *nm = ents[i]->d_name;

		if (ret || nm[0] == '.')
			goto next;
		if (snprintf(p, sizeof(p), "%s/%s", dir, nm) >= (int)sizeof(p))
			goto next;
		if (stat(p, &st))
			goto next;
		if (S_ISDIR(st.st_mode)) {
			ret = scan_dir(s, p, depth + 1, err, errlen);
		} else if (S_ISREG(st.st_mode) && ends_with(nm, ".json") && strcmp(nm, "ab.json")) {
			if (add_file(s, p)) {
				snprintf(err, errlen, "%s: more than %d results files", dir,
					 FB_CMP_MAX_ROUNDS);
				ret = -1;
			}
		}
next:
		free(ents[i]);
	}
	free(ents);
	return ret;
}

int fb_side_load(struct fb_side *s, const char *path, char *err, size_t errlen)
{
	struct stat st;
	char e[400];
	const char *base;
	size_t l;

	memset(s, 0, sizeof(*s));
	snprintf(s->path, sizeof(s->path), "%s", path);
	if (stat(path, &st)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		if (scan_dir(s, path, 0, err, errlen))
			return -1;
		if (!s->n) {
			snprintf(err, errlen, "%s: no *.json results files in this directory", path);
			return -1;
		}
	} else if (add_file(s, path)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	s->r = calloc((size_t)s->n, sizeof(*s->r));
	if (!s->r) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (int i = 0; i < s->n; i++) {
		s->r[i] = fb_result_load(s->files[i], e, sizeof(e));
		if (!s->r[i]) {
			snprintf(err, errlen, "%s", e);
			return -1;
		}
	}
	/* name: directory name, else the arm the kernel was booted as */
	l = strlen(path);
	while (l > 1 && path[l - 1] == '/')
		l--;
	base = path;
	for (size_t i = 0; i < l; i++)
		if (path[i] == '/' && i + 1 < l)
			base = path + i + 1;
	if (S_ISDIR(st.st_mode)) {
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

static int is_dir(const char *p)
{
	struct stat st;

	return !stat(p, &st) && S_ISDIR(st.st_mode);
}

int fb_cmp_open(struct fb_cmp *c, int npaths, char **paths,
		const char *base_arm, const char *new_arm,
		double alpha, double min_effect, char *err, size_t errlen)
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
	if (fb_side_load(&c->base, bp, err, errlen) || fb_side_load(&c->new, np, err, errlen))
		return -1;
	if (!strcmp(c->base.name, c->new.name)) {	/* A/A: keep the arms apart */
		snprintf(c->base.name, sizeof(c->base.name), "base");
		snprintf(c->new.name, sizeof(c->new.name), "new");
	}
	return fb_cmp_build(c, err, errlen);
}

