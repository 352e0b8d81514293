/* SPDX-License-Identifier: GPL-2.0 */
/* wl_verifier.h - the verifier workload (wl_verifier.c): avail, check, run. */
#ifndef WL_VERIFIER_H
#define WL_VERIFIER_H

#include "workloads/workloads.h"

FB_WORKLOAD(verifier);

#endif /* WL_VERIFIER_H */
