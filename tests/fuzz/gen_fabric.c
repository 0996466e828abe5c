/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz_fabric's seeds (DIR/fabric/): behind the job byte, whole --all-pairs jobs
 * as the coordinator's port sees them, one connection per rank (JOIN, then per
 * round the client's ROWs and an END): bandwidth and latency rows, several rails,
 * a failed pair, a lost rank, strangers, ranks whose rails differ. The ROW
 * payloads are made here; fuzz_wire's ROW seeds use them too.
 */
#include "gen_seeds.h"

#include "measure/schedule.h"

#include <string.h>

/* A pair's row of bandwidth at one size, as rc_write_bw's client sends it. */
void bw_row(struct rb_wbuf *w, uint32_t round, uint32_t server, uint32_t client, uint32_t rail, uint64_t size)
{
	static struct rb_row row;

	memset(&row, 0, sizeof(row));
	rb_row_u64(&row, "size_bytes", "size", size);
	rb_row_dbl(&row, "bw_avg_gbps", "BW[Gb/s]", 2, 90.0 + rail + (double)size / 1e6);
	rb_row_dbl(&row, "bw_peak_gbps", NULL, 2, 97.5);
	rb_row_u64(&row, "msgs", NULL, 4096);
	rb_row_str(&row, "device", "dev", "mlx5_0");
	rb_row_bool(&row, "verified", NULL, true);
	rb_fab_row_encode(w, round, server, client, rail, &row);
}

/* A row of RB_ROW_MAX fields, every type, each key, label and string as long as the decoder takes. */
void full_row(struct rb_wbuf *w, uint32_t round, uint32_t server, uint32_t client)
{
	static struct rb_row row;
	static char keys[RB_ROW_MAX][RB_FAB_KEY_LEN], labels[RB_ROW_MAX][RB_FAB_LABEL_LEN];
	static char str[sizeof(row.f[0].s)];

	memset(&row, 0, sizeof(row));
	longest(str, sizeof(str), 's');
	for (unsigned i = 0; i < RB_ROW_MAX; i++) {
		longest(keys[i], sizeof(keys[i]), 'k');
		snprintf(keys[i], sizeof(keys[i]), "%02u", i);
		keys[i][2] = 'k';
		longest(labels[i], sizeof(labels[i]), 'l');
		switch (i % 4) {
		case 0: rb_row_u64(&row, keys[i], labels[i], UINT64_MAX - i); break;
		case 1: rb_row_dbl(&row, keys[i], labels[i], 12, 1e300 * i); break;
		case 2: rb_row_str(&row, keys[i], labels[i], str); break;
		default: rb_row_bool(&row, keys[i], NULL, i & 4); break;
		}
	}
	rb_fab_row_encode(w, round, server, client, 0, &row);
}

/* A pair's row of latency, as rc_write_lat's client sends it. */
static void lat_row(struct rb_wbuf *w, uint32_t round, uint32_t server, uint32_t client)
{
	static struct rb_row row;

	memset(&row, 0, sizeof(row));
	rb_row_u64(&row, "size_bytes", "size", 8);
	rb_row_dbl(&row, "lat_p50_us", "p50[us]", 2, 1.9 + client);
	rb_row_dbl(&row, "lat_p99_us", "p99[us]", 2, 2.6 + client);
	rb_fab_row_encode(w, round, server, client, 0, &row);
}

/* fuzz_fabric: one connection's record, its stream's length and then the stream. */
static void conn(struct seed *s, const struct seed *stream)
{
	put(s, (uint8_t[]){(uint8_t)(stream->len >> 8), (uint8_t)stream->len}, 2);
	put(s, stream->b, stream->len);
}

static void join_frame(struct seed *s, uint32_t rank, uint32_t size, uint32_t rails)
{
	struct rb_fab_join j = {rank, size, 1000 + rank, rails, {0}, "", "", "10.0.0.1"};
	struct rb_wbuf w = {pbuf, 0, sizeof(pbuf), false};

	memset(j.cookie, FF_COOKIE_BYTE, sizeof(j.cookie));
	snprintf(j.host, sizeof(j.host), "node-%02u", rank);
	if (rails > 1)
		snprintf(j.dev, sizeof(j.dev), "mlx5_0,mlx5_1");
	else
		snprintf(j.dev, sizeof(j.dev), "mlx5_%u", rank);
	rb_fab_join_encode(&w, &j);
	frame(s, RB_MSG_JOIN, &w);
}

static void end_frame(struct seed *s, uint32_t round, uint32_t partner, const char *error)
{
	struct rb_fab_end e = {round, partner, error ? 1 : 0, "", "mlx5_0"};
	struct rb_wbuf w = {pbuf, 0, sizeof(pbuf), false};

	snprintf(e.error, sizeof(e.error), "%s", error ? error : "");
	rb_fab_end_encode(&w, &e);
	frame(s, RB_MSG_END, &w);
}

/* How a job's ranks behave: bandwidth or latency rows, a pair that fails, a rank that dies. */
struct job {
	const char *name;
	uint32_t n, mode, k, rails;
	bool lat, full;                 /* full: the client's first row is as long as a row gets */
	uint32_t fail_round, dead_rank; /* UINT32_MAX: none */
};

/* Rank r's whole stream: its JOIN, then per round its rows (the client's) and its END. */
static void rank_stream(struct seed *st, const struct job *jb, uint32_t r)
{
	const struct rb_pairs_spec spec = {(enum rb_pairs_mode)jb->mode, jb->k, 1};
	struct rb_wbuf w = {pbuf, 0, sizeof(pbuf), false};

	st->len = 0;
	join_frame(st, r, jb->n, jb->rails);
	for (uint32_t round = 0; round < rb_sched_rounds(&spec, jb->n); round++) {
		struct rb_pair p;
		bool in = rb_sched_mine(&spec, jb->n, FF_SEED, round, r, &p);
		uint32_t partner = !in ? UINT32_MAX : p.client == r ? p.server : p.client;

		if (r == jb->dead_rank && round == 1)
			return; /* its stream ends: the coordinator loses it */
		if (in && p.client == r && jb->full) {
			w.len = 0;
			full_row(&w, round, p.server, r);
			frame(st, RB_MSG_ROW, &w);
		}
		for (uint32_t rail = 0; in && p.client == r && rail < jb->rails; rail++) {
			for (uint64_t size = 65536; size <= (jb->lat ? 65536u : 262144u); size *= 4) {
				w.len = 0;
				if (jb->lat)
					lat_row(&w, round, p.server, r);
				else
					bw_row(&w, round, p.server, r, rail, size);
				frame(st, RB_MSG_ROW, &w);
			}
		}
		end_frame(st, round, partner,
		          in && round == jb->fail_round ? "completion error: retry exceeded" : NULL);
	}
}

/* fuzz_fabric: the job byte, then each rank's connection; strangers first where a job has them. */
void fabric_seeds(void)
{
	static const struct job jobs[] = {
	    {"pair", 2, RB_PAIRS_ALL, 1, 1, false, false, UINT32_MAX, UINT32_MAX},
	    {"pair-full-row", 2, RB_PAIRS_ALL, 1, 1, false, true, UINT32_MAX, UINT32_MAX},
	    {"ring3-2rails", 3, RB_PAIRS_RING, 1, 2, false, false, UINT32_MAX, UINT32_MAX},
	    {"all4-lat", 4, RB_PAIRS_ALL, 1, 1, true, false, UINT32_MAX, UINT32_MAX},
	    {"random5-failed-pair", 5, RB_PAIRS_RANDOM, 2, 1, false, false, 1, UINT32_MAX},
	    {"all6-rank-lost", 6, RB_PAIRS_ALL, 1, 1, false, false, UINT32_MAX, 4},
	    {"strangers", 2, RB_PAIRS_ALL, 1, 1, false, false, UINT32_MAX, UINT32_MAX},
	};
	struct seed *s = calloc(1, sizeof(*s)), *st = calloc(1, sizeof(*st));

	if (!s || !st)
		exit(1);
	for (unsigned j = 0; j < sizeof(jobs) / sizeof(jobs[0]); j++) {
		const struct job *jb = &jobs[j];
		uint8_t b = FF_JOB(jb->n, jb->mode, jb->k);

		s->len = 0;
		put(s, &b, 1);
		if (!strcmp(jb->name, "strangers")) {
			uint8_t h[RB_WIRE_HDR_LEN];

			/* An HTTP request, a JOIN header promising more than a JOIN holds, another job's
			 * JOIN. */
			st->len = 0;
			put(st, "GET / HTTP/1.1\r\n\r\n", 18);
			conn(s, st);
			st->len = 0;
			rb_frame_hdr_encode(h, RB_MSG_JOIN, 65535);
			put(st, h, sizeof(h));
			conn(s, st);
			st->len = 0;
			join_frame(st, 0, 3, 1);
			conn(s, st);
		}
		for (uint32_t r = 0; r < jb->n; r++) {
			rank_stream(st, jb, r);
			conn(s, st);
			/* The same rank again, at once: a JOIN for a rank that joined already. */
			if (!strcmp(jb->name, "strangers") && r == 0)
				conn(s, st);
		}
		save("fabric", jb->name, s);
	}
	/* Ranks with 1 and 2 rails: the coordinator ends the run. */
	s->len = 0;
	put(s, (uint8_t[]){FF_JOB(2, RB_PAIRS_ALL, 1)}, 1);
	st->len = 0;
	join_frame(st, 0, 2, 1);
	conn(s, st);
	st->len = 0;
	join_frame(st, 1, 2, 2);
	conn(s, st);
	save("fabric", "rails-differ", s);
	free(st);
	free(s);
}
