// SPDX-License-Identifier: GPL-2.0
/*
 * runs.c - what went wrong in the runs behind a side's rounds (runs.h):
 * the rounds' workload statuses, and ab.json's runs (exit codes, planned
 * rounds that are not there).
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <json-c/json.h>

#include "analysis/compare/runs.h"
#include "util/cli.h"
#include "util/util.h"

#define RUNS_MAX_ROUND	100000

static void add(struct fb_run_issues *iss, int fatal, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void add(struct fb_run_issues *iss, int fatal, const char *fmt, ...)
{
	va_list ap;

	iss->n++;
	iss->nfatal += !!fatal;
	if (iss->kept >= FB_RUN_ISSUES_MAX)
		return;
	iss->v[iss->kept].fatal = fatal;
	va_start(ap, fmt);
	vsnprintf(iss->v[iss->kept].what, sizeof(iss->v[0].what), fmt, ap);
	va_end(ap);
	fb_one_line(iss->v[iss->kept].what);
	iss->kept++;
}

/* "patched/round-3.json": the last two components of a path */
static const char *short_path(const char *p)
{
	const char *s = p + strlen(p);
	int slashes = 0;

	while (s > p && !(s[-1] == '/' && ++slashes == 2))
		s--;
	return s;
}

/* the round number in ".../round-K.json", else 0 */
static int round_of(const char *path)
{
	const char *b = strrchr(path, '/');
	int k = 0;

	if (sscanf(b ? b + 1 : path, "round-%d", &k) != 1 || k < 1)
		return 0;
	return k;
}

const char *fb_run_exit_name(int rc, int *fatal)
{
	*fatal = 0;
	switch (rc) {
	case 1:
		*fatal = 1;
		return "the run failed";
	case 2:
		return "the run refused its arguments";
	case 124:
		*fatal = 1;
		return "the guest timed out";
	case 125:
		*fatal = 1;
		return "splat in the guest log (panic, oops, WARN, BUG or lockdep)";
	case 126:
		return "the guest did not start";
	case -1:
		return "exit 0 but no results file";
	}
	return rc > 128 && rc < 160 ? "interrupted (signal)" : "unexpected exit";
}

void fb_runs_rounds(struct fb_run_issues *iss, struct fb_result *const *r, char *const *files,
		    int n)
{
	for (int i = 0; i < n; i++)
		for (int w = 0; w < r[i]->nworkloads; w++) {
			const struct fb_workload_result *wl = &r[i]->workloads[w];

			if (wl->status != FB_WL_FAILED && wl->status != FB_WL_INTERRUPTED)
				continue;
			add(iss, wl->status == FB_WL_FAILED, "round %d (%s): workload %s %s%s%s",
			    round_of(files[i]) ? round_of(files[i]) : i + 1, short_path(files[i]),
			    wl->name, fb_wl_status_name(wl->status), wl->reason[0] ? ": " : "",
			    wl->reason);
		}
}

static int int_of(json_object *o, const char *key, int dflt)
{
	json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_int))
		return dflt;
	return json_object_get_int(v);
}

static const char *str_of(json_object *o, const char *key)
{
	json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/* 1 if arm is one of ab.json's arms */
static int has_arm(json_object *ab, const char *arm)
{
	json_object *arms;

	if (!json_object_object_get_ex(ab, "arms", &arms) ||
	    !json_object_is_type(arms, json_type_array))
		return 0;
	for (size_t i = 0; i < json_object_array_length(arms); i++) {
		const char *s = str_of(json_object_array_get_idx(arms, i), "name");

		if (s && !strcmp(s, arm))
			return 1;
	}
	return 0;
}

/*
 * The rounds ab.json planned for this directory into plan[1..max] (1:
 * planned); returns max.  A shard's own rounds; an --until-decided run's
 * rounds up to the look its runs reached; else 1..rounds.
 */
static int planned(json_object *ab, json_object *runs, unsigned char *plan)
{
	json_object *sh = NULL, *ud = NULL, *list;
	int rounds = int_of(ab, "rounds", 0), hi = 0;

	if (rounds < 1 || rounds > RUNS_MAX_ROUND)
		return 0;
	json_object_object_get_ex(ab, "shard", &sh);
	if (sh && int_of(sh, "count", 1) > 1 && json_object_object_get_ex(sh, "rounds", &list) &&
	    json_object_is_type(list, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(list); i++) {
			int k = json_object_get_int(json_object_array_get_idx(list, i));

			if (k >= 1 && k <= rounds)
				plan[k] = 1;
		}
		return rounds;
	}
	if (json_object_object_get_ex(ab, "until_decided", &ud)) {
		int first = int_of(ud, "first", 1), step = int_of(ud, "step", 1), look;

		for (size_t i = 0; i < json_object_array_length(runs); i++) {
			int k = int_of(json_object_array_get_idx(runs, i), "round", 0);

			hi = k > hi && k <= rounds ? k : hi;
		}
		for (look = first > 0 ? first : 1; look < hi && step > 0; look += step)
			;
		rounds = look < rounds ? look : rounds;
	}
	for (int k = 1; k <= rounds; k++)
		plan[k] = 1;
	return rounds;
}

/* 1 if the file rel (relative to abdir) is one of files[0..n) */
static int among(const char *abdir, const char *rel, char *const *files, int n)
{
	char p[PATH_MAX + 64], a[PATH_MAX], b[PATH_MAX];

	fb_fmt(p, sizeof(p), "%s/%s", abdir, rel);
	if (!realpath(p, a))
		return 0;
	for (int i = 0; i < n; i++)
		if (realpath(files[i], b) && !strcmp(a, b))
			return 1;
	return 0;
}

/* The last run of arm in round k, or NULL */
static json_object *run_of(json_object *runs, const char *arm, int k)
{
	json_object *found = NULL;

	for (size_t i = 0; i < json_object_array_length(runs); i++) {
		json_object *r = json_object_array_get_idx(runs, i);
		const char *a = str_of(r, "arm");

		if (a && !strcmp(a, arm) && int_of(r, "round", 0) == k)
			found = r;
	}
	return found;
}

static void check_round(struct fb_run_issues *iss, const char *abdir, const char *arm,
			json_object *run, int k, int rounds, char *const *files, int n)
{
	const char *res = str_of(run, "result");
	int rc, fatal, present;
	char rel[PATH_MAX];

	if (!run) {
		add(iss, 0, "round %d: missing: ab.json plans %d rounds, no run of %s recorded "
		    "(cut short?)", k, rounds, arm);
		return;
	}
	fb_fmt(rel, sizeof(rel), "%s", res ? res : "");
	present = rel[0] && among(abdir, rel, files, n);
	if (!present) {		/* an older ab.json (absolute paths), or a moved directory */
		char std[PATH_MAX];

		fb_fmt(std, sizeof(std), "%s/round-%d.json", arm, k);
		present = among(abdir, std, files, n);
	}
	rc = int_of(run, "exit", -1);
	if (rc == 1 && present)
		return;	/* the round says which workload failed (fb_runs_rounds) */
	if (rc) {
		const char *why = fb_run_exit_name(rc, &fatal);

		add(iss, fatal, "round %d (%s/console-round-%d.log): %s (exit %d)", k, arm, k, why,
		    rc);
	} else if (!present) {
		add(iss, 0, "round %d: missing: ab.json records exit 0, but %s is not among the "
		    "rounds read", k, rel[0] ? rel : "its results file");
	}
}

int fb_runs_abjson(struct fb_run_issues *iss, const char *abdir, const char *arm,
		   char *const *files, int n, char *err, size_t errlen)
{
	char path[PATH_MAX + 16];
	json_object *ab, *runs;
	unsigned char *plan;
	const char *schema;
	int rounds;
	struct stat st;

	fb_fmt(path, sizeof(path), "%s/ab.json", abdir);
	if (stat(path, &st) < 0)
		return 0;
	ab = json_object_from_file(path);
	schema = str_of(ab, "schema");
	if (!schema || strcmp(schema, "foliobench-ab") ||
	    !json_object_object_get_ex(ab, "runs", &runs) ||
	    !json_object_is_type(runs, json_type_array)) {
		snprintf(err, errlen, "%s: not a readable foliobench-ab file (with its runs)", path);
		json_object_put(ab);
		return -1;
	}
	if (!has_arm(ab, arm)) {
		json_object_put(ab);
		return 0;
	}
	plan = calloc(RUNS_MAX_ROUND + 1, 1);
	if (!plan) {
		snprintf(err, errlen, "out of memory");
		json_object_put(ab);
		return -1;
	}
	rounds = planned(ab, runs, plan);
	for (int k = 1; k <= rounds; k++)
		if (plan[k])
			check_round(iss, abdir, arm, run_of(runs, arm, k), k,
				    int_of(ab, "rounds", 0), files, n);
	free(plan);
	json_object_put(ab);
	return 1;
}

void fb_runs_side(struct fb_run_issues *iss, const char *path, struct fb_result *const *r,
		  char *const *files, int n)
{
	char real[PATH_MAX], *slash, err[300] = "";
	struct stat st;

	memset(iss, 0, sizeof(*iss));
	fb_runs_rounds(iss, r, files, n);
	if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode) || !realpath(path, real))
		return;
	slash = strrchr(real, '/');
	if (!slash || slash == real || !slash[1])
		return;
	*slash = '\0';
	if (fb_runs_abjson(iss, real, slash + 1, files, n, err, sizeof(err)) < 0)
		add(iss, 0, "%s: runs not checked", err);
}
