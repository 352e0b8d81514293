// SPDX-License-Identifier: GPL-2.0
/* counts.c - named counters (workload op counts) and workload parameters. */
#include <stdio.h>
#include <string.h>

#include "model/counts.h"
#include "util/util.h"

static int count_index(const struct fb_counts *c, const char *name)
{
	for (int i = 0; i < c->n; i++)
		if (!strcmp(c->v[i].name, name))
			return i;
	return -1;
}

void fb_count_set(struct fb_counts *c, const char *name, uint64_t val)
{
	int i = count_index(c, name);

	if (i < 0) {
		if (c->n == FB_MAX_COUNTS)
			return;
		i = c->n++;
		snprintf(c->v[i].name, sizeof(c->v[i].name), "%s", name);
	}
	c->v[i].val = val;
}

void fb_count_add(struct fb_counts *c, const char *name, uint64_t val)
{
	uint64_t cur = 0;

	fb_count_get(c, name, &cur);
	fb_count_set(c, name, cur + val);
}

int fb_count_get(const struct fb_counts *c, const char *name, uint64_t *val)
{
	int i = count_index(c, name);

	if (i < 0)
		return -1;
	*val = c->v[i].val;
	return 0;
}

/* ---- workload parameters ---- */

static const char *const param_type_names[FB_NPARAMTYPES] = {
	[FB_PARAM_U64] = "u64", [FB_PARAM_BOOL] = "bool",
};

const char *fb_param_type_name(enum fb_param_type t)
{
	return (unsigned int)t < FB_NPARAMTYPES ? param_type_names[t] : "?";
}

int fb_params_declare(struct fb_params *p, const char *wl, const struct fb_param_def *defs)
{
	for (const struct fb_param_def *d = defs; d && d->key; d++) {
		struct fb_param *v;

		if (p->n == FB_MAX_PARAMS)
			return -1;
		v = &p->v[p->n++];
		memset(v, 0, sizeof(*v));
		v->wl = wl;
		v->def = d;
		v->val = d->def;
	}
	return 0;
}

static struct fb_param *param_find(const struct fb_params *p, const char *wl, const char *key)
{
	for (int i = 0; p && i < p->n; i++)
		if (!strcmp(p->v[i].wl, wl) && !strcmp(p->v[i].def->key, key))
			return (struct fb_param *)&p->v[i];
	return NULL;
}

void fb_param_range(const struct fb_param_def *d, char *buf, size_t len)
{
	if (d->type == FB_PARAM_BOOL)
		snprintf(buf, len, "0 or 1");
	else
		snprintf(buf, len, "%llu..%llu%s%s", (unsigned long long)d->min,
			 (unsigned long long)d->max, d->unit[0] ? " " : "", d->unit);
}

/* "devices, threads, ports, first_id" */
static void param_keys(const struct fb_params *p, const char *wl, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0; i < p->n && off < len; i++)
		if (!strcmp(p->v[i].wl, wl))
			off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? ", " : "",
						p->v[i].def->key);
}

int fb_params_set(struct fb_params *p, const char *wl, const char *key, const char *val,
		  char *err, size_t errlen)
{
	struct fb_param *v = param_find(p, wl, key);
	char range[96], keys[256];
	uint64_t x;

	if (!v) {
		param_keys(p, wl, keys, sizeof(keys));
		snprintf(err, errlen, "unknown parameter %s.%s (%s takes: %s)", wl, key, wl,
			 keys[0] ? keys : "no parameters");
		return -1;
	}
	fb_param_range(v->def, range, sizeof(range));
	/* decimal digits only: no sign, blanks, hex or octal surprises */
	if (!*val || val[strspn(val, "0123456789")] || fb_parse_u64(val, &x) < 0) {
		snprintf(err, errlen, "%s.%s=%s: not a number (%s.%s is %s)", wl, key, val, wl, key,
			 range);
		return -1;
	}
	if (x < v->def->min || x > v->def->max || (v->def->type == FB_PARAM_BOOL && x > 1)) {
		snprintf(err, errlen, "%s.%s=%s: out of range (%s.%s is %s)", wl, key, val, wl, key,
			 range);
		return -1;
	}
	v->val = x;
	v->given = 1;
	return 0;
}

uint64_t fb_param_u64(const struct fb_params *p, const char *wl, const char *key)
{
	struct fb_param *v = param_find(p, wl, key);

	if (!v) {
		fb_err("%s: parameter %s.%s is not declared in the catalogue", wl, wl, key);
		if (p)
			((struct fb_params *)p)->undeclared++;
		return 0;
	}
	/*
	 * p is the caller's own (non-const) object; counting reads lets
	 * test_catalogue check that a workload reads every parameter it
	 * declares, i.e. that no second default hides in a wl_*.c.
	 */
	v->reads++;
	return v->val;
}
