/* SPDX-License-Identifier: GPL-2.0 */
/*
 * history_db.h - the run history's store: one SQLite file of rounds and their
 * metrics (history_db.c: opening, migrating, adding).  Reading the
 * rounds and series back: history_series.h.
 *
 * A round is one results file.  Its identity is its content, as compare
 * defines a copy (fb_round_same(), model/rounds.h): start time, build id,
 * arm, label and the measured data, as a SHA-256 of fb_round_key().  So
 * importing the same round twice, from a directory, an unpacked archive or
 * a re-serialized (pretty-printed) copy, stores it once.  Rounds stored by
 * schema 2 whose file was gone at the migration keep the file's SHA-256 as
 * their identity.  Any number of `history add` may run at once on one file
 * (WAL, a busy timeout of FB_HDB_BUSY_MS, one transaction per add).  A
 * series is one metric of the rounds with the same arm and workload
 * parameters, measured by the same method (the probe row's observer:
 * "fentry", "fsession", ...; "" for workload metrics and for samples of
 * unknown method), ordered by start time.  Metric names are compare's
 * ("func:nft_trans_alloc:p50", "workload:nft:wall").
 */
#ifndef FB_HISTORY_DB_H
#define FB_HISTORY_DB_H

#include <stddef.h>

#define FB_HDB_VERSION		4
#define FB_HDB_BUSY_MS		30000	/* how long a writer waits for another */
#define FB_HDB_APP_ID		0x46424853	/* "FBHS" */
#define FB_HDB_DEFAULT		"results/history.db"

struct fb_hdb;

/*
 * Opens a history DB (history_open.c).  The path must be a regular file or
 * not exist: a device, FIFO or directory is refused before anything opens
 * it.  Before anything is written an existing file is opened read-only and
 * checked (SQLite header, application_id, schema version, quick_check), so
 * a foreign (another program's database, even with application_id 0) or
 * corrupt file is never touched; a file locked for longer than
 * FB_HDB_BUSY_MS is reported as busy.
 * Read-only (rw 0): the file must exist; one in a read-only place is read
 * as immutable.  An older schema is migrated first.
 * For an add (rw 1): returns with the write transaction begun and the
 * schema created or migrated inside it (fb_hdb_commit() ends it).  A
 * missing file is built beside path and becomes path at fb_hdb_publish();
 * an empty or blank file is made a DB in place, in WAL mode.
 * Returns 0, FB_HDB_FAIL (locked for longer than FB_HDB_BUSY_MS, or a disk
 * error: a failure, exit 1) or -1 (bad input, exit 2), with one line in err.
 */
#define FB_HDB_FAIL		(-2)
int fb_hdb_open(struct fb_hdb **db, const char *path, int rw, char *err, size_t errlen);
/*
 * After the commit of an add: a new DB becomes path.  0 done (or nothing
 * to do), 1 another writer created path meanwhile (nothing published:
 * close, open again and add there), -1 with err.
 */
int fb_hdb_publish(struct fb_hdb *db, char *err, size_t errlen);
/* Closes; a new DB never published is removed. */
void fb_hdb_close(struct fb_hdb *db);
/* fb_hdb_series() keeps each series' newest `last` rounds (0: all, the default). */
void fb_hdb_set_last(struct fb_hdb *db, int last);
/* 1: series in the order their rounds were added (nightly CI); 0: by start time (default). */
void fb_hdb_set_order(struct fb_hdb *db, int by_added);
int fb_hdb_order(const struct fb_hdb *db);
/* SQLite's message for the last failure on db */
const char *fb_hdb_errmsg(struct fb_hdb *db);
int fb_hdb_commit(struct fb_hdb *db);
void fb_hdb_rollback(struct fb_hdb *db);

/* Round identity and the kernel it ran on, as stored. */
struct fb_hround {
	long long id;
	char started[32], label[64], arm[64], build_id[64], config[72];
	char release[96], cmdline[512], commit[64], params[256], source[512];
	char sha256[65];		/* the file's bytes */
	char content[65];		/* the round's content identity */
	int nsamples;
};

/*
 * Adds one results file (content already read: buf, len); source is the
 * path to remember, commit "" if unknown.  Returns 1 added, 0 already
 * stored (then the samples stored without a method get the file's), -1
 * with one line in err (not a results file, DB error).
 */
int fb_hdb_add(struct fb_hdb *db, const char *buf, size_t len, const char *source,
	       const char *commit, char *err, size_t errlen);

/* Whole file, NUL-terminated, malloc'd; NULL with one line in err. */
char *fb_hist_read(const char *path, size_t *len, char *err, size_t errlen);

/* Identity of a results buffer as fb_hdb_add() keys it; 0 or -1 with err. */
int fb_hdb_ident(const char *buf, size_t len, struct fb_hround *r, char *err, size_t errlen);
/* 1 if a round with that identity is stored, 0 if not, -1 on error. */
int fb_hdb_has(struct fb_hdb *db, const struct fb_hround *r);

#endif /* FB_HISTORY_DB_H */
