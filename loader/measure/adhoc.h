/* SPDX-License-Identifier: GPL-2.0 */
/*
 * measure/adhoc.h - ad-hoc rows: `run --func SYM|GLOB` and `--lock
 * SYM[.MEMBER]` as probe definitions the session attaches like catalogue
 * rows (probes.c), marked "adhoc" in the results.
 */
#ifndef FB_ADHOC_H
#define FB_ADHOC_H

#include "measure/catalogue.h"
#include "measure/ksyms.h"
#include "util/symspec.h"

#define FB_ADHOC_MAX	(FB_ADHOC_FUNCS + FB_ADHOC_LOCKS)

struct fb_adhoc {
	struct fb_probe_def defs[FB_ADHOC_MAX];
	int n;
	/* storage the definitions point into */
	char name[FB_ADHOC_MAX][FB_SYM_MAX + 1];
	char sym[FB_ADHOC_MAX][FB_SYM_MAX + 1];
	char member[FB_ADHOC_MAX][2 * FB_SYM_MAX + 2];	/* "struct.member" */
	char why[FB_ADHOC_MAX][160];
};

/* What run was given; the catalogue selection (--probes) to leave out. */
struct fb_adhoc_args {
	const char *const *func, *const *lock, *const *pat;
	int nfunc, nlock, npat;
};

/*
 * Builds the rows: each --func name as given, each glob expanded against
 * ks (text symbols, sorted by name), each --lock resolved against this
 * kernel's BTF (its lock type, the struct holding MEMBER; a row that
 * cannot be resolved says why when the session opens).  A name that is
 * already a row of the run is left out with an info line.  0, or -1 with
 * one line in err: a glob matching nothing or more than FB_ADHOC_FUNCS
 * functions, more rows than a run has histograms for.
 */
int fb_adhoc_build(struct fb_adhoc *a, const struct fb_ksyms *ks, const struct fb_adhoc_args *in,
		   char *err, size_t len);

#endif /* FB_ADHOC_H */
