/* SPDX-License-Identifier: GPL-2.0 */
/* contention.h - the contention table, keyed by what a lock is, not where. */
#ifndef CONTENTION_H
#define CONTENTION_H

#include <stdint.h>

#include "measure/ksyms.h"
#include "model/fb.h"

#define FB_CONT_UNRESOLVED	"[unresolved]"

struct fb_named_lock {
	uint64_t addr;
	const char *name;		/* a catalogue lock row */
};

/*
 * Reads fbcont's per-address map (fd) into res->contention: each address is
 * labelled with the catalogue lock it is (named[]), else "symbol" or
 * "symbol+0xoff" (a static lock), else grouped under FB_CONT_UNRESOLVED
 * (heap and stack locks: their addresses differ from boot to boot, so they
 * are never compared one by one).  Addresses with the same label are
 * merged; the 32 labels with the most wait time are kept.
 */
void fb_contention_collect(int fd, const struct fb_ksyms *ks, const struct fb_named_lock *named,
			   int nnamed, struct fb_result *res);

#endif /* CONTENTION_H */
