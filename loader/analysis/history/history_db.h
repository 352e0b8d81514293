/* SPDX-License-Identifier: GPL-2.0 */
/*
 * history_db.h - the run history's store: one SQLite file of rounds and their
 * metrics, and the series read from it (history_db.c).
 *
 * A round is one results file.  Its identity is (started, host.build_id,
 * host.arm, label, SHA-256 of the file), so importing the same round
 * twice, from a directory or an unpacked archive, stores it once.  A
 * series is one metric of the rounds with the same arm and workload
 * parameters, ordered by start time.  Metric names are compare's
 * ("func:nft_trans_alloc:p50", "workload:nft:wall").
 */
#ifndef FB_HISTORY_DB_H
#define FB_HISTORY_DB_H

#include <stddef.h>

#define FB_HDB_VERSION		2
#define FB_HDB_APP_ID		0x46424853	/* "FBHS" */
#define FB_HDB_DEFAULT		"results/history.db"

struct fb_hdb;

/*
 * Opens a history DB.  Read-only (rw 0): the file must exist.  For adding
 * (rw 1): a missing or empty file is created at FB_HDB_VERSION.  An older
 * schema is migrated in one transaction either way.  Before anything is written the file
 * is opened read-only and checked (SQLite header, application_id, schema
 * version, quick_check), so a foreign or corrupt file is never touched.
 * Returns 0, or -1 with one line in err.
 */
int fb_hdb_open(struct fb_hdb **db, const char *path, int rw, char *err, size_t errlen);
void fb_hdb_close(struct fb_hdb *db);
/* fb_hdb_series() keeps each series' newest `last` rounds (0: all, the default). */
void fb_hdb_set_last(struct fb_hdb *db, int last);
/* 1: series in the order their rounds were added (nightly CI); 0: by start time (default). */
void fb_hdb_set_order(struct fb_hdb *db, int by_added);
int fb_hdb_order(const struct fb_hdb *db);
int fb_hdb_begin(struct fb_hdb *db);
int fb_hdb_commit(struct fb_hdb *db);
void fb_hdb_rollback(struct fb_hdb *db);

/* Round identity and the kernel it ran on, as stored. */
struct fb_hround {
	long long id;
	char started[32], label[64], arm[64], build_id[64], config[72];
	char release[96], cmdline[512], commit[64], params[256], source[512];
	char sha256[65];
	int nsamples;
};

/*
 * Adds one results file (content already read: buf, len); source is the
 * path to remember, commit "" if unknown.  Returns 1 added, 0 already
 * stored, -1 with one line in err (not a results file, DB error).
 */
int fb_hdb_add(struct fb_hdb *db, const char *buf, size_t len, const char *source,
	       const char *commit, char *err, size_t errlen);

/* Whole file, NUL-terminated, malloc'd; NULL with one line in err. */
char *fb_hist_read(const char *path, size_t *len, char *err, size_t errlen);

/* Identity of a results buffer as fb_hdb_add() keys it; 0 or -1 with err. */
int fb_hdb_ident(const char *buf, size_t len, struct fb_hround *r, char *err, size_t errlen);
/* 1 if a round with that identity is stored, 0 if not, -1 on error. */
int fb_hdb_has(struct fb_hdb *db, const struct fb_hround *r);

/* Calls fn for every stored round, ordered by started; stops when fn returns non-zero. */
int fb_hdb_rounds(struct fb_hdb *db, int (*fn)(const struct fb_hround *r, void *ctx), void *ctx);

struct fb_hpoint {
	long long round;
	double v;
	char started[32], build_id[64], commit[64], label[64];
	char sha256[65];
};

struct fb_hseries {
	char metric[160];
	char unit[8];
	char arm[64];
	char params[256];
	int lower_is_better;	/* 1, 0, or -1 for counts with no better direction */
	int n;
	struct fb_hpoint *p;
};

/*
 * Every series whose metric matches one of the globs (sqlite GLOB, "*"
 * if nglobs is 0) and whose arm is arm (NULL: any), ordered by metric,
 * arm, params; points by started.  Returns the count (*out malloc'd; free
 * with fb_hseries_free), or -1 with err.
 */
int fb_hdb_series(struct fb_hdb *db, const char *const *globs, int nglobs, const char *arm,
		  struct fb_hseries **out, char *err, size_t errlen);
void fb_hseries_free(struct fb_hseries *s, int n);

#endif /* FB_HISTORY_DB_H */
