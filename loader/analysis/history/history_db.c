// SPDX-License-Identifier: GPL-2.0
/*
 * history_db.c - the history store: one SQLite file (history_db.h), written.
 *
 * Schema version in PRAGMA user_version, the file marked as ours with
 * PRAGMA application_id.  Version 1 kept a round's identity and its
 * metric values only; version 2 adds the kernel (config hash, release,
 * cmdline), the commit, the workload parameters, and each metric's unit;
 * version 3 the round's content identity (history_db.h), unique; version 4
 * each sample's method, the probe row's observer method ("" for workload,
 * contention and extra metrics), because a series must not span a change
 * of the observer whose cost is inside the measured window.  Migrations
 * add the columns and fill them from the round's source file when it is
 * still there with the same content; a sample whose file is gone keeps
 * method "" (unknown), its own series, until its file is added again.
 *
 * Many writers at once (CI shards, nightly jobs): the file is in WAL mode,
 * every connection waits up to FB_HDB_BUSY_MS for a lock, and whether the
 * schema must be created or migrated is decided inside the writer's
 * BEGIN IMMEDIATE transaction, so the second of two racing creators finds
 * the tables there.  A busy file is reported as busy, never as foreign.
 * Opening (what the path is, whose file, where a new DB is built):
 * history_open.c; this file has the schema, its migrations and the adds.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/evp.h>
#include <sqlite3.h>

#include "analysis/history/history_db.h"
#include "analysis/history/history_metrics.h"
#include "analysis/history/history_store.h"
#include "model/rounds.h"

static const char *const schema[] = {
	"CREATE TABLE IF NOT EXISTS rounds(id INTEGER PRIMARY KEY, started TEXT NOT NULL,"
	" label TEXT NOT NULL, arm TEXT NOT NULL, build_id TEXT NOT NULL, sha256 TEXT NOT NULL,"
	" source TEXT NOT NULL DEFAULT '',"
	" config_sha256 TEXT NOT NULL DEFAULT '', release TEXT NOT NULL DEFAULT '',"
	" cmdline TEXT NOT NULL DEFAULT '', commit_id TEXT NOT NULL DEFAULT '',"
	" params TEXT NOT NULL DEFAULT '', added TEXT NOT NULL DEFAULT '',"
	" content TEXT NOT NULL DEFAULT '',"
	" UNIQUE(started, build_id, arm, label, sha256))",
	"CREATE TABLE IF NOT EXISTS samples(round_id INTEGER NOT NULL REFERENCES rounds(id),"
	" metric TEXT NOT NULL, value REAL NOT NULL, unit TEXT NOT NULL DEFAULT '',"
	" method TEXT NOT NULL DEFAULT '',"
	" PRIMARY KEY(round_id, metric)) WITHOUT ROWID",
	"CREATE INDEX IF NOT EXISTS samples_by_metric ON samples(metric)",
	"CREATE INDEX IF NOT EXISTS rounds_by_series ON rounds(arm, params, started)",
	"CREATE UNIQUE INDEX IF NOT EXISTS rounds_by_content ON rounds(started, build_id, arm,"
	" label, content) WHERE content != ''",
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

/* v2 -> v3, before the fill */
static const char *const migrate_v2[] = {
	"ALTER TABLE rounds ADD COLUMN content TEXT NOT NULL DEFAULT ''",
	NULL,
};

/* v3 -> v4, before the fill */
static const char *const migrate_v3[] = {
	"ALTER TABLE samples ADD COLUMN method TEXT NOT NULL DEFAULT ''",
	NULL,
};

/* after the fill: copies stored twice by file hash (schema 2) go, the later ones */
static const char *const dedup_v3[] = {
	"CREATE TEMP TABLE dups AS SELECT r.id FROM rounds r WHERE r.content != '' AND EXISTS"
	" (SELECT 1 FROM rounds o WHERE o.id < r.id AND o.started = r.started AND"
	" o.build_id = r.build_id AND o.arm = r.arm AND o.label = r.label AND"
	" o.content = r.content)",
	"DELETE FROM samples WHERE round_id IN (SELECT id FROM dups)",
	"DELETE FROM rounds WHERE id IN (SELECT id FROM dups)",
	"DROP TABLE dups",
	"CREATE UNIQUE INDEX rounds_by_content ON rounds(started, build_id, arm, label, content)"
	" WHERE content != ''",
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

static int migrate_fill(sqlite3 *db, long long from, char *err, size_t errlen);

int fb_hdb_create(sqlite3 *db, char *err, size_t errlen)
{
	char sql[96];

	fb_fmt(sql, sizeof(sql), "PRAGMA application_id = %d; PRAGMA user_version = %d",
	       FB_HDB_APP_ID, FB_HDB_VERSION);
	if (exec_all(db, schema, err, errlen))
		return -1;
	return sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
}

int fb_hdb_migrate(sqlite3 *db, long long from, char *err, size_t errlen)
{
	char sql[96];

	if ((from < 2 && exec_all(db, migrate_v1, err, errlen)) ||
	    (from < 3 && exec_all(db, migrate_v2, err, errlen)) ||
	    (from < 4 && exec_all(db, migrate_v3, err, errlen)) ||
	    migrate_fill(db, from, err, errlen) ||
	    (from < 3 && exec_all(db, dedup_v3, err, errlen)))
		return -1;
	fb_fmt(sql, sizeof(sql), "PRAGMA user_version = %d", FB_HDB_VERSION);
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return -1;
	fb_info("history: migrated schema %lld -> %d", from, FB_HDB_VERSION);
	return 0;
}

int fb_hdb_commit(struct fb_hdb *h)
{
	return sqlite3_exec(h->db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
}

void fb_hdb_rollback(struct fb_hdb *h)
{
	sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
}

const char *fb_hdb_errmsg(struct fb_hdb *h)
{
	return sqlite3_errmsg(h->db);
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

static void key_put(void *ctx, const void *p, size_t n)
{
	EVP_DigestUpdate(ctx, p, n);
}

/*
 * The content identity: SHA-256 of fb_round_key(), as compare tells a copy.
 * A round without a start time is never a copy there (fb_round_same()), so
 * its identity is its file's hash.
 */
static void content_hex(const struct fb_result *res, const char *file_sha, char out[65])
{
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;

	snprintf(out, 65, "%s", file_sha);
	if (!c || !res->started[0] || !EVP_DigestInit_ex(c, EVP_sha256(), NULL)) {
		EVP_MD_CTX_free(c);
		return;
	}
	fb_round_key(res, key_put, c);
	if (EVP_DigestFinal_ex(c, md, &mdlen))
		for (unsigned int i = 0; i < mdlen && i < 32; i++)
			sprintf(out + 2 * i, "%02x", md[i]);
	EVP_MD_CTX_free(c);
}

/* Identity, kernel and hashes of a parsed round into r (source and commit left alone). */
static void ident_from(struct fb_hround *r, const struct fb_result *res, const char *buf,
		       size_t len)
{
	memset(r, 0, sizeof(*r));
	round_from(r, res);
	sha256_hex(buf, len, r->sha256);
	content_hex(res, r->sha256, r->content);
}

int fb_hdb_ident(const char *buf, size_t len, struct fb_hround *r, char *err, size_t errlen)
{
	struct fb_result *res = fb_result_parse(buf, len, err, errlen);

	memset(r, 0, sizeof(*r));
	if (!res)
		return -1;
	ident_from(r, res, buf, len);
	free(res);
	return 0;
}

char *fb_hist_read(const char *path, size_t *len, char *err, size_t errlen)
{
	/* a FIFO or device is refused, never waited on (util/infile.h) */
	return fb_in_read(path, FB_RESULT_MAX_BYTES - 1, len, "a results file", err, errlen);
}

struct sample_ctx {
	sqlite3_stmt *st;
	long long id;
	int failed;
};

/* Binds (round, metric, value, unit, method) in that order and steps st. */
static void put_sample(void *ctx, const char *metric, const char *method, const char *unit,
		       double v)
{
	struct sample_ctx *c = ctx;

	if (!isfinite(v) || c->failed)
		return;
	sqlite3_bind_int64(c->st, 1, c->id);
	sqlite3_bind_text(c->st, 2, metric, -1, SQLITE_TRANSIENT);
	sqlite3_bind_double(c->st, 3, v);
	sqlite3_bind_text(c->st, 4, unit, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(c->st, 5, method, -1, SQLITE_TRANSIENT);
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
		" config_sha256, release, cmdline, commit_id, params, added, content)"
		" VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
	char added[32];
	const char *v[] = { r->started, r->label, r->arm, r->build_id, r->sha256, r->source,
			    r->config, r->release, r->cmdline, r->commit, r->params, added,
			    r->content };
	sqlite3_stmt *st;
	int rc;

	now_iso(added, sizeof(added));
	if (sqlite3_prepare_v2(h->db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	bind_texts(st, v, 13);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return -1;
	if (!sqlite3_changes(h->db))
		return 0;
	*id = sqlite3_last_insert_rowid(h->db);
	return 1;
}

/*
 * The samples of round id from res: all of them for a new round (copy 0);
 * for a copy of a stored round (copy 1) only the method of each sample
 * stored without one (its file was gone at the migration to schema 4) and
 * with the same value.  0 or -1.
 */
static int put_samples(struct fb_hdb *h, long long id, const struct fb_result *res, int copy)
{
	/* put_sample binds (id, metric, value, unit, method); fill leaves ?4 unused */
	static const char insert[] = "INSERT OR REPLACE INTO samples(round_id, metric, value,"
				     " unit, method) VALUES(?1, ?2, ?3, ?4, ?5)";
	static const char fill[] = "UPDATE samples SET method = ?5 WHERE round_id = ?1 AND"
				   " metric = ?2 AND value = ?3 AND method = ''";
	struct sample_ctx c = { .id = id };

	if (sqlite3_prepare_v2(h->db, copy ? fill : insert, -1, &c.st, NULL) != SQLITE_OK)
		return -1;
	fb_hist_metrics(res, put_sample, &c);
	sqlite3_finalize(c.st);
	return c.failed ? -1 : 0;
}

/* Stored: the same start, build, arm and label, and content (or file, for old rows). */
static int find_round(struct fb_hdb *h, const struct fb_hround *r, long long *id)
{
	const char *v[] = { r->started, r->build_id, r->arm, r->label, r->content, r->sha256 };
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(h->db, "SELECT id FROM rounds WHERE started = ? AND build_id = ?"
			       " AND arm = ? AND label = ? AND (content = ? OR sha256 = ?)",
			       -1, &st, NULL))
		return -1;
	bind_texts(st, v, 6);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

int fb_hdb_add(struct fb_hdb *h, const char *buf, size_t len, const char *source,
	       const char *commit, char *err, size_t errlen)
{
	struct fb_result *res;
	struct fb_hround r;
	long long id = 0;
	char e[256];
	int rc;

	res = fb_result_parse(buf, len, e, sizeof(e));
	if (!res) {
		snprintf(err, errlen, "%s: %s", source, e);
		return -1;
	}
	ident_from(&r, res, buf, len);
	snprintf(r.source, sizeof(r.source), "%s", source);
	snprintf(r.commit, sizeof(r.commit), "%s", commit ? commit : "");
	rc = find_round(h, &r, &id);
	if (rc == 0)
		rc = insert_round(h, &r, &id);
	else if (rc == 1)	/* a copy of a stored round: at most methods to fill */
		rc = put_samples(h, id, res, 1) ? -1 : 0;
	if (rc == 1)
		rc = put_samples(h, id, res, 0) ? -1 : 1;
	free(res);
	if (rc < 0)
		snprintf(err, errlen, "%s: history DB: %s", source, sqlite3_errmsg(h->db));
	return rc;
}

int fb_hdb_has(struct fb_hdb *h, const struct fb_hround *r)
{
	long long id;

	return find_round(h, r, &id);
}

/* Migration from below schema 3: the round's kernel, params and content; 0 or -1. */
static int fill_kernel(sqlite3 *db, long long id, const struct fb_hround *r)
{
	const char *v[] = { r->config, r->release, r->cmdline, r->params, r->content };
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, "UPDATE rounds SET config_sha256 = ?, release = ?, cmdline = ?,"
			       " params = ?, content = ? WHERE id = ?", -1, &st, NULL) != SQLITE_OK)
		return -1;
	bind_texts(st, v, 5);
	sqlite3_bind_int64(st, 6, id);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

/*
 * Migrations from schema `from`: what the round's file says if it is
 * unchanged: kernel, params and content (below 3), units and methods.
 * 1 filled, 0 file gone or changed, -1 on error.
 */
static int fill_round(sqlite3 *db, long long id, const char *source, const char *sha,
		      long long from)
{
	struct sample_ctx c = { .id = id };
	struct fb_result *res = NULL;
	struct fb_hround r;
	char e[256], hex[65];
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
	content_hex(res, hex, r.content);
	c.failed = from < 3 && fill_kernel(db, id, &r);
	/* put_sample binds (id, metric, value, unit, method): match the value too */
	if (sqlite3_prepare_v2(db, "UPDATE samples SET unit = ?4, method = ?5 WHERE"
			       " round_id = ?1 AND metric = ?2 AND value = ?3", -1, &c.st,
			       NULL) == SQLITE_OK)
		fb_hist_metrics(res, put_sample, &c);
	sqlite3_finalize(c.st);
	free(res);
	return c.failed ? -1 : 1;
}

static int migrate_fill(sqlite3 *db, long long from, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	int rc, filled = 0, total = 0;

	if (sqlite3_prepare_v2(db, "SELECT id, source, sha256 FROM rounds", -1, &st, NULL))
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int f = fill_round(db, sqlite3_column_int64(st, 0),
				   (const char *)sqlite3_column_text(st, 1),
				   (const char *)sqlite3_column_text(st, 2), from);

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

