/* SPDX-License-Identifier: GPL-2.0 */
/*
 * history_store.h - inside the history store: the handle and the helpers
 * history_open.c (opening), history_db.c (writing, schema) and
 * history_series.c (reading) share.
 * Not for use outside analysis/history/.
 */
#ifndef FB_HISTORY_STORE_H
#define FB_HISTORY_STORE_H

#include <stddef.h>

#include <sqlite3.h>

struct fb_hdb {
	sqlite3 *db;
	char path[512];
	int last;		/* series keep their newest `last` rounds; 0: all */
	int by_added;		/* series in the order rounds were added, not by start */
	char tmp[540];		/* a new DB built here until fb_hdb_publish(); "" none */
};

/* history_db.c: the schema at FB_HDB_VERSION into a blank db, or from version `from`. */
int fb_hdb_create(sqlite3 *db, char *err, size_t errlen);
int fb_hdb_migrate(sqlite3 *db, long long from, char *err, size_t errlen);

/* Column i of the current row as text into buf ("" for NULL). */
void fb_hdb_col(sqlite3_stmt *st, int i, char *buf, size_t len);

#endif /* FB_HISTORY_STORE_H */
