/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ab_env.h - what `foliobench ab` was asked for and what it ran, shared by
 * its units (guest/ab.h has the command itself): ab.c (options, kernels, the interleaved rounds, ab.json), ab_pp.c
 * (--per-patch: the prefixes, reusable rounds, per-patch.json, the
 * attribution table) and ab_arms.c (--arm: the user's own kernels).
 */
#ifndef FB_AB_ENV_H
#define FB_AB_ENV_H

#include <json-c/json.h>
#include <limits.h>

#include "model/fb.h"
#include "analysis/attrib/attrib.h"
#include "analysis/compare/stats.h"
#include "analysis/gate/gate.h"
#include "guest/shard.h"
#include "guest/kernel.h"
#include "guest/vm.h"
#include "util/symspec.h"

#define AB_MAX_ROUNDS	FB_STATS_MAX_N
/*
 * per-patch: 7 rounds per kernel.  The exact U test of 7 against 7 rounds
 * that do not overlap gives p = 0.00058, which survives Holm over ~80
 * cells; 5 rounds (p = 0.0079) would survive only a family of 6.
 */
#define AB_PP_ROUNDS	7
#define AB_MAX_WL	FB_MAX_WORKLOADS
#define AB_MAX_PARAMS	32
#define AB_MAX_ARMS	(FB_ATTRIB_MAX_STEPS + 1)
#define AB_MAX_USER	2	/* --arm: one per side */

/* --arm NAME=SRC: a kernel from the user's patch directory or git tree */
struct ab_user_arm {
	char name[64];
	char spec[PATH_MAX + 80];	/* NAME=SRC with SRC made absolute */
};

struct ab_arm {
	char name[64];		/* baseline | patched | SERIES@N: its directory */
	char spec[PATH_MAX + 80];	/* as given; a user arm: NAME=/abs/SRC */
	char bz[PATH_MAX];
	char key[1024];		/* per-patch: what its rounds were measured with */
	int keep;		/* per-patch: rounds in DIR/<name> are reusable */
	struct fb_kident id;	/* build id and config hash, for merge */
};

struct ab_run {
	int round, arm, rc, reused;
	double boot_s, total_s;
	char result[PATH_MAX];
	char console[PATH_MAX];
};

/* Everything `ab` was asked for, filled by the option parser. */
struct ab_env {
	struct ab_arm arms[AB_MAX_ARMS];
	int narms;
	const char *wl[AB_MAX_WL], *params[AB_MAX_PARAMS], *probes[AB_MAX_WL];
	int nwl, nparams, nprobes, rounds;
	const char *flavour, *out_opt, *extra_append;
	const char *arm_append[2];	/* --base-append, --new-append */
	const char *series;	/* --per-patch */
	int from, to, rerun;	/* patches from..to of it (1-based, 0: first/last) */
	char patch[AB_MAX_ARMS][128];	/* per-patch: patch file of arm i (i >= 1) */
	struct fb_vm_opts vo;
	char out[PATH_MAX], exe[PATH_MAX], started[32];
	struct fb_seq seq;	/* --until-decided: seq.max > 0 */
	struct fb_shard sh;	/* --shard, --build-only, --no-build, --cache */
	struct fb_adhoc_opts adhoc;	/* --func, --lock: passed to the guest's run */
	struct ab_user_arm user[AB_MAX_USER];	/* --arm NAME=SRC */
	int nuser;
};

/* ab.c */
json_object *ab_json_strs(const char *const *v, int n);
/* Writes o (and drops it) to DIR/name, atomically; 0 or -1 after fb_err(). */
int ab_write_json(const struct ab_env *e, json_object *o, const char *name);

/* ab_pp.c: --per-patch */
/* The arms: SERIES@from-1 (baseline for 0) .. SERIES@to; 0 or 2. */
int ab_pp_arms(struct ab_env *e);
/* What the rounds of arm a depend on: its kernel and the guest's arguments. */
void ab_pp_key(const struct ab_env *e, struct ab_arm *a);
/* Drops the rounds of DIR/<arm> (sub) unless measured with the same key. */
int ab_pp_cache(const struct ab_env *e, struct ab_arm *a, const char *sub);
/* DIR/per-patch.json: the prefixes in order, for analysis/attrib/attrib.c. */
int ab_pp_write_json(const struct ab_env *e);
/* The attribution table of what DIR holds now, and DIR/attribution.csv. */
void ab_pp_summary(const struct ab_env *e);

/* ab_arms.c: --arm NAME=SRC */
/* Records one --arm; -1 after one line naming the bad value. */
int ab_arm_add(struct ab_env *e, const char *arg);
/*
 * Gives each --arm its side (the one --baseline/--patched name it, else
 * one --arm is the patched kernel, two are baseline then patched) and
 * checks each with scripts/kernel-build.sh --check, before anything is
 * built; 0, or 2 after one line naming the bad value.
 */
int ab_arms_resolve(struct ab_env *e);

#endif /* FB_AB_ENV_H */
