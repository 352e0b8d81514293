/* SPDX-License-Identifier: GPL-2.0 */
/* wl_sysfs.h - the sysfs workload (wl_sysfs.c): avail, check, run. */
#ifndef WL_SYSFS_H
#define WL_SYSFS_H

#include "workloads/workloads.h"

FB_WORKLOAD(sysfs);

#endif /* WL_SYSFS_H */
