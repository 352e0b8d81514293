// SPDX-License-Identifier: GPL-2.0
/*
 * noise.c - per-metric boot-to-boot noise from A/A rounds: calibration,
 * the versioned noise file, and the check that it belongs to the rounds
 * being gated (noise.h).
 */
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "analysis/gate/noise.h"
#include "util/cli.h"
#include "util/util.h"
#include "model/jsonfile.h"
#include "util/outfile.h"

static struct fb_noise_entry *entry(struct fb_noise *nz, const char *id)
{
	for (int i = 0; i < nz->nent; i++)
		if (!strcmp(nz->e[i].id, id))
			return &nz->e[i];
	if (nz->nent >= FB_NOISE_MAX)
		return NULL;
	snprintf(nz->e[nz->nent].id, sizeof(nz->e[0].id), "%s", id);
	return &nz->e[nz->nent++];
}

/* Sum of squared deviations of log(v) over the na + nb values; -1 if one is <= 0. */
static int log_ss(const double *a, int na, const double *b, int nb, double *ss)
{
	double s = 0;
	int n = na + nb;

	*ss = 0;
	for (int i = 0; i < n; i++) {
		double v = i < na ? a[i] : b[i - na];

		if (!(v > 0) || !isfinite(v))
			return -1;
		s += log(v);
	}
	for (int i = 0; i < n; i++) {
		double d = log(i < na ? a[i] : b[i - na]) - s / n;

		*ss += d * d;
	}
	return 0;
}

static int log_mv(const double *v, int n, double *mean, double *var)
{
	double ss;

	if (n < 2 || log_ss(v, n, NULL, 0, &ss))
		return -1;
	*mean = 0;
	for (int i = 0; i < n; i++)
		*mean += log(v[i]) / n;
	*var = ss / (n - 1);
	return 0;
}

static int add_build(struct fb_noise *nz, const char *id, char *err, size_t errlen)
{
	for (int i = 0; i < nz->nbuild; i++)
		if (!strcmp(nz->build[i], id))
			return 0;
	if (nz->nbuild >= FB_NOISE_MAX_BUILDS) {
		snprintf(err, errlen, "more than %d kernel builds in the calibration rounds",
			 FB_NOISE_MAX_BUILDS);
		return -1;
	}
	snprintf(nz->build[nz->nbuild++], sizeof(nz->build[0]), "%s", id);
	return 0;
}

/*
 * The kernel's name in the cache (kernels/baseline-perf-920ffe4ae447: the
 * arm, flavour and a hash of base, patches, config and compiler) from the
 * ab.json beside a round (DIR/ARM/round-N.json), for arm; 0, or -1 when
 * there is none.  A build id differs between two builds of one source on
 * two machines (the kernel stamps its build time); this name does not.
 */
static int round_kernel_key(const char *file, const char *arm, char *key, size_t len)
{
	char dir[PATH_MAX], why[PATH_MAX + 80], *sl;
	json_object *top, *arms, *o;
	int ret = -1;

	snprintf(dir, sizeof(dir) - 8, "%s", file);
	for (int up = 0; up < 2; up++) {
		sl = strrchr(dir, '/');
		if (!sl)
			return -1;
		*sl = '\0';
		/* only an ab directory's layout, DIR/ARM/round-N.json: no ab.json further up */
		if (!up && strcmp(strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir, arm))
			return -1;
	}
	strcat(dir, "/ab.json");
	top = fb_json_load(dir, "an ab.json", why, sizeof(why));
	if (!top)
		return -1;
	if (json_object_object_get_ex(top, "arms", &arms) &&
	    json_object_is_type(arms, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(arms) && ret; i++) {
			json_object *a = json_object_array_get_idx(arms, i), *n;
			const char *k, *e;

			if (!json_object_object_get_ex(a, "name", &n) ||
			    strcmp(json_object_get_string(n), arm) ||
			    !json_object_object_get_ex(a, "kernel", &o))
				continue;
			k = json_object_get_string(o);
			e = strrchr(k, '/');
			if (!e || e == k)
				continue;
			for (sl = (char *)e - 1; sl > k && *sl != '/'; sl--)
				;
			if (*sl == '/' && e - sl - 1 > 0 && (size_t)(e - sl - 1) < len) {
				snprintf(key, len, "%.*s", (int)(e - sl - 1), sl + 1);
				ret = 0;
			}
		}
	}
	json_object_put(top);
	return ret;
}

/*
 * The same name from the round itself: ab boots each kernel with
 * foliobench.kernel=NAME (its directory in the cache), which the round's
 * host.cmdline keeps; a round without it (older, or not from ab) falls back
 * to the ab.json beside it.
 */
static int round_key(const struct fb_result *r, const char *file, const char *arm, char *key,
		     size_t len)
{
	static const char w[] = "foliobench.kernel=";
	const char *p = r->host.cmdline;
	size_t n;

	while ((p = strstr(p, w)) && p != r->host.cmdline && p[-1] != ' ')
		p += sizeof(w) - 1;
	if (!p)
		return round_kernel_key(file, arm, key, len);
	p += sizeof(w) - 1;
	n = strcspn(p, " ");
	if (!n || n >= len)
		return round_kernel_key(file, arm, key, len);
	snprintf(key, len, "%.*s", (int)n, p);
	return 0;
}

static int add_key(struct fb_noise *nz, const char *key)
{
	for (int i = 0; i < nz->nkey; i++)
		if (!strcmp(nz->key[i], key))
			return 0;
	if (nz->nkey >= FB_NOISE_MAX_BUILDS)
		return -1;
	snprintf(nz->key[nz->nkey++], sizeof(nz->key[0]), "%s", key);
	return 0;
}

/* every round of both sides: one release, one clock; builds collected */
static int add_kernels(struct fb_noise *nz, const struct fb_cmp *c, char *err, size_t errlen)
{
	char key[64];

	for (int s = 0; s < 2; s++) {
		const struct fb_side *sd = s ? &c->new : &c->base;

		for (int i = 0; i < sd->n; i++) {
			const struct fb_result *r = sd->r[i];

			if (!nz->rounds && !nz->release[0]) {
				snprintf(nz->release, sizeof(nz->release), "%s", r->host.release);
				nz->clock = r->host.clock;
			}
			if (strcmp(nz->release, r->host.release) || nz->clock != r->host.clock) {
				snprintf(err, errlen, "%s: kernel %s, clock %s; the other calibration "
					 "rounds are %s, clock %s: calibrate one kernel and clock at a "
					 "time", sd->files[i], r->host.release,
					 fb_clock_name(r->host.clock), nz->release,
					 fb_clock_name(nz->clock));
				return -1;
			}
			if (add_build(nz, r->host.build_id, err, errlen))
				return -1;
			if (!round_key(r, sd->files[i], sd->name, key, sizeof(key)) &&
			    add_key(nz, key)) {
				snprintf(err, errlen, "more than %d kernels in the calibration rounds",
					 FB_NOISE_MAX_BUILDS);
				return -1;
			}
		}
	}
	return 0;
}

/* m's entry, made on first use; NULL with err when the file is full */
static struct fb_noise_entry *metric_entry(struct fb_noise *nz, const struct fb_row *row,
					   const struct fb_metric *m, char *err, size_t errlen)
{
	struct fb_noise_entry *e;
	char id[160];

	fb_metric_id(row, m, id, sizeof(id));
	e = entry(nz, id);
	if (!e) {
		snprintf(err, errlen, "more than %d metrics", FB_NOISE_MAX);
		return NULL;
	}
	e->declared |= !strcmp(m->name, row->gate);
	return e;
}

int fb_noise_add(struct fb_noise *nz, const struct fb_cmp *c, char *err, size_t errlen)
{
	if (add_kernels(nz, c, err, errlen))
		return -1;
	for (int i = 0; i < c->nrows; i++) {
		for (int k = 0; k < c->rows[i].nm; k++) {
			const struct fb_metric *m = c->rows[i].m[k];
			struct fb_noise_entry *e;
			double ss;

			if (m->na + m->nb < 2 || m->per[0] ||
			    log_ss(m->a, m->na, m->b, m->nb, &ss))
				continue;	/* no spread to measure, or not positive */
			e = metric_entry(nz, &c->rows[i], m, err, errlen);
			if (!e)
				return -1;
			e->ss += ss;
			e->dof += m->na + m->nb - 1;
			e->n += m->na + m->nb;
		}
	}
	nz->rounds += c->base.n + c->new.n;
	nz->groups++;
	return 0;
}

int fb_noise_add_builds(struct fb_noise *nz, const struct fb_cmp *c, char *err, size_t errlen)
{
	if (add_kernels(nz, c, err, errlen))
		return -1;
	for (int i = 0; i < c->nrows; i++) {
		for (int k = 0; k < c->rows[i].nm; k++) {
			const struct fb_metric *m = c->rows[i].m[k];
			double ssa, ssb, ma, mb, va, vb;
			struct fb_noise_entry *e;

			if (m->na < 2 || m->nb < 2 || m->per[0] ||
			    log_ss(m->a, m->na, NULL, 0, &ssa) || log_ss(m->b, m->nb, NULL, 0, &ssb) ||
			    log_mv(m->a, m->na, &ma, &va) || log_mv(m->b, m->nb, &mb, &vb))
				continue;
			e = metric_entry(nz, &c->rows[i], m, err, errlen);
			if (!e)
				return -1;
			e->ss += ssa + ssb;
			e->dof += m->na + m->nb - 2;
			e->n += m->na + m->nb;
			e->bd2 += (mb - ma) * (mb - ma);
			e->binv += 1.0 / m->na + 1.0 / m->nb;
			e->bpairs++;
		}
	}
	nz->rounds += c->base.n + c->new.n;
	nz->groups += 2;
	return 0;
}

void fb_noise_finish(struct fb_noise *nz)
{
	for (int i = 0; i < nz->nent; i++) {
		struct fb_noise_entry *e = &nz->e[i];
		double s2 = e->dof > 0 ? e->ss / e->dof : 0;

		if (!e->bpairs)
			continue;
		e->build_var = fmax(0, (e->bd2 - s2 * e->binv) / (2.0 * e->bpairs));
		e->build_n = e->bpairs;
	}
}

double fb_noise_spread(const struct fb_noise_entry *e)
{
	return e->dof > 0 ? sqrt(e->ss / e->dof) : NAN;
}

const struct fb_noise_entry *fb_noise_find(const struct fb_noise *nz, const char *id)
{
	if (!nz)
		return NULL;
	for (int i = 0; i < nz->nent; i++)
		if (!strcmp(nz->e[i].id, id))
			return nz->e[i].dof >= 2 ? &nz->e[i] : NULL;
	return NULL;
}

int fb_noise_write(const struct fb_noise *nz, const char *path, char *err, size_t errlen)
{
	json_object *top = json_object_new_object(), *b = json_object_new_array();
	json_object *ms = json_object_new_object();
	int ret;

	json_object_object_add(top, "schema", json_object_new_string(FB_NOISE_SCHEMA));
	json_object_object_add(top, "schema_version", json_object_new_int(FB_NOISE_VERSION));
	json_object_object_add(top, "kernel_release", json_object_new_string(nz->release));
	for (int i = 0; i < nz->nbuild; i++)
		json_object_array_add(b, json_object_new_string(nz->build[i]));
	json_object_object_add(top, "build_ids", b);
	if (nz->nkey) {
		json_object *k = json_object_new_array();

		for (int i = 0; i < nz->nkey; i++)
			json_object_array_add(k, json_object_new_string(nz->key[i]));
		json_object_object_add(top, "kernels", k);
	}
	json_object_object_add(top, "clock", json_object_new_string(fb_clock_name(nz->clock)));
	json_object_object_add(top, "rounds", json_object_new_int(nz->rounds));
	json_object_object_add(top, "groups", json_object_new_int(nz->groups));
	for (int i = 0; i < nz->nent; i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "spread", json_object_new_double(fb_noise_spread(&nz->e[i])));
		json_object_object_add(o, "dof", json_object_new_int(nz->e[i].dof));
		json_object_object_add(o, "n", json_object_new_int(nz->e[i].n));
		if (nz->e[i].build_n) {
			json_object_object_add(o, "build_spread",
					       json_object_new_double(sqrt(nz->e[i].build_var)));
			json_object_object_add(o, "build_pairs", json_object_new_int(nz->e[i].build_n));
		}
		json_object_object_add(ms, nz->e[i].id, o);
	}
	json_object_object_add(top, "metrics", ms);
	ret = fb_out_write_str(path, json_object_to_json_string_ext(top, JSON_C_TO_STRING_PRETTY),
			       err, errlen);
	json_object_put(top);
	return ret;
}

/* "key" of o as a string of at most len-1 characters into out; -1 if not */
static int get_str(json_object *o, const char *key, char *out, size_t len)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string) ||
	    strlen(json_object_get_string(v)) >= len)
		return -1;
	snprintf(out, len, "%s", json_object_get_string(v));
	return 0;
}

static int get_int(json_object *o, const char *key, int lo, int hi, int *out)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_int))
		return -1;
	*out = json_object_get_int(v);
	return *out >= lo && *out <= hi ? 0 : -1;
}

/* "build_spread" and "build_pairs" of a "metrics" member: both or neither */
static int read_build(struct fb_noise_entry *e, json_object *o, char *err, size_t errlen)
{
	int has = json_object_object_get_ex(o, "build_spread", NULL);
	json_object *v;
	double s;

	if (!has && !json_object_object_get_ex(o, "build_pairs", NULL))
		return 0;
	if (!json_object_object_get_ex(o, "build_spread", &v) ||
	    !(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)) ||
	    get_int(o, "build_pairs", 1, 1000000, &e->build_n) ||
	    !isfinite(s = json_object_get_double(v)) || s < 0 || s > 10) {
		snprintf(err, errlen, "metric '%.60s': build_spread wants a number in [0, 10] "
			 "and build_pairs a whole number >= 1, both or neither", e->id);
		return -1;
	}
	e->build_var = s * s;
	return 0;
}

/* one "metrics" member; a message in err and -1 if malformed */
static int read_entry(struct fb_noise *nz, const char *id, json_object *o, char *err,
		      size_t errlen)
{
	struct fb_noise_entry *e;
	json_object *v;
	double s;

	if (strlen(id) >= sizeof(e->id) || !(e = entry(nz, id)) || e->n) {
		snprintf(err, errlen, "metric '%.60s': too long, repeated or too many", id);
		return -1;
	}
	if (!json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, "spread", &v) ||
	    !(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)) ||
	    get_int(o, "dof", 1, 1000000, &e->dof) || get_int(o, "n", 2, 1000000, &e->n)) {
		snprintf(err, errlen, "metric '%.60s': wants spread (number), dof and n "
			 "(whole numbers)", id);
		return -1;
	}
	s = json_object_get_double(v);
	if (!isfinite(s) || s < 0 || s > 10 || e->dof >= e->n) {
		snprintf(err, errlen, "metric '%.60s': spread %g or dof %d out of range", id, s,
			 e->dof);
		return -1;
	}
	e->ss = s * s * e->dof;
	return read_build(e, o, err, errlen);
}


/* "kernels" (optional): the cache names of the calibrated kernels */
static int read_keys(struct fb_noise *nz, json_object *top, char *err, size_t errlen)
{
	json_object *k;

	if (!json_object_object_get_ex(top, "kernels", &k))
		return 0;
	if (!json_object_is_type(k, json_type_array) ||
	    json_object_array_length(k) > FB_NOISE_MAX_BUILDS) {
		snprintf(err, errlen, "kernels wants 0-%d kernel names", FB_NOISE_MAX_BUILDS);
		return -1;
	}
	for (size_t i = 0; i < json_object_array_length(k); i++) {
		json_object *s = json_object_array_get_idx(k, i);

		if (!json_object_is_type(s, json_type_string) || !json_object_get_string_len(s) ||
		    (size_t)json_object_get_string_len(s) >= sizeof(nz->key[0])) {
			snprintf(err, errlen, "kernels[%zu] is not a kernel name", i);
			return -1;
		}
		snprintf(nz->key[nz->nkey++], sizeof(nz->key[0]), "%s", json_object_get_string(s));
	}
	return 0;
}
static int read_top(struct fb_noise *nz, json_object *top, char *err, size_t errlen)
{
	json_object *b, *ms;
	char schema[32], clock[16];
	int ver;

	if (!json_object_is_type(top, json_type_object) || get_str(top, "schema", schema,
	    sizeof(schema)) || strcmp(schema, FB_NOISE_SCHEMA)) {
		snprintf(err, errlen, "not a noise file (no \"schema\": \"%s\")", FB_NOISE_SCHEMA);
		return -1;
	}
	if (get_int(top, "schema_version", 0, 1000, &ver) || ver != FB_NOISE_VERSION) {
		snprintf(err, errlen, "schema_version is not %d", FB_NOISE_VERSION);
		return -1;
	}
	if (get_str(top, "kernel_release", nz->release, sizeof(nz->release)) ||
	    get_str(top, "clock", clock, sizeof(clock)) || fb_clock_parse(clock, &nz->clock) ||
	    get_int(top, "rounds", 2, 1000000, &nz->rounds) ||
	    !json_object_object_get_ex(top, "build_ids", &b) ||
	    !json_object_is_type(b, json_type_array) || !json_object_array_length(b) ||
	    json_object_array_length(b) > FB_NOISE_MAX_BUILDS ||
	    !json_object_object_get_ex(top, "metrics", &ms) ||
	    !json_object_is_type(ms, json_type_object)) {
		snprintf(err, errlen, "wants kernel_release, clock, rounds, build_ids (1-%d) and "
			 "metrics", FB_NOISE_MAX_BUILDS);
		return -1;
	}
	for (size_t i = 0; i < json_object_array_length(b); i++) {
		json_object *s = json_object_array_get_idx(b, i);

		if (!json_object_is_type(s, json_type_string) ||
		    strlen(json_object_get_string(s)) >= sizeof(nz->build[0])) {
			snprintf(err, errlen, "build_ids[%zu] is not a build id", i);
			return -1;
		}
		snprintf(nz->build[nz->nbuild++], sizeof(nz->build[0]), "%s",
			 json_object_get_string(s));
	}
	if (read_keys(nz, top, err, errlen))
		return -1;
	json_object_object_foreach(ms, k, v)
		if (read_entry(nz, k, v, err, errlen))
			return -1;
	return 0;
}

int fb_noise_read(struct fb_noise *nz, const char *path, char *err, size_t errlen)
{
	char why[300] = "";
	json_object *top;
	int ret;

	memset(nz, 0, sizeof(*nz));
	snprintf(nz->path, sizeof(nz->path), "%s", path);
	top = fb_json_load(path, "a noise file", why, sizeof(why));
	if (!top) {
		size_t l = strlen(path);	/* why starts "PATH: " */

		snprintf(err, errlen, "%s: cannot read a JSON noise file (%s)", path,
			 strncmp(why, path, l) || strncmp(why + l, ": ", 2) ? why : why + l + 2);
		return -1;
	}
	ret = read_top(nz, top, why, sizeof(why));
	json_object_put(top);
	if (ret)
		snprintf(err, errlen, "%s: %s", path, why);
	return ret;
}

int fb_noise_check(const struct fb_noise *nz, const struct fb_cmp *c, char *err, size_t errlen)
{
	for (int i = 0; i < c->base.n; i++) {
		const struct fb_result *r = c->base.r[i];
		int known = 0;

		char key[64];

		for (int k = 0; k < nz->nbuild && !known; k++)
			known = !strcmp(nz->build[k], r->host.build_id);
		if (!known && !round_key(r, c->base.files[i], c->base.name, key, sizeof(key)))
			for (int k = 0; k < nz->nkey && !known; k++)
				known = !strcmp(nz->key[k], key);
		if (r->host.clock != nz->clock || strcmp(r->host.release, nz->release) || !known) {
			snprintf(err, errlen, "%s: measured on kernel %s (build %.12s%s) with the %s "
				 "clock, but BASE round %s is kernel %s (build %.12s) with the %s "
				 "clock: calibrate on A/A rounds of BASE's kernel", nz->path,
				 nz->release, nz->build[0], nz->nbuild > 1 ? ", ..." : "",
				 fb_clock_name(nz->clock), c->base.files[i], r->host.release,
				 r->host.build_id, fb_clock_name(r->host.clock));
			return -1;
		}
	}
	return 0;
}

int fb_noise_shipped_for(const char *dir, const char *build_id, const char *key,
			 enum fb_clock clock)
{
	struct fb_noise *nz = calloc(1, sizeof(*nz));
	char pat[600], err[512];
	glob_t gl;
	int found = 0;

	snprintf(pat, sizeof(pat), "%s/*.json", dir);
	if (!nz || glob(pat, 0, NULL, &gl)) {
		free(nz);
		return 0;
	}
	for (size_t i = 0; i < gl.gl_pathc && !found; i++) {
		if (fb_noise_read(nz, gl.gl_pathv[i], err, sizeof(err)) || nz->clock != clock)
			continue;
		for (int k = 0; k < nz->nbuild && !found; k++)
			found = !strcmp(nz->build[k], build_id);
		for (int k = 0; k < nz->nkey && !found; k++)
			found = !strcmp(nz->key[k], key);
	}
	globfree(&gl);
	free(nz);
	return found;
}

int fb_noise_shipped(struct fb_noise *nz, const char *dir, const struct fb_cmp *c, char *err,
		     size_t errlen)
{
	char pat[600];
	glob_t gl;
	int found = 1;

	if (!c->base.n)
		return 1;
	snprintf(pat, sizeof(pat), "%s/*.json", dir);
	if (glob(pat, 0, NULL, &gl))
		return 1;
	for (size_t i = 0; i < gl.gl_pathc && found == 1; i++) {
		char why[1024];

		if (fb_noise_read(nz, gl.gl_pathv[i], err, errlen))
			found = -1;	/* a shipped file must read: say which */
		else if (!fb_noise_check(nz, c, why, sizeof(why)))
			found = 0;
	}
	globfree(&gl);
	return found;
}

/* mean and variance of log(v); -1 on a value <= 0 or fewer than 2 */
int fb_noise_test(const struct fb_noise_entry *e, const double *a, int na, const double *b,
		  int nb, double floor_rel, int cross_build, struct fb_noise_test *out)
{
	double ma, va, mb, vb, pool, sa, sb, cal, obs, fl = floor_rel * floor_rel;
	double bv = cross_build ? 2 * e->build_var : 0;
	int dof;

	memset(out, 0, sizeof(*out));
	if (log_mv(a, na, &ma, &va) || log_mv(b, nb, &mb, &vb))
		return -1;
	dof = e->dof + na + nb - 2;
	pool = fmax((e->ss + (na - 1) * va + (nb - 1) * vb) / dof, fl);
	out->d = mb - ma;
	out->se = sqrt(pool * (1.0 / na + 1.0 / nb) + bv);
	out->df = dof;
	/*
	 * These rounds noisier than the calibration (F test of their pooled
	 * variance against the calibrated one, p < FB_NOISE_F_ALPHA): the
	 * calibration does not describe them; Welch on their own spread.
	 */
	cal = fmax(e->dof ? e->ss / e->dof : 0, fl);
	obs = fmax(((na - 1) * va + (nb - 1) * vb) / (na + nb - 2), fl);
	if (!e->dof || fb_f_sf(obs / cal, na + nb - 2, e->dof) < FB_NOISE_F_ALPHA) {
		out->high = e->dof > 0;
		sa = fmax(va, fl) / na;
		sb = fmax(vb, fl) / nb;
		out->se = sqrt(sa + sb + bv);
		out->df = (sa + sb) * (sa + sb) / (sa * sa / (na - 1) + sb * sb / (nb - 1));
	}
	out->p_greater = fb_t_sf(out->d / out->se, out->df);
	out->p_less = fb_t_sf(-out->d / out->se, out->df);
	return 0;
}

double fb_t_quantile(double p, double df)
{
	double lo = 0, hi = 1e3;

	if (!(p > 0 && p <= 0.5) || !(df > 0))
		return NAN;
	for (int i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2;

		if (fb_t_sf(mid, df) > p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

double fb_noise_mde(double se, double df, double alpha, double beta)
{
	return (fb_t_quantile(alpha, df) + fb_t_quantile(beta, df)) * se;
}

int fb_noise_default(struct fb_noise **out, const struct fb_cmp *c)
{
	char dir[PATH_MAX], err[1024];
	size_t skip;
	struct fb_noise *nz;
	int r;

	*out = NULL;
	if (fb_repo_dir(dir, sizeof(dir) - sizeof(FB_NOISE_SHIPPED) - 1) < 0)
		return 0;
	strcat(strcat(dir, "/"), FB_NOISE_SHIPPED);
	nz = calloc(1, sizeof(*nz));
	if (!nz) {
		fb_err("gate: out of memory");
		return -1;
	}
	r = fb_noise_shipped(nz, dir, c, err, sizeof(err));
	if (r < 0) {	/* the checkout's own file: a broken clone, not bad input */
		fb_one_line(err);
		fb_err("shipped noise: %s; `git checkout %s` restores it", err,
		       FB_NOISE_SHIPPED);
	}
	if (r) {
		free(nz);
		return r < 0 ? -1 : 0;
	}
	/* shown as the repository's relative path */
	skip = strlen(dir) - strlen(FB_NOISE_SHIPPED);
	memmove(nz->path, nz->path + skip, strlen(nz->path + skip) + 1);
	*out = nz;
	return 0;
}

void fb_noise_hint(FILE *f, const struct fb_cmp *c)
{
	if (c->base.n)
		fprintf(f, "gate: no noise is calibrated for BASE's kernel (build %.12s): thresholds "
			"came from these rounds alone; `foliobench gate --calibrate AA_DIR --noise "
			"FILE` on A/A rounds of it makes one, then gate --noise FILE (docs/compare.md, "
			"\"Per-row noise\")\n", c->base.r[0]->host.build_id);
}
