// SPDX-License-Identifier: GPL-2.0
/*
 * results_scan.c - reading a results file: the scan before json-c
 * (limits, bucket lists; see results_scan.h), json-c, the tree reader.
 *
 * Memory: the file (1x), a copy with the bucket lists blanked (1x, only if
 * there are any and no limit refused the file), json-c's tree of the rest (at most FB_RESULT_MAX_NODES
 * values) and the result (1.8 MB).  reports/memory/ measures it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/results_scan.h"
#include "util/infile.h"

#define SCAN_DEPTH	33	/* json-c refuses deeper than 32 */
#define KEYLEN		12	/* the keys the scan looks for are shorter */

struct frame {
	char type;		/* '{' or '[' */
	char key[KEYLEN];	/* the key this container is the value of, "" in an array */
	long idx;		/* its index in its parent array */
	long count;		/* elements so far (arrays) */
};

enum expect { X_NONE, X_VALUE, X_KEY };

struct scanner {
	const char *s;
	size_t len;
	struct fb_result *r;
	struct fb_scan *sc;
	struct frame f[SCAN_DEPTH];
	int sp;
	char str[KEYLEN];	/* the last string, if short: a key to be */
	char key[KEYLEN];
	char *err;
	size_t errlen;
};

static size_t skip_ws(const char *s, size_t len, size_t i)
{
	while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
		i++;
	return i;
}

/* 1 if the digits s[0..n) (no sign, no leading zeros) exceed lim's */
static int digits_exceed(const char *s, size_t n, const char *lim)
{
	size_t l = strlen(lim);

	return n > l || (n == l && memcmp(s, lim, n) > 0);
}

/* A plain JSON integer in 0..2^64-1 at s[i]: the index after it, or 0. */
static size_t plain_u64(const char *s, size_t len, size_t i, uint64_t *v)
{
	size_t j = i;

	while (j < len && s[j] >= '0' && s[j] <= '9')
		j++;
	if (j == i || (s[i] == '0' && j - i > 1) ||
	    digits_exceed(s + i, j - i, "18446744073709551615"))
		return 0;
	*v = 0;
	for (size_t k = i; k < j; k++)
		*v = *v * 10 + (uint64_t)(s[k] - '0');
	return j;
}

static void add_pair(struct fb_hist *h, struct fb_scan_stat *st, uint64_t val, uint64_t cnt)
{
	unsigned int idx = fb_bucket(val);

	if (__builtin_add_overflow(st->total, cnt, &st->total) ||
	    __builtin_add_overflow(h->buckets[idx], cnt, &h->buckets[idx]))
		st->overflow = 1;
}

/*
 * s[i] == '[': the index after a list of [integer, integer] pairs in plain
 * JSON, or 0 if the text is anything else (then json-c reads it).  With h,
 * the pairs are added to it.
 */
static size_t pairs(const char *s, size_t len, size_t i, struct fb_hist *h,
		    struct fb_scan_stat *st)
{
	i = skip_ws(s, len, i + 1);
	if (i < len && s[i] == ']')
		return i + 1;
	for (;;) {
		uint64_t v, c;

		if (i >= len || s[i] != '[')
			return 0;
		i = plain_u64(s, len, skip_ws(s, len, i + 1), &v);
		if (!i || (i = skip_ws(s, len, i)) >= len || s[i] != ',')
			return 0;
		i = plain_u64(s, len, skip_ws(s, len, i + 1), &c);
		if (!i || (i = skip_ws(s, len, i)) >= len || s[i] != ']')
			return 0;
		if (h)
			add_pair(h, st, v, c);
		i = skip_ws(s, len, i + 1);
		if (i < len && s[i] == ']')
			return i + 1;
		if (i >= len || s[i] != ',')
			return 0;
		i = skip_ws(s, len, i + 1);
	}
}

static int key_is(const struct frame *f, const char *k)
{
	return !strcmp(f->key, k);
}

/* A bucket list is due: the value of "buckets" in probes[i].stats[k]. */
static int at_buckets(const struct scanner *k)
{
	return k->sp == 5 && k->f[1].type == '[' && key_is(&k->f[1], "probes") &&
	       k->f[2].type == '{' && k->f[3].type == '[' && key_is(&k->f[3], "stats") &&
	       k->f[4].type == '{' && !strcmp(k->key, "buckets");
}

/* The bucket list at s[i] read and blanked: the index after it, or 0 (json-c's then). */
static size_t fast_buckets(struct scanner *k, size_t i)
{
	long pi = k->f[2].idx, si = k->f[4].idx;
	struct fb_scan_stat *st;
	size_t end;

	if (pi < 0 || pi >= FB_MAX_PROBES || si < 0 || si >= FB_MAX_STATS)
		return 0;
	st = &k->sc->st[pi][si];
	if (st->done || st->dup) {
		st->dup = 1;
		return 0;
	}
	end = pairs(k->s, k->len, i, NULL, NULL);
	if (!end)
		return 0;
	pairs(k->s, k->len, i, &k->r->probes[pi].stats[si].h, st);
	st->from = i;
	st->to = end;
	st->done = 1;
	return end;
}

/*
 * After a scan that refused nothing: the copy json-c reads, each bucket list
 * read blanked to "[ ... ]" (same length, so json-c's byte offsets hold).
 */
static int blank_copy(const char *json, size_t len, struct fb_scan *sc)
{
	for (int p = 0; p < FB_MAX_PROBES; p++)
		for (int k = 0; k < FB_MAX_STATS; k++) {
			const struct fb_scan_stat *st = &sc->st[p][k];

			if (!st->done)
				continue;
			if (!sc->text) {
				sc->text = malloc(len + 1);
				if (!sc->text)
					return -1;
				memcpy(sc->text, json, len);
				sc->text[len] = '\0';
			}
			memset(sc->text + st->from + 1, ' ', st->to - st->from - 2);
		}
	return 0;
}

static int scan_fail(struct scanner *k, const char *what, long max, const char *limit)
{
	snprintf(k->err, k->errlen, "results: more than %ld %s (limit %s = %ld), refused before"
		 " parsing", max, what, limit, max);
	return -1;
}

/* A value starts at the top of the stack: count it, and the array's entries. */
static int on_value(struct scanner *k)
{
	static const struct {
		const char *key, *what, *limit;
		long max;
	} top[] = {
		{ "probes", "probes", "FB_MAX_PROBES", FB_MAX_PROBES },
		{ "workloads", "workloads", "FB_MAX_WORKLOADS", FB_MAX_WORKLOADS },
		{ "params", "params", "FB_MAX_PARAMS", FB_MAX_PARAMS },
		{ "contention", "contention rows", "FB_MAX_CONTENTION", FB_MAX_CONTENTION },
	};
	struct frame *f = k->sp ? &k->f[k->sp - 1] : NULL;

	if (++k->sc->nodes > FB_RESULT_MAX_NODES)
		return scan_fail(k, "JSON values outside bucket lists", FB_RESULT_MAX_NODES,
				 "FB_RESULT_MAX_NODES");
	if (!f || f->type != '[')
		return 0;
	f->count++;
	for (size_t t = 0; k->sp == 2 && t < sizeof(top) / sizeof(top[0]); t++)
		if (key_is(f, top[t].key) && f->count > top[t].max)
			return scan_fail(k, top[t].what, top[t].max, top[t].limit);
	if (k->sp == 4 && key_is(&k->f[1], "probes") && key_is(f, "stats") &&
	    f->count > FB_MAX_STATS)
		return scan_fail(k, "stats in a probe", FB_MAX_STATS, "FB_MAX_STATS");
	return 0;
}

/* '{' or '[' at s[i] when a value is due. */
static int push(struct scanner *k, char type)
{
	const struct frame *up = k->sp ? &k->f[k->sp - 1] : NULL;
	struct frame *f = &k->f[k->sp++];

	memset(f, 0, sizeof(*f));
	f->type = type;
	f->idx = up && up->type == '[' ? up->count - 1 : -1;
	if (up && up->type == '{')
		memcpy(f->key, k->key, sizeof(f->key));
	return 0;
}

/* A string at s[i] (quote " or '): the index after it; its text into k->str if short. */
static size_t string_at(struct scanner *k, size_t i)
{
	char q = k->s[i];
	size_t n = 0, j;

	for (j = i + 1; j < k->len && k->s[j] != q; j++) {
		if (k->s[j] == '\\')
			j++;
		else if (n + 1 < KEYLEN)
			k->str[n++] = k->s[j];
		else
			n = KEYLEN;	/* too long to be one of ours */
	}
	k->str[n < KEYLEN ? n : 0] = '\0';
	return j + 1;
}

/* A comment json-c allows at s[i] == '/': the index after it. */
static size_t comment_at(const char *s, size_t len, size_t i)
{
	const char *e;

	if (i + 1 >= len || (s[i + 1] != '*' && s[i + 1] != '/'))
		return i + 1;
	if (s[i + 1] == '/') {
		e = memchr(s + i, '\n', len - i);
		return e ? (size_t)(e - s) + 1 : len;
	}
	e = memmem(s + i + 2, len - i - 2, "*/", 2);
	return e ? (size_t)(e - s) + 2 : len;
}

/* One token at s[i]; the index after it, or 0 to stop (err set if refused). */
static size_t step(struct scanner *k, size_t i, enum expect *x)
{
	char c = k->s[i];
	size_t end;

	switch (c) {
	case '{':
	case '[':
		if (on_value(k))
			return 0;
		if (c == '[' && at_buckets(k) && (end = fast_buckets(k, i))) {
			*x = X_NONE;
			return end;
		}
		if (k->sp == SCAN_DEPTH)
			return 0;	/* json-c refuses the depth */
		push(k, c);
		*x = c == '{' ? X_KEY : X_VALUE;
		return i + 1;
	case '}':
	case ']':
		k->sp -= k->sp > 0;
		*x = X_NONE;
		return i + 1;
	case ',':
		*x = k->sp && k->f[k->sp - 1].type == '{' ? X_KEY : X_VALUE;
		return i + 1;
	case ':':
		memcpy(k->key, k->str, sizeof(k->key));
		*x = X_VALUE;
		return i + 1;
	case '/':
		return comment_at(k->s, k->len, i);
	case '"':
	case '\'':
		if (*x != X_KEY && on_value(k))
			return 0;
		*x = X_NONE;
		return string_at(k, i);
	}
	if (*x == X_VALUE && on_value(k))
		return 0;
	*x = X_NONE;
	for (end = i + 1; end < k->len && (strchr("+-.", k->s[end]) ||
					     (unsigned int)((k->s[end] | 0x20) - 'a') < 26u ||
					     (k->s[end] >= '0' && k->s[end] <= '9')); end++)
		;
	return end;
}

int fb_results_scan(const char *json, size_t len, struct fb_result *r, struct fb_scan *sc,
		    char *err, size_t errlen)
{
	struct scanner *k = calloc(1, sizeof(*k));
	enum expect x = X_VALUE;
	size_t i = 0;

	memset(sc, 0, sizeof(*sc));
	if (!k) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	*k = (struct scanner){ .s = json, .len = len, .r = r, .sc = sc, .err = err,
			       .errlen = errlen };
	err[0] = '\0';
	while (i < len) {
		i = skip_ws(json, len, i);
		if (i < len && !(i = step(k, i, &x)))
			break;
	}
	free(k);
	if (!err[0] && blank_copy(json, len, sc))
		snprintf(err, errlen, "out of memory");
	return err[0] ? -1 : 0;
}

/* A string token at s[i] == '"': its end, its first bytes copied to buf. */
static size_t scan_string(const char *s, size_t len, size_t i, char *buf, size_t blen)
{
	size_t k = 0;

	for (i++; i < len && s[i] != '"'; i++) {
		if (s[i] == '\\')
			i++;
		else if (k + 1 < blen)
			buf[k++] = s[i];
	}
	buf[k] = '\0';
	return i + 1;
}

/*
 * json-c clamps integers beyond its 64-bit types (18446744073709551616
 * reads as UINT64_MAX, -9223372036854775809 as INT64_MIN), so they are
 * found in the text first, with the key they belong to.
 */
static int scan_ints(const char *s, size_t len, char *err, size_t errlen)
{
	char key[48] = "", str[48] = "";
	size_t i = 0;

	while (i < len) {
		size_t j, d0;
		int neg;

		if (s[i] == '"') {
			i = scan_string(s, len, i, str, sizeof(str));
			continue;
		}
		if (s[i] == ':')
			memcpy(key, str, sizeof(key));
		if (s[i] != '-' && (s[i] < '0' || s[i] > '9')) {
			i++;
			continue;
		}
		neg = s[i] == '-';
		for (j = i + neg; j < len && s[j] == '0'; j++)
			;
		for (d0 = j; j < len && s[j] >= '0' && s[j] <= '9'; j++)
			;
		if ((j >= len || !strchr(".eE", s[j])) &&
		    digits_exceed(s + d0, j - d0, neg ? "9223372036854775808" : "18446744073709551615")) {
			snprintf(err, errlen, "field '%s': integer %s%.*s%s does not fit in 64 bits",
				 key, neg ? "-" : "", (int)(j - d0 > 24 ? 24 : j - d0), s + d0,
				 j - d0 > 24 ? "..." : "");
			for (char *c = err; *c; c++)	/* the key is from the file */
				if ((unsigned char)*c < 0x20 || *c == 0x7f)
					*c = '?';
			return -1;
		}
		while (j < len && strchr("0123456789.eE+-", s[j]))
			j++;
		i = j;
	}
	return 0;
}

/* json-c's tree of text: NULL with err (syntax, trailing data) */
static json_object *tree(const char *text, size_t len, char *err, size_t errlen)
{
	struct json_tokener *tok = json_tokener_new();
	json_object *o;
	size_t end;

	if (!tok) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	o = json_tokener_parse_ex(tok, text, (int)len);
	end = json_tokener_get_parse_end(tok);
	if (!o) {
		enum json_tokener_error e = json_tokener_get_error(tok);

		snprintf(err, errlen, "%s at byte %zu",
			 e == json_tokener_continue ? "truncated JSON" : json_tokener_error_desc(e),
			 end);
	} else if (end < len && strspn(text + end, " \t\r\n") != len - end) {
		snprintf(err, errlen, "trailing data after the JSON document at byte %zu", end);
		json_object_put(o);
		o = NULL;
	}
	json_tokener_free(tok);
	return o;
}

struct fb_result *fb_result_parse(const char *json, size_t len, char *err, size_t errlen)
{
	struct fb_result *r = calloc(1, sizeof(*r));
	struct fb_scan *sc = calloc(1, sizeof(*sc));
	json_object *o = NULL;
	int ok = 0;

	if (!r || !sc)
		snprintf(err, errlen, "out of memory");
	else if (!fb_results_scan(json, len, r, sc, err, errlen) &&
		 (o = tree(sc->text ? sc->text : json, len, err, errlen))) {
		free(sc->text);		/* json-c has what it needs */
		sc->text = NULL;
		ok = !scan_ints(json, len, err, errlen) &&
		     !fb_result_from_tree(o, sc, r, err, errlen);
	}
	json_object_put(o);
	if (sc)
		free(sc->text);
	free(sc);
	if (!ok) {
		free(r);
		return NULL;
	}
	return r;
}

struct fb_result *fb_result_load(const char *path, char *err, size_t errlen)
{
	struct fb_result *r = NULL;
	char *buf, e[200];
	size_t len = 0;

	/* a FIFO is refused, never waited on (util/infile.h) */
	buf = fb_in_read(path, FB_RESULT_MAX_BYTES - 1, &len, "a results file", err, errlen);
	if (!buf)
		return NULL;
	if (!len)
		snprintf(err, errlen, "%s: empty file", path);
	else if (!(r = fb_result_parse(buf, len, e, sizeof(e))))
		snprintf(err, errlen, "%s: %s", path, e);
	free(buf);
	return r;
}

