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
#include "model/clock.h"
#include "model/counts.h"
#include "model/hist.h"
#include "util/infile.h"
#include "util/util.h"

#define FB_SCHEMA		"foliobench-results"
#define FB_SCHEMA_VERSION	1

#define FB_MAX_PROBES		FB_MAX_SLOTS
#define FB_MAX_WORKLOADS	8
#define FB_MAX_EXTRA		64
#define FB_MAX_CONTENTION	32

/* ---- results (results.c) ---- */
/*
 * Kinds and states as enums end to end; their JSON strings exist only in
 * results.c (fb_*_name() and the reader's mapping).
 */
enum fb_kind {
	FB_FUNC,	/* function latency: fsession or fentry/fexit, else kprobe/kretprobe */
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
 * lock rows: hold, wait, for rwsems hold_read, wait_read, and where the
 * workload marks a phase, hold@<phase>: the holds released in it
 */
#define FB_MAX_STATS 5
struct fb_probe_result {
	char name[48];
	char series[24];
	enum fb_kind kind;
	enum fb_probe_status status;
	char method[32];	/* fentry | fsession | kprobe | fexit+fentry/lock | ... */
	char symbol[64];	/* what it attached to */
	char reason[384];	/* why unavailable (every method tried) / notes */
	int adhoc;		/* from run --func/--lock, not the catalogue */
	char gate[24];		/* the catalogue's gated statistic for the row, or "" */
	int nstats;
	struct {
		char name[16];	/* latency | size | hold | wait | hold_read | wait_read | hold@<phase> */
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
		char arm[64];		/* from the kernel's cmdline foliobench.arm= (an ab arm name) */
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
struct fb_result *fb_result_parse(const char *json, size_t len, char *err, size_t errlen);
const struct fb_probe_result *fb_result_probe(const struct fb_result *r, const char *name);
const struct fb_workload_result *fb_result_workload(const struct fb_result *r, const char *name);

#endif /* FB_H */
