// SPDX-License-Identifier: GPL-2.0
/*
 * history_open.c - opening the history DB (history_db.h): what the path
 * is, whose file it is, and where a new one is built.
 *
 * Before SQLite sees the path: it must be a regular file or not exist; a
 * device, FIFO, socket or directory is refused without being opened, so
 * nothing is written to it or next to it (no -journal, -wal, -shm).  An
 * existing file is then opened read-only and checked: our application_id
 * and schema, or else blank, no schema object at all (another program's
 * database, application_id 0 but with tables, is foreign and untouched).
 * Only a missing or blank file becomes a DB.
 *
 * A missing file is built as PATH.new-XXXXXX, the add's rounds committed
 * in it, and renamed to PATH only then (fb_hdb_publish(), never over a
 * file another writer made meanwhile): a failed or interrupted add leaves
 * no file, not even the schema.  An existing file is written in place in
 * one BEGIN IMMEDIATE transaction that creates or migrates the schema and
 * adds the rounds, so a failed add leaves it as it was.
 *
 * A DB where nothing can be written (a read-only mount or directory) is
 * still read: SQLite cannot make the -shm a WAL reader needs there, so the
 * file is opened immutable, as long as no -wal beside it holds changes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "analysis/history/history_db.h"
#include "analysis/history/history_store.h"
#include "util/infile.h"
#include "util/util.h"

static int busy(int rc)
{
	rc &= 0xff;
	return rc == SQLITE_BUSY || rc == SQLITE_LOCKED;
}

/* One integer from a pragma or query: SQLITE_ROW, or the error code. */
static int query_int(sqlite3 *db, const char *sql, long long *v)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);

	if (rc == SQLITE_OK) {
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW)
			*v = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	return rc == SQLITE_OK ? sqlite3_errcode(db) : rc;
}

/*
 * Why an existing file could not be read: busy (a lock not given up in
 * time) or a disk error, FB_HDB_FAIL; else not ours, -1.
 */
static int say_unreadable(const char *path, int rc, char *err, size_t errlen)
{
	int code = rc & 0xff;

	if (busy(rc)) {
		snprintf(err, errlen, "%s: history DB busy: locked by another writer for more than"
			 " %d s (%s)", path, FB_HDB_BUSY_MS / 1000, sqlite3_errstr(rc));
		return FB_HDB_FAIL;
	}
	if (code == SQLITE_IOERR || code == SQLITE_FULL || code == SQLITE_NOMEM) {
		snprintf(err, errlen, "%s: history DB: %s", path, sqlite3_errstr(rc));
		return FB_HDB_FAIL;
	}
	snprintf(err, errlen, "%s: not a foliobench history DB (%s)", path, sqlite3_errstr(rc));
	return -1;
}

/* application_id, user_version, our tables and all schema objects, read with db's locks */
struct dbid {
	long long app, version, ntables, nobjects;
};

static int read_id(sqlite3 *db, struct dbid *id)
{
	int rc;

	memset(id, 0, sizeof(*id));
	rc = query_int(db, "PRAGMA application_id", &id->app);
	if (rc == SQLITE_ROW)
		rc = query_int(db, "PRAGMA user_version", &id->version);
	if (rc == SQLITE_ROW)
		rc = query_int(db, "SELECT count(*) FROM sqlite_schema WHERE type = 'table'"
			       " AND name IN ('rounds', 'samples')", &id->ntables);
	if (rc == SQLITE_ROW)
		rc = query_int(db, "SELECT count(*) FROM sqlite_schema", &id->nobjects);
	return rc;
}

/*
 * A database nobody has put anything in yet (a creator may be at it): ours
 * to create.  Tables without our id are another program's.
 */
static int is_blank(const struct dbid *id)
{
	return !id->app && !id->version && !id->nobjects;
}

/* Our id and a schema this foliobench reads: 0, or -1 with err. */
static int check_id(const char *path, const struct dbid *id, char *err, size_t errlen)
{
	if (id->app != FB_HDB_APP_ID) {
		snprintf(err, errlen, "%s: not a foliobench history DB (application_id 0x%llx, "
			 "%lld schema objects: another program's database, left untouched)",
			 path, id->app, id->nobjects);
		return -1;
	}
	if (id->version < 1 || id->version > FB_HDB_VERSION) {
		snprintf(err, errlen, "%s: history schema version %lld, this foliobench reads"
			 " 1..%d", path, id->version, FB_HDB_VERSION);
		return -1;
	}
	if (id->ntables != 2) {
		snprintf(err, errlen, "%s: corrupt history DB (tables missing)", path);
		return -1;
	}
	return 0;
}

static int quick_check(sqlite3 *db, const char *path, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	const char *t;
	int rc = sqlite3_prepare_v2(db, "PRAGMA quick_check(1)", -1, &st, NULL), ret = -1;

	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	t = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
	if (t && !strcmp(t, "ok")) {
		sqlite3_finalize(st);
		return 0;
	}
	if (busy(rc))
		ret = say_unreadable(path, rc, err, errlen);
	else
		snprintf(err, errlen, "%s: corrupt history DB (quick_check: %s)", path,
			 t ? t : sqlite3_errmsg(db));
	for (char *c = err; *c; c++)	/* its report spans lines */
		if (*c == '\n' || *c == '\r')
			*c = ' ';
	sqlite3_finalize(st);
	return ret;
}

/* 1 if nothing can be created in path's directory (read-only mount or directory) */
static int dir_readonly(const char *path)
{
	const char *slash = strrchr(path, '/');
	char dir[600];

	if (!slash)
		return access(".", W_OK) != 0;
	snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
	return access(dir, W_OK) != 0;
}

/* 1 if path's -wal holds changes (is there and not empty) */
static int wal_pending(const char *path)
{
	char wal[600];
	struct stat sb;

	snprintf(wal, sizeof(wal), "%s-wal", path);
	return !stat(wal, &sb) && sb.st_size > 0;
}

/* Opens path read-only; immutable: as a URI with immutable=1 (no -shm, no locks). */
static int open_ro(const char *path, int immutable, sqlite3 **db)
{
	static const char keep[] = "/._-";
	char uri[2048];
	size_t n;

	if (!immutable)
		return sqlite3_open_v2(path, db, SQLITE_OPEN_READONLY, NULL);
	n = (size_t)snprintf(uri, sizeof(uri), "file:");
	for (const unsigned char *c = (const unsigned char *)path; *c && n + 4 < sizeof(uri); c++)
		if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		    (*c >= '0' && *c <= '9') || strchr(keep, *c))
			uri[n++] = (char)*c;
		else
			n += (size_t)snprintf(uri + n, sizeof(uri) - n, "%%%02X", *c);
	snprintf(uri + n, sizeof(uri) - n, "?immutable=1");
	return sqlite3_open_v2(uri, db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
}

/*
 * The read-only checks every open of an existing file starts with: 0 with
 * *version (0: blank, a creator has not committed yet) and *immutable (the
 * file could only be read as immutable), or -1 / FB_HDB_FAIL with err if
 * the file is not ours, not sound or locked.
 */
static int check_file(const char *path, long long *version, int *immutable, char *err,
		      size_t errlen)
{
	sqlite3 *db = NULL;
	struct dbid id;
	int ret = -1, rc;

	for (*immutable = 0;; *immutable = 1) {
		if (open_ro(path, *immutable, &db) != SQLITE_OK) {
			snprintf(err, errlen, "%s: cannot open: %s", path,
				 db ? sqlite3_errmsg(db) : "no memory");
			goto out;
		}
		sqlite3_busy_timeout(db, FB_HDB_BUSY_MS);
		/*
		 * One read transaction: the id's reads see one snapshot.  Each in
		 * its own would let a creator commit between them, and a new file
		 * would read as application_id 0 with our tables: "not ours".
		 * sqlite3_close() ends it.
		 */
		rc = sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
		if (rc == SQLITE_OK)
			rc = read_id(db, &id);
		if (rc == SQLITE_ROW)
			break;
		/* a WAL file where no -shm can be made: read as immutable */
		if (*immutable || (rc & 0xff) != SQLITE_CANTOPEN || !dir_readonly(path)) {
			ret = say_unreadable(path, rc, err, errlen);
			goto out;
		}
		if (wal_pending(path)) {
			snprintf(err, errlen, "%s: in a read-only place, and its -wal holds changes not"
				 " yet in the file: open it once where it can be written", path);
			goto out;
		}
		sqlite3_close(db);
		db = NULL;
	}
	*version = id.version;
	if (is_blank(&id))
		ret = 0;
	else if (!check_id(path, &id, err, errlen))
		ret = quick_check(db, path, err, errlen);
out:
	sqlite3_close(db);
	return ret;
}

/* Creates or migrates, as the file is found inside the write transaction. */
static int setup_locked(sqlite3 *db, const char *path, char *err, size_t errlen)
{
	struct dbid id;
	int rc = read_id(db, &id);

	if (rc != SQLITE_ROW)
		return say_unreadable(path, rc, err, errlen);
	if (is_blank(&id))
		return fb_hdb_create(db, err, errlen);
	if (check_id(path, &id, err, errlen))
		return -1;
	return id.version == FB_HDB_VERSION ? 0 : fb_hdb_migrate(db, id.version, err, errlen);
}

/*
 * The write transaction (BEGIN IMMEDIATE) with the schema created or
 * migrated in it; committed if commit, else left open for the add.  wal:
 * WAL mode first (kept in the file).  0, FB_HDB_FAIL or -1 with err.
 */
static int setup(sqlite3 *db, const char *path, int wal, int commit, char *err, size_t errlen)
{
	int rc;

	/* best effort: a writer that loses the race finds WAL set by the winner */
	if (wal)
		sqlite3_exec(db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL);
	rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return say_unreadable(path, rc, err, errlen);
	rc = setup_locked(db, path, err, errlen);
	if (!rc && commit && sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		rc = -1;
	if (rc) {
		int code = sqlite3_errcode(db) & 0xff;

		if (!err[0])
			snprintf(err, errlen, "%s: history DB: %s", path, sqlite3_errmsg(db));
		if (code == SQLITE_IOERR || code == SQLITE_FULL)
			rc = FB_HDB_FAIL;	/* the disk's failure, not bad input */
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	}
	return rc;
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

/*
 * What path is: 0 with *state 0 missing, 1 empty, 2 has content; -1 with
 * err if it is not a regular file (nothing opened).
 */
static int stat_db(const char *path, int *state, char *err, size_t errlen)
{
	struct stat sb;

	if (stat(path, &sb)) {
		if (errno != ENOENT || !lstat(path, &sb)) {	/* a dangling link is not "new" */
			snprintf(err, errlen, "%s: %s", path, errno != ENOENT ? strerror(errno) :
				 "a symlink to nothing, not a history DB file");
			return -1;
		}
		*state = 0;
		return 0;
	}
	if (!S_ISREG(sb.st_mode)) {
		snprintf(err, errlen, "%s: %s, not a history DB file (a regular file or a new path)",
			 path, fb_file_type(sb.st_mode));
		return -1;
	}
	/* a WAL file's first commits may be only in its -wal */
	*state = sb.st_size || wal_pending(path) ? 2 : 1;
	return 0;
}

/* Removes a DB file and what SQLite keeps beside it. */
static void unlink_db(const char *path)
{
	static const char *const sfx[] = { "", "-journal", "-wal", "-shm" };
	char p[600];

	for (size_t i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
		snprintf(p, sizeof(p), "%s%s", path, sfx[i]);
		unlink(p);
	}
}

/* h->tmp: a new empty file beside h->path to build the DB in; 0 or -1 with err. */
static int make_temp(struct fb_hdb *h, char *err, size_t errlen)
{
	mode_t um = umask(0);
	int fd;

	umask(um);
	if (make_parent(h->path) ||
	    snprintf(h->tmp, sizeof(h->tmp), "%s.new-XXXXXX", h->path) >= (int)sizeof(h->tmp) ||
	    (fd = mkostemp(h->tmp, O_CLOEXEC)) < 0) {
		snprintf(err, errlen, "%s: cannot create: %s", h->path, strerror(errno));
		h->tmp[0] = '\0';
		return -1;
	}
	fchmod(fd, 0666 & ~um);		/* as SQLite would have made it */
	close(fd);
	return 0;
}

static int open_rw(struct fb_hdb *h, int state, char *err, size_t errlen)
{
	const char *file = h->path;

	if (!state) {
		if (make_temp(h, err, errlen))
			return -1;
		file = h->tmp;
	}
	/* no SQLITE_OPEN_CREATE: a file gone since the checks is not made again */
	if (sqlite3_open_v2(file, &h->db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: %s", h->path, sqlite3_errmsg(h->db));
		return -1;
	}
	sqlite3_busy_timeout(h->db, FB_HDB_BUSY_MS);
	/* the temp stays in rollback mode until published: nothing of it in a -wal */
	return setup(h->db, h->path, state != 0, 0, err, errlen);
}

int fb_hdb_open(struct fb_hdb **out, const char *path, int rw, char *err, size_t errlen)
{
	struct fb_hdb *h;
	long long version = 0;
	int state, immutable = 0, rc;

	*out = NULL;
	err[0] = '\0';
	if (stat_db(path, &state, err, errlen))
		return -1;
	if (state == 2 && (rc = check_file(path, &version, &immutable, err, errlen)))
		return rc;
	if (!rw && (!state || !version)) {	/* blank: a creator has not committed yet */
		snprintf(err, errlen, "%s: no history DB here (history add creates it)", path);
		return -1;
	}
	h = calloc(1, sizeof(*h));
	if (!h) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	snprintf(h->path, sizeof(h->path), "%s", path);
	if (rw)
		rc = open_rw(h, state, err, errlen);
	else if (version < FB_HDB_VERSION)	/* even a reader migrates an older schema first */
		rc = sqlite3_open_v2(path, &h->db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK ? -1 :
		     setup(h->db, path, 1, 1, err, errlen);
	else
		rc = open_ro(path, immutable, &h->db) != SQLITE_OK ? -1 : 0;
	if (rc && !err[0])
		snprintf(err, errlen, "%s: %s", path, h->db ? sqlite3_errmsg(h->db) : "no memory");
	if (rc) {
		fb_hdb_close(h);
		return rc;
	}
	sqlite3_busy_timeout(h->db, FB_HDB_BUSY_MS);
	*out = h;
	return 0;
}

int fb_hdb_publish(struct fb_hdb *h, char *err, size_t errlen)
{
	int rc;

	if (!h->tmp[0])
		return 0;
	/* WAL from now on (kept in the file); the close then leaves no -wal behind */
	rc = sqlite3_exec(h->db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_close(h->db);
	if (rc == SQLITE_OK)
		h->db = NULL;
	if (rc != SQLITE_OK || wal_pending(h->tmp)) {
		snprintf(err, errlen, "%s: cannot finish the new DB (%s)", h->path,
			 sqlite3_errstr(rc));
		return -1;
	}
	if (renameat2(AT_FDCWD, h->tmp, AT_FDCWD, h->path, RENAME_NOREPLACE) &&
	    (errno != EINVAL || link(h->tmp, h->path))) {
		if (errno == EEXIST)
			return 1;	/* another writer made it meanwhile: close drops ours */
		snprintf(err, errlen, "%s: cannot create: %s", h->path, strerror(errno));
		return -1;
	}
	unlink_db(h->tmp);	/* after link(); after a rename only its -shm, if any */
	h->tmp[0] = '\0';
	return 0;
}

void fb_hdb_close(struct fb_hdb *h)
{
	if (!h)
		return;
	sqlite3_close(h->db);
	if (h->tmp[0])		/* never published: no DB, no schema left behind */
		unlink_db(h->tmp);
	free(h);
}
