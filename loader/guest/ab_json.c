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
	char path[PATH_MAX], tmp[PATH_MAX];
	int ret = 0;

	fb_fmt(path, sizeof(path), "%s/%s", e->out, name);
	fb_fmt(tmp, sizeof(tmp), "%s/.%s.tmp", e->out, name);
	if (json_object_to_file_ext(tmp, o, JSON_C_TO_STRING_PRETTY |
				    JSON_C_TO_STRING_SPACED |
				    JSON_C_TO_STRING_NOSLASHESCAPE) < 0 ||
	    rename(tmp, path) < 0) {
		fb_err("ab: cannot write %s: %s", path, strerror(errno));
		unlink(tmp);
		ret = -1;
	}
	json_object_put(o);
	return ret;
}
