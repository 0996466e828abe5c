/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * perftest's --out_json layout, for the scripts that read it: "test_info" (perftest's
 * test name, the device, the QPs, ...), "results" with perftest's keys for the last size
 * measured, as perftest's -a writes only its last (a sweep's every size is in --json's
 * document), then "complete" and the error as in our own document. Each key once: Valid
 * JSON with a key per line, so the scripts that grep perftest 4.5's file (bare keys,
 * trailing commas) read this one too. Bandwidths are in the table's unit (MB/sec,
 * MiB/s, unless --report_gbits), as perftest writes them; intervals and repeats' detail
 * rows are not perftest's.
 */
#include "reporters.h"

#include <math.h>
#include <string.h>

/* Our key and perftest's, for the fields a perftest result has. */
static const char *const keys[][2] = {
    {"size_bytes", "MsgSize"},
    {"bw_peak_gbps", "BW_peak"},
    {"bw_avg_gbps", "BW_average"},
    {"msg_rate_mpps", "MsgRate"},
    {"lat_min_us", "t_min"},
    {"lat_max_us", "t_max"},
    {"lat_p50_us", "t_typical"},
    {"lat_mean_us", "t_avg"},
    {"lat_stdev_us", "t_stdev"},
    {"lat_p99_us", "percentile_99"},
    {"lat_p999_us", "percentile_99.9"},
};

/* "key": value for meta's field from, when it has one; *sep before each. */
static void pair(FILE *f, const struct rb_row *row, const char *from, const char *to, const char **sep)
{
	const struct rb_field *x = rb_row_find(row, from);

	if (!x)
		return;
	fprintf(f, "%s\n    ", *sep);
	rb_json_string(f, to);
	fputs(": ", f);
	rb_json_value(f, x);
	*sep = ",";
}

/* perftest's name of the test the tool runs (its meta's perftest_test), else the tool's own. */
static const char *test_name(const struct rb_row *meta)
{
	const struct rb_field *t = rb_row_find(meta, "perftest_test");

	if (!t)
		t = rb_row_find(meta, "tool");
	return t && t->type == RB_F_STR ? rb_field_str(t) : "";
}

static void pt_begin(FILE *f, const struct rb_row *meta)
{
	const char *sep = ",";

	fputs("{\n  \"test_info\": {\n    \"test\": ", f);
	rb_json_string(f, test_name(meta));
	pair(f, meta, "device", "Device", &sep);
	pair(f, meta, "qps", "Number_of_qps", &sep);
	fputs(",\n    \"Transport_type\": \"IB\",\n    \"Connection_type\": \"RC\"", f);
	pair(f, meta, "tx_depth", "TX_depth", &sep);
	pair(f, meta, "cq_mod", "CQ_Moderation", &sep);
	pair(f, meta, "mtu_bytes", "Mtu", &sep);
	pair(f, meta, "link_layer", "Link_type", &sep);
	pair(f, meta, "gid_index", "GID_index", &sep);
	pair(f, meta, "inline_bytes", "Max_inline_data", &sep);
	pair(f, meta, "role", "role", &sep);
	pair(f, meta, "tool", "tool", &sep);
	pair(f, meta, "schema", "schema", &sep);
	fputs("\n  },\n", f);
}

static void result(FILE *f, const struct rb_row *row, const char *indent)
{
	const char *sep = "";

	fputs("{", f);
	for (unsigned i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const struct rb_field *x = rb_row_find(row, keys[i][0]);

		if (!x)
			continue;
		fprintf(f, "%s\n%s  ", sep, indent);
		rb_json_string(f, keys[i][1]);
		fputs(": ", f);
		rb_json_value(f, x);
		sep = ",";
		/* perftest's count: every QP's messages (a bandwidth row), or the round trips. */
		if (!strcmp(keys[i][0], "size_bytes")) {
			const struct rb_field *n = rb_row_find(row, "msgs");

			if (!n)
				n = rb_row_find(row, "iterations");
			if (n) {
				fprintf(f, ",\n%s  \"n_iterations\": ", indent);
				rb_json_value(f, n);
			}
		}
	}
	fprintf(f, "\n%s}", indent);
}

/* A size's row is kept (ops->last) until the next: only the last is perftest's. */
static void pt_row(FILE *f, const struct rb_row *row, unsigned index)
{
	(void)f;
	(void)row;
	(void)index;
}

static void pt_last(FILE *f, const struct rb_row *row)
{
	fputs("  \"results\": ", f);
	result(f, row, "  ");
	fputs(",\n", f);
}

static void pt_end(FILE *f, unsigned rows, unsigned cols, const char *error, const struct rb_section *sec)
{
	(void)cols;
	(void)sec;
	(void)rows; /* no size measured: no results */
	fprintf(f, "  \"complete\": %s", error ? "false" : "true");
	if (error) {
		fputs(",\n  \"error\": ", f);
		rb_json_string(f, error);
	}
	fputs("\n}\n", f);
}

const struct rb_reporter_ops rb_perftest_ops = {"perftest", pt_begin, pt_row, pt_end, pt_last};
