// SPDX-License-Identifier: GPL-2.0
/*
 * jsonfile.c - a JSON file read as an input (jsonfile.h).
 */
#include <stdio.h>
#include <stdlib.h>

#include "model/jsonfile.h"
#include "util/infile.h"

json_object *fb_json_load(const char *path, const char *what, char *err, size_t errlen)
{
	struct json_tokener *tok;
	json_object *o = NULL;
	size_t len;
	char *buf = fb_in_read(path, FB_JSON_MAX_BYTES, &len, what, err, errlen);

	if (!buf)
		return NULL;
	tok = json_tokener_new();
	if (tok) {
		o = json_tokener_parse_ex(tok, buf, (int)len);
		if (o && json_tokener_get_parse_end(tok) < len) {
			const char *rest = buf + json_tokener_get_parse_end(tok);

			while (*rest == ' ' || *rest == '\n' || *rest == '\t' || *rest == '\r')
				rest++;
			if (*rest) {	/* something after the document */
				json_object_put(o);
				o = NULL;
			}
		}
		if (!o) {
			enum json_tokener_error e = json_tokener_get_error(tok);

			snprintf(err, errlen, "%s: malformed JSON (%s)", path,
				 e == json_tokener_continue ? "truncated" :
				 e != json_tokener_success ? json_tokener_error_desc(e) :
				 "text after the document");
		}
		json_tokener_free(tok);
	} else {
		snprintf(err, errlen, "%s: out of memory", path);
	}
	free(buf);
	return o;
}
