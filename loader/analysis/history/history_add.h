/* SPDX-License-Identifier: GPL-2.0 */
/*
 * history_add.h - `foliobench history add` (history_add.c): the files
 * found first, without following links, then added in one transaction.
 */
#ifndef FB_HISTORY_ADD_H
#define FB_HISTORY_ADD_H

#define FB_HADD_MAX_DEPTH	16	/* directory levels below an operand */
#define FB_HADD_MAX_FILES	100000	/* results files in one add */

/* Adds the rounds in the files and directories ops[0..nops); the exit code. */
int fb_history_add(const char *db, const char *commit, int nops, char **ops);

#endif /* FB_HISTORY_ADD_H */
