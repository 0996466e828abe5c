/* SPDX-License-Identifier: BSD-2-Clause */
/* Reporters (CSV header/rows, JSON shape), atomic files, stats, verify pattern. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "measure/pattern.h"
#include "report/document.h"
#include "measure/stats.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/rb-unit.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];
	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

static char *slurp(const char *path)
{
	static char text[8192];
	FILE *f = fopen(path, "r");
	size_t n;
	if (!f)
		return NULL;
	n = fread(text, 1, sizeof(text) - 1, f);
	text[n] = '\0';
	fclose(f);
	return text;
}

static void make_rows(struct rb_row *meta, struct rb_row *r1, struct rb_row *r2)
{
	memset(meta, 0, sizeof(*meta));
	memset(r1, 0, sizeof(*r1));
	memset(r2, 0, sizeof(*r2));
	rb_row_str(meta, "tool", NULL, "rc_write_bw");
	rb_row_str(meta, "note", NULL, "a \"quoted\", comma\\");
	rb_row_u64(r1, "size_bytes", "#bytes", 64);
	rb_row_dbl(r1, "bw_avg_gbps", "BW average[Gb/s]", 3, 1.23456);
	rb_row_dbl(r1, "cpu_util_pct", NULL, 1, NAN);
	rb_row_str(r1, "device", NULL, "rxe,0");
	rb_row_u64(r2, "size_bytes", "#bytes", 4096);
	rb_row_dbl(r2, "bw_avg_gbps", "BW average[Gb/s]", 3, 9.5);
	rb_row_dbl(r2, "cpu_util_pct", NULL, 1, 12.25);
	rb_row_str(r2, "device", NULL, "rxe0");
}

static void csv(void **state)
{
	struct rb_report r;
	struct rb_row meta, r1, r2;
	char path[128];
	(void)state;
	snprintf(path, sizeof(path), "%s/out.csv", dir);
	make_rows(&meta, &r1, &r2);
	assert_int_equal(rb_report_open(&r, "csv", path), 0);
	rb_report_begin(&r, &meta);
	rb_report_row(&r, &r1);
	/* Not there until finished: readers never see half a file. */
	assert_int_not_equal(access(path, F_OK), 0);
	rb_report_row(&r, &r2);
	assert_int_equal(rb_report_finish(&r, NULL), 0);
	assert_string_equal(slurp(path), "size_bytes,bw_avg_gbps,cpu_util_pct,device,error\n"
	                                 "64,1.23456,,\"rxe,0\",\n"
	                                 "4096,9.5,12.25,rxe0,\n");
}

/* The table shows at least 3 significant digits; documents every digit. */
static void precision(void **state)
{
	static const double v[] = {0.0081234, 0.000123, 2.5, 1234.5678, 0, 0.1 + 0.2};
	static const char *text[] = {"0.00812", "0.000123", "2.500", "1234.568", "0.000", "0.300"};
	static const char *doc[] = {"0.0081234", "0.000123", "2.5", "1234.5678", "0", "0.30000000000000004"};
	(void)state;
	for (unsigned i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct rb_report r;
		struct rb_row row = {0};
		char path[128], want[64];
		rb_row_dbl(&row, "bw_avg_gbps", "BW", 3, v[i]);
		snprintf(path, sizeof(path), "%s/p.txt", dir);
		assert_int_equal(rb_report_open(&r, "text", path), 0);
		rb_report_row(&r, &row);
		assert_int_equal(rb_report_finish(&r, NULL), 0);
		snprintf(want, sizeof(want), "%12s\n", text[i]);
		assert_non_null(strstr(slurp(path), want));
		snprintf(path, sizeof(path), "%s/p.csv", dir);
		assert_int_equal(rb_report_open(&r, "csv", path), 0);
		rb_report_row(&r, &row);
		assert_int_equal(rb_report_finish(&r, NULL), 0);
		snprintf(want, sizeof(want), "bw_avg_gbps,error\n%s,\n", doc[i]);
		assert_string_equal(slurp(path), want);
	}
}

/* csv and pandas read a failed run's CSV with their defaults; the last row says why. */
static void csv_incomplete(void **state)
{
	struct rb_report r;
	struct rb_row meta, r1, r2;
	char path[128], cmd[700];
	(void)state;
	make_rows(&meta, &r1, &r2);
	snprintf(path, sizeof(path), "%s/fail.csv", dir);
	assert_int_equal(rb_report_open(&r, "csv", path), 0);
	rb_report_begin(&r, &meta);
	rb_report_row(&r, &r1);
	assert_int_equal(rb_report_finish(&r, "interrupted by SIGINT, \"size 4096\""), 0);
	assert_string_equal(slurp(path), "size_bytes,bw_avg_gbps,cpu_util_pct,device,error\n"
	                                 "64,1.23456,,\"rxe,0\",\n"
	                                 ",,,,\"interrupted by SIGINT, \"\"size 4096\"\"\"\n");
	snprintf(cmd, sizeof(cmd),
	         "python3 -c 'import csv,sys; r=list(csv.DictReader(open(\"%s\"))); "
	         "sys.exit(0 if len(r)==2 and r[0][\"error\"]==\"\" and r[0][\"device\"]==\"rxe,0\" "
	         "and r[1][\"error\"].startswith(\"interrupted by SIGINT\") and r[1][\"size_bytes\"]==\"\" "
	         "else 1)'",
	         path);
	assert_int_equal(system(cmd), 0);
	/* Failed before the first row: a header and the error. */
	snprintf(path, sizeof(path), "%s/none.csv", dir);
	assert_int_equal(rb_report_open(&r, "csv", path), 0);
	assert_int_equal(rb_report_finish(&r, "no peer within --oob-timeout"), 0);
	assert_string_equal(slurp(path), "error\nno peer within --oob-timeout\n");
}

/*
 * With a schema every row has the same columns whatever it holds: the tool's, then the
 * tail from the meta; a failed run's last row has them too, what identifies it filled in.
 */
static void csv_schema(void **state)
{
	static const struct rb_col own[] = {
	    {"tool", NULL, NULL, 0}, {"size_bytes", "#bytes", NULL, 0}, {"bw_avg_gbps", "BW", NULL, 3}};
	static const struct rb_col extra[] = {{"lat_p50_us", NULL, NULL, 3}};
	static const struct rb_cols groups[] = {RB_COLS(own), RB_COLS(extra), {0}};
	static const struct rb_schema schema = {"rc_write_bw", groups};
	static const char cmd[] = "rc_write_bw -s 64K 'a b'";
	static const char tail[] =
	    "repeat,repeats,unstable,interval,t_start_s,t_end_s,partial,host,peer,date,"
	    "version,schema,command,error\n";
	struct rb_report r;
	struct rb_row meta = {0}, size = {0}, ivl = {0};
	char path[128], want[1024];
	(void)state;
	rb_row_str(&meta, "host", NULL, "node-a");
	rb_row_str(&meta, "peer", NULL, "10.0.0.2:18515");
	rb_row_str(&meta, "date", NULL, "2026-12-04T10:00:00Z");
	rb_row_str(&meta, "version", NULL, "0.2.0");
	rb_row_str_ref(&meta, "command", NULL, cmd);
	rb_row_str(&size, "tool", NULL, "rc_write_bw");
	rb_row_u64(&size, "size_bytes", "#bytes", 65536);
	rb_row_dbl(&size, "bw_avg_gbps", "BW", 3, 9.5);
	rb_row_bool(&size, "partial", NULL, true);
	ivl = size;
	ivl.n = 3;
	rb_row_str(&ivl, "interval", NULL, "0.0-1.0");
	rb_row_str(&ivl, "surprise", NULL, "x"); /* not in the schema: left out (and said) */
	snprintf(path, sizeof(path), "%s/schema.csv", dir);
	assert_int_equal(rb_report_open(&r, "csv", path), 0);
	r.schema = &schema;
	rb_report_begin(&r, &meta);
	rb_report_row(&r, &ivl);
	rb_report_row(&r, &size);
	assert_int_equal(rb_report_finish(&r, "interrupted by SIGINT"), 0);
	snprintf(
	    want, sizeof(want),
	    "tool,size_bytes,bw_avg_gbps,lat_p50_us,%s"
	    "rc_write_bw,65536,9.5,,,,,0.0-1.0,,,,node-a,10.0.0.2:18515,2026-12-04T10:00:00Z,0.2.0,"
	    "rc_write_bw/%d,'%s',\n"
	    "rc_write_bw,65536,9.5,,,,,,,,1,node-a,10.0.0.2:18515,2026-12-04T10:00:00Z,0.2.0,"
	    "rc_write_bw/%d,'%s',\n"
	    "rc_write_bw,,,,,,,,,,0,node-a,10.0.0.2:18515,2026-12-04T10:00:00Z,0.2.0,rc_write_bw/%d,'%s',"
	    "interrupted by SIGINT\n",
	    tail, RB_SCHEMA_VERSION, cmd, RB_SCHEMA_VERSION, cmd, RB_SCHEMA_VERSION, cmd);
	/* The command has a quote-free space: CSV quotes nothing but commas, quotes and newlines. */
	for (char *p = strstr(want, "'rc_write_bw"); p; p = strstr(p + 1, "'rc_write_bw"))
		memmove(p, p + 1, strlen(p));
	for (char *p = strstr(want, "b'',"); p; p = strstr(p + 1, "b'',"))
		memmove(p + 2, p + 3, strlen(p + 2));
	assert_string_equal(slurp(path), want);
	/* Failed before the first row: the whole header, then the error's row. */
	snprintf(path, sizeof(path), "%s/schema-none.csv", dir);
	assert_int_equal(rb_report_open(&r, "csv", path), 0);
	r.schema = &schema;
	rb_report_begin(&r, &meta);
	assert_int_equal(rb_report_finish(&r, "no peer"), 0);
	assert_non_null(strstr(slurp(path), "tool,size_bytes,bw_avg_gbps,lat_p50_us,repeat,"));
	assert_non_null(strstr(slurp(path), "\nrc_write_bw,,,,,,,,,,0,node-a,"));
}

/* A run that fails before its meta block still leaves a JSON document a parser accepts. */
static void json_never_begun(void **state)
{
	struct rb_report r;
	char path[128], cmd[512];
	(void)state;
	snprintf(path, sizeof(path), "%s/early.json", dir);
	assert_int_equal(rb_report_open(&r, "json", path), 0);
	assert_int_equal(rb_report_finish(&r, "cannot open device 'mlx5_9'"), 0);
	snprintf(
	    cmd, sizeof(cmd),
	    "python3 -c 'import json,sys; d=json.load(open(\"%s\")); "
	    "sys.exit(0 if d[\"results\"]==[] and d[\"complete\"] is False and \"mlx5_9\" in d[\"error\"] "
	    "else 1)'",
	    path);
	assert_int_equal(system(cmd), 0);
}

/* An incomplete run does not silently replace a complete result: that one is kept as .prev. */
static void complete_kept(void **state)
{
	static const char *fmts[] = {"json", "csv"};
	(void)state;
	for (unsigned i = 0; i < 2; i++) {
		struct rb_report r;
		struct rb_row meta, r1, r2;
		char path[128], prev[140], *good;
		make_rows(&meta, &r1, &r2);
		snprintf(path, sizeof(path), "%s/keep.%s", dir, fmts[i]);
		snprintf(prev, sizeof(prev), "%s.prev", path);
		assert_int_equal(rb_report_open(&r, fmts[i], path), 0);
		rb_report_begin(&r, &meta);
		rb_report_row(&r, &r1);
		assert_int_equal(rb_report_finish(&r, NULL), 0);
		good = strdup(slurp(path));
		assert_int_equal(rb_report_open(&r, fmts[i], path), 0);
		rb_report_begin(&r, &meta);
		assert_int_equal(rb_report_finish(&r, "peer gone"), 0);
		assert_string_equal(slurp(prev), good);
		assert_non_null(strstr(slurp(path), "peer gone"));
		/* An incomplete one replaced by another incomplete one: nothing to keep. */
		unlink(prev);
		assert_int_equal(rb_report_open(&r, fmts[i], path), 0);
		assert_int_equal(rb_report_finish(&r, "peer gone again"), 0);
		assert_int_not_equal(access(prev, F_OK), 0);
		free(good);
		/* A file of another format or program (a CSV from before the error column): kept. */
		FILE *f = fopen(path, "w");
		assert_non_null(f);
		fputs(i ? "size_bytes,bw_avg_gbps\n64,0.01\n" : "{\"results\": []}\n", f);
		fclose(f);
		good = strdup(slurp(path));
		assert_int_equal(rb_report_open(&r, fmts[i], path), 0);
		assert_int_equal(rb_report_finish(&r, "peer gone"), 0);
		assert_string_equal(slurp(prev), good);
		unlink(prev);
		free(good);
	}
}

static void json(void **state)
{
	struct rb_report r;
	struct rb_row meta, r1, r2;
	char path[128], cmd[512];
	const char *text;
	(void)state;
	snprintf(path, sizeof(path), "%s/out.json", dir);
	make_rows(&meta, &r1, &r2);
	assert_int_equal(rb_report_open(&r, "json", path), 0);
	rb_report_begin(&r, &meta);
	rb_report_row(&r, &r1);
	rb_report_row(&r, &r2);
	assert_int_equal(rb_report_finish(&r, NULL), 0);
	text = slurp(path);
	assert_non_null(strstr(text, "\"note\": \"a \\\"quoted\\\", comma\\\\\""));
	assert_non_null(strstr(text, "\"cpu_util_pct\": null"));
	assert_non_null(strstr(text, "\"complete\": true"));
	/* A real JSON parser agrees. */
	snprintf(cmd, sizeof(cmd),
	         "python3 -c 'import json,sys; d=json.load(open(\"%s\")); "
	         "sys.exit(0 if len(d[\"results\"])==2 and d[\"results\"][1][\"bw_avg_gbps\"]==9.5 else 1)'",
	         path);
	assert_int_equal(system(cmd), 0);
}

static void json_error_and_abort(void **state)
{
	struct rb_report r;
	struct rb_row meta, r1, r2;
	char path[128];
	(void)state;
	snprintf(path, sizeof(path), "%s/fail.json", dir);
	make_rows(&meta, &r1, &r2);
	assert_int_equal(rb_report_open(&r, "json", path), 0);
	rb_report_begin(&r, &meta);
	assert_int_equal(rb_report_finish(&r, "peer 10.0.0.2:18515 closed the connection"), 0);
	assert_non_null(strstr(slurp(path), "\"complete\": false"));
	assert_non_null(strstr(slurp(path), "\"error\": \"peer 10.0.0.2:18515 closed the connection\""));

	snprintf(path, sizeof(path), "%s/aborted.csv", dir);
	assert_int_equal(rb_report_open(&r, "csv", path), 0);
	rb_report_row(&r, &r1);
	rb_report_abort(&r);
	assert_int_not_equal(access(path, F_OK), 0);
	/* Bad paths and formats are refused up front. */
	assert_int_not_equal(rb_report_open(&r, "csv", "/nonexistent-dir/x.csv"), 0);
	assert_int_equal(rb_report_open(&r, "json", dir), -EISDIR);
	assert_int_equal(rb_report_open(&r, "csv", ""), -EINVAL);
	{
		/* A FIFO (or a device) would be replaced by the rename, not written; and reading it blocks.
		 */
		char fifo[160];
		snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
		assert_int_equal(mkfifo(fifo, 0600), 0);
		assert_int_equal(rb_report_open(&r, "csv", fifo), -EINVAL);
		unlink(fifo);
	}
	assert_int_not_equal(rb_report_open(&r, "xml", "-"), 0);
}

static void bandwidth_maths(void **state)
{
	struct rb_peak p;
	(void)state;
	/* 1 GB in 1 s = 8 Gb/s; 1e6 messages in 1 s = 1 Mpps. */
	assert_true(fabs(rb_gbps(1000000000ull, 1000000000ull) - 8.0) < 1e-12);
	assert_true(fabs(rb_mpps(1000000, 1000000000ull) - 1.0) < 1e-12);
	assert_true(rb_gbps(10, 0) == 0);
	/* 32 messages of 1000 B: windows of 2; the fastest window sets the peak. */
	rb_peak_init(&p, 32, 0);
	for (uint64_t m = 1; m <= 32; m++)
		rb_peak_update(&p, m, m * 1000, m <= 16 ? m * 1000 : 16000 + (m - 16) * 500);
	assert_true(fabs(rb_peak_gbps(&p) - 16.0) < 1e-9); /* 2000 B / 1000 ns */
	/* One window only: no peak. */
	rb_peak_init(&p, 1, 0);
	rb_peak_update(&p, 1, 100, 10);
	assert_true(rb_peak_gbps(&p) == 0);
}

static void pattern(void **state)
{
	uint8_t a[1001], b[1001];
	size_t off;
	uint8_t e, g;
	(void)state;
	rb_pattern_fill(a, sizeof(a), rb_pattern_tag(0, 1));
	rb_pattern_fill(b, sizeof(b), rb_pattern_tag(0, 2));
	assert_memory_not_equal(a, b, sizeof(a));
	rb_pattern_fill(b, sizeof(b), rb_pattern_tag(1, 1)); /* another QP */
	assert_memory_not_equal(a, b, sizeof(a));
	assert_int_equal(rb_pattern_check(a, sizeof(a), rb_pattern_tag(0, 1), &off, &e, &g), 0);
	a[1000] ^= 0x10; /* last byte of an odd-sized tail */
	assert_int_equal(rb_pattern_check(a, sizeof(a), rb_pattern_tag(0, 1), &off, &e, &g), 1);
	assert_int_equal(off, 1000);
	assert_int_equal(e ^ g, 0x10);
	assert_int_equal(rb_pattern_check(a, sizeof(a), rb_pattern_tag(0, 2), &off, &e, &g), 1);
}

/* A persistent server's nth run: "-n" before the extension of the file name only. */
static void path_numbered(void **state)
{
	char b[32];

	(void)state;
	assert_int_equal(rb_path_numbered(b, sizeof(b), "res.csv", 3), 0);
	assert_string_equal(b, "res-3.csv");
	assert_int_equal(rb_path_numbered(b, sizeof(b), "out/run.v2/res", 1), 0);
	assert_string_equal(b, "out/run.v2/res-1");
	assert_int_equal(rb_path_numbered(b, sizeof(b), "a.b/.hidden", 12), 0);
	assert_string_equal(b, "a.b/.hidden-12");
	assert_int_equal(rb_path_numbered(b, sizeof(b), "x.tar.gz", 2), 0);
	assert_string_equal(b, "x.tar-2.gz");
	assert_int_equal(rb_path_numbered(b, 9, "res.csv", 3), -ENAMETOOLONG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(csv),
	    cmocka_unit_test(path_numbered),
	    cmocka_unit_test(csv_incomplete),
	    cmocka_unit_test(csv_schema),
	    cmocka_unit_test(precision),
	    cmocka_unit_test(json_never_begun),
	    cmocka_unit_test(complete_kept),
	    cmocka_unit_test(json),
	    cmocka_unit_test(json_error_and_abort),
	    cmocka_unit_test(bandwidth_maths),
	    cmocka_unit_test(pattern),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
