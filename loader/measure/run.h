/* SPDX-License-Identifier: GPL-2.0 */
/* measure/run.h - `foliobench run` (run.c) and `foliobench list` (list.c). */
#ifndef FB_RUN_H
#define FB_RUN_H

int cmd_list(int argc, char **argv);
int cmd_run(int argc, char **argv);

#endif /* FB_RUN_H */
