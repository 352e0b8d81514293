/* SPDX-License-Identifier: GPL-2.0 */
/* wl_lockdep.h - the lockdep workload (wl_lockdep.c): avail, check, run. */
#ifndef WL_LOCKDEP_H
#define WL_LOCKDEP_H

#include "workloads/workloads.h"

FB_WORKLOAD(lockdep);

#endif /* WL_LOCKDEP_H */
