// SPDX-License-Identifier: GPL-2.0
/*
 * history_series.c - reading the history store (history_series.h): the rounds
 * stored and the series of each metric.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "analysis/history/history_db.h"
#include "analysis/history/history_metrics.h"
#include "analysis/history/history_series.h"
#include "analysis/history/history_store.h"

void fb_hdb_col(sqlite3_stmt *st, int i, char *buf, size_t len)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	snprintf(buf, len, "%s", t ? (const char *)t : "");
}

void fb_hdb_set_order(struct fb_hdb *h, int by_added)
{
	h->by_added = by_added;
}

int fb_hdb_order(const struct fb_hdb *h)
{
	return h->by_added;
}

void fb_hdb_set_last(struct fb_hdb *h, int last)
{
	h->last = last;
}

/* Drops all but the newest h->last points of each series. */
static void trim_series(const struct fb_hdb *h, struct fb_hseries *s, int n)
{
	for (int i = 0; h->last > 0 && i < n; i++)
		if (s[i].n > h->last) {
			memmove(s[i].p, s[i].p + s[i].n - h->last,
				sizeof(*s[i].p) * (size_t)h->last);
			s[i].n = h->last;
		}
}

int fb_hdb_rounds(struct fb_hdb *h, int (*fn)(const struct fb_hround *r, void *ctx), void *ctx)
{
	static const char sql[] =
		"SELECT id, started, label, arm, build_id, config_sha256, release, cmdline,"
		" commit_id, params, source, sha256, content,"
		" (SELECT count(*) FROM samples WHERE round_id = rounds.id)"
		" FROM rounds ORDER BY started, sha256, id";
	struct fb_hround r;
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(h->db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		r.id = sqlite3_column_int64(st, 0);
		fb_hdb_col(st, 1, r.started, sizeof(r.started));
		fb_hdb_col(st, 2, r.label, sizeof(r.label));
		fb_hdb_col(st, 3, r.arm, sizeof(r.arm));
		fb_hdb_col(st, 4, r.build_id, sizeof(r.build_id));
		fb_hdb_col(st, 5, r.config, sizeof(r.config));
		fb_hdb_col(st, 6, r.release, sizeof(r.release));
		fb_hdb_col(st, 7, r.cmdline, sizeof(r.cmdline));
		fb_hdb_col(st, 8, r.commit, sizeof(r.commit));
		fb_hdb_col(st, 9, r.params, sizeof(r.params));
		fb_hdb_col(st, 10, r.source, sizeof(r.source));
		fb_hdb_col(st, 11, r.sha256, sizeof(r.sha256));
		fb_hdb_col(st, 12, r.content, sizeof(r.content));
		r.nsamples = sqlite3_column_int(st, 13);
		if (fn(&r, ctx))
			break;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

/* 1 if the row at st belongs to series s: the same metric, arm, params and method. */
static int same_series(const struct fb_hseries *s, sqlite3_stmt *st)
{
	static const int col[] = { 0, 2, 3, 12 };
	const char *have[] = { s->metric, s->arm, s->params, s->method };

	for (int i = 0; i < 4; i++) {
		const unsigned char *t = sqlite3_column_text(st, col[i]);

		if (strcmp(have[i], t ? (const char *)t : ""))
			return 0;
	}
	return 1;
}

/* Appends a point to the last series, or starts one when metric, arm, params or method change. */
static int series_push(struct fb_hseries **v, int *n, int *cap, sqlite3_stmt *st)
{
	struct fb_hseries *s = *n ? &(*v)[*n - 1] : NULL;
	struct fb_hpoint *p;

	if (!s || !same_series(s, st)) {
		if (*n == *cap) {
			struct fb_hseries *nv = realloc(*v, sizeof(**v) * (size_t)(*cap * 2 + 16));

			if (!nv)
				return -1;
			*v = nv;
			*cap = *cap * 2 + 16;
		}
		s = &(*v)[(*n)++];
		memset(s, 0, sizeof(*s));
		fb_hdb_col(st, 0, s->metric, sizeof(s->metric));
		fb_hdb_col(st, 1, s->unit, sizeof(s->unit));
		fb_hdb_col(st, 2, s->arm, sizeof(s->arm));
		fb_hdb_col(st, 3, s->params, sizeof(s->params));
		fb_hdb_col(st, 12, s->method, sizeof(s->method));
		s->lower_is_better = fb_hist_metric_direction(s->metric, s->unit);
	}
	/* grow in powers of two: n is a power of two exactly when full */
	if (!s->n || !(s->n & (s->n - 1))) {
		p = realloc(s->p, sizeof(*p) * (size_t)(s->n ? 2 * s->n : 1));
		if (!p)
			return -1;
		s->p = p;
	}
	p = &s->p[s->n++];
	p->round = sqlite3_column_int64(st, 4);
	p->v = sqlite3_column_double(st, 5);
	fb_hdb_col(st, 6, p->started, sizeof(p->started));
	fb_hdb_col(st, 7, p->build_id, sizeof(p->build_id));
	fb_hdb_col(st, 8, p->commit, sizeof(p->commit));
	fb_hdb_col(st, 9, p->label, sizeof(p->label));
	fb_hdb_col(st, 10, p->sha256, sizeof(p->sha256));
	fb_hdb_col(st, 11, p->content, sizeof(p->content));
	return 0;
}

int fb_hdb_series(struct fb_hdb *h, const char *const *globs, int nglobs, const char *arm,
		  struct fb_hseries **out, char *err, size_t errlen)
{
	char sql[2048];
	size_t off;
	sqlite3_stmt *st;
	int n = 0, cap = 0, rc;

	*out = NULL;
	off = (size_t)snprintf(sql, sizeof(sql), "%s",
		"SELECT s.metric, s.unit, r.arm, r.params, r.id, s.value, r.started, r.build_id,"
		" r.commit_id, r.label, r.sha256, r.content, s.method"
		" FROM samples s JOIN rounds r ON r.id = s.round_id"
		" WHERE (?1 IS NULL OR r.arm = ?1) AND (");
	for (int i = 0; i < (nglobs ? nglobs : 1) && off < sizeof(sql); i++)
		off += (size_t)snprintf(sql + off, sizeof(sql) - off, "%ss.metric GLOB ?%d",
					i ? " OR " : "", i + 2);
	if (off < sizeof(sql))
		snprintf(sql + off, sizeof(sql) - off, ") ORDER BY s.metric, r.arm, r.params,"
			 " s.method, %s", h->by_added ? "r.id" : "r.started, r.sha256, r.id");
	if (nglobs > 64 || sqlite3_prepare_v2(h->db, sql, -1, &st, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "history DB: %s", sqlite3_errmsg(h->db));
		return -1;
	}
	if (arm)
		sqlite3_bind_text(st, 1, arm, -1, SQLITE_TRANSIENT);
	for (int i = 0; i < (nglobs ? nglobs : 1); i++)
		sqlite3_bind_text(st, i + 2, nglobs ? globs[i] : "*", -1, SQLITE_TRANSIENT);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (series_push(out, &n, &cap, st)) {
			rc = SQLITE_NOMEM;
			break;
		}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		snprintf(err, errlen, "history DB: %s", sqlite3_errstr(rc));
		fb_hseries_free(*out, n);
		*out = NULL;
		return -1;
	}
	trim_series(h, *out, n);
	return n;
}

const char *fb_hseries_name(const struct fb_hseries *s, char *buf, size_t len)
{
	if (s->method[0])
		fb_fmt(buf, len, "%s [%s]", s->metric, s->method);
	else
		fb_fmt(buf, len, "%s", s->metric);
	return buf;
}

void fb_hseries_free(struct fb_hseries *s, int n)
{
	for (int i = 0; s && i < n; i++)
		free(s[i].p);
	free(s);
}
