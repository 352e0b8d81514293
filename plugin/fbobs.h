/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fbobs.h - what the plugin's two files share: the watched addresses
 * (fbobs.c) and the lock words (fbholds.c).
 */
#ifndef FBOBS_H
#define FBOBS_H

#include <stdint.h>
#include <stdio.h>

#include <qemu-plugin.h>

#include "fbhist.h"

#define NAME_LEN	64

enum kind { W_FUNC, W_ON, W_OFF, W_LOCKFN, W_LOCKRET, W_UNLOCKFN, W_PHASE };

struct watch {
	uint64_t addr, end;
	enum kind kind;
	int group;		/* lock functions: which lock type */
	char name[NAME_LEN];
	uint64_t window, boot;	/* W_FUNC: calls; W_ON/W_OFF/W_PHASE: marks */
	uint64_t count, sum, min, max, unmatched;
	uint64_t hist[FB_NBUCKETS];
};

extern struct watch watches[];
extern int window;		/* inside a window of `foliobench run` */
extern uint64_t insns;		/* guest instructions: inline, per TB */

/* udata of an instruction: watch index, TB length, index in the TB */
static inline void *pack(int w, size_t n, size_t i)
{
	return (void *)(uintptr_t)(((uint64_t)(unsigned int)w << 32) | (uint64_t)n << 16 | i);
}

static inline int unpack_w(void *u)
{
	return (int)((uintptr_t)u >> 32);
}

/* instructions executed before this one */
static inline uint64_t now(void *u)
{
	uint64_t n = ((uintptr_t)u >> 16) & 0xffff, i = (uintptr_t)u & 0xffff;

	return insns - n + i;
}

/* fbholds.c: the callbacks on lock functions' instructions */
void on_lock_arm(unsigned int vcpu, void *udata);
void on_lock_access(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t va, void *udata);
void on_lock_ret(unsigned int vcpu, void *udata);
void on_unlock_entry(unsigned int vcpu, void *udata);
void on_unlock_access(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t va,
		      void *udata);
void on_unlock_ret(unsigned int vcpu, void *udata);
void on_phase(unsigned int vcpu, void *udata);
/* a "lockinst ADDR" of the spec: 0, or -1 if there are too many */
int holds_inst(uint64_t addr);
void holds_write(FILE *f);

#endif /* FBOBS_H */
