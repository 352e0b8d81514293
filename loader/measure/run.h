/* SPDX-License-Identifier: GPL-2.0 */
/* measure/run.h - `foliobench run` (run.c). */
#ifndef FB_RUN_H
#define FB_RUN_H

int cmd_run(int argc, char **argv);

#endif /* FB_RUN_H */
