/* SPDX-License-Identifier: GPL-2.0 */
/*
 * model/fb.h - the results model: what `run` measures and every reader reads.
 *
 * Data flows one way: `run` fills a struct fb_result and writes it as JSON
 * (results.c, schema FB_SCHEMA_VERSION); compare/report/gate read it back
 * with fb_result_load() and never look at the kernel.
 */
#ifndef FB_H
#define FB_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fbhist.h"
#include "util/util.h"

#define FB_SCHEMA		"foliobench-results"
#define FB_SCHEMA_VERSION	1

#define FB_MAX_COUNTS		24
#define FB_MAX_PROBES		FB_MAX_SLOTS
#define FB_MAX_WORKLOADS	8
#define FB_MAX_EXTRA		64

/* ---- named counters: workload op counts ---- */
struct fb_counts {
	int n;
	struct {
		char name[40];
		uint64_t val;
	} v[FB_MAX_COUNTS];
};

void fb_count_set(struct fb_counts *c, const char *name, uint64_t val);
void fb_count_add(struct fb_counts *c, const char *name, uint64_t val);
/* Returns 0 and stores the value, or -1 if the counter does not exist. */
int fb_count_get(const struct fb_counts *c, const char *name, uint64_t *val);

/* ---- workload parameters: `--param WORKLOAD.KEY=VALUE` ---- */
struct fb_params {
	int n;
	const char *kv[32];	/* "nft.descriptors=10025" */
};

uint64_t fb_param_u64(const struct fb_params *p, const char *workload,
		      const char *key, uint64_t def);

/* ---- results (results.c) ---- */
struct fb_hist {
	char unit[8];			/* "ns" */
	uint64_t count, sum, min, max;
	uint64_t buckets[FB_NBUCKETS];	/* dense here, sparse in JSON */
};

/*
 * Kinds and states as enums end to end; their JSON strings exist only in
 * results.c (fb_*_name() and the reader's mapping).
 */
enum fb_kind {
	FB_FUNC,	/* function latency: fentry/fexit, else kprobe/kretprobe */
	FB_LOCK,	/* one lock: acquisitions, hold and wait time */
	FB_CALLSITE,	/* kmem:kmalloc from inside a function (tracepoint) */
	FB_CONTENTION,	/* lock:contention_begin/end by lock address */
	FB_NKINDS
};

enum fb_probe_status { FB_ATTACHED, FB_UNAVAILABLE, FB_SKIPPED, FB_NPSTATUS };

enum fb_wl_status { FB_WL_OK, FB_WL_FAILED, FB_WL_UNAVAILABLE, FB_WL_INTERRUPTED, FB_NWLSTATUS };

const char *fb_kind_name(enum fb_kind k);
const char *fb_probe_status_name(enum fb_probe_status s);
const char *fb_wl_status_name(enum fb_wl_status s);

/* lock rows: hold, wait, and for rwsems hold_read, wait_read */
#define FB_MAX_STATS 4
struct fb_probe_result {
	char name[48];
	char series[24];
	enum fb_kind kind;
	enum fb_probe_status status;
	char method[16];	/* fentry | kprobe | tracepoint | raw_tp | - */
	char symbol[64];	/* what it attached to */
	char reason[192];	/* why unavailable / notes */
	int nstats;
	struct {
		char name[16];	/* latency | size | hold | wait | hold_read | wait_read */
		struct fb_hist h;
	} stats[FB_MAX_STATS];
};

struct fb_workload_result {
	char name[24];
	enum fb_wl_status status;
	char reason[192];
	uint64_t wall_ns;
	struct fb_counts ops;
};

struct fb_contention {		/* lock:contention_begin/end, by address */
	char lock[64];		/* symbol name or 0x address */
	uint64_t addr, count, wait_ns, max_ns;
};

struct fb_result {
	int schema_version;
	char tool_version[16];
	char label[64];
	char started[32];		/* ISO 8601 UTC */
	struct {
		char release[96];
		char version[160];
		char build_id[64];
		char config_sha256[72];
		char cmdline[512];
		char cpu_model[96];
		int ncpus;
		char arm[32];		/* from the kernel's cmdline foliobench.arm= */
	} host;
	int nparams;
	char params[32][64];
	int nprobes;
	struct fb_probe_result probes[FB_MAX_PROBES];
	int nworkloads;
	struct fb_workload_result workloads[FB_MAX_WORKLOADS];
	int ncontention;
	struct fb_contention contention[32];
	/* free-form numeric companions: "lockdep_stats.after.direct dependencies" */
	int nextra;
	struct {
		char key[80];
		double val;
	} extra[FB_MAX_EXTRA];
};

/* Writes r as JSON to path ("-" is stdout). 0 or -1 (fb_err printed). */
int fb_result_save(const struct fb_result *r, const char *path);
/*
 * Reads and validates a results file.  Returns a malloc'd result, or NULL
 * with a one-line reason in err (wrong schema/version, truncated, corrupt,
 * missing fields).  Never crashes on bad input.
 */
struct fb_result *fb_result_load(const char *path, char *err, size_t errlen);
struct fb_result *fb_result_parse(const char *json, size_t len, char *err, size_t errlen);
const struct fb_probe_result *fb_result_probe(const struct fb_result *r, const char *name);
const struct fb_workload_result *fb_result_workload(const struct fb_result *r, const char *name);

/* ---- histogram math (hist.c) ---- */
uint64_t fb_bucket_lo(unsigned int idx);	/* smallest value in bucket */
uint64_t fb_bucket_hi(unsigned int idx);	/* largest value in bucket */
/* p in [0,100]; linear interpolation inside the bucket; 0 if empty. */
double fb_hist_percentile(const struct fb_hist *h, double p);
double fb_hist_mean(const struct fb_hist *h);
void fb_hist_add(struct fb_hist *h, uint64_t v);	/* userspace samples */
void fb_hist_merge(struct fb_hist *dst, const struct fb_hist *src);

#endif /* FB_H */
