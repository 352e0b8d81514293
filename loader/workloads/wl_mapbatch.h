/* SPDX-License-Identifier: GPL-2.0 */
/* wl_mapbatch.h - the mapbatch workload (wl_mapbatch.c): avail, check, run. */
#ifndef WL_MAPBATCH_H
#define WL_MAPBATCH_H

#include "workloads/workloads.h"

FB_WORKLOAD(mapbatch);

#endif /* WL_MAPBATCH_H */
