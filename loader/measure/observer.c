// SPDX-License-Identifier: GPL-2.0
/* observer.c - the observer's name and, in the guest, its window marks (observer.h). */
#include <sched.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "measure/observer.h"
#include "util/util.h"

static const char *const names[] = { "bpf", "plugin", "both" };

int fb_observer_parse(const char *s, enum fb_observer *o)
{
	for (int i = 0; i < 3; i++)
		if (s && !strcmp(s, names[i])) {
			*o = (enum fb_observer)i;
			return 0;
		}
	return -1;
}

const char *fb_observer_name(enum fb_observer o)
{
	return (unsigned int)o < 3 ? names[o] : "?";
}

enum fb_observer fb_observer_guest(void)
{
	static int known;
	static enum fb_observer obs;
	char cmd[4096], word[16];
	const char *p;

	if (known)
		return obs;
	known = 1;
	if (fb_read_file("/proc/cmdline", cmd, sizeof(cmd)) <= 0)
		return obs;
	p = strstr(cmd, "foliobench.observer=");
	if (!p)
		return obs;
	p += strlen("foliobench.observer=");
	fb_fmt(word, sizeof(word), "%.*s", (int)strcspn(p, " \n"), p);
	if (fb_observer_parse(word, &obs) < 0)
		obs = FB_OBS_BPF;
	return obs;
}

void fb_observer_mark(int on)
{
	if (fb_observer_guest() == FB_OBS_BPF)
		return;
	syscall(on ? SYS_sched_get_priority_max : SYS_sched_get_priority_min, SCHED_FIFO);
}
