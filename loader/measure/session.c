// SPDX-License-Identifier: GPL-2.0
/*
 * session.c - what every row kind (probes.c, lockrows.c, tprows.c) does to
 * a row of the open session (session.h): its reason, its histogram slots
 * and its status.  Below all three, so none of them calls up into another.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "measure/session.h"

struct fb_session *fb_active_session;	/* for fb_lock_stat_snapshot() */

void reason_add(struct row *r, const char *fmt, ...)
{
	size_t len = strlen(r->res.reason);
	va_list ap;

	if (len && len + 2 < sizeof(r->res.reason)) {
		strcpy(r->res.reason + len, "; ");
		len += 2;
	}
	va_start(ap, fmt);
	vsnprintf(r->res.reason + len, sizeof(r->res.reason) - len, fmt, ap);
	va_end(ap);
}

int new_slot(struct fb_session *s, struct row *r, const char *name, const char *unit)
{
	int i = r->res.nstats++;

	snprintf(r->res.stats[i].name, sizeof(r->res.stats[i].name), "%s", name);
	snprintf(r->res.stats[i].h.unit, sizeof(r->res.stats[i].h.unit), "%s", unit);
	r->slot[i] = s->nslots++;
	return r->slot[i];
}

void set_status(struct row *r, enum fb_probe_status status, const char *method,
		const char *sym)
{
	r->res.status = status;
	snprintf(r->res.method, sizeof(r->res.method), "%s", method);
	snprintf(r->res.symbol, sizeof(r->res.symbol), "%s", sym);
}
