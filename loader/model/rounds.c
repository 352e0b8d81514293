// SPDX-License-Identifier: GPL-2.0
/*
 * rounds.c - load one side's rounds, each counted once (see rounds.h).
 *
 * Entries are examined with lstat() and never opened unless they are
 * regular files named *.json, and those through fb_result_load(), which
 * opens with O_NONBLOCK and refuses what fstat() says is not regular.
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model/rounds.h"

#define MAX_DEPTH	8

struct scan {
	struct fb_rounds *rs;
	int max;
	char *err;
	size_t errlen;
	int ncand;			/* regular *.json files found, in scan order */
	struct cand {
		char *path;
		dev_t dev;
		ino_t ino;
		int link, depth;
	} *cand;
};

static int ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

/* p without the side's own directory prefix */
static const char *rel(const struct fb_rounds *rs, const char *p)
{
	size_t l = strlen(rs->path);

	while (l > 1 && rs->path[l - 1] == '/')
		l--;
	return rs->is_dir && !strncmp(p, rs->path, l) && p[l] == '/' ? p + l + 1 : p;
}

static int skip(struct scan *sc, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Records path as dropped, with why; 0, or -1 when out of memory. */
static int skip(struct scan *sc, const char *path, const char *fmt, ...)
{
	struct fb_rounds *rs = sc->rs;
	struct fb_round_skip *s = realloc(rs->skip, sizeof(*s) * (size_t)(rs->nskip + 1));
	char why[600];
	va_list ap;

	if (!s) {
		snprintf(sc->err, sc->errlen, "out of memory");
		return -1;
	}
	rs->skip = s;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	s[rs->nskip].path = strdup(path);
	s[rs->nskip].why = strdup(why);
	if (!s[rs->nskip].path || !s[rs->nskip].why) {
		free(s[rs->nskip].path);
		free(s[rs->nskip].why);
		snprintf(sc->err, sc->errlen, "out of memory");
		return -1;
	}
	rs->nskip++;
	return 0;
}

static int add_cand(struct scan *sc, const char *p, const struct stat *st, int link, int depth)
{
	struct cand *c = realloc(sc->cand, sizeof(*c) * (size_t)(sc->ncand + 1));

	if (!c || !(c[sc->ncand].path = strdup(p))) {
		if (c)
			sc->cand = c;
		snprintf(sc->err, sc->errlen, "out of memory");
		return -1;
	}
	sc->cand = c;
	c[sc->ncand].dev = st->st_dev;
	c[sc->ncand].ino = st->st_ino;
	c[sc->ncand].link = link;
	c[sc->ncand].depth = depth;
	sc->ncand++;
	return 0;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/*
 * Which of two names for one round is kept: a file over a symlink, a
 * shallower one, then the shorter name (round-1.json over
 * round-1-copy.json), then version order.
 */
static int cand_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	size_t lx = strlen(base_name(x->path)), ly = strlen(base_name(y->path));

	if (x->link != y->link)
		return x->link - y->link;
	if (x->depth != y->depth)
		return x->depth - y->depth;
	if (lx != ly)
		return lx < ly ? -1 : 1;
	return strverscmp(x->path, y->path);
}

static int round_cmp(const void *a, const void *b)
{
	return strverscmp(((const struct fb_round *)a)->path, ((const struct fb_round *)b)->path);
}

/*
 * The measured data of two rounds agree: arm, wall times, every histogram's
 * count and sum, the extra values.  A start second and a build id alone do
 * not make a copy: the start time is the guest's clock, and two boots of
 * one kernel (an A/A pool mixes both arms' rounds) reported the same
 * second on a loaded host (2026-12-02).
 */
static int same_data(const struct fb_result *a, const struct fb_result *b)
{
	if (strcmp(a->host.arm, b->host.arm) || strcmp(a->label, b->label) ||
	    a->nworkloads != b->nworkloads || a->nprobes != b->nprobes || a->nextra != b->nextra)
		return 0;
	for (int i = 0; i < a->nworkloads; i++)
		if (a->workloads[i].wall_ns != b->workloads[i].wall_ns)
			return 0;
	for (int i = 0; i < a->nprobes; i++) {
		if (a->probes[i].nstats != b->probes[i].nstats)
			return 0;
		for (int k = 0; k < a->probes[i].nstats; k++)
			if (a->probes[i].stats[k].h.count != b->probes[i].stats[k].h.count ||
			    a->probes[i].stats[k].h.sum != b->probes[i].stats[k].h.sum)
				return 0;
	}
	for (int i = 0; i < a->nextra; i++)
		if (a->extra[i].val != b->extra[i].val)
			return 0;
	return 1;
}

int fb_round_same(const struct fb_result *a, const struct fb_result *b)
{
	return a->started[0] && !strcmp(a->started, b->started) &&
	       !strcmp(a->host.build_id, b->host.build_id) && same_data(a, b);
}

/* Keep in step with same_data(): the same fields, so equal keys mean fb_round_same(). */
void fb_round_key(const struct fb_result *r, void (*put)(void *ctx, const void *p, size_t n),
		  void *ctx)
{
	const char *s[] = { r->started, r->host.build_id, r->host.arm, r->label };
	const int n[] = { r->nworkloads, r->nprobes, r->nextra };

	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		put(ctx, s[i], strlen(s[i]) + 1);
	put(ctx, n, sizeof(n));
	for (int i = 0; i < r->nworkloads; i++)
		put(ctx, &r->workloads[i].wall_ns, sizeof(r->workloads[i].wall_ns));
	for (int i = 0; i < r->nprobes; i++) {
		put(ctx, &r->probes[i].nstats, sizeof(r->probes[i].nstats));
		for (int k = 0; k < r->probes[i].nstats; k++) {
			put(ctx, &r->probes[i].stats[k].h.count, sizeof(uint64_t));
			put(ctx, &r->probes[i].stats[k].h.sum, sizeof(uint64_t));
		}
	}
	for (int i = 0; i < r->nextra; i++)
		put(ctx, &r->extra[i].val, sizeof(r->extra[i].val));
}

/* A round with the same start time, kernel build id and data (a copy), or NULL. */
static const struct fb_round *same_round(const struct fb_rounds *rs, const struct fb_result *r)
{
	for (int i = 0; i < rs->n; i++)
		if (fb_round_same(rs->v[i].r, r))
			return &rs->v[i];
	return NULL;
}

static int add_round(struct scan *sc, const char *path)
{
	struct fb_rounds *rs = sc->rs;
	const struct fb_round *dup;
	struct fb_result *r;
	struct fb_round *v;
	char why[400];

	if (rs->n >= sc->max) {
		snprintf(sc->err, sc->errlen, "%s: more than %d results files", rs->path, sc->max);
		return -1;
	}
	r = fb_result_load(path, sc->err, sc->errlen);
	if (!r)
		return -1;
	dup = same_round(rs, r);
	if (dup) {
		snprintf(why, sizeof(why), "the same round as %s (started %s, build id %.40s): a copy",
			 rel(rs, dup->path), r->started, r->host.build_id[0] ? r->host.build_id : "none");
		free(r);
		return skip(sc, path, "%s", why);
	}
	v = realloc(rs->v, sizeof(*v) * (size_t)(rs->n + 1));
	if (!v || !(v[rs->n].path = strdup(path))) {
		if (v)
			rs->v = v;
		free(r);
		snprintf(sc->err, sc->errlen, "out of memory");
		return -1;
	}
	rs->v = v;
	v[rs->n++].r = r;
	return 0;
}

static int scan_dir(struct scan *sc, const char *dir, int depth);

/* One directory entry, examined without following it unless it is a file symlink. */
static int scan_entry(struct scan *sc, const char *p, const char *nm, int depth)
{
	int json = ends_with(nm, ".json") && strcmp(nm, "ab.json");
	struct stat st;
	int link;

	if (lstat(p, &st)) {
		snprintf(sc->err, sc->errlen, "%s: %s", p, strerror(errno));
		return -1;
	}
	link = S_ISLNK(st.st_mode);
	if (link && stat(p, &st))
		return skip(sc, p, "dangling symlink (%s)", strerror(errno));
	if (S_ISDIR(st.st_mode)) {
		if (link)
			return skip(sc, p, "%s", "symlink to a directory, not followed");
		if (json)
			return skip(sc, p, "%s", "a directory named like a results file, not searched");
		return scan_dir(sc, p, depth + 1);
	}
	if (!json)
		return 0;	/* console logs, notes: not rounds */
	if (!S_ISREG(st.st_mode)) {
		snprintf(sc->err, sc->errlen, "%s: %s%s, not a results file", p,
			 link ? "symlink to " : "", fb_file_type(st.st_mode));
		return -1;
	}
	return add_cand(sc, p, &st, link, depth);
}

static int scan_dir(struct scan *sc, const char *dir, int depth)
{
	struct dirent **ents;
	int n, ret = 0;

	if (depth > MAX_DEPTH)
		return skip(sc, dir, "deeper than %d levels, not searched", MAX_DEPTH);
	n = scandir(dir, &ents, NULL, versionsort);
	if (n < 0) {
		snprintf(sc->err, sc->errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		const char *nm = ents[i]->d_name;
		char p[1024];

		if (!ret && nm[0] != '.') {
			if (snprintf(p, sizeof(p), "%s/%s", dir, nm) >= (int)sizeof(p)) {
				snprintf(sc->err, sc->errlen, "%s/%s: path too long", dir, nm);
				ret = -1;
			} else {
				ret = scan_entry(sc, p, nm, depth);
			}
		}
		free(ents[i]);
	}
	free(ents);
	return ret;
}

static void use_cands_free(struct scan *sc)
{
	for (int i = 0; i < sc->ncand; i++)
		free(sc->cand[i].path);
	free(sc->cand);
}

/* The candidates, best name first: each file and each round once. */
static int use_cands(struct scan *sc)
{
	int ret = 0;

	if (sc->ncand)	/* qsort(NULL, 0, ...) is undefined */
		qsort(sc->cand, (size_t)sc->ncand, sizeof(*sc->cand), cand_cmp);
	for (int i = 0; i < sc->ncand && !ret; i++) {
		const struct cand *c = &sc->cand[i];
		int k = 0;

		while (k < i && (sc->cand[k].dev != c->dev || sc->cand[k].ino != c->ino))
			k++;
		if (k < i)
			ret = skip(sc, c->path, "the same file as %s (hard link or symlink)",
				   rel(sc->rs, sc->cand[k].path));
		else
			ret = add_round(sc, c->path);
	}
	use_cands_free(sc);
	if (!ret && sc->rs->n)
		qsort(sc->rs->v, (size_t)sc->rs->n, sizeof(*sc->rs->v), round_cmp);
	return ret;
}

int fb_rounds_load(struct fb_rounds *rs, const char *path, int max, char *err, size_t errlen)
{
	struct scan sc = { .rs = rs, .max = max, .err = err, .errlen = errlen };
	struct stat st;
	int ret;

	memset(rs, 0, sizeof(*rs));
	snprintf(rs->path, sizeof(rs->path), "%s", path);
	if (stat(path, &st)) {	/* the operand itself may be a symlink */
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return add_round(&sc, path);
	rs->is_dir = 1;
	ret = scan_dir(&sc, path, 0);
	if (!ret)
		ret = use_cands(&sc);
	else
		use_cands_free(&sc);
	if (!ret && !rs->n) {
		snprintf(err, errlen, "%s: no *.json results files in this directory", path);
		ret = -1;
	}
	return ret;
}

void fb_rounds_free(struct fb_rounds *rs)
{
	for (int i = 0; i < rs->n; i++) {
		free(rs->v[i].path);
		free(rs->v[i].r);
	}
	for (int i = 0; i < rs->nskip; i++) {
		free(rs->skip[i].path);
		free(rs->skip[i].why);
	}
	free(rs->v);
	free(rs->skip);
	rs->v = NULL;
	rs->skip = NULL;
	rs->n = rs->nskip = 0;
}

void fb_rounds_print(FILE *f, const char *name, const struct fb_rounds *rs)
{
	fprintf(f, "%s: %d round%s from %s", name, rs->n, rs->n == 1 ? "" : "s", rs->path);
	for (int i = 0; i < rs->n && rs->is_dir; i++)
		fprintf(f, "%s%s", i ? ", " : ": ", rel(rs, rs->v[i].path));
	fprintf(f, "\n");
	for (int i = 0; i < rs->nskip; i++)
		fprintf(f, "%s: dropped %s: %s\n", name, rel(rs, rs->skip[i].path), rs->skip[i].why);
}
