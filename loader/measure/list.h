/* SPDX-License-Identifier: GPL-2.0 */
/* measure/list.h - `foliobench list` (list.c). */
#ifndef FB_LIST_H
#define FB_LIST_H

int cmd_list(int argc, char **argv);

#endif /* FB_LIST_H */
