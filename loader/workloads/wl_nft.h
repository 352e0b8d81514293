/* SPDX-License-Identifier: GPL-2.0 */
/* wl_nft.h - the nft workload (wl_nft.c): avail, check, run. */
#ifndef WL_NFT_H
#define WL_NFT_H

#include "workloads/workloads.h"

FB_WORKLOAD(nft);

#endif /* WL_NFT_H */
