/* SPDX-License-Identifier: GPL-2.0 */
/* guest/ab.h - `foliobench ab`: interleaved A/B guest runs (ab.c). */
#ifndef FB_AB_H
#define FB_AB_H

int cmd_ab(int argc, char **argv);

#endif /* FB_AB_H */
