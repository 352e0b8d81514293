// SPDX-License-Identifier: GPL-2.0
/*
 * test_history.c - `foliobench history` and its SQLite store on synthetic
 * rounds (history_fixture.h): idempotent import, queries and export, bad
 * input (corrupt DB, truncated DB, foreign SQLite DB, text file: exit 2,
 * one line on stderr, the file byte for byte untouched), the history gate,
 * round identity, one series per probe method, and the order of rounds
 * that started in the same second.  Older schemas: test_history_migrate.c.
 * Numbers are synthetic: they test the code, not a kernel.
 */
#include <sqlite3.h>

#include "history_fixture.h"

static void test_import(const char *db)
{
	char ab[256], copy[256], src[512], dst[512];
	int rc, l;

	fb_fmt(ab, sizeof(ab), "%s/ab1", tmp);
	write_rounds(ab, "baseline", 0, 12, 1000);
	write_rounds(ab, "patched", 0, 12, 1000);
	fb_fmt(src, sizeof(src), "%s/ab.json", ab);
	fb_write_file(src, "{\"schema\": \"foliobench-ab\", \"schema_version\": 1}\n");
	rc = run(&l, "add", "--db", db, ab, NULL);
	CHECKF(rc == 0 && nrounds(db) == 24, "add an ab directory: 24 rounds (rc %d, %d stored)",
	       rc, nrounds(db));
	rc = run(&l, "add", "--db", db, ab, NULL);
	CHECKF(rc == 0 && nrounds(db) == 24, "adding it again stores nothing new (%d)",
	       nrounds(db));
	/* the same round under another path is the same round */
	fb_fmt(copy, sizeof(copy), "%s/copy", tmp);
	fb_mkdir_p(copy);
	fb_fmt(src, sizeof(src), "%s/patched/round-3.json", ab);
	fb_fmt(dst, sizeof(dst), "%s/elsewhere.json", copy);
	{
		size_t len;
		char *b = slurp(src, &len);
		FILE *f = fopen(dst, "w");

		if (b && f)
			fwrite(b, 1, len, f);
		if (f)
			fclose(f);
		free(b);
	}
	rc = run(&l, "add", "--db", db, dst, NULL);
	CHECKF(rc == 0 && nrounds(db) == 24,
	       "a copy of a stored round elsewhere is not stored again");
	write_round(dst, "patched", 500, 1000, NULL);	/* another round, same path */
	rc = run(&l, "add", "--db", db, "--commit", "abc123", dst, NULL);
	CHECKF(rc == 0 && nrounds(db) == 25, "a new round at a known path is added (%d)",
	       nrounds(db));
	fb_write_file(dst, "{\"schema\": \"something-else\"}\n");
	rc = run(&l, "add", "--db", db, ab, dst, NULL);
	CHECKF(rc == 2 && l == 1 && nrounds(db) == 25,
	       "a foreign JSON file: exit 2, one line, nothing added (rc %d, %d lines)", rc, l);
	rc = run(&l, "add", "--db", db, "/nonexistent/x", NULL);
	CHECKF(rc == 2 && l == 1, "a missing path: exit 2, one line");
}

static void test_queries(const char *db)
{
	struct fb_hseries *s;
	struct fb_hdb *h;
	const char *g[] = { "func:nft_trans_alloc:p50" };
	char err[256];
	int n = -1, l;

	if (!fb_hdb_open(&h, db, 0, err, sizeof(err))) {
		n = fb_hdb_series(h, g, 1, NULL, &s, err, sizeof(err));
		CHECKF(n == 2 && !strcmp(s[0].arm, "baseline") && s[0].n == 12 && s[1].n == 13 &&
		       !strcmp(s[0].unit, "ns") && s[0].lower_is_better == 1,
		       "one p50 series per arm, points by time, unit ns (%d series)", n);
		for (int i = 1; n == 2 && i < s[1].n; i++)
			if (strcmp(s[1].p[i - 1].started, s[1].p[i].started) > 0)
				CHECKF(0, "points in time order");
		fb_hseries_free(s, n > 0 ? n : 0);
		fb_hdb_set_last(h, 5);
		n = fb_hdb_series(h, g, 1, "patched", &s, err, sizeof(err));
		CHECKF(n == 1 && s[0].n == 5 && !strcmp(s[0].p[4].started, "2026-11-01T08:20:00Z"),
		       "--last 5 keeps the newest 5 rounds of a series");
		fb_hseries_free(s, n > 0 ? n : 0);
		fb_hdb_close(h);
	}
	CHECKF(run(&l, "list", "--db", db, NULL) == 0, "list");
	CHECKF(run(&l, "list", "--series", "--db", db, NULL) == 0, "list --series");
	CHECKF(run(&l, "show", "--db", db, "func:*:p50", NULL) == 0, "show a glob");
	CHECKF(run(&l, "show", "--db", db, "func:nope:p50", NULL) == 2 && l == 1,
	       "show an unknown metric: exit 2, one line");
	CHECKF(run(&l, "show", "--db", db, NULL) == 2 && l == 1, "show without a metric: exit 2");
	CHECKF(run(&l, "export", "--db", db, "--format", "csv", NULL) == 0, "export csv");
	CHECKF(run(&l, "export", "--db", db, "--format", "bmf", NULL) == 0, "export bmf");
	CHECKF(run(&l, "export", "--db", db, "--format", "xml", NULL) == 2 && l == 1,
	       "export --format xml: exit 2, one line");
	CHECKF(run(&l, "list", "--db", db, "--bogus", NULL) == 2 && l == 1,
	       "a bad option: exit 2, one line");
	CHECKF(run(&l, "frobnicate", NULL) == 2 && l == 1, "an unknown subcommand: exit 2");
	CHECKF(run(&l, "--help", NULL) == 0, "--help exits 0");
}
static int copy_bytes(const char *from, const char *to, size_t keep, size_t at, size_t n, int c)
{
	size_t len;
	char *b = slurp(from, &len);
	FILE *f = b ? fopen(to, "w") : NULL;

	if (!f) {
		free(b);
		return -1;
	}
	if (keep > len)
		keep = len;
	for (size_t i = at; i < at + n && i < keep; i++)
		b[i] = (char)c;
	fwrite(b, 1, keep, f);
	free(b);
	return fclose(f);
}

/* Every command on a bad file: exit 2, one line, the file byte for byte as it was. */
static void check_refused(const char *what, const char *db, const char *rounds)
{
	size_t l0, l1;
	char *before = slurp(db, &l0), *after, j[300];
	int rc1, rc2, rc3, n1, n2, n3;
	struct stat sb;

	rc1 = run(&n1, "list", "--db", db, NULL);
	rc2 = run(&n2, "add", "--db", db, rounds, NULL);
	rc3 = run(&n3, "report", "--db", db, "--out", tmp, NULL);
	after = slurp(db, &l1);
	fb_fmt(j, sizeof(j), "%s-journal", db);
	CHECKF(rc1 == 2 && rc2 == 2 && rc3 == 2 && n1 == 1 && n2 == 1 && n3 == 1,
	       "%s: list, add and report exit 2 with one line (rc %d %d %d)", what, rc1, rc2, rc3);
	CHECKF(before && after && l0 == l1 && !memcmp(before, after, l0) && stat(j, &sb),
	       "%s: the file is untouched and no journal is left", what);
	free(before);
	free(after);
}

static void test_bad_files(const char *good)
{
	char db[256], rounds[256], sql[64];
	sqlite3 *h;
	struct stat sb;

	fb_fmt(rounds, sizeof(rounds), "%s/ab1", tmp);
	fb_fmt(db, sizeof(db), "%s/bad.db", tmp);
	stat(good, &sb);
	copy_bytes(good, db, (size_t)sb.st_size, 4096, 4096, 0xa5);
	check_refused("a DB with a garbage page", db, rounds);
	copy_bytes(good, db, (size_t)sb.st_size / 2 + 100, 0, 0, 0);
	check_refused("a truncated DB", db, rounds);
	copy_bytes(good, db, (size_t)sb.st_size, 0, 16, 'x');
	check_refused("a DB with a damaged header", db, rounds);
	fb_write_file(db, "this is not a database\n");
	check_refused("a text file", db, rounds);
	unlink(db);
	if (sqlite3_open(db, &h) == SQLITE_OK) {
		sqlite3_exec(h, "CREATE TABLE rounds(x); CREATE TABLE samples(y)", NULL, NULL,
			     NULL);
		sqlite3_close(h);
	}
	check_refused("another program's SQLite DB", db, rounds);
	copy_bytes(good, db, (size_t)sb.st_size, 0, 0, 0);
	fb_fmt(sql, sizeof(sql), "PRAGMA user_version = %d", FB_HDB_VERSION + 1);
	if (sqlite3_open(db, &h) == SQLITE_OK) {
		sqlite3_exec(h, sql, NULL, NULL, NULL);
		sqlite3_close(h);
	}
	check_refused("a DB from a newer foliobench", db, rounds);
}

static void test_gate(void)
{
	char db[256], hist[256], ok[256], bad[256], env[256];
	struct fb_cp_opts o;
	FILE *devnull = fopen("/dev/null", "w");
	int rc, l;

	fb_cp_defaults(&o);
	fb_fmt(db, sizeof(db), "%s/gate.db", tmp);
	fb_fmt(hist, sizeof(hist), "%s/g-hist", tmp);
	fb_fmt(ok, sizeof(ok), "%s/g-ok", tmp);
	fb_fmt(bad, sizeof(bad), "%s/g-bad", tmp);
	write_rounds(hist, "patched", 0, 30, 1000);
	write_rounds(ok, "patched", 100, 110, 1000);
	write_rounds(bad, "patched", 100, 110, 1150);
	run(&l, "add", "--db", db, hist, NULL);
	rc = fb_history_gate(db, ok, NULL, NULL, &o, devnull);
	CHECKF(rc == 0, "history gate: 10 new rounds like the last 30 pass (rc %d)", rc);
	rc = fb_history_gate(db, bad, NULL, NULL, &o, devnull);
	CHECKF(rc == 1, "history gate: 10 new rounds 15%% slower fail (rc %d)", rc);
	run(&l, "add", "--db", db, bad, NULL);
	rc = fb_history_gate(db, bad, NULL, NULL, &o, devnull);
	CHECKF(rc == 1, "history gate: still fails once those rounds are stored (rc %d)", rc);
	/* the host slows both arms: a step in the reference arm too is no regression */
	fb_fmt(env, sizeof(env), "%s/g-env", tmp);
	fb_fmt(db, sizeof(db), "%s/gate-env.db", tmp);
	write_rounds(hist, "baseline", 0, 30, 1000);
	run(&l, "add", "--db", db, hist, NULL);
	write_rounds(env, "patched", 200, 210, 1150);
	write_rounds(env, "baseline", 200, 210, 1150);
	rc = fb_history_gate(db, env, NULL, NULL, &o, devnull);
	CHECKF(rc == 0, "history gate: a step both arms take is the host's: pass (rc %d)", rc);
	rc = fb_history_gate(db, env, NULL, "", &o, devnull);
	CHECKF(rc == 1, "history gate: the same step without a reference arm fails (rc %d)", rc);
	write_rounds(env, "baseline", 200, 210, 1000);
	rc = fb_history_gate(db, env, NULL, NULL, &o, devnull);
	CHECKF(rc == 1, "history gate: a step only the tested arm takes fails (rc %d)", rc);
	rc = run(&l, "gate", "--db", db, "--arm", "nope", ok, NULL);
	CHECKF(rc == 2 && l == 1, "history gate on a missing arm: exit 2, one line (rc %d)", rc);
	if (devnull)
		fclose(devnull);
}

/* Identity is content (compare's copy), not bytes: reformatted equal, other data not. */
static void test_identity(void)
{
	char rf[256], err[256], *buf, *alt;
	struct fb_hround a, b;
	size_t len;
	int rc;

	fb_fmt(rf, sizeof(rf), "%s/ident.json", tmp);
	if (write_round(rf, "patched", 3, 1000, NULL) ||
	    !(buf = fb_hist_read(rf, &len, err, sizeof(err)))) {
		CHECKF(0, "writing a round");
		return;
	}
	alt = malloc(2 * len + 1);
	for (size_t i = 0, k = 0; alt && i <= len; i++) {	/* every newline doubled */
		alt[k++] = buf[i];
		if (buf[i] == '\n')
			alt[k++] = '\n';
	}
	rc = alt && !fb_hdb_ident(buf, len, &a, err, sizeof(err)) &&
	     !fb_hdb_ident(alt, strlen(alt), &b, err, sizeof(err));
	CHECKF(rc && strcmp(a.sha256, b.sha256) && !strcmp(a.content, b.content),
	       "a reformatted copy: other file hash, same content identity (%s)", err);
	if (alt && (buf = realloc(buf, len + 2)) && strstr(buf, "\"wall_ns\":")) {
		char *w = strstr(buf, "\"wall_ns\":") + 10;

		memmove(w + 1, w, strlen(w) + 1);
		*w = '9';
		rc = !fb_hdb_ident(buf, strlen(buf), &b, err, sizeof(err));
		CHECKF(rc && strcmp(a.content, b.content),
		       "the same start and build with another wall time: another identity");
	}
	free(alt);
	free(buf);
}
/*
 * A method change (fentry to fsession, the observer's cost 30% more of the
 * measured window): two series, no step between them, each named with its
 * method wherever the history names a series.
 */
static void test_methods(void)
{
	char db[256], dir[256], name[200], rep[300];
	struct fb_cp cp[FB_HIST_MAX_CPS];
	struct fb_hseries *s;
	struct fb_cp_opts o;
	int n, l, c0 = -1, c1 = -1;

	fb_cp_defaults(&o);
	fb_fmt(db, sizeof(db), "%s/methods.db", tmp);
	fb_fmt(dir, sizeof(dir), "%s/m-hist", tmp);
	write_rounds_m(dir, "patched", 0, 12, 1000, "fentry");
	write_rounds_m(dir, "patched", 12, 24, 1300, "fsession");
	CHECKF(run(&l, "add", "--db", db, dir, NULL) == 0, "add rounds of two methods");
	n = series_of(db, "func:nft_trans_alloc:p50", &s);
	CHECKF(n == 2 && s[0].n == 12 && s[1].n == 12 && !strcmp(s[0].method, "fentry") &&
	       !strcmp(s[1].method, "fsession"),
	       "one metric measured by two methods: two series of 12 rounds (%d series)", n);
	if (n == 2) {
		c0 = fb_hist_detect(&s[0], &o, cp, FB_HIST_MAX_CPS);
		c1 = fb_hist_detect(&s[1], &o, cp, FB_HIST_MAX_CPS);
		fb_hseries_name(&s[1], name, sizeof(name));
	}
	CHECKF(c0 == 0 && c1 == 0, "no change point across the method change (%d, %d)", c0, c1);
	CHECKF(n == 2 && !strcmp(name, "func:nft_trans_alloc:p50 [fsession]"),
	       "a series is named with its method (%s)", n == 2 ? name : "-");
	fb_hseries_free(s, n > 0 ? n : 0);
	n = series_of(db, "workload:nft:wall", &s);
	CHECKF(n == 1 && s[0].n == 24 && !s[0].method[0] &&
	       !strcmp(fb_hseries_name(&s[0], name, sizeof(name)), "workload:nft:wall"),
	       "a workload metric has no method: one series of 24, no brackets (%d series)", n);
	fb_hseries_free(s, n > 0 ? n : 0);
	CHECKF(run(&l, "list", "--series", "--db", db, NULL) == 0 &&
	       out_has("stdout", "func:nft_trans_alloc:p50 [fentry] ") &&
	       out_has("stdout", "func:nft_trans_alloc:p50 [fsession] ") &&
	       out_has("stdout", "workload:nft:wall "), "list --series names both methods");
	CHECKF(run(&l, "show", "--db", db, "func:nft_trans_alloc:p50", NULL) == 0 &&
	       out_has("stdout", "func:nft_trans_alloc:p50 [fsession]  arm patched") &&
	       out_has("stdout", "\n  0 change points"), "show: both series, no change point");
	CHECKF(run(&l, "export", "--db", db, "--metric", "func:nft_trans_alloc:p50", NULL) == 0 &&
	       out_has("stdout", ",value,method\n") && out_has("stdout", ",\"fsession\"\n"),
	       "export csv: the method is the last column");
	CHECKF(run(&l, "export", "--db", db, "--format", "bmf", NULL) == 0 &&
	       out_has("stdout", "\"patched/func:nft_trans_alloc [fsession]\"") &&
	       !out_has("stdout", "[fentry]"),
	       "export bmf: only the current method's series, named with it");
	fb_fmt(rep, sizeof(rep), "%s/m-rep", tmp);
	CHECKF(run(&l, "report", "--db", db, "--out", rep, NULL) == 0 &&
	       out_has("m-rep/history.md", "| `func:nft_trans_alloc:p50` [fsession] | patched |") &&
	       out_has("m-rep/history.html", "</code> [fsession] arm patched") &&
	       out_has("m-rep/history.md", "No change points in"),
	       "report: series named with their method, no change point");
}

/*
 * Rounds that started in the same second (copies of one run with other
 * numbers: the gate's calibration archives) take the same places in a
 * series whatever order they were added in, so two DBs built from the same
 * files report the same change points.
 */
static void test_tie_order(void)
{
	char db[2][256], da[256], dbb[256];
	struct fb_hseries *s[2] = { NULL, NULL };
	int n[2], l, same;

	fb_fmt(da, sizeof(da), "%s/tie-a", tmp);
	fb_fmt(dbb, sizeof(dbb), "%s/tie-b", tmp);
	write_rounds(da, "patched", 0, 6, 1000);
	write_rounds(dbb, "patched", 0, 6, 1300);	/* the same start times */
	for (int k = 0; k < 2; k++) {
		fb_fmt(db[k], sizeof(db[k]), "%s/tie-%d.db", tmp, k);
		CHECKF(run(&l, "add", "--db", db[k], k ? dbb : da, NULL) == 0 &&
		       run(&l, "add", "--db", db[k], k ? da : dbb, NULL) == 0,
		       "tie %d: add both directories, %s first", k, k ? "b" : "a");
		n[k] = series_of(db[k], "func:nft_trans_alloc:p50", &s[k]);
	}
	same = n[0] == 1 && n[1] == 1 && s[0][0].n == 12 && s[1][0].n == 12;
	for (int i = 0; same && i < 12; i++)
		same = s[0][0].p[i].v == s[1][0].p[i].v;
	CHECKF(same, "rounds with equal start times: one order whatever was added first "
	       "(%d, %d series)", n[0], n[1]);
	for (int k = 0; k < 2; k++)
		fb_hseries_free(s[k], n[k] > 0 ? n[k] : 0);
}

/* fb_history_gate() with its line in out (newline dropped); its exit status. */
static int gate_line(const char *db, const char *dir, const struct fb_cp_opts *o, char *out,
		     size_t len)
{
	FILE *f = tmpfile();
	int rc;

	out[0] = '\0';
	if (!f)
		return -1;
	rc = fb_history_gate(db, dir, NULL, NULL, o, f);
	rewind(f);
	if (fgets(out, (int)len, f))
		out[strcspn(out, "\n")] = '\0';
	fclose(f);
	return rc;
}

/* The history gate compares new rounds only with the history of their own method. */
static void test_method_gate(void)
{
	char db[256], hist[256], same[256], other[256], out[1024];
	struct fb_cp_opts o;
	int rc, l;

	fb_cp_defaults(&o);
	fb_fmt(db, sizeof(db), "%s/mgate.db", tmp);
	fb_fmt(hist, sizeof(hist), "%s/mg-hist", tmp);
	fb_fmt(same, sizeof(same), "%s/mg-same", tmp);
	fb_fmt(other, sizeof(other), "%s/mg-other", tmp);
	write_rounds_m(hist, "patched", 0, 30, 1000, "fentry");
	write_rounds_m(same, "patched", 100, 110, 1300, "fentry");
	write_rounds_m(other, "patched", 100, 110, 1300, "fsession");
	run(&l, "add", "--db", db, hist, NULL);
	rc = gate_line(db, same, &o, out, sizeof(out));
	CHECKF(rc == 1 && strstr(out, "FAIL: func:nft_trans_alloc:mean [fentry] (arm patched)"),
	       "history gate: 30%% slower by the same method fails, naming the method (rc %d:"
	       " %s)", rc, out);
	rc = gate_line(db, other, &o, out, sizeof(out));
	CHECKF(rc == 0 && strstr(out, "2 measured by a method new to the history"),
	       "history gate: the same values by a new method are not compared with the old"
	       " method's history (rc %d: %s)", rc, out);
	/* the reference arm's history holds two methods: its new rounds' one is the reference */
	fb_fmt(db, sizeof(db), "%s/mgate-ref.db", tmp);
	write_rounds_m(hist, "baseline", 0, 30, 1000, "fentry");
	write_rounds_m(hist, "baseline", 30, 60, 1000, "fsession");
	run(&l, "add", "--db", db, hist, NULL);
	fb_fmt(other, sizeof(other), "%s/mg-ref", tmp);
	write_rounds_m(other, "patched", 200, 210, 1150, "fentry");
	write_rounds_m(other, "baseline", 200, 210, 1150, "fsession");
	rc = gate_line(db, other, &o, out, sizeof(out));
	CHECKF(rc == 0 && strstr(out, "taken by baseline too"), "history gate: the reference"
	       " arm's step is looked for in the series of its new rounds' method (rc %d: %s)",
	       rc, out);
}

int main(void)
{
	char db[256];

	if (hist_begin("history"))
		return tap_done();
	fb_fmt(db, sizeof(db), "%s/h.db", tmp);
	test_import(db);
	test_queries(db);
	test_bad_files(db);
	test_gate();
	test_identity();
	test_methods();
	test_method_gate();
	test_tie_order();
	return hist_end();
}
