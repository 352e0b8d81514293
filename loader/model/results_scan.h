/* SPDX-License-Identifier: GPL-2.0 */
/*
 * model/results_scan.h - inside the results reader: the pass over the text
 * that runs before json-c (results_scan.c), and the tree reader it feeds
 * (results.c).  Not for use outside model/.
 *
 * Why a pass before json-c: json-c's tree costs about 280 bytes for each
 * 9-byte [value, count] bucket pair (an array object, its array_list and
 * slot block, two int objects, malloc headers), so a 33 MB bucket-heavy
 * round took 1 GB.  The pass
 *   - refuses a file over a limit (probes, stats, workloads, params,
 *     contention rows, JSON values) before anything is built, naming the
 *     limit and its value;
 *   - reads every bucket list that is plain [integer, integer] pairs
 *     straight into the result's dense histogram and blanks it to "[ ]" in
 *     a copy of the text (byte offsets kept for json-c's messages), so
 *     json-c builds a tree of the small rest only.
 * Bucket lists in any other shape are left to json-c and the tree reader,
 * which refuses them with the message it always gave.
 */
#ifndef FB_RESULTS_SCAN_H
#define FB_RESULTS_SCAN_H

#include <json-c/json.h>

#include "model/fb.h"

/* JSON values (objects, arrays, strings, numbers, literals) json-c may build */
#define FB_RESULT_MAX_NODES	100000

/* A stat whose bucket list the scan read (indexed probe, stat). */
struct fb_scan_stat {
	unsigned char done;	/* read: its "buckets" in the tree is empty */
	unsigned char dup;	/* a second bucket list for the same stat */
	unsigned char overflow;	/* counts overflowed 64 bits */
	uint64_t total;		/* sum of the counts */
	size_t from, to;	/* its text: [from, to) */
};

struct fb_scan {
	struct fb_scan_stat st[FB_MAX_PROBES][FB_MAX_STATS];
	char *text;		/* the copy with bucket lists blanked, or NULL */
	size_t nodes;
};

/*
 * The scan of json[0..len) into sc (zeroed first), bucket counts into
 * r->probes[].stats[].h.buckets.  0, or -1 with one line in err (a limit).
 * Free sc->text after.
 */
int fb_results_scan(const char *json, size_t len, struct fb_result *r, struct fb_scan *sc,
		    char *err, size_t errlen);

/* The tree json-c built, read into r (results.c): 0, or -1 with one line in err. */
int fb_result_from_tree(json_object *o, const struct fb_scan *sc, struct fb_result *r,
			char *err, size_t errlen);

#endif /* FB_RESULTS_SCAN_H */
