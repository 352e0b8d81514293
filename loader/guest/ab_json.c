// SPDX-License-Identifier: GPL-2.0
/*
 * ab_json.c - what ab.c and ab_pp.c both write: string arrays and a JSON
 * file in the ab directory (written beside it and renamed, so a reader
 * never sees half a file).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "guest/ab_env.h"
#include "util/outfile.h"
#include "util/util.h"

json_object *ab_json_strs(const char *const *v, int n)
{
	json_object *a = json_object_new_array();

	for (int i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_string(v[i]));
	return a;
}

int ab_write_json(const struct ab_env *e, json_object *o, const char *name)
{
	char path[PATH_MAX], err[PATH_MAX + 128];
	int ret = 0;

	fb_fmt(path, sizeof(path), "%s/%s", e->out, name);
	if (fb_out_write_str(path, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
			     JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE), err,
			     sizeof(err))) {	/* whole or not at all (util/outfile.h) */
		fb_err("ab: %s", err);
		ret = -1;
	}
	json_object_put(o);
	return ret;
}
