/* SPDX-License-Identifier: GPL-2.0 */
/*
 * util/script.h - running one of the repository's scripts/ (kernel-build.sh,
 * stock-kernel.sh) whose last line of output is its answer.
 */
#ifndef FB_SCRIPT_H
#define FB_SCRIPT_H

#include <stddef.h>

/*
 * Runs `bash REPO/scripts/NAME ARGS...` (args NULL-terminated) with its
 * stdout captured and stderr passed through; SIGINT and SIGTERM on the way
 * are passed to it as SIGTERM, set fb_stop and *interrupted.  The last
 * non-empty line it printed goes to last ("" if none).  Returns its exit
 * code, or -1 if it could not run or died by a signal.
 */
int fb_script_run(const char *name, const char *const *args, char *last, size_t len,
		  int *interrupted);

#endif /* FB_SCRIPT_H */
