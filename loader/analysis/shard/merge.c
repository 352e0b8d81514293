// SPDX-License-Identifier: GPL-2.0
/*
 * merge.c - `foliobench merge OUT DIR...`: the shards of one `ab --shard`
 * run (one directory per machine) into one ab directory (merge.h).
 *
 * Everything is checked before anything is written, and OUT is built as
 * a temporary directory beside it and renamed at the end (util/outfile.h),
 * so a refused, failed or interrupted merge leaves no OUT behind.  Round files are copied, not linked (OUT may be on
 * another file system than the shards), with their console logs; OUT's
 * ab.json is the first shard's with every shard's runs, each tagged with
 * the shard and the machine that ran it, and the shards listed.
 */
#include <argp.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/compare/compare.h"
#include "analysis/shard/merge.h"
#include "model/fb.h"
#include "model/jsonfile.h"
#include "util/cli.h"
#include "util/outfile.h"
#include "util/util.h"

#define MG_MAX_SHARDS	1000
#define MG_MAX_ROUND	100000

struct mg_in {
	const char *dir;		/* as given */
	char real[PATH_MAX];
	json_object *ab;		/* DIR/ab.json */
	json_object *arms;		/* its "arms" (borrowed) */
	int index, count;
	const char *tool, *host, *started;
};

struct mg_round {
	int in, arm, round;
};

struct mg {
	const char *out;
	int n, nr;
	struct mg_in *in;
	struct mg_round *r;
};

/*
 * What shards must agree on besides the kernels: the work each guest did
 * and how it was paced.  "rounds" is the total of the whole run.
 */
static const char *const mg_same_keys[] = {
	"workloads", "params", "probes", "rounds", "clock", "icount_shift", "smp", "mem",
	"flavour", "append",
};

static const char *str_of(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static int int_of(json_object *o, const char *key, int dflt)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_int))
		return dflt;
	return json_object_get_int(v);
}

static const char *arm_name(json_object *arms, size_t i)
{
	const char *s = str_of(json_object_array_get_idx(arms, i), "name");

	return s ? s : "";
}

/* DIR/ab.json of one shard; 0, or -1 after fb_err. */
static int mg_load(struct mg_in *s, const char *dir)
{
	char path[PATH_MAX + 16], why[PATH_MAX + 64];
	json_object *sh;
	const char *schema;

	s->dir = dir;
	if (!realpath(dir, s->real)) {
		fb_err("merge: %s: %s", dir, strerror(errno));
		return -1;
	}
	fb_fmt(path, sizeof(path), "%s/ab.json", dir);
	s->ab = fb_json_load(path, "an ab.json", why, sizeof(why));	/* no FIFO, no device */
	schema = s->ab ? str_of(s->ab, "schema") : NULL;
	if (!schema || strcmp(schema, "foliobench-ab")) {
		fb_err("merge: %s: no readable foliobench-ab ab.json (not an ab directory)%s%s",
		       dir, s->ab ? "" : ": ", s->ab ? "" : why);
		return -1;
	}
	if (!json_object_object_get_ex(s->ab, "arms", &s->arms) ||
	    !json_object_is_type(s->arms, json_type_array) ||
	    !json_object_array_length(s->arms)) {
		fb_err("merge: %s/ab.json: no arms", dir);
		return -1;
	}
	for (size_t i = 0; i < json_object_array_length(s->arms); i++)
		if (fb_name_check("arm name", arm_name(s->arms, i), path, sizeof(path))) {
			fb_err("merge: %s/ab.json: %s", dir, path);	/* never a path from data */
			return -1;
		}
	s->tool = str_of(s->ab, "tool_version");
	s->host = str_of(s->ab, "host");
	s->started = str_of(s->ab, "started");
	s->index = s->count = 1;	/* an ab run without --shard is shard 1/1 */
	if (json_object_object_get_ex(s->ab, "shard", &sh)) {
		s->index = int_of(sh, "index", 0);
		s->count = int_of(sh, "count", 0);
	}
	if (s->count < 1 || s->count > MG_MAX_SHARDS || s->index < 1 || s->index > s->count) {
		fb_err("merge: %s/ab.json: shard %d/%d is not I/N with 1 <= I <= N <= %d", dir,
		       s->index, s->count, MG_MAX_SHARDS);
		return -1;
	}
	return 0;
}

/* 1 if field key of a and b is the same JSON value (or absent from both). */
static int same_field(json_object *a, json_object *b, const char *key)
{
	json_object *x = NULL, *y = NULL;

	json_object_object_get_ex(a, key, &x);
	json_object_object_get_ex(b, key, &y);
	return json_object_equal(x, y);
}

/* The arms of s against those of the first shard f: names, kernels, append. */
static int mg_same_kernels(const struct mg_in *f, const struct mg_in *s)
{
	size_t n = json_object_array_length(f->arms);

	if (json_object_array_length(s->arms) != n) {
		fb_err("merge: %s has %zu arms, %s has %zu", s->dir,
		       json_object_array_length(s->arms), f->dir, n);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		json_object *a = json_object_array_get_idx(f->arms, i);
		json_object *b = json_object_array_get_idx(s->arms, i);
		const char *id = str_of(b, "build_id");

		if (strcmp(arm_name(f->arms, i), arm_name(s->arms, i))) {
			fb_err("merge: arm %zu is %s in %s but %s in %s", i + 1,
			       arm_name(s->arms, i), s->dir, arm_name(f->arms, i), f->dir);
			return -1;
		}
		if (!id || !id[0] || !str_of(b, "config_sha256")) {
			fb_err("merge: %s/ab.json: arm %s has no kernel build id (ab.json from "
			       "before `ab --shard`): cannot tell which kernel it booted", s->dir,
			       arm_name(s->arms, i));
			return -1;
		}
		if (!same_field(a, b, "build_id") || !same_field(a, b, "config_sha256")) {
			fb_err("merge: different kernels for arm %s: %s booted build id %s config "
			       "%.12s, %s booted build id %s config %.12s", arm_name(s->arms, i),
			       s->dir, id, str_of(b, "config_sha256"), f->dir,
			       str_of(a, "build_id") ? str_of(a, "build_id") : "none",
			       str_of(a, "config_sha256") ? str_of(a, "config_sha256") : "");
			return -1;
		}
		if (!same_field(a, b, "append")) {
			fb_err("merge: different kernel command lines for arm %s in %s and %s",
			       arm_name(s->arms, i), s->dir, f->dir);
			return -1;
		}
	}
	return 0;
}

/* A JSON value on one line, shortened, for a message. */
static void short_json(json_object *o, const char *key, char *buf, size_t len)
{
	json_object *v = NULL;

	json_object_object_get_ex(o, key, &v);
	fb_fmt(buf, len, "%s", v ? json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN |
			JSON_C_TO_STRING_NOSLASHESCAPE) : "(none)");
	fb_one_line(buf);
}

/* per-patch.json: in every shard or none, and the same. */
static int mg_same_pp(const struct mg_in *f, const struct mg_in *s)
{
	char pf[PATH_MAX + 32], ps[PATH_MAX + 32], why[PATH_MAX + 96];
	json_object *a, *b;
	int same;

	fb_fmt(pf, sizeof(pf), "%s/per-patch.json", f->dir);
	fb_fmt(ps, sizeof(ps), "%s/per-patch.json", s->dir);
	if (access(pf, F_OK) && access(ps, F_OK))
		return 0;
	a = fb_json_load(pf, "a per-patch.json", why, sizeof(why));
	b = fb_json_load(ps, "a per-patch.json", why, sizeof(why));
	same = a && b && json_object_equal(a, b);
	json_object_put(a);
	json_object_put(b);
	if (!same)
		fb_err("merge: %s and %s differ in per-patch.json (or one lacks it)", s->dir,
		       f->dir);
	return same ? 0 : -1;
}

/* Every shard (the first too: kernels named) against the first: N, tool, kernels, work. */
static int mg_same(const struct mg *m)
{
	const struct mg_in *f = &m->in[0];
	char x[160], y[160];

	for (int i = 0; i < m->n; i++) {
		const struct mg_in *s = &m->in[i];

		if (s->count != f->count) {
			fb_err("merge: %s is shard %d/%d but %s is shard %d/%d: not one run",
			       s->dir, s->index, s->count, f->dir, f->index, f->count);
			return -1;
		}
		if (!s->tool || !f->tool || strcmp(s->tool, f->tool)) {
			fb_err("merge: %s ran foliobench %s, %s ran %s", s->dir,
			       s->tool ? s->tool : "(unknown)", f->dir, f->tool ? f->tool : "(unknown)");
			return -1;
		}
		if (mg_same_kernels(f, s) < 0)
			return -1;
		for (size_t k = 0; k < sizeof(mg_same_keys) / sizeof(mg_same_keys[0]); k++) {
			if (same_field(f->ab, s->ab, mg_same_keys[k]))
				continue;
			short_json(s->ab, mg_same_keys[k], x, sizeof(x));
			short_json(f->ab, mg_same_keys[k], y, sizeof(y));
			fb_err("merge: different workload parameters: %s ran %s %s, %s ran %s",
			       s->dir, mg_same_keys[k], x, f->dir, y);
			return -1;
		}
		if (mg_same_pp(f, s) < 0)
			return -1;
	}
	return 0;
}

/* "round-K.json" -> K, else 0 */
static int round_no(const char *name)
{
	int k = 0, end = 0;

	if (sscanf(name, "round-%d.json%n", &k, &end) != 1 || name[end] || k < 1 ||
	    k > MG_MAX_ROUND)
		return 0;
	return k;
}

/* A round file: readable results, of this shard, of the kernel ab.json names. */
static int mg_check_round(const struct mg *m, int in, int arm, int k, const char *path)
{
	const struct mg_in *s = &m->in[in];
	const char *id = str_of(json_object_array_get_idx(s->arms, (size_t)arm), "build_id");
	char err[512];
	struct fb_result *r;
	int ret = 0;

	if ((k - 1) % s->count != s->index - 1 || k > int_of(s->ab, "rounds", MG_MAX_ROUND)) {
		fb_err("merge: %s: round %d is not one of shard %d/%d's rounds", path, k,
		       s->index, s->count);
		return -1;
	}
	r = fb_result_load(path, err, sizeof(err));
	if (!r) {
		fb_one_line(err);
		fb_err("merge: %s", err);
		return -1;
	}
	for (int w = 0; w < r->nworkloads; w++)	/* merged as it is; the gate reads it too */
		if (r->workloads[w].status == FB_WL_FAILED ||
		    r->workloads[w].status == FB_WL_INTERRUPTED)
			fprintf(stderr, "foliobench: warning: merge: %s: workload %s %s: no gate "
				"passes these rounds\n", path, r->workloads[w].name,
				fb_wl_status_name(r->workloads[w].status));
	if (r->host.build_id[0] && id && strncmp(id, "sha256:", 7) && strcmp(id, r->host.build_id)) {
		fb_err("merge: %s ran kernel build id %s, but %s/ab.json names %s for arm %s",
		       path, r->host.build_id, s->dir, id, arm_name(s->arms, (size_t)arm));
		ret = -1;
	}
	free(r);
	return ret;
}

/* Records round k of arm in shard in; -1 after fb_err if another shard has it. */
static int mg_add_round(struct mg *m, int in, int arm, int k)
{
	struct mg_round *r;

	for (int i = 0; i < m->nr; i++) {
		if (m->r[i].arm != arm || m->r[i].round != k)
			continue;
		fb_err("merge: round %d of arm %s is in both %s and %s", k,
		       arm_name(m->in[in].arms, (size_t)arm), m->in[m->r[i].in].dir, m->in[in].dir);
		return -1;
	}
	r = realloc(m->r, sizeof(*m->r) * (size_t)(m->nr + 1));
	if (!r) {
		fb_err("merge: out of memory");
		return -1;
	}
	m->r = r;
	m->r[m->nr++] = (struct mg_round){ .in = in, .arm = arm, .round = k };
	return 0;
}

/* The round files of shard in, arm arm: checked and recorded. */
static int mg_scan_arm(struct mg *m, int in, int arm)
{
	char sub[PATH_MAX], path[PATH_MAX + 256];
	struct dirent *d;
	struct stat st;
	int ret = 0, k;
	DIR *dir;

	fb_fmt(sub, sizeof(sub), "%s/%s", m->in[in].dir, arm_name(m->in[in].arms, (size_t)arm));
	dir = opendir(sub);
	if (!dir)
		return 0;	/* no round of this arm ran here */
	while (!ret && (d = readdir(dir))) {
		size_t l = strlen(d->d_name);

		fb_fmt(path, sizeof(path), "%s/%s", sub, d->d_name);
		k = round_no(d->d_name);
		if (!k) {
			if (l > 5 && !strcmp(d->d_name + l - 5, ".json"))
				fprintf(stderr, "foliobench: warning: merge: %s is not a round "
					"file: not merged\n", path);
			continue;
		}
		if (lstat(path, &st) < 0 || !S_ISREG(st.st_mode)) {
			fb_err("merge: %s is not a regular file", path);
			ret = -1;
		} else {
			ret = mg_check_round(m, in, arm, k, path);
			if (!ret)
				ret = mg_add_round(m, in, arm, k);
		}
	}
	closedir(dir);
	return ret;
}

/* Shards 1..N each given exactly once. */
static int mg_cover(const struct mg *m)
{
	int n = m->in[0].count;
	int *by = calloc((size_t)n + 1, sizeof(*by)), ret = 0;

	if (!by)
		return -1;
	for (int i = 0; i < m->n && !ret; i++) {
		int *x = &by[m->in[i].index];

		if (*x) {
			fb_err("merge: shard %d/%d given twice: %s and %s", m->in[i].index, n,
			       m->in[*x - 1].dir, m->in[i].dir);
			ret = -1;
		}
		*x = i + 1;
	}
	for (int k = 1; k <= n && !ret; k++) {
		if (by[k])
			continue;
		fb_err("merge: shard %d of %d is missing (%d of %d shard directories given)", k,
		       n, m->n, n);
		ret = -1;
	}
	free(by);
	return ret;
}

static int by_round(const void *a, const void *b)
{
	const struct mg_round *x = a, *y = b;

	return x->round != y->round ? x->round - y->round : x->arm - y->arm;
}

/* Copies src to dst (created, never overwritten); 0, or -1 after fb_err. */
static int copy_file(const char *src, const char *dst)
{
	char buf[65536];
	int in = open(src, O_RDONLY | O_CLOEXEC), out = -1, ret = -1;
	ssize_t n = 0;

	if (in >= 0)
		out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	while (out >= 0 && !fb_stop && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n) {
			n = -1;
			break;
		}
	if (out >= 0 && !close(out) && n == 0 && !fb_stop)	/* every write and the close */
		ret = 0;
	if (in >= 0)
		close(in);
	if (ret)
		fb_err("merge: cannot copy %s to %s: %s", src, dst, strerror(errno ? errno : EIO));
	return ret;
}

/* OUT: absent, or an empty directory; 0, or -1 after fb_err. */
static int mg_out_ready(const char *out)
{
	struct dirent *d;
	DIR *dir = opendir(out);
	int used = 0;

	if (!dir && errno == ENOENT)
		return 0;	/* made at the end (cmd_merge) */
	if (!dir) {
		fb_err("merge: %s: %s", out, strerror(errno));
		return -1;
	}
	while (!used && (d = readdir(dir)))
		used = strcmp(d->d_name, ".") && strcmp(d->d_name, "..");
	closedir(dir);
	if (used)
		fb_err("merge: %s is not empty: merge writes a new directory", out);
	return used ? -1 : 0;
}

/* OUT/<arm>/round-K.json and console-round-K.log of every round. */
static int mg_copy(const struct mg *m)
{
	char src[PATH_MAX + 64], dst[PATH_MAX + 64], sub[PATH_MAX];

	for (int i = 0; i < m->nr; i++) {
		const struct mg_round *r = &m->r[i];
		const struct mg_in *s = &m->in[r->in];
		const char *arm = arm_name(s->arms, (size_t)r->arm);

		fb_fmt(sub, sizeof(sub), "%s/%s", m->out, arm);
		if (fb_mkdir_p(sub) < 0) {
			fb_err("merge: cannot create %s: %s", sub, strerror(errno));
			return -1;
		}
		fb_fmt(src, sizeof(src), "%s/%s/round-%d.json", s->dir, arm, r->round);
		fb_fmt(dst, sizeof(dst), "%s/round-%d.json", sub, r->round);
		if (copy_file(src, dst) < 0)
			return -1;
		fb_fmt(src, sizeof(src), "%s/%s/console-round-%d.log", s->dir, arm, r->round);
		fb_fmt(dst, sizeof(dst), "%s/console-round-%d.log", sub, r->round);
		if (access(src, R_OK) == 0 && copy_file(src, dst) < 0)
			return -1;
	}
	return 0;
}

/* The runs of every shard in round order, each with its shard and machine. */
static json_object *mg_runs(const struct mg *m)
{
	json_object *all = json_object_new_array(), *runs, *x;
	int rounds = int_of(m->in[0].ab, "rounds", 0);

	for (int k = 1; k <= rounds; k++) {
		for (int i = 0; i < m->n; i++) {
			const struct mg_in *s = &m->in[i];

			if ((k - 1) % s->count != s->index - 1 ||
			    !json_object_object_get_ex(s->ab, "runs", &runs) ||
			    !json_object_is_type(runs, json_type_array))
				continue;
			for (size_t j = 0; j < json_object_array_length(runs); j++) {
				json_object *run = json_object_array_get_idx(runs, j);

				x = NULL;	/* deep_copy wants an empty destination */
				if (int_of(run, "round", 0) != k || json_object_deep_copy(run, &x,
						NULL))
					continue;
				if (int_of(run, "exit", 0))
					fprintf(stderr, "foliobench: warning: merge: %s: round %d of "
						"arm %s exited %d: no gate passes these rounds\n",
						s->dir, k, str_of(run, "arm") ? str_of(run, "arm") :
						"?", int_of(run, "exit", 0));
				json_object_object_add(x, "shard", json_object_new_int(s->index));
				json_object_object_add(x, "host", json_object_new_string(
					s->host ? s->host : ""));
				json_object_array_add(all, x);
			}
		}
	}
	return all;
}

/* OUT/ab.json: the first shard's, with all runs, and the shards it came from. */
static int mg_ab_json(const struct mg *m)
{
	json_object *o = NULL, *sh = json_object_new_object(), *list = json_object_new_array();
	json_object *rs = json_object_new_array();
	char path[PATH_MAX + 16], err[PATH_MAX + 128];
	int ret;

	json_object_deep_copy(m->in[0].ab, &o, NULL);
	for (int i = 0; i < m->nr; i++)		/* m->r is sorted: rounds once each */
		if (!i || m->r[i].round != m->r[i - 1].round)
			json_object_array_add(rs, json_object_new_int(m->r[i].round));
	for (int k = 1; k <= m->in[0].count; k++) {	/* in shard order */
		json_object *e = json_object_new_object();
		int i = 0;

		while (m->in[i].index != k)	/* mg_cover(): each index once */
			i++;

		json_object_object_add(e, "index", json_object_new_int(m->in[i].index));
		json_object_object_add(e, "count", json_object_new_int(m->in[i].count));
		json_object_object_add(e, "dir", json_object_new_string(m->in[i].real));
		json_object_object_add(e, "host", json_object_new_string(
			m->in[i].host ? m->in[i].host : ""));
		json_object_object_add(e, "started", json_object_new_string(
			m->in[i].started ? m->in[i].started : ""));
		json_object_array_add(list, e);
	}
	json_object_object_add(sh, "index", json_object_new_int(1));
	json_object_object_add(sh, "count", json_object_new_int(1));
	json_object_object_add(sh, "rounds", rs);
	json_object_object_add(sh, "merged_from", list);
	json_object_object_add(o, "shard", sh);
	json_object_object_del(o, "host");
	json_object_object_add(o, "runs", mg_runs(m));
	fb_fmt(path, sizeof(path), "%s/ab.json", m->out);
	ret = fb_out_write_str(path, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
				JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE), err,
			       sizeof(err));
	json_object_put(o);
	if (ret < 0)
		fb_err("merge: %s", err);
	return ret < 0 ? -1 : 0;
}

/* per-patch.json of the first shard, the same in all (mg_same_pp). */
static int mg_pp(const struct mg *m)
{
	char src[PATH_MAX + 32], dst[PATH_MAX + 32];

	fb_fmt(src, sizeof(src), "%s/per-patch.json", m->in[0].dir);
	fb_fmt(dst, sizeof(dst), "%s/per-patch.json", m->out);
	return access(src, F_OK) ? 0 : copy_file(src, dst);
}

static const struct argp merge_argp = {
	NULL, NULL, "OUT DIR...",
	"Joins the directories of the shards of one `foliobench ab --shard I/N` run (one per "
	"machine, each with its ab.json) into OUT, one ab directory that compare, report and "
	"gate read like any other.\v"
	"Refused (exit 2, one line, OUT untouched): shards of different kernels (build id, "
	"config hash), workload parameters, guest settings or foliobench versions; a round in "
	"two shards or in the wrong one; a missing shard; an arm name that is not a portable "
	"name; OUT not empty.  OUT is built beside it and renamed at the end: a failed or "
	"interrupted merge (exit 1) leaves no OUT.  The rounds keep the "
	"machine that ran them (host.hostname): compare and gate warn when one machine's "
	"rounds differ from the others'.",
	NULL, NULL, NULL,
};

/* Loads and checks every shard; 0, or -1 after one fb_err line. */
static int mg_check(struct mg *m, char **dirs)
{
	for (int i = 0; i < m->n; i++) {
		if (mg_load(&m->in[i], dirs[i]) < 0)
			return -1;
		for (int j = 0; j < i; j++)
			if (!strcmp(m->in[i].real, m->in[j].real)) {
				fb_err("merge: %s given twice", dirs[i]);
				return -1;
			}
	}
	if (mg_same(m) < 0)
		return -1;
	for (int i = 0; i < m->n; i++)
		for (size_t a = 0; a < json_object_array_length(m->in[i].arms); a++)
			if (mg_scan_arm(m, i, (int)a) < 0)
				return -1;
	if (mg_cover(m) < 0)
		return -1;
	if (!m->nr) {
		fb_err("merge: no round in any of the %d shards", m->n);
		return -1;
	}
	qsort(m->r, (size_t)m->nr, sizeof(*m->r), by_round);
	return 0;
}

/* OUT built beside it and renamed at the end: whole, or absent (util/outfile.h). */
static int mg_write(struct mg *m)
{
	const char *out = m->out;
	char err[PATH_MAX + 128];
	struct fb_outdir od;

	if (fb_outdir_open(&od, out, err, sizeof(err))) {
		fb_err("merge: %s", err);
		return 1;
	}
	m->out = od.tmp;
	/* ab.json first: a merge cut short plans rounds it lacks (and OUT is not renamed) */
	if (mg_ab_json(m) || mg_copy(m) || mg_pp(m)) {
		fb_outdir_abort(&od);
		return 1;
	}
	if (fb_outdir_commit(&od, err, sizeof(err))) {
		fb_err("merge: %s", err);
		return 1;
	}
	fb_info("merge: %d rounds of %d shards in %s", m->nr, m->n, out);
	return 0;
}

int cmd_merge(int argc, char **argv)
{
	struct mg m = { 0 };
	int idx = 0, r = fb_argp_parse(&merge_argp, argc, argv, &idx, NULL), ret = 2;

	if (r)
		return r == 1 ? 0 : 2;
	if (argc - idx < 2) {
		fb_err("merge: expected OUT and at least one shard directory (foliobench merge "
		       "--help)");
		return 2;
	}
	if (argc - idx - 1 > MG_MAX_SHARDS) {
		fb_err("merge: at most %d shard directories", MG_MAX_SHARDS);
		return 2;
	}
	m.out = argv[idx];
	m.n = argc - idx - 1;
	m.in = calloc((size_t)m.n, sizeof(*m.in));
	if (m.in && !mg_check(&m, argv + idx + 1) && !mg_out_ready(m.out))
		ret = mg_write(&m);
	for (int i = 0; m.in && i < m.n; i++)
		json_object_put(m.in[i].ab);
	free(m.in);
	free(m.r);
	return ret;
}
