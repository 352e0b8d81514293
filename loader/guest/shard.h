/* SPDX-License-Identifier: GPL-2.0 */
/*
 * shard.h - `ab` past one machine (shard.c): --shard I/N runs a share of
 * the rounds, --build-only / --no-build split building the kernels from
 * booting them, --cache DIR names a kernel cache that machines share, and
 * what ab.json records so that `foliobench merge` can tell whether shards
 * measured the same thing (kernel identities, the machine, the shard).
 *
 * The share is by round: round r (1-based) belongs to shard (r - 1) % N + 1,
 * and a shard boots every arm of its rounds, interleaved as one ab run does,
 * so each machine measures both arms (a slower machine is not confounded
 * with one arm) and the round numbers stay the ones a single run would use.
 */
#ifndef FB_SHARD_H
#define FB_SHARD_H

#include <json-c/json.h>
#include <stddef.h>

struct argp;

struct fb_shard {
	int index, count;	/* --shard I/N; count 0: the whole run */
	int build_only;		/* --build-only: build every arm's kernel, then exit */
	int no_build;		/* --no-build: a kernel missing from the cache is an error */
	const char *cache;	/* --cache DIR: $FB_CACHE for scripts/kernel-build.sh */
	char host[64];		/* this machine, as the guests' foliobench.host= */
};

/* Identity of a kernel image, as merge compares it. */
struct fb_kident {
	char build_id[80];	/* GNU build id of the vmlinux beside it, else sha256:<bzImage> */
	char config_sha256[72];	/* of the .config beside it; "" if there is none */
};

/* The argp child of `ab` for the options above; its input is a struct fb_shard. */
extern const struct argp fb_shard_argp;

/*
 * After parsing: the options agree with each other and with rounds and
 * until (--until-decided given); sets host and $FB_CACHE.  0, or 2 after fb_err.
 */
int fb_shard_check(struct fb_shard *s, int rounds, int until);

/* 1 if this shard boots round r (1-based). */
int fb_shard_has(const struct fb_shard *s, int r);
/* How many of rounds 1..rounds this shard boots. */
int fb_shard_rounds(const struct fb_shard *s, int rounds);

/* The identity of the kernel bz (a bzImage path); 0, or -1 after fb_err. */
int fb_kident_get(const char *bz, struct fb_kident *k);

/* Adds "shard" (index, count, rounds) and "host" to ab.json's object o. */
void fb_shard_json(json_object *o, const struct fb_shard *s, int rounds);
/* Adds "build_id" and "config_sha256" to an arm's object in ab.json. */
void fb_kident_json(json_object *arm, const struct fb_kident *k);

#endif /* FB_SHARD_H */
