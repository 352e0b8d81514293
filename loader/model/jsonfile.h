/* SPDX-License-Identifier: GPL-2.0 */
/*
 * model/jsonfile.h - a whole JSON file (ab.json, per-patch.json, a noise
 * file), read the one way inputs are read (util/infile.h: a regular file,
 * no open that can hang) instead of json_object_from_file(), which opens
 * whatever the path is and waits on a FIFO.
 */
#ifndef FB_JSONFILE_H
#define FB_JSONFILE_H

#include <stddef.h>

#include <json-c/json.h>

#define FB_JSON_MAX_BYTES	(16 << 20)

/*
 * The parsed document, or NULL with one line in err: "PATH: a FIFO, not
 * WHAT", "PATH: No such file or directory", "PATH: malformed JSON (...)".
 */
json_object *fb_json_load(const char *path, const char *what, char *err, size_t errlen);

#endif /* FB_JSONFILE_H */
