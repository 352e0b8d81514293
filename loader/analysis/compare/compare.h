/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compare.h - what a command comparing two sides includes: the comparison
 * model (cmpmodel.h), the side loader (side.h), the renderer (render.h)
 * and the command line compare, report and gate share (cmp_args.h).  The
 * subcommand compare itself is analysis/report/compare_cmd.h.
 */
#ifndef FB_COMPARE_H
#define FB_COMPARE_H

#include <stdio.h>

#include "analysis/compare/cmp_args.h"
#include "analysis/compare/cmpmodel.h"
#include "analysis/compare/render.h"
#include "analysis/compare/side.h"

#endif /* FB_COMPARE_H */
