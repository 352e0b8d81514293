/* SPDX-License-Identifier: GPL-2.0 */
/* guest/vm_log.h - reading a guest's console log after the boot (vm_log.c), for vm.c. */
#ifndef FB_VM_LOG_H
#define FB_VM_LOG_H

#include <stddef.h>

/*
 * The index of the first splat line of console log that no allow regex
 * matches (its text, timestamp stripped, in line if not NULL), or -1 (none,
 * or the log is unreadable).
 */
int fb_vm_log_splat(const char *log, const char *const *allow, int nallow, char *line,
		    size_t len);
/* The lines around index found of log, on stderr. */
void fb_vm_log_excerpt(const char *log, int found);

#endif /* FB_VM_LOG_H */
