/* SPDX-License-Identifier: GPL-2.0 */
/*
 * model/rounds.h - the rounds of one side of a comparison: a results file,
 * or an arm directory of them, each round counted once.
 *
 * A directory is searched for *.json (not ab.json, the ab run's summary),
 * recursively, in version order.  What is used and what is dropped is
 * kept, with the reason, so that every reader can say which rounds its
 * numbers come from (fb_rounds_print()).
 *
 * Refused (fb_rounds_load() returns -1, one line in err; exit 2):
 *   the path missing or unreadable; a *.json that is not a regular file
 *   (FIFO, socket, device: never opened for reading, so nothing hangs);
 *   any file the results reader refuses; no rounds at all; more than max.
 * Dropped, with the reason in skip[]:
 *   symlinks to directories (not followed: `again -> .` counted every
 *   round 9 times), dangling symlinks, directories named *.json, a file
 *   already used (same device and inode: a hard link or a symlink to it),
 *   a round already used (same start time and kernel build id: a copy).
 */
#ifndef FB_ROUNDS_H
#define FB_ROUNDS_H

#include <stdio.h>

#include "model/fb.h"

struct fb_round {
	char *path;			/* as found: DIR/round-3.json */
	struct fb_result *r;
};

struct fb_round_skip {
	char *path;
	char *why;			/* "directory symlink, not followed" */
};

struct fb_rounds {
	char path[512];			/* the file or directory as given */
	int is_dir;
	int n;
	struct fb_round *v;
	int nskip;
	struct fb_round_skip *skip;
};

/* Loads path into rs (zeroed first): 0, or -1 with one line in err. */
int fb_rounds_load(struct fb_rounds *rs, const char *path, int max, char *err, size_t errlen);
void fb_rounds_free(struct fb_rounds *rs);
/*
 * One round twice (a copy): the same start time, kernel build id and
 * measured data (arm, wall times, histogram counts and sums, extras).
 */
int fb_round_same(const struct fb_result *a, const struct fb_result *b);
/*
 * The bytes fb_round_same() compares (start, build id, arm, label, wall
 * times, histogram counts and sums, extras), in order, handed to put: a
 * digest of them is the round's content identity (the run history keys
 * rounds by it, so a re-serialized copy is the same round).
 */
void fb_round_key(const struct fb_result *r, void (*put)(void *ctx, const void *p, size_t n),
		  void *ctx);
/*
 * One line with the rounds used ("NAME: 15 rounds from DIR: round-1.json,
 * ..."), then one line per dropped entry with its reason.
 */
void fb_rounds_print(FILE *f, const char *name, const struct fb_rounds *rs);

#endif /* FB_ROUNDS_H */
