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
#define FB_MAX_CONTENTION	32

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

/*
 * ---- workload parameters ----
 * Declared once, in the catalogue (measure/catalogue.c): name, type,
 * default, range, unit and help.  `run` resolves `--param WORKLOAD.KEY=VALUE`
 * against those declarations before anything is attached, and a workload
 * reads the resolved value with fb_param_u64(); it has no default of its own.
 */
enum fb_param_type {
	FB_PARAM_U64,		/* decimal integer in [min, max] */
	FB_PARAM_BOOL,		/* 0 or 1 */
	FB_NPARAMTYPES
};

struct fb_param_def {
	const char *key;	/* "descriptors"; NULL ends a table */
	enum fb_param_type type;
	uint64_t def, min, max;
	const char *unit;	/* "descriptors", "threads", "bytes", ... */
	const char *help;
};

#define FB_MAX_PARAMS		32

struct fb_params {
	int n;
	struct fb_param {
		const char *wl;			/* workload name */
		const struct fb_param_def *def;
		uint64_t val;
		int given;			/* set with --param */
		int reads;			/* fb_param_u64() lookups (unit tests) */
	} v[FB_MAX_PARAMS];
	int undeclared;		/* lookups of keys nobody declared (a bug) */
};

const char *fb_param_type_name(enum fb_param_type t);
/* Adds wl's declared parameters at their defaults: 0, or -1 if full. */
int fb_params_declare(struct fb_params *p, const char *wl, const struct fb_param_def *defs);
/*
 * Sets wl.key from text: 0, or -1 with one line in err naming wl.key and
 * what it allows (unknown key, not a number, out of range).
 */
int fb_params_set(struct fb_params *p, const char *wl, const char *key, const char *val,
		  char *err, size_t errlen);
/*
 * The resolved value of wl.key.  A key nobody declared prints one fb_err()
 * line, counts in p->undeclared and gives 0.
 */
uint64_t fb_param_u64(const struct fb_params *p, const char *wl, const char *key);
/* "1..200000 descriptors", "0 or 1" */
void fb_param_range(const struct fb_param_def *d, char *buf, size_t len);

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

/*
 * How guest time relates to host time.
 *  FB_CLOCK_HOST    TCG or KVM; guest time follows the host's clock, so
 *                   per-call times carry the host's load (CV 2% idle, 30%+
 *                   loaded, measured).
 *  FB_CLOCK_ICOUNT  single-threaded TCG with -icount shift=N,sleep=off:
 *                   guest time advances 2^N ns per instruction executed, so
 *                   a per-call time is an instruction count and does not
 *                   depend on what else the host does.  One vCPU, no KVM.
 */
enum fb_clock { FB_CLOCK_HOST, FB_CLOCK_ICOUNT };

const char *fb_clock_name(enum fb_clock c);
/* "host" | "icount": 0 and *c set, or -1. */
int fb_clock_parse(const char *s, enum fb_clock *c);
/*
 * 0 if the n results ran under one clock mode (and icount shift), else -1
 * with a one-line reason naming what (e.g. "baseline vs patched") in err.
 */
struct fb_result;
int fb_results_same_clock(const struct fb_result *const *r, int n, const char *what,
			  char *err, size_t len);

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
	int adhoc;		/* from run --func/--lock, not the catalogue */
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
		/* the machine that ran the round: foliobench.host= (set by ab), else
		 * gethostname(); "" in files written before it was recorded */
		char hostname[64];
		/* foliobench.clock= and foliobench.icount_shift=; "host" if absent */
		enum fb_clock clock;
		int icount_shift;
	} host;
	int nparams;
	char params[FB_MAX_PARAMS][64];	/* resolved: "nft.descriptors=10025" */
	int nprobes;
	struct fb_probe_result probes[FB_MAX_PROBES];
	int nworkloads;
	struct fb_workload_result workloads[FB_MAX_WORKLOADS];
	int ncontention;
	struct fb_contention contention[FB_MAX_CONTENTION];
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
#define FB_RESULT_MAX_BYTES	(64 << 20)
/* "a FIFO", "a directory", ... for messages about what a path is */
const char *fb_file_type(unsigned int st_mode);
struct fb_result *fb_result_parse(const char *json, size_t len, char *err, size_t errlen);
const struct fb_probe_result *fb_result_probe(const struct fb_result *r, const char *name);
const struct fb_workload_result *fb_result_workload(const struct fb_result *r, const char *name);

/* ---- histogram math (hist.c) ---- */
uint64_t fb_bucket_lo(unsigned int idx);	/* smallest value in bucket */
uint64_t fb_bucket_hi(unsigned int idx);	/* largest value in bucket */
/* p in [0,100]; linear interpolation inside the bucket; 0 if empty. */
double fb_hist_percentile(const struct fb_hist *h, double p);
double fb_hist_mean(const struct fb_hist *h);
/* The mean of the samples up to factor x the median (outliers left out). */
double fb_hist_core_mean(const struct fb_hist *h, double factor);
void fb_hist_add(struct fb_hist *h, uint64_t v);	/* userspace samples */
void fb_hist_merge(struct fb_hist *dst, const struct fb_hist *src);

#endif /* FB_H */
