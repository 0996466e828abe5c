/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: the --all-pairs coordinator on what reaches its port. coord.c and
 * coord_join.c are compiled into this file, not linked, so their static functions run
 * as they are; the rest of the coordinator (coord_round.c, coord_rows.c,
 * coord_report.c) is compiled for this target too (tests/fuzz/meson.build), all with
 * coverage:
 *
 *   - each connection's bytes go through pend_read (the header is judged before any
 *     payload is read into the pending slot's fixed buffer) and take_join (the JOIN's
 *     rank picks rk[rank], exactly size ranks on the heap; the first JOIN's rails size
 *     the result arrays);
 *   - once every rank joined, the rounds run as rb_coord_run runs them: GO, one_round
 *     reading each rank's ROW and END frames from its connection (rb_coord_on_row: the
 *     pair and rail a row names index last[] and rk[]; on_end: the partner and the
 *     devices an END names), rb_coord_round_done, then the outliers, their JSON block and
 *     the summary. Rows go to the text, CSV and JSON reporters, on /dev/null.
 *
 * What is left out: rb_coord_join_all's accept loop and its clock (the pending slots,
 * eviction, the deadline), and the documents' first and last blocks (system facts,
 * the rename).
 * Every connection's stream ends in EOF and --timeout is a minute off, so nothing
 * waits: a rank that stops sending is lost at once, as one that closes is.
 */
/* src/lib/fabric: their static functions (the JOINs' reading, alloc_results) are called here. */
#include "fabric/coord.c"
#include "fabric/coord_join.c"

#include "fuzz.h"

#include <sys/socket.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_RANKS FF_RANKS(6u)
/* Connections one input may open: every rank, and as many strangers besides. */
#define MAX_CONNS (2 * MAX_RANKS)

static FILE *devnull;
static struct rb_fabric_opts fab;
static struct rb_coord_cfg cfg;
static struct rb_reports reps;
static struct coord c;
static struct joining js;
static struct rb_pair pairs[MAX_RANKS * MAX_RANKS]; /* all-to-all: n (n - 1) flows */
static int peer[MAX_CONNS];
static unsigned npeer;

/* The job: its size, schedule and cookie from the input's first byte; rows to every reporter. */
static void job(uint8_t b)
{
	if (!devnull) {
		devnull = fopen("/dev/null", "w");
		FUZZ_CHECK(devnull);
		/* A rank that closes while the coordinator writes is an error, not a SIGPIPE. */
		signal(SIGPIPE, SIG_IGN);
	}
	reps.n = 0;
	for (unsigned i = 0; rb_reporters[i] && reps.n < sizeof(reps.r) / sizeof(reps.r[0]); i++)
		reps.r[reps.n++] = (struct rb_report){.ops = rb_reporters[i], .f = devnull};
	fab = (struct rb_fabric_opts){.all_pairs = true, .slow = 0.8, .retests = 3};
	fab.pairs = (struct rb_pairs_spec){(enum rb_pairs_mode)FF_PAIRS(b), FF_RANDOM_K(b), 1};
	{
		static const enum rb_pattern_kind kinds[] = {RB_PAT_PAIRS, RB_PAT_INCAST, RB_PAT_BISECTION,
		                                             RB_PAT_ALL_TO_ALL};
		fab.pattern = (struct rb_pattern){kinds[FF_PATTERN(b)], 1u + b % (FF_RANKS(b) - 1u), 0};
	}
	cfg = (struct rb_coord_cfg){.tool = "rc_write_bw",
	                            .size = FF_RANKS(b),
	                            .fab = &fab,
	                            .join_timeout_s = 60,
	                            .silence_s = 60,
	                            .reps = &reps};
	cfg.gates = (struct rb_gate_opts){.min_bw_gbps = 1, .max_lat_p99_us = 1000};
	memset(cfg.cookie, FF_COOKIE_BYTE, sizeof(cfg.cookie));
	memset(&c, 0, sizeof(c));
	c.cfg = &cfg;
	c.n = cfg.size;
	plan(&c);
	c.rails = 1;
	c.seed = FF_SEED;
	/* Exactly n ranks on the heap: a rank index past them is caught. */
	c.rk = calloc(c.n, sizeof(*c.rk));
	FUZZ_CHECK(c.rk);
	for (uint32_t r = 0; r < c.n; r++)
		c.rk[r].oob.fd = -1;
	memset(&js, 0, sizeof(js));
	for (int i = 0; i < JOIN_PENDING; i++)
		js.pend[i].fd = -1;
	npeer = 0;
}

/* A connection that sends p[0..len) and then EOF: the coordinator's end, non-blocking. */
static int connection(const uint8_t *p, size_t len)
{
	int sv[2], bufsz = 4 * FF_MAX_INPUT;
	size_t done = 0;

	FUZZ_CHECK(npeer < MAX_CONNS && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
	setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &bufsz, sizeof(bufsz));
	fcntl(sv[0], F_SETFL, O_NONBLOCK);
	while (done < len) {
		ssize_t w = send(sv[1], p + done, len - done, MSG_NOSIGNAL | MSG_DONTWAIT);

		FUZZ_CHECK(w > 0 || errno == EINTR);
		done += w > 0 ? (size_t)w : 0;
	}
	shutdown(sv[1], SHUT_WR);
	/* The rank's end stays open: what the coordinator sends it lands in a buffer nobody reads. */
	peer[npeer++] = sv[1];
	return sv[0];
}

/*
 * The connections, one record each (u16 length, then its bytes), each read as
 * rb_coord_join_all reads a new one, until every rank joined. Returns advance's error.
 */
static int joins(const uint8_t **p, size_t *n)
{
	struct pending *pd = &js.pend[0];
	int ret = 0;

	while (!ret && js.joined < c.n && *n >= 2 && npeer < MAX_CONNS) {
		size_t len = (size_t)((*p)[0] << 8 | (*p)[1]);

		len = len < *n - 2 ? len : *n - 2;
		pd->fd = connection(*p + 2, len);
		pd->since = rb_now_ns();
		pd->got = 0;
		snprintf(pd->peer, sizeof(pd->peer), "connection %u", npeer);
		ret = advance(&c, &js, 0);
		/* The stream has ended: the slot is a rank's channel or free, never left waiting. */
		FUZZ_CHECK(pd->fd < 0);
		*p += 2 + len;
		*n -= 2 + len;
	}
	flush_refusals(&js.rf);
	return ret;
}

/* rb_coord_run from the JOINs on: the rounds, the outliers, their JSON block, the summary. */
static void rounds(int ret)
{
	if (!ret)
		FUZZ_CHECK(alloc_results(&c) == 0);
	if (!ret)
		ret = rb_coord_all_rounds(&c, &fab.pairs, pairs);
	else
		rb_coord_abort_all(&c);
	rb_coord_outliers(&c);
	/* The re-tests plan from what the streams said; a stream that ended loses its rank there. */
	if (!ret && !c.flows)
		ret = rb_coord_retests(&c, pairs);
	if (!ret)
		rb_coord_over(&c);
	if (c.judged) {
		rb_coord_emit_outliers(devnull, &c);
		rb_coord_emit_retests(devnull, &c);
		rb_coord_emit_pattern(devnull, &c);
	}
	rb_coord_summary(&c);
	/* Whatever the ranks sent, every result is a pair of this job's ranks and rails. */
	for (uint32_t i = 0; i < c.out.nworst; i++)
		FUZZ_CHECK(c.out.worst[i].server < c.n * c.rails && c.out.worst[i].client < c.n * c.rails);
	for (uint32_t i = 0; i < c.out.nfailed_kept; i++)
		FUZZ_CHECK(c.out.failed[i].server < c.n * c.rails && c.out.failed[i].client < c.n * c.rails);
}

static void cleanup(void)
{
	for (unsigned i = 0; i < npeer; i++)
		close(peer[i]);
	release(&c); /* coord.c's own */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *p = data + 1;
	size_t n;
	int ret;

	fuzz_register_msgs();

	if (size < 1)
		return 0;
	n = size - 1 < FF_MAX_INPUT ? size - 1 : FF_MAX_INPUT;
	job(data[0]);
	ret = joins(&p, &n);
	/* Not every rank came: the run ends as rb_coord_join_all's deadline would end it. */
	if (!ret && js.joined < c.n)
		ret = -ETIMEDOUT;
	rounds(ret);
	cleanup();
	return 0;
}
