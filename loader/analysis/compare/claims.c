// SPDX-License-Identifier: GPL-2.0
/*
 * claims.c - the `claim` lines of an expectations file (claims.h): their
 * syntax, reading them from a file and its includes, and finding the
 * claims of the series an arm was built from (kernel-patches/arms.conf).
 * Judging them on the model: claims_eval.c.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <json-c/json.h>

#include "analysis/compare/claims.h"
#include "analysis/compare/expfile.h"
#include "util/util.h"

/*
 * The next word of *p into buf: a "quoted string" (it may hold blanks and
 * '#'; no escapes) or a run of non-blanks.  1, 0 at the end of the line,
 * -1 for an unterminated quote or a word longer than buf.
 */
static int word(const char **p, char *buf, size_t len, int *quoted)
{
	const char *s = *p, *e;

	while (isspace((unsigned char)*s))
		s++;
	if (!*s)
		return 0;
	*quoted = *s == '"';
	if (*quoted) {
		e = strchr(++s, '"');
		if (!e)
			return -1;
	} else {
		for (e = s; *e && !isspace((unsigned char)*e); e++)
			;
	}
	if ((size_t)(e - s) >= len)
		return -1;
	snprintf(buf, len, "%.*s", (int)(e - s), s);
	*p = e + *quoted;
	return 1;
}

/* a plain number: digits, at most one '.', nothing else */
static int number(const char *s, const char *end, double *v)
{
	char *e;

	if (s == end || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	*v = strtod(s, &e);
	return errno || e != end || !isfinite(*v) ? -1 : 0;
}

/* Nx, -P% / +P%, A->B; other text only for a claim not measured here */
static int parse_seed(struct fb_claim *cl)
{
	const char *s = cl->seed, *end = s + strlen(s), *arrow = strstr(s, "->");

	cl->sk = FB_SEED_NONE;
	if (end > s + 1 && end[-1] == 'x' && !number(s, end - 1, &cl->to) && cl->to > 1) {
		cl->sk = FB_SEED_FACTOR;
	} else if (end > s + 2 && (*s == '-' || *s == '+') && end[-1] == '%' &&
		   !number(s + 1, end - 1, &cl->to) && cl->to > 0 && cl->to <= 1000 &&
		   (*s == '+' || cl->to <= 100)) {
		cl->to *= *s == '-' ? -1 : 1;
		cl->sk = FB_SEED_PCT;
	} else if (arrow && !number(s, arrow, &cl->from) && !number(arrow + 2, end, &cl->to) &&
		   cl->from != cl->to) {
		cl->sk = FB_SEED_FROMTO;
	}
	return cl->sk == FB_SEED_NONE ? -1 : 0;
}

/* KIND:ROW:METRIC with a known kind */
static int metric_id(const char *id)
{
	const char *c1 = strchr(id, ':'), *c2 = strrchr(id, ':');

	if (!c1 || c2 == c1 || c1 == id || c2 == c1 + 1 || !c2[1])
		return -1;
	for (int k = 0; k < FB_ROW_NKINDS; k++) {
		const char *n = fb_row_kind_name((enum fb_row_kind)k);

		if (strlen(n) == (size_t)(c1 - id) && !strncmp(id, n, strlen(n)))
			return 0;
	}
	return -1;
}

/* `at METRIC >= V` */
static int parse_at(const char **p, struct fb_claim *cl, char *why, size_t len)
{
	char op[8], v[32];
	int q;

	if (word(p, cl->at, sizeof(cl->at), &q) != 1 || word(p, op, sizeof(op), &q) != 1 ||
	    word(p, v, sizeof(v), &q) != 1 || strcmp(op, ">=") ||
	    number(v, v + strlen(v), &cl->at_min)) {
		snprintf(why, len, "'at' wants METRIC >= NUMBER");
		return -1;
	}
	return 0;
}

/* one KEY VALUE pair of a claim line */
static int parse_pair(const char *key, const char **p, struct fb_claim *cl, char *why,
		      size_t len)
{
	static const struct {
		const char *key;
		size_t off, len;
		int quoted;
	} f[] = {
#define F(k, m, q) { k, offsetof(struct fb_claim, m), sizeof(((struct fb_claim *)0)->m), q }
		F("seed", seed, 0), F("measure", metric, 0), F("per", per, 0), F("in", in, 0),
		F("as", as, 1), F("not-measured", why, 1),
#undef F
	};
	char pct[16];
	int q;

	if (!strcmp(key, "at"))
		return parse_at(p, cl, why, len);
	if (!strcmp(key, "within")) {
		size_t l;

		if (word(p, pct, sizeof(pct), &q) != 1 || (l = strlen(pct)) < 2 ||
		    pct[l - 1] != '%' || number(pct, pct + l - 1, &cl->tol) || cl->tol >= 100) {
			snprintf(why, len, "'within' wants a tolerance P%% with 0 <= P < 100");
			return -1;
		}
		cl->tol /= 100;
		return 0;
	}
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		char *dst = (char *)cl + f[i].off;

		if (strcmp(key, f[i].key))
			continue;
		if (dst[0] || word(p, dst, f[i].len, &q) != 1 || q != f[i].quoted || !dst[0]) {
			snprintf(why, len, "'%s' wants %s, once", key,
				 f[i].quoted ? "a \"quoted\" text" : "one word");
			return -1;
		}
		return 0;
	}
	snprintf(why, len, "unknown word '%.40s' (seed, within, measure, per, in, at, as, "
		 "not-measured)", key);
	return -1;
}

/* what a measured claim must have, and what a claim not measured must not */
static int complete(struct fb_claim *cl, char *why, size_t len)
{
	const char *bad = NULL;

	if (!cl->seed[0])
		bad = "a claim needs its seed number: seed Nx, -P%, +P% or A->B";
	else if (cl->why[0] && (cl->metric[0] || cl->per[0] || cl->at[0] || cl->in[0]))
		bad = "a claim not measured has no measure, per, at or in";
	else if (cl->why[0])
		return 0;
	else if (!cl->metric[0] || !cl->in[0] || !cl->as[0] || cl->tol < 0)
		bad = "a measured claim needs: within TOL%, measure METRIC, in WORKLOAD, "
		      "as \"WHAT\" (or not-measured \"WHY\")";
	else if (parse_seed(cl))
		bad = "its seed is none of Nx (N > 1), -P%, +P% or A->B";
	else if (metric_id(cl->metric) || (cl->per[0] && metric_id(cl->per)) ||
		 (cl->at[0] && metric_id(cl->at)))
		bad = "a metric is KIND:ROW:METRIC (func, lock, probe, workload, contention, "
		      "extra; ids: foliobench compare --format csv)";
	if (bad)
		snprintf(why, len, "%s", bad);
	return bad ? -1 : 0;
}

int fb_claim_parse(const char *s, struct fb_claim *cl, char *why, size_t len)
{
	char key[32];
	int q, r;

	memset(cl, 0, sizeof(*cl));
	cl->tol = -1;
	if (word(&s, key, sizeof(key), &q) != 1 || strcmp(key, "claim") ||
	    word(&s, cl->quote, sizeof(cl->quote), &q) != 1 || !q || !cl->quote[0]) {
		snprintf(why, len, "want claim \"QUOTE\" seed SEED ... (a quote of at most %zu "
			 "characters)", sizeof(cl->quote) - 1);
		return -1;
	}
	while ((r = word(&s, key, sizeof(key), &q)) == 1)
		if (q || parse_pair(key, &s, cl, why, len))
			goto bad;
	if (r < 0) {
		snprintf(why, len, "an unterminated quote or a word too long");
		return -1;
	}
	return complete(cl, why, len);
bad:
	if (q)
		snprintf(why, len, "a quoted text where a word (seed, within, ...) was wanted");
	return -1;
}

static int read_one(struct fb_claims *cs, const char *path, int depth, char *err,
		    size_t errlen);

/* `include PATH`, relative to the including file */
static int include(struct fb_claims *cs, const struct fb_expfile *x, const char *arg, int depth,
		   char *err, size_t errlen)
{
	char path[600];

	if (depth >= 3)
		return fb_expfile_err(x, err, errlen, "include nested too deep");
	fb_expfile_relative(x->path, arg, path, sizeof(path));
	return read_one(cs, path, depth + 1, err, errlen);
}

static int claim_line(struct fb_claims *cs, const struct fb_expfile *x, const char *s,
		      char *err, size_t errlen)
{
	char why[200];
	struct fb_claim *cl = &cs->c[cs->n];

	if (cs->n >= FB_CLAIMS_MAX)
		return fb_expfile_err(x, err, errlen, "more than %d claims", FB_CLAIMS_MAX);
	if (fb_claim_parse(s, cl, why, sizeof(why)))
		return fb_expfile_err(x, err, errlen, "%s", why);
	snprintf(cl->file, sizeof(cl->file), "%s", x->path);
	cl->line = x->ln;
	cs->n++;
	return 0;
}

static int read_one(struct fb_claims *cs, const char *path, int depth, char *err,
		    size_t errlen)
{
	struct fb_expfile x;
	char *s, *arg;
	int r;

	if (fb_expfile_open(&x, path, err, errlen))
		return -1;
	while ((r = fb_expfile_next(&x, &s, err, errlen)) == 1) {
		if ((arg = fb_expfile_keyword(s, "include")))
			r = include(cs, &x, arg, depth, err, errlen);
		else if (fb_expfile_keyword(s, "claim"))
			r = claim_line(cs, &x, s, err, errlen);
		/* else an expectation: the gate's (expect.c) */
		if (r < 0)
			break;
	}
	fb_expfile_close(&x);
	return r < 0 ? -1 : 0;
}

int fb_claims_read(struct fb_claims *cs, const char *path, char *err, size_t errlen)
{
	size_t l = strlen(cs->source);

	snprintf(cs->source + l, sizeof(cs->source) - l, "%s%s", l ? ", " : "", path);
	return read_one(cs, path, 0, err, errlen);
}

/* The series of arm in repo/kernel-patches/arms.conf into s[]; -1 if no such arm. */
static int arm_series(const char *repo, const char *arm, char s[][64], int max)
{
	char path[PATH_MAX + 40], line[512];
	size_t al = strlen(arm);
	int n = -1;
	FILE *f;

	fb_fmt(path, sizeof(path), "%s/kernel-patches/arms.conf", repo);
	f = fopen(path, "r");
	while (f && n < 0 && fgets(line, sizeof(line), f)) {
		char *save, *tok;

		if (!al || strncmp(line, arm, al) || line[al] != ':')
			continue;
		n = 0;
		for (tok = strtok_r(line + al + 1, " \t\n", &save); tok && n < max;
		     tok = strtok_r(NULL, " \t\n", &save))
			fb_fmt(s[n++], 64, "%s", tok);
	}
	if (f)
		fclose(f);
	return n;
}

static int same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/*
 * The arm NEW was built as: for an arm directory of an ab run, its `spec`
 * in the run's ab.json (the rounds' host.arm is the role, "patched");
 * else the rounds' host.arm, else the side's name.
 */
static void new_arm(const struct fb_cmp *c, char *arm, size_t len)
{
	char dir[600], *slash;
	json_object *ab, *arms;

	snprintf(arm, len, "%s", c->new.n && c->new.r[0]->host.arm[0] ?
		 c->new.r[0]->host.arm : c->new.name);
	snprintf(dir, sizeof(dir), "%s", c->new.path);
	for (size_t l = strlen(dir); l > 1 && dir[l - 1] == '/'; l--)
		dir[l - 1] = '\0';
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	snprintf(dir + strlen(dir), sizeof(dir) - strlen(dir), "%sab.json", slash ? "/" : "");
	ab = json_object_from_file(dir);
	if (ab && json_object_object_get_ex(ab, "arms", &arms) &&
	    json_object_is_type(arms, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(arms); i++) {
			json_object *a = json_object_array_get_idx(arms, i), *nm, *spec;

			if (json_object_object_get_ex(a, "name", &nm) &&
			    json_object_object_get_ex(a, "spec", &spec) &&
			    !strcmp(json_object_get_string(nm), c->new.name))
				snprintf(arm, len, "%s", json_object_get_string(spec));
		}
	}
	json_object_put(ab);
}

int fb_claims_for_new(struct fb_claims *cs, const struct fb_cmp *c, char *err, size_t errlen)
{
	char repo[PATH_MAX], s[16][64], path[PATH_MAX + 120], arm[128];
	int n;

	new_arm(c, arm, sizeof(arm));

	memset(cs, 0, sizeof(*cs));
	if (fb_repo_dir(repo, sizeof(repo)) < 0 || (n = arm_series(repo, arm, s, 16)) < 0) {
		snprintf(cs->source, sizeof(cs->source), "NEW's arm '%.60s' is not a row of "
			 "kernel-patches/arms.conf: give `--claims FILE`", arm);
		return 0;
	}
	for (int i = 0; i < n; i++) {
		char rel[120];

		fb_fmt(rel, sizeof(rel), "kernel-patches/%s/claims", s[i]);
		fb_fmt(path, sizeof(path), "%s/%s", repo, rel);
		if (access(path, R_OK))
			continue;
		/* the short name when run in the repository, as the docs show it */
		if (fb_claims_read(cs, same_file(rel, path) ? rel : path, err, errlen))
			return -1;
	}
	if (!cs->source[0])
		snprintf(cs->source, sizeof(cs->source), "no kernel-patches/SERIES/claims for "
			 "the series of NEW's arm '%.60s'", arm);
	return 0;
}
