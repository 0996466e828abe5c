/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * iperf3's -J layout, for the scripts that read it (jq '.end.sum_sent.bits_per_second'):
 * "start" (test_start: protocol, num_streams, blksize, duration, blocks, reverse),
 * "intervals" (each with its "sum", and "streams" empty: intervals are the sum's),
 * "end" ("streams" with each stream's sender and receiver figures, "sum_sent",
 * "sum_received" (with -b also "sum_sent_bidir_reverse" and "sum_received_bidir_reverse":
 * the server's direction), "cpu_utilization_percent", "sender_tcp_congestion"), then "complete"
 * and the error as in our own document. One test: one message size (the tool refuses a
 * sweep with it). Every figure is this side's, in the row that holds it: bytes as both
 * sides agreed on them, seconds on this side's clock, so sum_received.seconds is ours
 * too, not the receiver's own.
 *
 * A document is written in one pass, in row order (intervals, then the streams, then
 * their sum): the little it must remember between rows is this file's state, reset by
 * begin (one such document at a time in a process).
 */
#include "reporters.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static struct {
	bool host_is_client; /* the meta's role: whose CPU is host_total */
	bool ended;          /* "intervals" closed and "end" opened */
	bool closed;         /* "end" closed, "start" written */
	unsigned streams;    /* stream rows written into end.streams */
	char version[32], date[40];
	double iterations, duration_s;
} st;

static const struct rb_field *field(const struct rb_row *row, const char *key)
{
	return rb_row_find(row, key);
}

static double num(const struct rb_row *row, const char *key)
{
	const struct rb_field *x = field(row, key);

	if (!x)
		return NAN;
	return x->type == RB_F_DBL ? x->v.d : x->type == RB_F_U64 ? (double)x->v.u : NAN;
}

static const char *str(const struct rb_row *row, const char *key)
{
	const struct rb_field *x = field(row, key);

	return x && x->type == RB_F_STR ? rb_field_str(x) : "";
}

/* "key": v, a number (null when unknown), after sep. */
static void put(FILE *f, const char *sep, const char *key, double v)
{
	fprintf(f, "%s\"%s\": ", sep, key);
	if (isfinite(v))
		rb_dbl_full(f, v);
	else
		fputs("null", f);
}

/*
 * iperf3's figures of a stretch, a key a line as iperf3 prints them (in: the indent of
 * the object's keys): start, end, seconds, bytes, bits_per_second (, retransmits).
 */
static void figures(FILE *f, double from, double bytes, double gbps, double retrans, const char *in)
{
	double el = gbps > 0 ? bytes * 8 / (gbps * 1e9) : NAN;
	char sep[40];

	snprintf(sep, sizeof(sep), ",\n%s", in);
	fprintf(f, "{\n%s", in);
	put(f, "", "start", from);
	put(f, sep, "end", from + el);
	put(f, sep, "seconds", el);
	put(f, sep, "bytes", bytes);
	put(f, sep, "bits_per_second", gbps * 1e9);
	if (!isnan(retrans))
		put(f, sep, "retransmits", retrans);
	fprintf(f, "%s\"sender\": true\n%.*s}", sep, (int)strlen(in) - 2, in);
}

/* A row's stretch: its span, bytes and rate (the seconds are the row's elapsed_s). */
static void stretch(FILE *f, const struct rb_row *row, bool retrans, const char *in)
{
	double from = num(row, "t_start_s"), el = num(row, "elapsed_s"), bytes = num(row, "bytes");

	figures(f, isfinite(from) ? from : 0, bytes, el > 0 ? bytes * 8 / el / 1e9 : NAN,
	        retrans ? num(row, "tcp_retrans") : NAN, in);
}

/*
 * -b: iperf3's sum_sent and sum_received are the client's sends, *_bidir_reverse the
 * server's; each direction's bytes and rate as this side measured it (bytes_tx, ...).
 */
static void bidir_sums(FILE *f, const struct rb_row *row)
{
	const char *fwd = st.host_is_client ? "tx" : "rx", *rev = st.host_is_client ? "rx" : "tx";
	const char *names[][2] = {{"sum_sent", fwd},
	                          {"sum_received", fwd},
	                          {"sum_sent_bidir_reverse", rev},
	                          {"sum_received_bidir_reverse", rev}};
	char b[24], g[32];

	for (unsigned i = 0; i < 4; i++) {
		snprintf(b, sizeof(b), "bytes_%s", names[i][1]);
		snprintf(g, sizeof(g), "bw_avg_%s_gbps", names[i][1]);
		fprintf(f, "%s\n    \"%s\": ", i ? "," : "", names[i][0]);
		figures(f, 0, num(row, b), num(row, g), NAN, "      ");
	}
}

static void ip_begin(FILE *f, const struct rb_row *meta)
{
	memset(&st, 0, sizeof(st));
	st.host_is_client = !strcmp(str(meta, "role"), "client");
	snprintf(st.version, sizeof(st.version), "%s", str(meta, "version"));
	snprintf(st.date, sizeof(st.date), "%s", str(meta, "date"));
	st.iterations = num(meta, "iterations");
	st.duration_s = num(meta, "duration_s");
	fputs("{\n  \"intervals\": [", f);
}

/* "start", after "end" (a JSON object's keys have no order): what the size's row says of the test. */
static void start(FILE *f, const struct rb_row *row)
{
	double streams = num(row, "streams");

	fputs("  \"start\": {\n    \"version\": ", f);
	rb_json_string(f, st.version);
	fputs(",\n    \"timestamp\": {\"time\": ", f);
	rb_json_string(f, st.date);
	fputs("},\n    \"test_start\": {\n      \"protocol\": \"TCP\"", f);
	put(f, ",\n      ", "num_streams", isfinite(streams) && streams > 1 ? streams : 1);
	put(f, ",\n      ", "blksize", num(row, "size_bytes"));
	put(f, ",\n      ", "duration", isfinite(st.duration_s) ? st.duration_s : 0);
	put(f, ",\n      ", "bytes", 0);
	put(f, ",\n      ", "blocks", isfinite(st.duration_s) ? 0 : st.iterations);
	put(f, ",\n      ", "reverse", !strcmp(str(row, "mode"), "reverse"));
	fputs("\n    }\n  },\n", f);
}

/* The first row past the intervals closes them. */
static void end_open(FILE *f, unsigned index)
{
	if (st.ended)
		return;
	st.ended = true;
	fputs(index ? "\n  ],\n  \"end\": {\n    \"streams\": [" : "],\n  \"end\": {\n    \"streams\": [", f);
}

/* A stream's entry in end.streams: its sender's figures and its receiver's (the same bytes). */
static void stream_entry(FILE *f, const struct rb_row *row, unsigned socket)
{
	fprintf(f, "%s\n      {\n        \"socket\": %u,\n        \"sender\": ", st.streams++ ? "," : "",
	        socket);
	stretch(f, row, false, "          ");
	fputs(",\n        \"receiver\": ", f);
	stretch(f, row, false, "          ");
	fputs("\n      }", f);
}

static void ip_row(FILE *f, const struct rb_row *row, unsigned index)
{
	const char *iv = str(row, "interval"), *stream = str(row, "stream");
	bool total = !field(row, "interval") || !strcmp(iv, "total");
	bool sum = !stream[0] || !strcmp(stream, "sum");
	double cpu_c = num(row, "cpu_client_pct"), cpu_s = num(row, "cpu_server_pct");

	if (st.closed)
		return; /* one test: a later size's rows are not iperf3's */

	if (!total && sum && !st.ended) { /* an interval of the sum */
		fputs(index ? ",\n    {\n      \"streams\": [],\n      \"sum\": "
		            : "\n    {\n      \"streams\": [],\n      \"sum\": ",
		      f);
		stretch(f, row, false, "        ");
		fputs("\n    }", f);
		return;
	}
	end_open(f, index);
	if (!sum) {
		stream_entry(f, row, (unsigned)strtoul(stream, NULL, 10));
		return;
	}
	if (!total || st.closed)
		return; /* an interval after the streams, or a second size: not iperf3's */
	if (!st.streams)
		stream_entry(f, row, 1); /* one stream: the sum is it */
	fputs("\n    ],", f);
	if (field(row, "bytes_tx")) {
		bidir_sums(f, row);
	} else {
		fputs("\n    \"sum_sent\": ", f);
		stretch(f, row, true, "      ");
		fputs(",\n    \"sum_received\": ", f);
		stretch(f, row, false, "      ");
	}
	put(f, ",\n    \"cpu_utilization_percent\": {\n      ", "host_total",
	    st.host_is_client ? cpu_c : cpu_s);
	put(f, ",\n      ", "remote_total", st.host_is_client ? cpu_s : cpu_c);
	fputs("\n    },\n    \"sender_tcp_congestion\": ", f);
	rb_json_string(f, str(row, "tcp_cc"));
	fputs("\n  },\n", f);
	start(f, row);
	st.closed = true;
}

static void ip_end(FILE *f, unsigned rows, unsigned cols, const char *error, const struct rb_section *sec)
{
	(void)cols;
	(void)sec;
	/* A run that failed before its size's row: what was open closes. */
	if (!rows)
		fputs("],\n", f);
	else if (!st.ended)
		fputs("\n  ],\n", f);
	else if (!st.closed)
		fputs("\n    ]\n  },\n", f);
	fprintf(f, "  \"complete\": %s", error ? "false" : "true");
	if (error) {
		fputs(",\n  \"error\": ", f);
		rb_json_string(f, error);
	}
	fputs("\n}\n", f);
}

const struct rb_reporter_ops rb_iperf3_ops = {"iperf3", ip_begin, ip_row, ip_end, NULL};
