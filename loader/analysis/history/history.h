/* SPDX-License-Identifier: GPL-2.0 */
/*
 * history.h - `foliobench history` (history.c) over the run history: one
 * SQLite file of rounds and their metrics (history_db.h), the rounds and
 * series read from it (history_series.h), their change points and report
 * (history_report.h), and the gate on it (history_gate.h).
 */
#ifndef FB_HISTORY_H
#define FB_HISTORY_H

int cmd_history(int argc, char **argv);

#endif /* FB_HISTORY_H */
