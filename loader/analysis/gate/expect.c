// SPDX-License-Identifier: GPL-2.0
/*
 * expect.c - the expectations file of `gate --expect` (expect.h): syntax,
 * resolution against the rounds' rows, and the verdict of one line.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/compare/expfile.h"
#include "analysis/gate/expect.h"

static const struct {
	const char *dir, *op;
	enum fb_exp_kind k;
} kinds[] = {
	{ "rise", "<=", FB_EXP_RISE_LE }, { "rise", ">=", FB_EXP_RISE_GE },
	{ "fall", ">=", FB_EXP_FALL_GE }, { "fall", "<=", FB_EXP_FALL_LE },
};

const char *fb_expect_kind_name(enum fb_exp_kind k)
{
	switch (k) {
	case FB_EXP_RISE_LE:	return "may rise up to";
	case FB_EXP_RISE_GE:	return "must rise at least";
	case FB_EXP_FALL_GE:	return "must fall at least";
	case FB_EXP_FALL_LE:	return "may fall up to";
	case FB_EXP_DROP0:	break;
	}
	return "must drop to 0";
}

/* "+40%", "40%", "-15%" (sign must match dir); pct > 0 */
static int parse_pct(const char *s, int rise, double *pct, char *why, size_t len)
{
	char *end;
	double v;

	if ((*s == '+' && !rise) || (*s == '-' && rise)) {
		snprintf(why, len, "bound '%s': a %s takes %s", s, rise ? "rise" : "fall",
			 rise ? "+P%" : "P% or -P%");
		return -1;
	}
	s += *s == '+' || *s == '-';
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || strcmp(end, "%") || !isfinite(v) || v <= 0 ||
	    v > (rise ? 1000 : 100) || !isdigit((unsigned char)*s)) {
		snprintf(why, len, "bound '%s' is not a percentage in (0, %d]%%", s,
			 rise ? 1000 : 100);
		return -1;
	}
	*pct = v;
	return 0;
}

/* ROW or KIND:ROW */
static int parse_row(const char *s, struct fb_exp_line *l, char *why, size_t len)
{
	const char *colon = strchr(s, ':');

	l->kind[0] = 0;
	if (colon) {
		int known = 0;

		if ((size_t)(colon - s) >= sizeof(l->kind)) {
			snprintf(why, len, "row kind in '%.60s' too long", s);
			return -1;
		}
		snprintf(l->kind, sizeof(l->kind), "%.*s", (int)(colon - s), s);
		for (int k = 0; k < FB_ROW_NKINDS; k++)
			known |= !strcmp(l->kind, fb_row_kind_name((enum fb_row_kind)k));
		if (!known) {
			snprintf(why, len, "unknown row kind '%s' (func, lock, workload, ...)",
				 l->kind);
			return -1;
		}
		s = colon + 1;
	}
	if (!*s || strlen(s) >= sizeof(l->row)) {
		snprintf(why, len, "row name '%.60s' empty or too long", s);
		return -1;
	}
	snprintf(l->row, sizeof(l->row), "%s", s);
	return 0;
}

/* a trailing "for METHOD": the bound was set on rows measured by METHOD */
static int parse_for(const char *kw, const char *method, struct fb_exp_line *l, char *why,
		     size_t len)
{
	if (strcmp(kw, "for") || !method[0] || strlen(method) >= sizeof(l->method)) {
		snprintf(why, len, "after the bound: 'for METHOD' (an observer method such as "
			 "fsession or fexit+fentry/lock) or nothing");
		return -1;
	}
	snprintf(l->method, sizeof(l->method), "%s", method);
	return 0;
}

int fb_expect_parse_line(const char *s, struct fb_exp_line *l, char *why, size_t len)
{
	char row[128], metric[64], dir[16], op[16], bound[32], kw[8], method[40], extra[8];
	int n = sscanf(s, "%127s %63s %15s %15s %31s %7s %39s %7s", row, metric, dir, op, bound,
		       kw, method, extra);

	l->method[0] = '\0';
	if (n == 7 && parse_for(kw, method, l, why, len))
		return -1;
	if (n == 7)
		n = 5;
	if (n == 4 && !strcmp(dir, "drop-to")) {
		if (strcmp(op, "0")) {
			snprintf(why, len, "drop-to takes 0, not '%s'", op);
			return -1;
		}
		l->k = FB_EXP_DROP0;
		l->pct = 100;
	} else if (n == 5) {
		size_t i;

		for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
			if (!strcmp(dir, kinds[i].dir) && !strcmp(op, kinds[i].op))
				break;
		if (i == sizeof(kinds) / sizeof(kinds[0])) {
			snprintf(why, len, "'%s %s': want rise <=, rise >=, fall >=, fall <= or "
				 "drop-to 0", dir, op);
			return -1;
		}
		l->k = kinds[i].k;
		if (parse_pct(bound, dir[0] == 'r', &l->pct, why, len))
			return -1;
	} else {
		snprintf(why, len, "want 'ROW METRIC rise|fall <=|>= P%% [for METHOD]' or "
			 "'ROW METRIC drop-to 0'");
		return -1;
	}
	if (strlen(metric) >= sizeof(l->metric)) {
		snprintf(why, len, "metric name too long");
		return -1;
	}
	snprintf(l->metric, sizeof(l->metric), "%s", metric);
	return parse_row(row, l, why, len);
}

/* s with each run of blanks made one space */
static void squeeze(char *out, size_t len, const char *s)
{
	size_t n = 0;

	for (; *s && n + 1 < len; s++)
		if (!isspace((unsigned char)*s) || (n && out[n - 1] != ' '))
			out[n++] = isspace((unsigned char)*s) ? ' ' : *s;
	out[n] = 0;
}

const char *fb_expect_file(const struct fb_expect *e, const struct fb_exp_line *l)
{
	return l->file >= 0 && l->file < e->nfiles ? e->files[l->file] : e->path;
}

static int read_file(struct fb_expect *e, const char *path, int depth, char *err,
		     size_t errlen);

/* `include PATH`, relative to the including file's directory */
static int include(struct fb_expect *e, const struct fb_expfile *x, const char *arg, int depth,
		   char *err, size_t errlen)
{
	char path[600];

	if (depth >= 2 || e->nfiles >= FB_EXPECT_MAX_FILES)
		return fb_expfile_err(x, err, errlen, "include nested too deep or more than %d "
				      "files", FB_EXPECT_MAX_FILES);
	fb_expfile_relative(x->path, arg, path, sizeof(path));
	if (access(path, R_OK))
		return fb_expfile_err(x, err, errlen, "include %s: %s", path, strerror(errno));
	return read_file(e, path, depth + 1, err, errlen);
}

/* one expectation line s of file fi */
static int expect_line(struct fb_expect *e, const struct fb_expfile *x, int fi, const char *s,
		       char *err, size_t errlen)
{
	struct fb_exp_line *l = &e->l[e->n];
	char why[200];

	if (e->n >= FB_EXPECT_MAX)
		return fb_expfile_err(x, err, errlen, "more than %d expectations", FB_EXPECT_MAX);
	if (fb_expect_parse_line(s, l, why, sizeof(why)))
		return fb_expfile_err(x, err, errlen, "%s", why);
	l->file = fi;
	l->line = x->ln;
	squeeze(l->text, sizeof(l->text), s);
	e->n++;
	return 0;
}

static int read_file(struct fb_expect *e, const char *path, int depth, char *err,
		     size_t errlen)
{
	int fi = e->nfiles, before = e->n, r;
	struct fb_expfile x;
	char *s, *arg;

	if (strlen(path) >= sizeof(e->files[0])) {
		snprintf(err, errlen, "%.100s...: path too long", path);
		return -1;
	}
	snprintf(e->files[e->nfiles++], sizeof(e->files[0]), "%s", path);
	if (fb_expfile_open(&x, e->files[fi], err, errlen))
		return -1;
	while ((r = fb_expfile_next(&x, &s, err, errlen)) == 1) {
		if (fb_expfile_keyword(s, "claim"))
			e->nclaims++;	/* a cover letter's claim: claims.c reads it */
		else if ((arg = fb_expfile_keyword(s, "include")))
			r = include(e, &x, arg, depth, err, errlen);
		else
			r = expect_line(e, &x, fi, s, err, errlen);
		if (r < 0)
			break;
	}
	if (!r && e->n == before && !e->nclaims && !depth)
		r = fb_expfile_err(&x, err, errlen, "no expectation in the file");
	fb_expfile_close(&x);
	return r < 0 ? -1 : 0;
}

int fb_expect_read(struct fb_expect *e, const char *path, char *err, size_t errlen)
{
	memset(e, 0, sizeof(*e));
	snprintf(e->path, sizeof(e->path), "%s", path);
	return read_file(e, path, 0, err, errlen);
}

/* one line: the row (of the kind, if given) that has the metric */
static int resolve(const struct fb_expect *e, struct fb_exp_line *l, const struct fb_cmp *c,
		   char *err, size_t errlen)
{
	const struct fb_row *seen = NULL;
	char have[160] = "";

	for (int i = 0; i < c->nrows; i++) {
		const struct fb_row *r = &c->rows[i];

		if (strcmp(r->name, l->row) || (l->kind[0] &&
		    strcmp(l->kind, fb_row_kind_name(r->kind))))
			continue;
		seen = seen ? seen : r;
		if (l->method[0] && r->kind != FB_ROW_FUNC && r->kind != FB_ROW_LOCK &&
		    r->kind != FB_ROW_OTHER) {
			snprintf(err, errlen, "%s:%d: 'for %s': row '%s' is no probe row, it has "
				 "no observer method", fb_expect_file(e, l), l->line, l->method,
				 l->row);
			return -1;
		}
		for (int k = 0; k < r->nm; k++)
			if (!strcmp(r->m[k]->name, l->metric)) {
				fb_metric_id(r, r->m[k], l->id, sizeof(l->id));
				return 0;
			}
	}
	l->absent = !seen;
	if (!seen)
		return 0;	/* judged in the gate: a claim on it fails */
	for (int k = 0; k < seen->nm; k++) {
		size_t n = strlen(have);

		if (n + strlen(seen->m[k]->name) + 3 < sizeof(have))
			snprintf(have + n, sizeof(have) - n, "%s%s", n ? ", " : "", seen->m[k]->name);
	}
	snprintf(err, errlen, "%s:%d: unknown metric '%s' of row '%s' (it has: %s)",
		 fb_expect_file(e, l), l->line, l->metric, l->row, have);
	return -1;
}

int fb_expect_resolve(struct fb_expect *e, const struct fb_cmp *c, char *err, size_t errlen)
{
	for (int i = 0; i < e->n; i++) {
		if (resolve(e, &e->l[i], c, err, errlen))
			return -1;
		for (int k = 0; k < i && !e->l[i].absent; k++)
			if (!strcmp(e->l[k].id, e->l[i].id)) {
				snprintf(err, errlen, "%s:%d: %s already has an expectation (%s:%d)",
					 fb_expect_file(e, &e->l[i]), e->l[i].line, e->l[i].id,
					 fb_expect_file(e, &e->l[k]), e->l[k].line);
				return -1;
			}
	}
	return 0;
}

int fb_expect_claim(const struct fb_exp_line *l)
{
	return l->k == FB_EXP_RISE_GE || l->k == FB_EXP_FALL_GE || l->k == FB_EXP_DROP0;
}

enum fb_exp_state fb_expect_judge(const struct fb_exp_line *l, const struct fb_exp_eval *v)
{
	double up = 1 + l->pct / 100, down = 1 - l->pct / 100;

	if (l->k == FB_EXP_DROP0)
		return v->na && !v->nb_nonzero ? FB_EXP_MET : FB_EXP_FAILED;
	if (v->exact) {
		switch (l->k) {
		case FB_EXP_RISE_LE:	return v->r <= up ? FB_EXP_MET : FB_EXP_FAILED;
		case FB_EXP_RISE_GE:	return v->r >= up ? FB_EXP_MET : FB_EXP_FAILED;
		case FB_EXP_FALL_GE:	return v->r <= down ? FB_EXP_MET : FB_EXP_FAILED;
		default:		return v->r >= down ? FB_EXP_MET : FB_EXP_FAILED;
		}
	}
	if (!v->have_ci)
		return FB_EXP_UNKNOWN;
	switch (l->k) {
	case FB_EXP_RISE_LE:
		return v->hi <= up ? FB_EXP_MET : v->lo99 > up ? FB_EXP_FAILED : FB_EXP_UNKNOWN;
	case FB_EXP_RISE_GE:
		return v->lo >= up ? FB_EXP_MET : v->hi99 < up ? FB_EXP_FAILED : FB_EXP_UNKNOWN;
	case FB_EXP_FALL_GE:
		return v->hi <= down ? FB_EXP_MET : v->lo99 > down ? FB_EXP_FAILED : FB_EXP_UNKNOWN;
	default:
		return v->lo >= down ? FB_EXP_MET : v->hi99 < down ? FB_EXP_FAILED : FB_EXP_UNKNOWN;
	}
}
