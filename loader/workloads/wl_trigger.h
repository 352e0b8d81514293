/* SPDX-License-Identifier: GPL-2.0 */
/* wl_trigger.h - the trigger workload (wl_trigger.c): avail, check, run. */
#ifndef WL_TRIGGER_H
#define WL_TRIGGER_H

#include "workloads/workloads.h"

FB_WORKLOAD(trigger);

#endif /* WL_TRIGGER_H */
