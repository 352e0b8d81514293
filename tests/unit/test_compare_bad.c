// SPDX-License-Identifier: GPL-2.0
/*
 * test_compare_bad.c - compare and gate on bad inputs (cmp_fixture.h):
 * wrong schema or version, truncated, corrupt, empty, wrong types, missing
 * files, mismatched workloads or probe sets, empty directories, bad
 * options: every one must exit 2 with exactly one line on stderr, never
 * crash; and 3000 randomly mutated files through the reader.
 */
#include <json-c/json.h>

#include "analysis/compare/compare.h"
#include "analysis/report/compare_cmd.h"
#include "analysis/gate/gate.h"
#include "cmp_fixture.h"

/* Expect exit 2 and one stderr line containing want. */
static void bad_case(const char *name, const char *want, const char *a, const char *b)
{
	char out[300], err[300], msg[300];
	char *e;
	int rc;

	path(out, sizeof(out), "out.txt");
	path(err, sizeof(err), "err.txt");
	rc = run(cmd_compare, out, err, "compare", a, b, NULL);
	e = slurp(err);
	snprintf(msg, sizeof(msg), "bad input (%s): compare exits 2", name);
	CHECK(rc == 2, msg);
	snprintf(msg, sizeof(msg), "bad input (%s): one line on stderr naming the problem", name);
	CHECK(count_lines(e) == 1 && (!want || strstr(e, want)), msg);
	if (rc != 2 || count_lines(e) != 1 || (want && !strstr(e, want)))
		printf("# rc=%d stderr: %s", rc, e);
	free(e);
	rc = run(cmd_gate, out, err, "gate", a, b, NULL);
	snprintf(msg, sizeof(msg), "bad input (%s): gate exits 2", name);
	CHECK(rc == 2, msg);
}

static void mutate_json(const char *src, const char *dst, const char *key, json_object *val)
{
	json_object *o = json_object_from_file(src);

	json_object_object_add(o, key, val);
	json_object_to_file(dst, o);
	json_object_put(o);
}

static void test_bad(void)
{
	char good[300], p[300], dir[300], empty[400];
	struct spec s = { .func_ns = 1000, .hold_ns = 1000, .calls = 50, .acq_per_obj = 1,
			  .wall_ns = 1e6, .rel_noise = 0.01 };
	struct fb_result *r = mkres(&s, "x");
	char *txt;
	size_t len;

	path(good, sizeof(good), "good.json");
	fb_result_save(r, good);
	free(r);
	txt = slurp(good);
	len = strlen(txt);

	path(p, sizeof(p), "badver.json");
	mutate_json(good, p, "schema_version", json_object_new_int(99));
	bad_case("wrong schema version", "schema version", good, p);

	path(p, sizeof(p), "badschema.json");
	mutate_json(good, p, "schema", json_object_new_string("something-else"));
	bad_case("other schema", "schema", good, p);

	path(p, sizeof(p), "trunc.json");
	write_text(p, txt, len / 2);
	bad_case("truncated JSON", "truncated", good, p);

	path(p, sizeof(p), "corrupt.json");
	{
		char *c = strdup(txt);

		memcpy(c + len / 3, "\x01}{]\"", 5);
		write_text(p, c, len);
		free(c);
	}
	bad_case("corrupt JSON", "corrupt.json", good, p);

	path(p, sizeof(p), "empty.json");
	write_text(p, "", 0);
	bad_case("empty file", "empty", good, p);

	path(p, sizeof(p), "array.json");
	write_text(p, "[1,2,3]", 7);
	bad_case("not an object", "array.json", p, good);

	path(p, sizeof(p), "probes-type.json");
	mutate_json(good, p, "probes", json_object_new_string("nope"));
	bad_case("wrong field type", "probes", good, p);

	path(p, sizeof(p), "missing.json");
	bad_case("missing file", "missing.json", good, p);

	s.extra_workload = 1;
	r = mkres(&s, "x");
	path(p, sizeof(p), "wl.json");
	fb_result_save(r, p);
	free(r);
	bad_case("mismatched workloads", "mismatched workloads: 'sysfs'", good, p);

	s.extra_workload = 0;
	s.drop_probe = 1;
	r = mkres(&s, "x");
	path(p, sizeof(p), "probes.json");
	fb_result_save(r, p);
	free(r);
	bad_case("mismatched probe sets", "mismatched probe sets: probe 'folio_scratchpad_alloc'",
		 good, p);

	/* rounds of one side disagree */
	path(dir, sizeof(dir), "mixed");
	mkdir(dir, 0755);
	snprintf(empty, sizeof(empty), "%s/round-1.json", dir);
	write_text(empty, txt, len);
	snprintf(empty, sizeof(empty), "%s/round-2.json", dir);
	r = mkres(&s, "x");
	fb_result_save(r, empty);
	free(r);
	bad_case("rounds of one side disagree", "mismatched probe sets", dir, good);

	path(empty, sizeof(empty), "emptydir");
	mkdir(empty, 0755);
	bad_case("directory without results", "no *.json", empty, good);

	/* an ab dir with only one arm */
	{
		char one[300], oa[400], out[300], err[300];
		int rc;

		path(one, sizeof(one), "onearm");
		mkdir(one, 0755);
		snprintf(oa, sizeof(oa), "%s/baseline", one);
		mkdir(oa, 0755);
		path(out, sizeof(out), "out.txt");
		path(err, sizeof(err), "err.txt");
		rc = run(cmd_compare, out, err, "compare", one, NULL);
		CHECK(rc == 2, "ab dir without patched/: exit 2");
		rc = run(cmd_compare, out, err, "compare", "--alpha", "abc", good, good, NULL);
		CHECK(rc == 2, "bad --alpha: exit 2");
		rc = run(cmd_compare, out, err, "compare", "--bogus", good, good, NULL);
		CHECK(rc == 2, "unknown option: exit 2");
		rc = run(cmd_gate, out, err, "gate", "--max-regression", "-3", good, good, NULL);
		CHECK(rc == 2, "gate: bad --max-regression: exit 2");
		rc = run(cmd_gate, out, err, "gate", "--min-effect", "3", good, good, NULL);
		CHECK(rc == 2, "gate: --min-effect (compare's option) is no gate option: exit 2");
		rc = run(cmd_compare, out, err, "compare", good, NULL);
		CHECK(rc == 2, "one file argument: exit 2");
	}
	free(txt);
}

/* Random byte edits of a valid file: the reader must fail cleanly or succeed. */
static void test_mutations(void)
{
	char good[300];
	char *txt, *m, e[300];
	size_t len;
	int crashed = 0, rejected = 0;
	pid_t pid;
	int st;

	path(good, sizeof(good), "good.json");
	txt = slurp(good);
	len = strlen(txt);
	m = malloc(len + 1);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		for (int i = 0; i < 3000; i++) {
			struct fb_result *r;

			memcpy(m, txt, len + 1);
			for (int k = 0; k < 1 + i % 4; k++)
				m[(size_t)(urand() * (double)len)] = "{}[]\",:0-9e.x \x00"[(int)(urand() * 16)];
			r = fb_result_parse(m, (size_t)(urand() * (double)len) + 1, e, sizeof(e));
			if (!r && (!e[0] || strchr(e, '\n')))
				_exit(3);
			if (!r)
				rejected++;
			free(r);
		}
		_exit(rejected > 0 ? 0 : 4);
	}
	waitpid(pid, &st, 0);
	crashed = !WIFEXITED(st) || WEXITSTATUS(st);
	CHECK(!crashed, "3000 mutated files: parse fails cleanly with one-line reason, no crash");
	free(m);
	free(txt);
}

int main(void)
{
	if (cmp_begin("compare-bad"))
		return 1;
	test_bad();
	test_mutations();
	return cmp_end();
}
