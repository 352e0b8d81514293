// SPDX-License-Identifier: GPL-2.0
/*
 * history_add.c - `foliobench history add` (history_add.h).
 *
 * The files are found before the DB is opened, so a bad operand is refused
 * (exit 2) before any work and no lock is held during the walk.  The walk
 * uses lstat() and never follows a symlink below an operand (a link to
 * `.` would make it endless, a link out of the tree would import rounds
 * from elsewhere): each link is skipped with a note.  It stops with an
 * error past FB_HADD_MAX_DEPTH levels or FB_HADD_MAX_FILES files, and a
 * FIFO, socket or device named *.json is refused without being opened
 * (compare's rule, model/rounds.c).  Operands themselves may be links.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/history/history_add.h"
#include "analysis/history/history_db.h"
#include "util/infile.h"
#include "util/util.h"

struct walk {
	char **v;
	int n, cap, links;
	char err[1200];
};

static int is_round_name(const char *nm)
{
	size_t l = strlen(nm);

	return l > 5 && !strcmp(nm + l - 5, ".json") && strcmp(nm, "ab.json");
}

static int push(struct walk *w, const char *path)
{
	if (w->n >= FB_HADD_MAX_FILES) {
		snprintf(w->err, sizeof(w->err), "history add: more than %d results files in one add"
			 " (add the directories one by one)", FB_HADD_MAX_FILES);
		return -1;
	}
	if (w->n == w->cap) {
		int cap = w->cap ? 2 * w->cap : 256;
		char **v = realloc(w->v, sizeof(*v) * (size_t)cap);

		if (!v) {
			snprintf(w->err, sizeof(w->err), "history add: out of memory");
			return -1;
		}
		w->v = v;
		w->cap = cap;
	}
	if (!(w->v[w->n] = strdup(path))) {
		snprintf(w->err, sizeof(w->err), "history add: out of memory");
		return -1;
	}
	w->n++;
	return 0;
}

static int cmp_name(const void *x, const void *y)
{
	return strcmp((*(struct dirent *const *)x)->d_name, (*(struct dirent *const *)y)->d_name);
}

static int walk_dir(struct walk *w, const char *dir, int depth);

/* One entry below an operand, examined with lstat(): never followed if a link. */
static int walk_entry(struct walk *w, const char *path, const char *nm, int depth)
{
	struct stat sb;

	if (lstat(path, &sb)) {
		snprintf(w->err, sizeof(w->err), "%s: %s", path, strerror(errno));
		return -1;
	}
	if (S_ISLNK(sb.st_mode)) {
		fb_info("history add: skipped %s: a symlink, not followed", path);
		w->links++;
		return 0;
	}
	if (S_ISDIR(sb.st_mode))
		return walk_dir(w, path, depth + 1);
	if (!is_round_name(nm))
		return 0;	/* console logs, notes: not rounds */
	if (!S_ISREG(sb.st_mode)) {
		snprintf(w->err, sizeof(w->err), "%s: %s, not a results file", path,
			 fb_file_type(sb.st_mode));
		return -1;
	}
	return push(w, path);
}

/* Every *.json below dir except ab.json, sorted, recursively. */
static int walk_dir(struct walk *w, const char *dir, int depth)
{
	struct dirent **ents = NULL;
	int n, rc = 0;

	if (depth > FB_HADD_MAX_DEPTH) {
		snprintf(w->err, sizeof(w->err), "%s: more than %d directory levels below the operand",
			 dir, FB_HADD_MAX_DEPTH);
		return -1;
	}
	n = scandir(dir, &ents, NULL, NULL);
	if (n < 0) {
		snprintf(w->err, sizeof(w->err), "%s: cannot read directory: %s", dir,
			 strerror(errno));
		return -1;
	}
	qsort(ents, (size_t)n, sizeof(*ents), cmp_name);
	for (int i = 0; i < n && !rc && !fb_stop; i++) {
		const char *nm = ents[i]->d_name;
		char path[1024];

		if (nm[0] == '.')
			continue;
		if (fb_fmt(path, sizeof(path), "%s/%s", dir, nm) >= (int)sizeof(path)) {
			snprintf(w->err, sizeof(w->err), "%.200s/%.200s: path too long", dir, nm);
			rc = -1;
		} else {
			rc = walk_entry(w, path, nm, depth);
		}
	}
	for (int i = 0; i < n; i++)
		free(ents[i]);
	free(ents);
	return rc;
}

/* The operands' files into w: 0, or -1 with w->err. */
static int walk(struct walk *w, int nops, char **ops)
{
	for (int i = 0; i < nops && !fb_stop; i++) {
		struct stat sb;

		if (stat(ops[i], &sb)) {	/* an operand may be a link: the user named it */
			snprintf(w->err, sizeof(w->err), "%s: %s", ops[i], strerror(errno));
			return -1;
		}
		if (S_ISDIR(sb.st_mode)) {
			if (walk_dir(w, ops[i], 0))
				return -1;
		} else if (!S_ISREG(sb.st_mode)) {
			snprintf(w->err, sizeof(w->err), "%s: %s, not a results file", ops[i],
				 fb_file_type(sb.st_mode));
			return -1;
		} else if (push(w, ops[i])) {
			return -1;
		}
	}
	return 0;
}

struct add_state {
	struct fb_hdb *db;
	const char *commit;
	int added, dup, files;
	char err[512];
};

static int add_file(struct add_state *a, const char *path)
{
	size_t len;
	char *buf = fb_hist_read(path, &len, a->err, sizeof(a->err));
	int rc;

	if (!buf)
		return -1;
	rc = fb_hdb_add(a->db, buf, len, path, a->commit, a->err, sizeof(a->err));
	free(buf);
	if (rc < 0)
		return -1;
	a->files++;
	if (rc)
		a->added++;
	else
		a->dup++;
	if (a->files % 250 == 0)
		fb_info("history: %d files read", a->files);
	return 0;
}

/*
 * Test hook (tests/host/history-test.sh, docs/history.md): FB_HISTORY_TEST_HOLD=S
 * keeps the add's transaction open S seconds before the commit, so a test
 * can kill a writer inside it.  Ctrl-C or SIGTERM end the wait.
 */
static void hold_for_test(void)
{
	const char *v = getenv("FB_HISTORY_TEST_HOLD");
	uint64_t s;

	if (!v || fb_parse_u64(v, &s) || !s || s > 3600)
		return;
	fb_info("history add: holding the transaction %llu s (FB_HISTORY_TEST_HOLD)",
		(unsigned long long)s);
	for (uint64_t i = 0; i < 10 * s && !fb_stop; i++)
		usleep(100000);
}

/*
 * One attempt: open (the transaction begun), add every file, commit,
 * publish.  The exit code, or -1: another writer created the DB meanwhile,
 * try again in it.
 */
static int add_once(struct add_state *a, const char *db, char **files, int n)
{
	int rc = fb_hdb_open(&a->db, db, 1, a->err, sizeof(a->err));

	a->added = a->dup = a->files = 0;
	if (rc) {
		fb_err("%s", a->err);
		return rc == FB_HDB_FAIL ? 1 : 2;	/* busy or a disk error: 1 (docs/history.md) */
	}
	for (int i = 0; i < n && !rc && !fb_stop; i++)
		rc = add_file(a, files[i]);
	hold_for_test();
	if (rc || fb_stop || fb_hdb_commit(a->db)) {
		fb_hdb_rollback(a->db);
		fb_hdb_close(a->db);
		fb_err("%s", rc ? a->err : fb_stop ? "history add: interrupted, nothing added" :
		       "history add: commit failed, nothing added");
		return rc ? 2 : 1;
	}
	rc = fb_hdb_publish(a->db, a->err, sizeof(a->err));
	fb_hdb_close(a->db);
	if (rc < 0)
		fb_err("%s", a->err);
	return rc > 0 ? -1 : rc < 0 ? 1 : 0;
}

int fb_history_add(const char *db, const char *commit, int nops, char **ops)
{
	struct add_state a = { .commit = commit ? commit : "" };
	struct walk w = { 0 };
	int rc = 2;

	if (nops < 1) {
		fb_err("history add: which directories or files? (foliobench history --help)");
		return 2;
	}
	if (strlen(a.commit) >= sizeof(((struct fb_hround *)0)->commit)) {	/* never cut */
		fb_err("history add: --commit is longer than %zu characters",
		       sizeof(((struct fb_hround *)0)->commit) - 1);
		return 2;
	}
	if (walk(&w, nops, ops) || fb_stop) {
		fb_err("%s", fb_stop ? "history add: interrupted, nothing added" : w.err);
		goto out;
	}
	for (int tries = 0; tries < 3 && (rc = add_once(&a, db, w.v, w.n)) < 0; tries++)
		;
	if (rc < 0) {
		fb_err("%s: history add: the DB was created by another writer and could not be"
		       " added to", db);
		rc = 1;
	} else if (!rc) {
		printf("history: %d rounds added, %d already stored (%s)%s\n", a.added, a.dup, db,
		       w.links ? "; symlinks below the operands skipped" : "");
	}
out:
	for (int i = 0; i < w.n; i++)
		free(w.v[i]);
	free(w.v);
	return rc;
}
