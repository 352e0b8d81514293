// SPDX-License-Identifier: GPL-2.0
/*
 * test_history_migrate.c - the history store opened on older schemas
 * (history_fixture.h): a schema-1 DB migrated with content identity,
 * params and units filled from the rounds' files (or the metric names when
 * a file is gone), and a schema-3 DB migrated to one series per probe
 * method.  Numbers are synthetic: they test the code, not a kernel.
 */
#include <sqlite3.h>

#include "history_fixture.h"

/* A schema-1 DB as the first version wrote it: one round whose file is still there, one gone. */
static int make_v1(const char *db, const char *round_file)
{
	static const char *const v1[] = {
		"PRAGMA application_id = 1178749011",	/* FB_HDB_APP_ID */
		"PRAGMA user_version = 1",
		"CREATE TABLE rounds(id INTEGER PRIMARY KEY, started TEXT NOT NULL, label TEXT NOT"
		" NULL, arm TEXT NOT NULL, build_id TEXT NOT NULL, sha256 TEXT NOT NULL,"
		" source TEXT NOT NULL DEFAULT '', UNIQUE(started, build_id, arm, label, sha256))",
		"CREATE TABLE samples(round_id INTEGER NOT NULL REFERENCES rounds(id), metric TEXT"
		" NOT NULL, value REAL NOT NULL, PRIMARY KEY(round_id, metric)) WITHOUT ROWID",
		"INSERT INTO rounds VALUES(2, '2026-10-01T00:00:00Z', 'old', 'old', 'b0', 'ff',"
		" '/gone')",
		"INSERT INTO samples VALUES(2, 'func:nft_trans_alloc:calls', 200)",
		"INSERT INTO samples VALUES(2, 'func:nft_trans_alloc:p50', 990)",
		NULL,
	};
	struct fb_hround r;
	char sql[1024], err[256];
	sqlite3 *h;
	size_t len;
	char *buf = slurp(round_file, &len);
	int rc = 0;

	if (!buf || fb_hdb_ident(buf, len, &r, err, sizeof(err)) ||
	    sqlite3_open(db, &h) != SQLITE_OK) {
		free(buf);
		return -1;
	}
	free(buf);
	for (int i = 0; v1[i] && !rc; i++)
		rc = sqlite3_exec(h, v1[i], NULL, NULL, NULL);
	fb_fmt(sql, sizeof(sql), "INSERT INTO rounds VALUES(1, '%s', '%s', '%s', '%s', '%s', '%s');"
	       "INSERT INTO samples VALUES(1, 'func:nft_trans_alloc:p50', 1000);", r.started,
	       r.label, r.arm, r.build_id, r.sha256, round_file);
	if (!rc)
		rc = sqlite3_exec(h, sql, NULL, NULL, NULL);
	sqlite3_close(h);
	return rc ? -1 : 0;
}

static int get_text(const char *db, const char *sql, char *out, size_t len)
{
	sqlite3_stmt *st;
	sqlite3 *h;
	int rc = -1;

	out[0] = '\0';
	if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW) {
			snprintf(out, len, "%s", (const char *)sqlite3_column_text(st, 0));
			rc = 0;
		}
		sqlite3_finalize(st);
	}
	sqlite3_close(h);
	return rc;
}

static void test_migration(void)
{
	char db[256], rf[256], v[128], dir[256];
	int rc, l;

	fb_fmt(dir, sizeof(dir), "%s/mig", tmp);
	fb_mkdir_p(dir);
	fb_fmt(rf, sizeof(rf), "%s/round.json", dir);
	fb_fmt(db, sizeof(db), "%s/v1.db", dir);
	if (write_round(rf, "patched", 7, 1000, "nft.descriptors=100") || make_v1(db, rf)) {
		CHECKF(0, "writing a schema-1 DB");
		return;
	}
	rc = run(&l, "list", "--db", db, NULL);
	get_text(db, "PRAGMA user_version", v, sizeof(v));
	CHECKF(rc == 0 && atoi(v) == FB_HDB_VERSION, "a schema-1 DB is migrated to %d when opened"
	       " (rc %d, version %s)", FB_HDB_VERSION, rc, v);
	get_text(db, "SELECT length(content) FROM rounds WHERE id = 1", v, sizeof(v));
	CHECKF(!strcmp(v, "64"), "migration fills the content identity from the round's file"
	       " (length '%s')", v);
	get_text(db, "SELECT params FROM rounds WHERE id = 1", v, sizeof(v));
	CHECKF(!strcmp(v, "nft.descriptors=100"), "migration fills params from the round's file"
	       " ('%s')", v);
	get_text(db, "SELECT unit FROM samples WHERE round_id = 1", v, sizeof(v));
	CHECKF(!strcmp(v, "ns"), "migration fills units from the round's file ('%s')", v);
	get_text(db, "SELECT group_concat(unit, ',') FROM (SELECT unit FROM samples WHERE"
		 " round_id = 2 ORDER BY metric)", v, sizeof(v));
	CHECKF(!strcmp(v, "count,ns"), "units of a round whose file is gone come from the"
	       " metric names ('%s')", v);
	get_text(db, "SELECT count(*) FROM rounds WHERE params = '' AND id = 2", v, sizeof(v));
	CHECKF(!strcmp(v, "1"), "a round whose file is gone keeps empty new columns");
	rc = run(&l, "add", "--db", db, rf, NULL);
	CHECKF(rc == 0 && nrounds(db) == 2, "the migrated round keeps its identity: adding its file"
	       " again stores nothing (%d rounds)", nrounds(db));
	rc = run(&l, "list", "--db", db, NULL);
	CHECKF(rc == 0, "a migrated DB opens again");
}
/* A schema-3 DB: the current one with samples rebuilt as schema 3 had them. */
static int to_v3(const char *db)
{
	static const char sql[] =
		"BEGIN; CREATE TABLE s3(round_id INTEGER NOT NULL REFERENCES rounds(id),"
		" metric TEXT NOT NULL, value REAL NOT NULL, unit TEXT NOT NULL DEFAULT '',"
		" PRIMARY KEY(round_id, metric)) WITHOUT ROWID;"
		" INSERT INTO s3 SELECT round_id, metric, value, unit FROM samples;"
		" DROP TABLE samples; ALTER TABLE s3 RENAME TO samples;"
		" CREATE INDEX samples_by_metric ON samples(metric);"
		" PRAGMA user_version = 3; COMMIT";
	sqlite3 *h;
	int rc = -1;

	if (sqlite3_open(db, &h) == SQLITE_OK)
		rc = sqlite3_exec(h, sql, NULL, NULL, NULL);
	sqlite3_close(h);
	return rc ? -1 : 0;
}

/*
 * Schema 3 to 4: methods from the rounds' files; a round whose file is gone
 * has method '' and a series of its own until its file is added again.
 */
static void test_migration_v3(void)
{
	char db[256], dir[256], rf[300], away[300], v[128];
	struct fb_hseries *s;
	int rc, l, n;

	fb_fmt(db, sizeof(db), "%s/v3.db", tmp);
	fb_fmt(dir, sizeof(dir), "%s/mig3", tmp);
	write_rounds(dir, "patched", 0, 6, 1000);
	fb_fmt(rf, sizeof(rf), "%s/patched/round-5.json", dir);
	fb_fmt(away, sizeof(away), "%s/round-5.away", tmp);
	if (run(&l, "add", "--db", db, dir, NULL) || to_v3(db) || rename(rf, away)) {
		CHECKF(0, "writing a schema-3 DB");
		return;
	}
	rc = run(&l, "list", "--db", db, NULL);
	get_text(db, "PRAGMA user_version", v, sizeof(v));
	CHECKF(rc == 0 && atoi(v) == 4, "a schema-3 DB is migrated to 4 when opened (rc %d, %s)",
	       rc, v);
	get_text(db, "SELECT count(DISTINCT round_id) || ' ' || count(*) FROM samples WHERE"
		 " method = 'fentry'", v, sizeof(v));
	CHECKF(!strcmp(v, "5 30"), "the 5 rounds whose file is there get their method on their"
	       " 6 func samples ('%s')", v);
	get_text(db, "SELECT count(*) FROM samples WHERE method != '' AND metric NOT GLOB"
		 " 'func:*'", v, sizeof(v));
	CHECKF(!strcmp(v, "0"), "workload samples have no method (%s)", v);
	n = series_of(db, "func:nft_trans_alloc:p50", &s);
	CHECKF(n == 2 && !s[0].method[0] && s[0].n == 1 && s[1].n == 5,
	       "the round whose file is gone is a series of its own, method '' (%d series)", n);
	fb_hseries_free(s, n > 0 ? n : 0);
	rename(away, rf);
	rc = run(&l, "add", "--db", db, dir, NULL);
	n = series_of(db, "func:nft_trans_alloc:p50", &s);
	CHECKF(rc == 0 && nrounds(db) == 6 && n == 1 && s[0].n == 6 &&
	       !strcmp(s[0].method, "fentry"), "adding its file again fills its method: one"
	       " series of 6 (rc %d, %d series)", rc, n);
	fb_hseries_free(s, n > 0 ? n : 0);
}

int main(void)
{
	if (hist_begin("history-migrate"))
		return tap_done();
	test_migration();
	test_migration_v3();
	return hist_end();
}
