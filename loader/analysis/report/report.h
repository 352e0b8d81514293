/* SPDX-License-Identifier: GPL-2.0 */
/* report.h - `foliobench report` (report.c). */
#ifndef FB_REPORT_H
#define FB_REPORT_H

int cmd_report(int argc, char **argv);

#endif /* FB_REPORT_H */
