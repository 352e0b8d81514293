/* SPDX-License-Identifier: GPL-2.0 */
/* guest/vmio.h - the plumbing of a guest boot (vmio.c), for vm.c only. */
#ifndef FB_VMIO_H
#define FB_VMIO_H

#include <stddef.h>
#include <sys/types.h>

struct relay {
	int fd;		/* our read end of a FIFO, -1 when done */
	int dst;	/* where the bytes go */
	char *keep;	/* or kept here (qemu's stderr) */
	size_t keep_len, keep_cap;
};

/* Reads what is there; closes r->fd at EOF or error. */
void vmio_relay_read(struct relay *r);
/* Opens our ends of FIFO dir/name.out (read, and a writer of our own). */
int vmio_fifo_pair(const char *dir, const char *name, int *rfd, int *wfd);
/* The job guest-init.sh sources: cwd, results, FB_* environment, argv. */
int vmio_write_job(const char *path, const char *cwd, const char *results, char *const argv[]);
int vmio_exists(const char *path);
void vmio_rm_tree(const char *dir);
/* 1 once pid has exited (left a zombie, so its group id stays ours). */
int vmio_exited(pid_t pid);
/* Kills what is left of pid's process group and reaps pid. */
void vmio_reap(pid_t pid, int *status);
/* SIGTERM to the group, SIGKILL after 3 s; reaps pid. */
void vmio_kill_group(pid_t pid, int *status);
/* 1 if qemu's -d cpu_reset log has "Triple fault"; note: append it to log. */
int vmio_triple_fault(const char *qlog, const char *log, int note);
/* The last n lines of the console log, on stderr. */
void vmio_print_tail(const char *log, int n);

#endif /* FB_VMIO_H */
