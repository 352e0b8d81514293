/* SPDX-License-Identifier: GPL-2.0 */
/* sysinfo.h - describe the running kernel for the results file. */
#ifndef SYSINFO_H
#define SYSINFO_H

#include "model/fb.h"

/*
 * The running kernel into r; out is the results file's path ("-": stdout),
 * whose directory gives an instruction-paced guest the host's time.
 */
void fb_sysinfo(struct fb_result *r, const char *out);
/* Parses "key: value" lines of a /proc file into r->extra as prefix.key. */
void fb_extra_from_proc(struct fb_result *r, const char *path, const char *prefix);
void fb_extra_set(struct fb_result *r, const char *key, double val);

#endif /* SYSINFO_H */
