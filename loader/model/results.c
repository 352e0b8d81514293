// SPDX-License-Identifier: GPL-2.0
/*
 * results.c - the results file: struct fb_result <-> JSON (json-c).
 *
 * Schema "foliobench-results" version 1, documented in docs/results-schema.md.
 * Fields added since (host.clock, host.icount_shift, a probe's adhoc) are
 * optional: files without them read as before, older readers ignore them.
 * The reader validates everything it uses and reports the first problem as
 * one line; it never trusts sizes or types from the file.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "model/results_scan.h"
#include "util/outfile.h"

/* ---- the only place kinds and states are strings ---- */

static const char *const kind_names[FB_NKINDS] = {
	[FB_FUNC] = "func", [FB_LOCK] = "lock",
	[FB_CALLSITE] = "callsite", [FB_CONTENTION] = "contention",
};
static const char *const pstatus_names[FB_NPSTATUS] = {
	[FB_ATTACHED] = "attached", [FB_UNAVAILABLE] = "unavailable", [FB_SKIPPED] = "skipped",
};
static const char *const wlstatus_names[FB_NWLSTATUS] = {
	[FB_WL_OK] = "ok", [FB_WL_FAILED] = "failed",
	[FB_WL_UNAVAILABLE] = "unavailable", [FB_WL_INTERRUPTED] = "interrupted",
};

static const char *enum_name(const char *const *names, int n, int v)
{
	return v >= 0 && v < n ? names[v] : "?";
}

const char *fb_kind_name(enum fb_kind k)
{
	return enum_name(kind_names, FB_NKINDS, (int)k);
}

const char *fb_probe_status_name(enum fb_probe_status s)
{
	return enum_name(pstatus_names, FB_NPSTATUS, (int)s);
}

const char *fb_wl_status_name(enum fb_wl_status s)
{
	return enum_name(wlstatus_names, FB_NWLSTATUS, (int)s);
}

/* ---- writing ---- */

static void put_str(json_object *o, const char *k, const char *v)
{
	json_object_object_add(o, k, json_object_new_string(v));
}

static void put_u64(json_object *o, const char *k, uint64_t v)
{
	json_object_object_add(o, k, json_object_new_uint64(v));
}

static json_object *hist_to_json(const char *name, const struct fb_hist *h)
{
	json_object *o = json_object_new_object();
	json_object *b = json_object_new_array();

	put_str(o, "name", name);
	put_str(o, "unit", h->unit);
	put_u64(o, "count", h->count);
	put_u64(o, "sum", h->sum);
	put_u64(o, "min", h->min);
	put_u64(o, "max", h->max);
	for (unsigned int i = 0; i < FB_NBUCKETS; i++) {
		json_object *pair;

		if (!h->buckets[i])
			continue;
		pair = json_object_new_array();
		json_object_array_add(pair, json_object_new_uint64(fb_bucket_lo(i)));
		json_object_array_add(pair, json_object_new_uint64(h->buckets[i]));
		json_object_array_add(b, pair);
	}
	json_object_object_add(o, "buckets", b);
	return o;
}

static json_object *probe_to_json(const struct fb_probe_result *p)
{
	json_object *o = json_object_new_object();
	json_object *st = json_object_new_array();

	put_str(o, "name", p->name);
	put_str(o, "series", p->series);
	put_str(o, "kind", fb_kind_name(p->kind));
	put_str(o, "status", fb_probe_status_name(p->status));
	put_str(o, "method", p->method);
	put_str(o, "symbol", p->symbol);
	put_str(o, "reason", p->reason);
	if (p->adhoc)	/* optional: catalogue rows do not carry it */
		json_object_object_add(o, "adhoc", json_object_new_boolean(1));
	if (p->gate[0])	/* optional: only rows that declare one */
		put_str(o, "gate", p->gate);
	for (int i = 0; i < p->nstats; i++)
		json_object_array_add(st, hist_to_json(p->stats[i].name, &p->stats[i].h));
	json_object_object_add(o, "stats", st);
	return o;
}

static json_object *workload_to_json(const struct fb_workload_result *w)
{
	json_object *o = json_object_new_object();
	json_object *ops = json_object_new_object();

	put_str(o, "name", w->name);
	put_str(o, "status", fb_wl_status_name(w->status));
	put_str(o, "reason", w->reason);
	put_u64(o, "wall_ns", w->wall_ns);
	for (int i = 0; i < w->ops.n; i++)
		put_u64(ops, w->ops.v[i].name, w->ops.v[i].val);
	json_object_object_add(o, "ops", ops);
	return o;
}

static json_object *host_to_json(const struct fb_result *r)
{
	json_object *h = json_object_new_object();

	put_str(h, "kernel_release", r->host.release);
	put_str(h, "kernel_version", r->host.version);
	put_str(h, "build_id", r->host.build_id);
	put_str(h, "config_sha256", r->host.config_sha256);
	put_str(h, "cmdline", r->host.cmdline);
	put_str(h, "cpu_model", r->host.cpu_model);
	put_u64(h, "ncpus", (uint64_t)r->host.ncpus);
	put_str(h, "arm", r->host.arm);
	put_str(h, "hostname", r->host.hostname);
	put_str(h, "clock", fb_clock_name(r->host.clock));
	put_u64(h, "icount_shift", (uint64_t)r->host.icount_shift);
	return h;
}

static json_object *result_to_json(const struct fb_result *r)
{
	json_object *o = json_object_new_object();
	json_object *a;

	put_str(o, "schema", FB_SCHEMA);
	json_object_object_add(o, "schema_version", json_object_new_int(FB_SCHEMA_VERSION));
	put_str(o, "tool_version", r->tool_version);
	put_str(o, "label", r->label);
	put_str(o, "started", r->started);
	json_object_object_add(o, "host", host_to_json(r));
	a = json_object_new_array();
	for (int i = 0; i < r->nparams; i++)
		json_object_array_add(a, json_object_new_string(r->params[i]));
	json_object_object_add(o, "params", a);
	a = json_object_new_array();
	for (int i = 0; i < r->nprobes; i++)
		json_object_array_add(a, probe_to_json(&r->probes[i]));
	json_object_object_add(o, "probes", a);
	a = json_object_new_array();
	for (int i = 0; i < r->nworkloads; i++)
		json_object_array_add(a, workload_to_json(&r->workloads[i]));
	json_object_object_add(o, "workloads", a);
	a = json_object_new_array();
	for (int i = 0; i < r->ncontention; i++) {
		const struct fb_contention *c = &r->contention[i];
		json_object *e = json_object_new_object();

		put_str(e, "lock", c->lock);
		put_u64(e, "addr", c->addr);
		put_u64(e, "count", c->count);
		put_u64(e, "wait_ns", c->wait_ns);
		put_u64(e, "max_ns", c->max_ns);
		json_object_array_add(a, e);
	}
	json_object_object_add(o, "contention", a);
	a = json_object_new_object();
	for (int i = 0; i < r->nextra; i++)
		json_object_object_add(a, r->extra[i].key, json_object_new_double(r->extra[i].val));
	json_object_object_add(o, "extra", a);
	return o;
}

int fb_result_save(const struct fb_result *r, const char *path)
{
	json_object *o = result_to_json(r);
	const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
						     JSON_C_TO_STRING_NOSLASHESCAPE);
	char err[PATH_MAX + 128];
	struct fb_out out;
	int ret = 0;

	if (strcmp(path, "-")) {	/* whole or not at all (util/outfile.h) */
		ret = fb_out_open(&out, path, err, sizeof(err));
		if (!ret) {
			fprintf(out.f, "%s\n", s);
			ret = fb_out_commit(&out, err, sizeof(err));
		}
		if (ret)
			fb_err("%s", err);
	} else if (fputs(s, stdout) < 0 || fputc('\n', stdout) < 0 || fflush(stdout)) {
		fb_err("cannot write %s: %s", path, strerror(errno));
		ret = -1;
	}
	json_object_put(o);
	return ret;
}

/* ---- reading ---- */

struct rd {
	char *err;
	size_t errlen;
	int failed;
	const struct fb_scan *sc;	/* bucket lists read before json-c */
};

static void rd_fail(struct rd *rd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void rd_fail(struct rd *rd, const char *fmt, ...)
{
	va_list ap;

	if (rd->failed)
		return;
	rd->failed = 1;
	va_start(ap, fmt);
	vsnprintf(rd->err, rd->errlen, fmt, ap);
	va_end(ap);
	/* names echoed from the file must not break the one-line error */
	for (char *c = rd->err; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
}

static json_object *get(struct rd *rd, json_object *o, const char *k,
			json_type t, const char *where)
{
	json_object *v;

	if (!json_object_object_get_ex(o, k, &v) || !json_object_is_type(v, t)) {
		rd_fail(rd, "%s: field '%s' missing or of the wrong type", where, k);
		return NULL;
	}
	return v;
}

static void get_str(struct rd *rd, json_object *o, const char *k, char *dst,
		    size_t len, const char *where)
{
	json_object *v = get(rd, o, k, json_type_string, where);

	dst[0] = '\0';
	if (v)
		snprintf(dst, len, "%s", json_object_get_string(v));
}

/* get_str of a field never cut (a name): longer than len - 1 fails the file */
static void get_whole(struct rd *rd, json_object *o, const char *k, char *dst,
		      size_t len, const char *where)
{
	json_object *v;

	get_str(rd, o, k, dst, len, where);
	if (json_object_object_get_ex(o, k, &v) && json_object_is_type(v, json_type_string) &&
	    strlen(json_object_get_string(v)) >= len)
		rd_fail(rd, "%s: field '%s' longer than %zu characters", where, k, len - 1);
}

/* A string field that must be one of names[0..n): its index, or 0 after rd_fail. */
static int get_enum(struct rd *rd, json_object *o, const char *k, const char *const *names,
		    int n, const char *where)
{
	char buf[32];

	get_str(rd, o, k, buf, sizeof(buf), where);
	if (!buf[0])
		return 0;
	for (int i = 0; i < n; i++)
		if (!strcmp(buf, names[i]))
			return i;
	rd_fail(rd, "%s: field '%s' has unknown value '%s'", where, k, buf);
	return 0;
}

/*
 * A JSON integer in [0, 2^64): 0 and its value, or -1.  Integers beyond
 * 64 bits never get here (scan_ints() refuses them: json-c would clamp);
 * a fraction, exponent, NaN or Infinity is a double and refused.
 */
static int json_u64(json_object *v, uint64_t *out)
{
	if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0)
		return -1;
	*out = json_object_get_uint64(v);
	return 0;
}

static uint64_t get_u64(struct rd *rd, json_object *o, const char *k, const char *where)
{
	json_object *v;
	uint64_t x = 0;

	if (!json_object_object_get_ex(o, k, &v)) {
		rd_fail(rd, "%s: field '%s' missing or not a number", where, k);
		return 0;
	}
	if (json_u64(v, &x))
		rd_fail(rd, "%s: field '%s' is %s, not an integer in 0..2^64-1", where, k,
			json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
	return x;
}

/*
 * Sparse [value, count] pairs into h->buckets.  The counts must not sum
 * past h->count (checked without overflow): an overflowing sum made p50,
 * p90 and p99 one value.  They may sum to less: `run` reads the buckets
 * before the per-CPU counts while the probes are still attached.
 */
static void read_buckets(struct rd *rd, json_object *b, const char *name, struct fb_hist *h,
			 const char *where)
{
	size_t n = json_object_array_length(b);
	uint64_t total = 0;

	for (size_t i = 0; i < n; i++) {
		json_object *pair = json_object_array_get_idx(b, i);
		uint64_t val, cnt;
		unsigned int idx;

		if (!json_object_is_type(pair, json_type_array) ||
		    json_object_array_length(pair) != 2 ||
		    json_u64(json_object_array_get_idx(pair, 0), &val) ||
		    json_u64(json_object_array_get_idx(pair, 1), &cnt)) {
			rd_fail(rd, "%s: stat '%s': bucket %zu is not a [value, count] pair of "
				"integers in 0..2^64-1", where, name, i);
			return;
		}
		idx = fb_bucket(val);
		if (__builtin_add_overflow(total, cnt, &total) ||
		    __builtin_add_overflow(h->buckets[idx], cnt, &h->buckets[idx])) {
			rd_fail(rd, "%s: stat '%s': bucket counts overflow 64 bits", where, name);
			return;
		}
	}
	if (total > h->count)
		rd_fail(rd, "%s: stat '%s': bucket counts sum to %llu, more than count %llu", where,
			name, (unsigned long long)total, (unsigned long long)h->count);
}

/* The bucket list the scan read: its checks, as read_buckets() makes them. */
static void scanned_buckets(struct rd *rd, const struct fb_scan_stat *st, const char *name,
			    const struct fb_hist *h, const char *where)
{
	if (st->dup)
		rd_fail(rd, "%s: stat '%s': more than one bucket list%s", where, name, "");
	else if (st->overflow)
		rd_fail(rd, "%s: stat '%s': bucket counts overflow 64 bits", where, name);
	else if (st->total > h->count)
		rd_fail(rd, "%s: stat '%s': bucket counts sum to %llu, more than count %llu", where,
			name, (unsigned long long)st->total, (unsigned long long)h->count);
}

/* Stat k of probe i; its buckets may hold what the scan read (st->done). */
static void read_hist(struct rd *rd, json_object *o, char *name, size_t nlen,
		      struct fb_hist *h, const char *where, const struct fb_scan_stat *st)
{
	json_object *b;

	if (!st->done && !st->dup)
		memset(h->buckets, 0, sizeof(h->buckets));
	memset(h->unit, 0, sizeof(h->unit));
	h->count = h->sum = h->min = h->max = 0;
	get_str(rd, o, "name", name, nlen, where);
	get_str(rd, o, "unit", h->unit, sizeof(h->unit), where);
	h->count = get_u64(rd, o, "count", where);
	h->sum = get_u64(rd, o, "sum", where);
	h->min = get_u64(rd, o, "min", where);
	h->max = get_u64(rd, o, "max", where);
	b = get(rd, o, "buckets", json_type_array, where);
	if (b && (st->done || st->dup))
		scanned_buckets(rd, st, name, h, where);
	else if (b)
		read_buckets(rd, b, name, h, where);
}

static void read_probe(struct rd *rd, json_object *o, struct fb_probe_result *p, int pi)
{
	json_object *st;
	size_t n;

	get_str(rd, o, "name", p->name, sizeof(p->name), "probe");
	get_str(rd, o, "series", p->series, sizeof(p->series), p->name);
	p->kind = (enum fb_kind)get_enum(rd, o, "kind", kind_names, FB_NKINDS, p->name);
	p->status = (enum fb_probe_status)get_enum(rd, o, "status", pstatus_names, FB_NPSTATUS,
						   p->name);
	get_str(rd, o, "method", p->method, sizeof(p->method), p->name);
	get_str(rd, o, "symbol", p->symbol, sizeof(p->symbol), p->name);
	get_str(rd, o, "reason", p->reason, sizeof(p->reason), p->name);
	if (json_object_object_get_ex(o, "adhoc", &st)) {	/* optional */
		if (!json_object_is_type(st, json_type_boolean))
			rd_fail(rd, "%s: field '%s' must be true or false", p->name, "adhoc");
		p->adhoc = json_object_get_boolean(st);
	}
	if (json_object_object_get_ex(o, "gate", &st)) {	/* optional */
		get_str(rd, o, "gate", p->gate, sizeof(p->gate), p->name);
		if (json_object_is_type(st, json_type_string) &&
		    strlen(json_object_get_string(st)) >= sizeof(p->gate))
			rd_fail(rd, "%s: field '%s' longer than %zu characters", p->name, "gate",
				sizeof(p->gate) - 1);
	}
	st = get(rd, o, "stats", json_type_array, p->name);
	if (!st)
		return;
	n = json_object_array_length(st);
	if (n > FB_MAX_STATS) {
		rd_fail(rd, "%s: more than %d stats (limit FB_MAX_STATS = %d)", p->name,
			FB_MAX_STATS, FB_MAX_STATS);
		return;
	}
	p->nstats = (int)n;
	for (size_t i = 0; i < n; i++) {
		json_object *h = json_object_array_get_idx(st, i);

		if (!json_object_is_type(h, json_type_object)) {
			rd_fail(rd, "%s: %s is not an object", p->name, "a stats entry");
			return;
		}
		read_hist(rd, h, p->stats[i].name, sizeof(p->stats[i].name),
			  &p->stats[i].h, p->name, &rd->sc->st[pi][i]);
	}
}

static void read_workload(struct rd *rd, json_object *o, struct fb_workload_result *w)
{
	json_object *ops;

	get_str(rd, o, "name", w->name, sizeof(w->name), "workload");
	w->status = (enum fb_wl_status)get_enum(rd, o, "status", wlstatus_names, FB_NWLSTATUS,
						w->name);
	get_str(rd, o, "reason", w->reason, sizeof(w->reason), w->name);
	w->wall_ns = get_u64(rd, o, "wall_ns", w->name);
	ops = get(rd, o, "ops", json_type_object, w->name);
	if (!ops)
		return;
	json_object_object_foreach(ops, k, v) {
		if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0) {
			rd_fail(rd, "%s: op count '%s' is not a non-negative integer", w->name, k);
			return;
		}
		fb_count_set(&w->ops, k, json_object_get_uint64(v));
	}
}

#define FB_MAX_NCPUS 65536

/* Optional (files before the clock modes are host-clock runs). */
static void read_clock(struct rd *rd, json_object *h, struct fb_result *r)
{
	json_object *v;

	r->host.clock = FB_CLOCK_HOST;
	if (json_object_object_get_ex(h, "clock", &v) &&
	    (!json_object_is_type(v, json_type_string) ||
	     fb_clock_parse(json_object_get_string(v), &r->host.clock) < 0)) {
		rd_fail(rd, "host: field 'clock' must be \"host\" or \"icount\"");
		return;
	}
	if (json_object_object_get_ex(h, "icount_shift", &v)) {
		uint64_t s = get_u64(rd, h, "icount_shift", "host");

		if (s > 63)
			rd_fail(rd, "host: field 'icount_shift' is out of range");
		r->host.icount_shift = (int)s;
	}
}

static void read_host(struct rd *rd, json_object *o, struct fb_result *r)
{
	json_object *h = get(rd, o, "host", json_type_object, "results");
	uint64_t ncpus;

	if (!h)
		return;
	get_str(rd, h, "kernel_release", r->host.release, sizeof(r->host.release), "host");
	get_str(rd, h, "kernel_version", r->host.version, sizeof(r->host.version), "host");
	get_str(rd, h, "build_id", r->host.build_id, sizeof(r->host.build_id), "host");
	get_str(rd, h, "config_sha256", r->host.config_sha256, sizeof(r->host.config_sha256), "host");
	get_str(rd, h, "cmdline", r->host.cmdline, sizeof(r->host.cmdline), "host");
	get_str(rd, h, "cpu_model", r->host.cpu_model, sizeof(r->host.cpu_model), "host");
	get_whole(rd, h, "arm", r->host.arm, sizeof(r->host.arm), "host");
	ncpus = get_u64(rd, h, "ncpus", "host");
	if (ncpus > FB_MAX_NCPUS)
		rd_fail(rd, "host: field 'ncpus' is %llu, more than %d", (unsigned long long)ncpus,
			FB_MAX_NCPUS);
	r->host.ncpus = (int)ncpus;
	if (json_object_object_get_ex(h, "hostname", NULL))	/* optional: newer files */
		get_str(rd, h, "hostname", r->host.hostname, sizeof(r->host.hostname), "host");
	read_clock(rd, h, r);
}

/* An array field with at most max entries; returns its length or 0. */
static size_t get_array(struct rd *rd, json_object *o, const char *k, size_t max,
			json_object **out)
{
	size_t n;

	*out = get(rd, o, k, json_type_array, "results");
	if (!*out)
		return 0;
	n = json_object_array_length(*out);
	if (n > max) {
		rd_fail(rd, "results: more than %zu entries in '%s' (the reader's limit)", max, k);
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(*out, i);

		if (!json_object_is_type(e, strcmp(k, "params") ? json_type_object : json_type_string)) {
			rd_fail(rd, "results: an entry of '%s' has the wrong type%s", k, "");
			return 0;
		}
	}
	return n;
}

/*
 * Rows are looked up by name (fb_result_probe(), compare's rows): a second
 * row of one name would be silently ignored, however it differs.
 */
static void check_unique(struct rd *rd, const struct fb_result *r)
{
	for (int i = 0; i < r->nprobes && !rd->failed; i++)
		for (int k = 0; k < i; k++)
			if (!strcmp(r->probes[i].name, r->probes[k].name)) {
				rd_fail(rd, "results: probe '%s' twice (probes %d and %d)",
					r->probes[i].name, k, i);
				break;
			}
	for (int i = 0; i < r->nworkloads && !rd->failed; i++)
		for (int k = 0; k < i; k++)
			if (!strcmp(r->workloads[i].name, r->workloads[k].name)) {
				rd_fail(rd, "results: workload '%s' twice (workloads %d and %d)",
					r->workloads[i].name, k, i);
				break;
			}
}

static void read_lists(struct rd *rd, json_object *o, struct fb_result *r)
{
	json_object *a;

	r->nparams = (int)get_array(rd, o, "params", FB_MAX_PARAMS, &a);
	for (int i = 0; i < r->nparams; i++)
		snprintf(r->params[i], sizeof(r->params[i]), "%s",
			 json_object_get_string(json_object_array_get_idx(a, (size_t)i)));
	r->nprobes = (int)get_array(rd, o, "probes", FB_MAX_PROBES, &a);
	for (int i = 0; i < r->nprobes && !rd->failed; i++)
		read_probe(rd, json_object_array_get_idx(a, (size_t)i), &r->probes[i], i);
	r->nworkloads = (int)get_array(rd, o, "workloads", FB_MAX_WORKLOADS, &a);
	for (int i = 0; i < r->nworkloads && !rd->failed; i++)
		read_workload(rd, json_object_array_get_idx(a, (size_t)i), &r->workloads[i]);
	check_unique(rd, r);
	r->ncontention = (int)get_array(rd, o, "contention", FB_MAX_CONTENTION, &a);
	for (int i = 0; i < r->ncontention && !rd->failed; i++) {
		json_object *e = json_object_array_get_idx(a, (size_t)i);
		struct fb_contention *c = &r->contention[i];

		get_str(rd, e, "lock", c->lock, sizeof(c->lock), "contention");
		c->addr = get_u64(rd, e, "addr", "contention");
		c->count = get_u64(rd, e, "count", "contention");
		c->wait_ns = get_u64(rd, e, "wait_ns", "contention");
		c->max_ns = get_u64(rd, e, "max_ns", "contention");
	}
}

static void read_extra(struct rd *rd, json_object *o, struct fb_result *r)
{
	json_object *x = get(rd, o, "extra", json_type_object, "results");

	if (!x)
		return;
	json_object_object_foreach(x, k, v) {
		if (r->nextra == FB_MAX_EXTRA)
			break;
		if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int)) {
			rd_fail(rd, "extra: '%s' is not a number%s", k, "");
			return;
		}
		/* json-c reads NaN, Infinity and 1e400: no JSON writer may echo them */
		if (!isfinite(json_object_get_double(v))) {
			rd_fail(rd, "extra: '%s' is %s, not a finite number", k,
				json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
			return;
		}
		snprintf(r->extra[r->nextra].key, sizeof(r->extra[0].key), "%s", k);
		r->extra[r->nextra++].val = json_object_get_double(v);
	}
}

static void read_result(struct rd *rd, json_object *o, struct fb_result *r)
{
	char schema[64];
	json_object *v;

	if (!json_object_is_type(o, json_type_object)) {
		rd_fail(rd, "not a foliobench results file (top level is not an object)%s%s", "", "");
		return;
	}
	get_str(rd, o, "schema", schema, sizeof(schema), "results");
	if (!rd->failed && strcmp(schema, FB_SCHEMA)) {
		rd_fail(rd, "not a foliobench results file (schema '%s')%s", schema, "");
		return;
	}
	v = get(rd, o, "schema_version", json_type_int, "results");
	if (v && json_object_get_int(v) != FB_SCHEMA_VERSION) {
		char got[24];

		snprintf(got, sizeof(got), "%d", json_object_get_int(v));
		rd_fail(rd, "unsupported schema version %s (this foliobench reads %s)", got, "1");
		return;
	}
	r->schema_version = FB_SCHEMA_VERSION;
	get_str(rd, o, "tool_version", r->tool_version, sizeof(r->tool_version), "results");
	get_whole(rd, o, "label", r->label, sizeof(r->label), "results");
	get_str(rd, o, "started", r->started, sizeof(r->started), "results");
	read_host(rd, o, r);
	read_lists(rd, o, r);
	read_extra(rd, o, r);
}

int fb_result_from_tree(json_object *o, const struct fb_scan *sc, struct fb_result *r,
			char *err, size_t errlen)
{
	struct rd rd = { .err = err, .errlen = errlen, .sc = sc };

	read_result(&rd, o, r);
	return rd.failed ? -1 : 0;
}

const struct fb_probe_result *fb_result_probe(const struct fb_result *r, const char *name)
{
	for (int i = 0; i < r->nprobes; i++)
		if (!strcmp(r->probes[i].name, name))
			return &r->probes[i];
	return NULL;
}

const struct fb_workload_result *fb_result_workload(const struct fb_result *r, const char *name)
{
	for (int i = 0; i < r->nworkloads; i++)
		if (!strcmp(r->workloads[i].name, name))
			return &r->workloads[i];
	return NULL;
}
