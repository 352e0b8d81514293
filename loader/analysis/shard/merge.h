/* SPDX-License-Identifier: GPL-2.0 */
/*
 * merge.h - `foliobench merge OUT DIR...` (merge.c): the shard directories
 * of one `ab --shard I/N` run joined into one ab directory that compare,
 * report and gate read as if one machine had booted every round.
 *
 * Refused, one line and exit 2, before OUT is touched: a DIR without a
 * readable ab.json; shards of different N, tool versions, kernels (an
 * arm's build id or config hash), workload parameters or guest settings
 * (ab.json: workloads, params, probes, rounds, clock, icount shift, smp,
 * mem, flavour, kernel command lines), or per-patch.json; a round that two
 * DIRs hold, or one that belongs to another shard; a round whose results
 * file is unreadable or names another kernel build id than its ab.json; a
 * shard I of N that no DIR holds, or that two DIRs claim; OUT not empty.
 */
#ifndef FB_MERGE_H
#define FB_MERGE_H

int cmd_merge(int argc, char **argv);

#endif /* FB_MERGE_H */
