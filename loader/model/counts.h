/* SPDX-License-Identifier: GPL-2.0 */
/*
 * model/counts.h - named counters (workload op counts) and workload parameters
 * (counts.c).
 */
#ifndef FB_COUNTS_H
#define FB_COUNTS_H

#include <stddef.h>
#include <stdint.h>

#define FB_MAX_COUNTS		48

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

#endif /* FB_COUNTS_H */
