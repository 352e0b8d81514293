/* SPDX-License-Identifier: GPL-2.0 */
/*
 * history.h - the run history: one SQLite file of rounds and their
 * metrics (history_db.c), the series and change points read from it, and
 * `foliobench history` (history.c, history_report.c, history_gate.c).
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
 * parameters, ordered by start time.  Metric names are compare's
 * ("func:nft_trans_alloc:p50", "workload:nft:wall").
 */
#ifndef FB_HISTORY_H
#define FB_HISTORY_H

#include <stddef.h>
#include <stdio.h>

#include "analysis/history/changepoint.h"
#include "model/fb.h"

#define FB_HDB_VERSION		3
#define FB_HDB_BUSY_MS		30000	/* how long a writer waits for another */
#define FB_HDB_APP_ID		0x46424853	/* "FBHS" */
#define FB_HDB_DEFAULT		"results/history.db"

struct fb_hdb;

/*
 * Opens a history DB.  Read-only (rw 0): the file must exist.  For adding
 * (rw 1): a missing or empty file is created at FB_HDB_VERSION, in WAL
 * mode.  An older schema is migrated in one transaction either way.
 * Before anything is written the file is opened read-only and checked
 * (SQLite header, application_id, schema version, quick_check), so a
 * foreign or corrupt file is never touched; a file locked for longer than
 * FB_HDB_BUSY_MS is reported as busy.
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
	char sha256[65], content[65];
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

/* ---- the metrics of one round (history_metrics.c) ---- */

/* Calls emit(metric, unit, value) for each metric compare would show for r. */
void fb_hist_metrics(const struct fb_result *r,
		     void (*emit)(void *ctx, const char *metric, const char *unit, double v),
		     void *ctx);
/* 1 lower is better, 0 higher is better, -1 neither (counts), from the name. */
int fb_hist_metric_direction(const char *metric, const char *unit);
/* "sysfs.devices=100 nft.x=1": r's params joined, sorted */
void fb_hist_params(const struct fb_result *r, char *buf, size_t len);

/* The metrics `history report` and `gate --history` look at by default. */
extern const char *const fb_hist_default_globs[];
extern const int fb_hist_ndefault_globs;

/* ---- change points of a series (history_report.c) ---- */

#define FB_HIST_MAX_CPS	32
#define FB_HIST_KTOL	3	/* rounds: a change point "at" a kernel change */

/* Change points of s (values in time order) into cp; count or -1. */
int fb_hist_detect(const struct fb_hseries *s, const struct fb_cp_opts *o, struct fb_cp *cp,
		   int max);
/* "step at #12 (2026-..): 1200 -> 1350 ns, +12.5% [CI ..], p 0.005; build a -> build b" */
void fb_hist_cp_line(const struct fb_hseries *s, const struct fb_cp *c, char *buf, size_t len);

/*
 * Kernel changes in s (a point whose build id differs from the previous
 * one's), how many of them have a change point within tol rounds, and how
 * many change points lie within tol rounds of one.
 */
struct fb_hist_kstat {
	int changes, found, cps_at;
};
void fb_hist_kernel_steps(const struct fb_hseries *s, const struct fb_cp *cp, int ncp, int tol,
			  struct fb_hist_kstat *k);

/*
 * `history report`: out/history.md and out/history.html for the series
 * matching globs (default fb_hist_default_globs) with 3 rounds or more.
 * Returns 0 or 1 (message printed).
 */
int fb_hist_report(struct fb_hdb *db, const char *dbpath, const char *out,
		   const char *const *globs, int nglobs, const char *arm,
		   const struct fb_cp_opts *o);

/*
 * `gate --history DB`: the rounds of arm (NULL: "patched") in ab_dir
 * appended to their series in db (rounds already stored are not counted
 * twice); fails when a change point starts at one of the new rounds and
 * makes the metric worse with a CI that excludes 0, unless the reference
 * arm (NULL: "baseline"; "": none) in ab_dir steps the same way at the same
 * rounds: then the host changed, not the kernel.  Prints one line to f.
 * Returns 0 pass, 1 regressing step, 2 bad input (one line on stderr), 3
 * unknown: no series could be checked (none in the history, or none with
 * a new value and --min-size rounds of history); never 0 on none checked.
 */
int fb_history_gate(const char *db, const char *ab_dir, const char *arm, const char *ref_arm,
		    const struct fb_cp_opts *o, FILE *f);
/* The same, with only the newest `last` rounds of each series as history (0: all). */
int fb_history_gate_last(const char *db, const char *ab_dir, const char *arm,
			 const char *ref_arm, int last, int by_added, const struct fb_cp_opts *o,
			 FILE *f);

int cmd_history(int argc, char **argv);

#endif /* FB_HISTORY_H */
