// SPDX-License-Identifier: GPL-2.0
/*
 * clock.c - the guest clock mode of a result (host or icount) and the rule
 * that one comparison never mixes them: an instruction-paced nanosecond is
 * not a host nanosecond.
 */
#include <stdio.h>
#include <string.h>

#include "model/fb.h"

const char *fb_clock_name(enum fb_clock c)
{
	return c == FB_CLOCK_ICOUNT ? "icount" : "host";
}

int fb_clock_parse(const char *s, enum fb_clock *c)
{
	if (!strcmp(s, "host"))
		*c = FB_CLOCK_HOST;
	else if (!strcmp(s, "icount"))
		*c = FB_CLOCK_ICOUNT;
	else
		return -1;
	return 0;
}

int fb_results_same_clock(const struct fb_result *const *r, int n, const char *what,
			  char *err, size_t len)
{
	for (int i = 1; i < n; i++) {
		if (r[i]->host.clock == r[0]->host.clock &&
		    r[i]->host.icount_shift == r[0]->host.icount_shift)
			continue;
		snprintf(err, len, "%s mixes clock modes: %s (shift %d) and %s (shift %d); "
			 "compare runs of one mode (ab --clock)", what,
			 fb_clock_name(r[0]->host.clock), r[0]->host.icount_shift,
			 fb_clock_name(r[i]->host.clock), r[i]->host.icount_shift);
		return -1;
	}
	return 0;
}
