// SPDX-License-Identifier: GPL-2.0
/*
 * history_db.c - the history store: one SQLite file (history.h).
 *
 * Schema version in PRAGMA user_version, the file marked as ours with
 * PRAGMA application_id.  Version 1 kept a round's identity and its
 * metric values only; version 2 adds the kernel (config hash, release,
 * cmdline), the commit, the workload parameters, and each metric's unit.
 * Migration 1 -> 2 adds the columns and fills them from the round's
 * source file when it is still there with the same content.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <openssl/evp.h>
#include <sqlite3.h>

#include "analysis/history/history_db.h"
#include "analysis/history/history_metrics.h"

struct fb_hdb {
	sqlite3 *db;
	char path[512];
	int last;		/* series keep their newest `last` rounds; 0: all */
	int by_added;		/* series in the order rounds were added, not by start */
};

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

static const char *const schema_v2[] = {
	"CREATE TABLE rounds(id INTEGER PRIMARY KEY, started TEXT NOT NULL, label TEXT NOT NULL,"
	" arm TEXT NOT NULL, build_id TEXT NOT NULL, sha256 TEXT NOT NULL,"
	" source TEXT NOT NULL DEFAULT '',"
	" config_sha256 TEXT NOT NULL DEFAULT '', release TEXT NOT NULL DEFAULT '',"
	" cmdline TEXT NOT NULL DEFAULT '', commit_id TEXT NOT NULL DEFAULT '',"
	" params TEXT NOT NULL DEFAULT '', added TEXT NOT NULL DEFAULT '',"
	" UNIQUE(started, build_id, arm, label, sha256))",
	"CREATE TABLE samples(round_id INTEGER NOT NULL REFERENCES rounds(id),"
	" metric TEXT NOT NULL, value REAL NOT NULL, unit TEXT NOT NULL DEFAULT '',"
	" PRIMARY KEY(round_id, metric)) WITHOUT ROWID",
	"CREATE INDEX samples_by_metric ON samples(metric)",
	"CREATE INDEX rounds_by_series ON rounds(arm, params, started)",
	NULL,
};

/* v1 -> v2, before the rounds are filled from their files */
static const char *const migrate_v1[] = {
	"ALTER TABLE rounds ADD COLUMN config_sha256 TEXT NOT NULL DEFAULT ''",
	"ALTER TABLE rounds ADD COLUMN release TEXT NOT NULL DEFAULT ''",
	"ALTER TABLE rounds ADD COLUMN cmdline TEXT NOT NULL DEFAULT ''",
	"ALTER TABLE rounds ADD COLUMN commit_id TEXT NOT NULL DEFAULT ''",
	"ALTER TABLE rounds ADD COLUMN params TEXT NOT NULL DEFAULT ''",
	"ALTER TABLE rounds ADD COLUMN added TEXT NOT NULL DEFAULT ''",
	"ALTER TABLE samples ADD COLUMN unit TEXT NOT NULL DEFAULT ''",
	"CREATE INDEX samples_by_metric ON samples(metric)",
	"CREATE INDEX rounds_by_series ON rounds(arm, params, started)",
	NULL,
};

static int exec_all(sqlite3 *db, const char *const *sql, char *err, size_t errlen)
{
	for (int i = 0; sql[i]; i++)
		if (sqlite3_exec(db, sql[i], NULL, NULL, NULL) != SQLITE_OK) {
			snprintf(err, errlen, "history DB: %s", sqlite3_errmsg(db));
			return -1;
		}
	return 0;
}

/* One integer from a pragma or query; -1 with err on failure. */
static int query_int(sqlite3 *db, const char *sql, long long *v, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);

	if (rc == SQLITE_OK) {
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW)
			*v = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	if (rc == SQLITE_ROW)
		return 0;
	snprintf(err, errlen, "%s", sqlite3_errstr(rc));
	return -1;
}

/* The read-only checks every open starts with: -1 with err if the file is not ours or not sound. */
static int check_file(const char *path, long long *version, char *err, size_t errlen)
{
	sqlite3 *db = NULL;
	long long app = 0, nt = 0;
	char e[160];
	sqlite3_stmt *st = NULL;
	int ret = -1;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: cannot open: %s", path,
			 db ? sqlite3_errmsg(db) : "no memory");
		goto out;
	}
	if (query_int(db, "PRAGMA application_id", &app, e, sizeof(e))) {
		snprintf(err, errlen, "%s: not a foliobench history DB (%s)", path, e);
		goto out;
	}
	if (app != FB_HDB_APP_ID) {
		snprintf(err, errlen, "%s: not a foliobench history DB (application_id 0x%llx)",
			 path, app);
		goto out;
	}
	if (query_int(db, "PRAGMA user_version", version, e, sizeof(e)) ||
	    *version < 1 || *version > FB_HDB_VERSION) {
		snprintf(err, errlen, "%s: history schema version %lld, this foliobench reads"
			 " 1..%d", path, *version, FB_HDB_VERSION);
		goto out;
	}
	if (sqlite3_prepare_v2(db, "PRAGMA quick_check(1)", -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW ||
	    strcmp((const char *)sqlite3_column_text(st, 0), "ok")) {
		snprintf(err, errlen, "%s: corrupt history DB (quick_check: %s)", path,
			 st && sqlite3_column_text(st, 0) ?
			 (const char *)sqlite3_column_text(st, 0) : sqlite3_errmsg(db));
		for (char *c = err; *c; c++)	/* its report spans lines */
			if (*c == '\n' || *c == '\r')
				*c = ' ';
		goto out;
	}
	if (query_int(db, "SELECT count(*) FROM sqlite_schema WHERE type = 'table'"
		      " AND name IN ('rounds', 'samples')", &nt, e, sizeof(e)) || nt != 2) {
		snprintf(err, errlen, "%s: corrupt history DB (tables missing)", path);
		goto out;
	}
	ret = 0;
out:
	sqlite3_finalize(st);
	sqlite3_close(db);
	return ret;
}

static int migrate_fill(sqlite3 *db, char *err, size_t errlen);

/* sql, then (fill) the migration's fill, then pragmas, in one transaction; 0 or -1 with err. */
static int transaction(sqlite3 *db, const char *const *sql, int fill, const char *pragmas,
		       char *err, size_t errlen)
{
	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK ||
	    exec_all(db, sql, err, errlen) || (fill && migrate_fill(db, err, errlen)) ||
	    sqlite3_exec(db, pragmas, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		if (!err[0])
			snprintf(err, errlen, "history DB: %s", sqlite3_errmsg(db));
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	return 0;
}

static int create_v2(sqlite3 *db, char *err, size_t errlen)
{
	char sql[96];

	fb_fmt(sql, sizeof(sql), "PRAGMA application_id = %d; PRAGMA user_version = %d",
	       FB_HDB_APP_ID, FB_HDB_VERSION);
	return transaction(db, schema_v2, 0, sql, err, errlen);
}

static int migrate(sqlite3 *db, long long from, char *err, size_t errlen)
{
	char sql[64];

	if (from == FB_HDB_VERSION)
		return 0;
	fb_fmt(sql, sizeof(sql), "PRAGMA user_version = %d", FB_HDB_VERSION);
	if (transaction(db, migrate_v1, 1, sql, err, errlen))
		return -1;
	fb_info("history: migrated schema %lld -> %d", from, FB_HDB_VERSION);
	return 0;
}

static int make_parent(const char *path)
{
	char dir[512];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	return fb_mkdir_p(dir);
}

int fb_hdb_open(struct fb_hdb **out, const char *path, int rw, char *err, size_t errlen)
{
	struct fb_hdb *h;
	long long version = 0;
	struct stat sb;
	int fresh;

	*out = NULL;
	err[0] = '\0';
	if (stat(path, &sb)) {
		if (errno != ENOENT) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			return -1;
		}
		fresh = 1;
	} else {
		fresh = sb.st_size == 0;
	}
	if (!fresh && !S_ISREG(sb.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		return -1;
	}
	if (fresh && !rw) {
		snprintf(err, errlen, "%s: no history DB here (history add creates it)", path);
		return -1;
	}
	if (!fresh && check_file(path, &version, err, errlen))
		return -1;
	if (!fresh && version < FB_HDB_VERSION)
		rw = 1;		/* even a reader migrates an older schema first */
	h = calloc(1, sizeof(*h));
	if (!h || (fresh && make_parent(path))) {
		snprintf(err, errlen, "%s: %s", path, strerror(h ? errno : ENOMEM));
		free(h);
		return -1;
	}
	snprintf(h->path, sizeof(h->path), "%s", path);
	if (sqlite3_open_v2(path, &h->db, rw ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE :
			    SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: %s", path, sqlite3_errmsg(h->db));
		fb_hdb_close(h);
		return -1;
	}
	sqlite3_busy_timeout(h->db, 10000);
	if (rw && ((fresh && create_v2(h->db, err, errlen)) ||
		   (!fresh && migrate(h->db, version, err, errlen)))) {
		fb_hdb_close(h);
		return -1;
	}
	*out = h;
	return 0;
}

void fb_hdb_close(struct fb_hdb *h)
{
	if (!h)
		return;
	sqlite3_close(h->db);
	free(h);
}

int fb_hdb_begin(struct fb_hdb *h)
{
	return sqlite3_exec(h->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
}

int fb_hdb_commit(struct fb_hdb *h)
{
	return sqlite3_exec(h->db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
}

void fb_hdb_rollback(struct fb_hdb *h)
{
	sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
}

static void sha256_hex(const char *buf, size_t len, char out[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;

	out[0] = '\0';
	if (!EVP_Digest(buf, len, md, &mdlen, EVP_sha256(), NULL))
		return;
	for (unsigned int i = 0; i < mdlen && i < 32; i++)
		sprintf(out + 2 * i, "%02x", md[i]);
}

/* Identity and kernel of a parsed round into r (source and commit left alone). */
static void round_from(struct fb_hround *r, const struct fb_result *res)
{
	snprintf(r->started, sizeof(r->started), "%s", res->started);
	snprintf(r->label, sizeof(r->label), "%s", res->label);
	snprintf(r->arm, sizeof(r->arm), "%s", res->host.arm[0] ? res->host.arm : res->label);
	snprintf(r->build_id, sizeof(r->build_id), "%s", res->host.build_id);
	snprintf(r->config, sizeof(r->config), "%s", res->host.config_sha256);
	snprintf(r->release, sizeof(r->release), "%s", res->host.release);
	snprintf(r->cmdline, sizeof(r->cmdline), "%s", res->host.cmdline);
	fb_hist_params(res, r->params, sizeof(r->params));
}

int fb_hdb_ident(const char *buf, size_t len, struct fb_hround *r, char *err, size_t errlen)
{
	struct fb_result *res = fb_result_parse(buf, len, err, errlen);

	memset(r, 0, sizeof(*r));
	if (!res)
		return -1;
	round_from(r, res);
	sha256_hex(buf, len, r->sha256);
	free(res);
	return 0;
}

char *fb_hist_read(const char *path, size_t *len, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	long sz = -1;

	*len = 0;
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (fseek(f, 0, SEEK_END) == 0)
		sz = ftell(f);
	if (sz >= 0 && sz < (64l << 20) && fseek(f, 0, SEEK_SET) == 0)
		buf = malloc((size_t)sz + 1);
	if (buf)
		*len = fread(buf, 1, (size_t)sz, f);
	fclose(f);
	if (!buf || (long)*len != sz) {
		snprintf(err, errlen, "%s: cannot read (too large or unreadable)", path);
		free(buf);
		return NULL;
	}
	buf[*len] = '\0';
	return buf;
}

struct sample_ctx {
	sqlite3_stmt *st;
	long long id;
	int failed;
};

/* Binds (round, metric, value, unit) in that order and steps st. */
static void put_sample(void *ctx, const char *metric, const char *unit, double v)
{
	struct sample_ctx *c = ctx;

	if (!isfinite(v) || c->failed)
		return;
	sqlite3_bind_int64(c->st, 1, c->id);
	sqlite3_bind_text(c->st, 2, metric, -1, SQLITE_TRANSIENT);
	sqlite3_bind_double(c->st, 3, v);
	sqlite3_bind_text(c->st, 4, unit, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(c->st) != SQLITE_DONE)
		c->failed = 1;
	sqlite3_reset(c->st);
}

static void bind_texts(sqlite3_stmt *st, const char *const *v, int n)
{
	for (int i = 0; i < n; i++)
		sqlite3_bind_text(st, i + 1, v[i], -1, SQLITE_TRANSIENT);
}

static void now_iso(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static int insert_round(struct fb_hdb *h, const struct fb_hround *r, long long *id)
{
	static const char sql[] =
		"INSERT OR IGNORE INTO rounds(started, label, arm, build_id, sha256, source,"
		" config_sha256, release, cmdline, commit_id, params, added)"
		" VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
	char added[32];
	const char *v[] = { r->started, r->label, r->arm, r->build_id, r->sha256, r->source,
			    r->config, r->release, r->cmdline, r->commit, r->params, added };
	sqlite3_stmt *st;
	int rc;

	now_iso(added, sizeof(added));
	if (sqlite3_prepare_v2(h->db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	bind_texts(st, v, 12);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return -1;
	if (!sqlite3_changes(h->db))
		return 0;
	*id = sqlite3_last_insert_rowid(h->db);
	return 1;
}

int fb_hdb_add(struct fb_hdb *h, const char *buf, size_t len, const char *source,
	       const char *commit, char *err, size_t errlen)
{
	struct sample_ctx c = { 0 };
	struct fb_result *res;
	struct fb_hround r;
	char e[256];
	int rc;

	res = fb_result_parse(buf, len, e, sizeof(e));
	if (!res) {
		snprintf(err, errlen, "%s: %s", source, e);
		return -1;
	}
	memset(&r, 0, sizeof(r));
	round_from(&r, res);
	sha256_hex(buf, len, r.sha256);
	snprintf(r.source, sizeof(r.source), "%s", source);
	snprintf(r.commit, sizeof(r.commit), "%s", commit ? commit : "");
	rc = insert_round(h, &r, &c.id);
	if (rc == 1) {
		if (sqlite3_prepare_v2(h->db, "INSERT OR REPLACE INTO samples(round_id, metric,"
				       " value, unit) VALUES(?, ?, ?, ?)", -1, &c.st, NULL))
			c.failed = 1;
		else
			fb_hist_metrics(res, put_sample, &c);
		sqlite3_finalize(c.st);
		rc = c.failed ? -1 : 1;
	}
	free(res);
	if (rc < 0)
		snprintf(err, errlen, "%s: history DB: %s", source, sqlite3_errmsg(h->db));
	return rc;
}

int fb_hdb_has(struct fb_hdb *h, const struct fb_hround *r)
{
	const char *v[] = { r->started, r->build_id, r->arm, r->label, r->sha256 };
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(h->db, "SELECT 1 FROM rounds WHERE started = ? AND build_id = ?"
			       " AND arm = ? AND label = ? AND sha256 = ?", -1, &st, NULL))
		return -1;
	bind_texts(st, v, 5);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

static void col(sqlite3_stmt *st, int i, char *buf, size_t len)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	snprintf(buf, len, "%s", t ? (const char *)t : "");
}

int fb_hdb_rounds(struct fb_hdb *h, int (*fn)(const struct fb_hround *r, void *ctx), void *ctx)
{
	static const char sql[] =
		"SELECT id, started, label, arm, build_id, config_sha256, release, cmdline,"
		" commit_id, params, source, sha256,"
		" (SELECT count(*) FROM samples WHERE round_id = rounds.id)"
		" FROM rounds ORDER BY started, id";
	struct fb_hround r;
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(h->db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		r.id = sqlite3_column_int64(st, 0);
		col(st, 1, r.started, sizeof(r.started));
		col(st, 2, r.label, sizeof(r.label));
		col(st, 3, r.arm, sizeof(r.arm));
		col(st, 4, r.build_id, sizeof(r.build_id));
		col(st, 5, r.config, sizeof(r.config));
		col(st, 6, r.release, sizeof(r.release));
		col(st, 7, r.cmdline, sizeof(r.cmdline));
		col(st, 8, r.commit, sizeof(r.commit));
		col(st, 9, r.params, sizeof(r.params));
		col(st, 10, r.source, sizeof(r.source));
		col(st, 11, r.sha256, sizeof(r.sha256));
		r.nsamples = sqlite3_column_int(st, 12);
		if (fn(&r, ctx))
			break;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

/* Migration 1 -> 2: kernel, params and units from the round's file if unchanged. */
static int fill_round(sqlite3 *db, long long id, const char *source, const char *sha)
{
	struct sample_ctx c = { .id = id };
	struct fb_result *res = NULL;
	struct fb_hround r;
	char e[256], hex[65];
	sqlite3_stmt *st;
	size_t len;
	char *buf = fb_hist_read(source, &len, e, sizeof(e));

	if (buf)
		sha256_hex(buf, len, hex);
	if (buf && !strcmp(hex, sha))
		res = fb_result_parse(buf, len, e, sizeof(e));
	free(buf);
	if (!res)
		return 0;	/* gone or changed: the new columns stay empty */
	memset(&r, 0, sizeof(r));
	round_from(&r, res);
	if (sqlite3_prepare_v2(db, "UPDATE rounds SET config_sha256 = ?, release = ?, cmdline = ?,"
			       " params = ? WHERE id = ?", -1, &st, NULL) == SQLITE_OK) {
		const char *v[] = { r.config, r.release, r.cmdline, r.params };

		bind_texts(st, v, 4);
		sqlite3_bind_int64(st, 5, id);
		c.failed = sqlite3_step(st) != SQLITE_DONE;
		sqlite3_finalize(st);
	}
	/* put_sample binds (id, metric, value, unit): match the value too */
	if (sqlite3_prepare_v2(db, "UPDATE samples SET unit = ?4 WHERE round_id = ?1"
			       " AND metric = ?2 AND value = ?3", -1, &c.st, NULL) == SQLITE_OK)
		fb_hist_metrics(res, put_sample, &c);
	sqlite3_finalize(c.st);
	free(res);
	return c.failed ? -1 : 1;
}

static int migrate_fill(sqlite3 *db, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	int rc, filled = 0, total = 0;

	if (sqlite3_prepare_v2(db, "SELECT id, source, sha256 FROM rounds", -1, &st, NULL))
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int f = fill_round(db, sqlite3_column_int64(st, 0),
				   (const char *)sqlite3_column_text(st, 1),
				   (const char *)sqlite3_column_text(st, 2));

		if (f < 0)
			break;
		filled += f;
		total++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		snprintf(err, errlen, "history DB: migration: %s", sqlite3_errmsg(db));
		return -1;
	}
	fb_info("history: %d of %d rounds filled from their files", filled, total);
	/* rounds whose file is gone: units from the metric names */
	return sqlite3_exec(db, "UPDATE samples SET unit = CASE"
			    " WHEN metric GLOB 'extra:*' THEN ''"
			    " WHEN metric GLOB '*:calls' OR metric GLOB '*:ops.*'"
			    " OR metric GLOB '*_count' OR metric GLOB '*:acquisitions'"
			    " OR metric GLOB '*:contentions' THEN 'count' ELSE 'ns' END"
			    " WHERE unit = ''", NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
}

/* Appends a point to the last series, or starts one when metric, arm or params change. */
static int series_push(struct fb_hseries **v, int *n, int *cap, sqlite3_stmt *st)
{
	const char *metric = (const char *)sqlite3_column_text(st, 0);
	const char *arm = (const char *)sqlite3_column_text(st, 2);
	const char *params = (const char *)sqlite3_column_text(st, 3);
	struct fb_hseries *s = *n ? &(*v)[*n - 1] : NULL;
	struct fb_hpoint *p;

	if (!s || strcmp(s->metric, metric) || strcmp(s->arm, arm) || strcmp(s->params, params)) {
		if (*n == *cap) {
			struct fb_hseries *nv = realloc(*v, sizeof(**v) * (size_t)(*cap * 2 + 16));

			if (!nv)
				return -1;
			*v = nv;
			*cap = *cap * 2 + 16;
		}
		s = &(*v)[(*n)++];
		memset(s, 0, sizeof(*s));
		snprintf(s->metric, sizeof(s->metric), "%s", metric);
		col(st, 1, s->unit, sizeof(s->unit));
		snprintf(s->arm, sizeof(s->arm), "%s", arm);
		snprintf(s->params, sizeof(s->params), "%s", params);
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
	col(st, 6, p->started, sizeof(p->started));
	col(st, 7, p->build_id, sizeof(p->build_id));
	col(st, 8, p->commit, sizeof(p->commit));
	col(st, 9, p->label, sizeof(p->label));
	col(st, 10, p->sha256, sizeof(p->sha256));
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
		" r.commit_id, r.label, r.sha256 FROM samples s JOIN rounds r ON r.id = s.round_id"
		" WHERE (?1 IS NULL OR r.arm = ?1) AND (");
	for (int i = 0; i < (nglobs ? nglobs : 1) && off < sizeof(sql); i++)
		off += (size_t)snprintf(sql + off, sizeof(sql) - off, "%ss.metric GLOB ?%d",
					i ? " OR " : "", i + 2);
	if (off < sizeof(sql))
		snprintf(sql + off, sizeof(sql) - off, ") ORDER BY s.metric, r.arm, r.params, %s",
			 h->by_added ? "r.id" : "r.started, r.id");
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

void fb_hseries_free(struct fb_hseries *s, int n)
{
	for (int i = 0; s && i < n; i++)
		free(s[i].p);
	free(s);
}
