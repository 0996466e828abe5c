/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The rounds: GO to every rank, then each rank's ROWs (coord_rows.c) and END until
 * every rank ended the round, the keepalives to the ranks that wait, the deadlines,
 * and a lost rank (closed, silent, or sending what it must not), which ends the run
 * with every other rank told why (ERROR).
 */
#include "coord_priv.h"

#include "oob/oob.h"
#include "base/base.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEEPALIVE_MS 1000

/* The index of rank r's first flow this round, or UINT32_MAX when it sits out. */
static uint32_t pair_of(const struct coord *c, uint32_t r)
{
	for (uint32_t i = 0; i < c->np; i++)
		if (c->pairs[i].server == r || c->pairs[i].client == r)
			return i;
	return UINT32_MAX;
}

/* Whether every rank that shares a flow with r this round has ended. */
static bool partners_ended(const struct coord *c, uint32_t r)
{
	for (uint32_t i = 0; i < c->np; i++)
		if ((c->pairs[i].server == r && !c->rk[c->pairs[i].client].ended) ||
		    (c->pairs[i].client == r && !c->rk[c->pairs[i].server].ended))
			return false;
	return true;
}

/*
 * The flow a rank's failed END names, with partner p: of the flows between them (both
 * ways in all-to-all), one that sent no row. A server's child may have served another
 * partner's client than its own (they share the rank's listener), so when every flow
 * with p measured, a flow of this rank that sent nothing is the failed one.
 */
static uint32_t failed_flow(const struct coord *c, uint32_t from, uint32_t p)
{
	const uint32_t nf = rb_coord_nflows(c);
	uint32_t first = UINT32_MAX;

	for (uint32_t i = 0; i < nf; i++) {
		bool with_p = (c->pairs[i].server == from && c->pairs[i].client == p) ||
		              (c->pairs[i].client == from && c->pairs[i].server == p);
		if (!with_p)
			continue;
		if (first == UINT32_MAX)
			first = i;
		if (!c->nrows_pair[i])
			return i;
	}
	for (uint32_t i = 0; first != UINT32_MAX && i < nf; i++)
		if ((c->pairs[i].server == from || c->pairs[i].client == from) && !c->nrows_pair[i] &&
		    !c->perr[i][0])
			return i;
	/* None of the flows: the victim's run, when it is with p (its leg failed to start; it fails no flow).
	 */
	if (first == UINT32_MAX && nf < c->np &&
	    ((c->pairs[nf].server == from && c->pairs[nf].client == p) ||
	     (c->pairs[nf].client == from && c->pairs[nf].server == p)))
		return nf;
	return first;
}

/* A pattern's GO: every flow of rank r this round, run at once (the victim's last: its own roles). */
static void go_flows(const struct coord *c, uint32_t r, struct rb_fab_go *g)
{
	for (uint32_t i = 0; i < c->np && g->nflows < RB_FAB_GO_FLOWS; i++) {
		bool client = c->pairs[i].client == r, victim = c->v.on && i == c->np - 1;

		if (c->pairs[i].server == r || client)
			g->flows[g->nflows++] = (struct rb_fab_flow){
			    client ? c->pairs[i].server : c->pairs[i].client,
			    (uint8_t)(victim ? (client ? RB_FLOW_VICTIM_CLIENT : RB_FLOW_VICTIM_SERVER)
			                     : (client ? RB_GO_CLIENT : RB_GO_SERVER))};
	}
	if (g->nflows)
		g->role = RB_GO_FLOWS;
}

/* Each rank its part of the round (c->pairs): serve, connect, its flows, or sit out; or that the run is over.
 */
static void go(struct coord *c, bool over)
{
	static struct rb_fab_go g;
	uint32_t *of = calloc(c->n, sizeof(*of));

	for (uint32_t r = 0; r < c->n; r++)
		if (of)
			of[r] = UINT32_MAX;
	for (uint32_t i = 0; of && !over && i < c->np; i++)
		of[c->pairs[i].server] = of[c->pairs[i].client] = i;
	for (uint32_t r = 0; r < c->n; r++) {
		uint8_t buf[RB_FAB_GO_MAX];
		struct rb_wbuf w = {buf, 0, sizeof(buf), false};
		uint32_t pi = of ? of[r] : pair_of(c, r);

		memset(&g, 0, sizeof(g));
		g.round = c->round;
		g.partner = UINT32_MAX;
		g.role = RB_GO_IDLE;
		g.phase = c->retesting ? RB_GO_RETEST : RB_GO_SCHEDULE;
		c->rk[r].ended = false;
		if (over) {
			g.role = RB_GO_OVER;
		} else if (c->flows) {
			go_flows(c, r, &g);
		} else if (pi != UINT32_MAX) {
			bool client = c->pairs[pi].client == r;

			g.role = client ? RB_GO_CLIENT : RB_GO_SERVER;
			g.partner = client ? c->pairs[pi].server : c->pairs[pi].client;
		}
		rb_fab_go_encode(&w, &g);
		if (c->rk[r].oob.fd >= 0 && rb_oob_send_w(&c->rk[r].oob, RB_MSG_GO, &w))
			rb_forget_first_error();
	}
	free(of);
}

/* The run is over for everyone: each living rank is told why. */
void rb_coord_abort_all(struct coord *c)
{
	for (uint32_t r = 0; r < c->n; r++)
		if (c->rk[r].oob.fd >= 0)
			rb_oob_send_error(&c->rk[r].oob, "%s", c->cause);
}

static void lose(struct coord *c, uint32_t r, const char *why)
{
	struct rank *k = &c->rk[r];

	if (!c->cause[0] && c->retesting)
		snprintf(c->cause, sizeof(c->cause), "rank %u (%s, pid %u) lost in re-test round %u: %s", r,
		         k->join.host, k->join.pid, c->round + 1 - c->rounds, why);
	else if (!c->cause[0])
		snprintf(c->cause, sizeof(c->cause), "rank %u (%s, pid %u) lost in round %u of %u: %s", r,
		         k->join.host, k->join.pid, rb_coord_round_no(c, c->round), c->rounds - c->v.on, why);
	k->lost = true;
	rb_oob_close(&k->oob);
}

/*
 * A rank's END. Its partner (when it has one) has silence_s from now to end its side;
 * a pair either side ended with an error failed, whatever rows it sent.
 */
static int on_end(struct coord *c, uint32_t from, const struct rb_frame *f)
{
	struct rb_fab_end e;
	uint32_t pi = pair_of(c, from), partner;

	if (rb_fab_end_decode(f->p, f->len, &e) || e.round != c->round || c->rk[from].ended)
		return -EPROTO;
	partner = pi == UINT32_MAX              ? UINT32_MAX
	          : c->pairs[pi].server == from ? c->pairs[pi].client
	                                        : c->pairs[pi].server;
	/* Several flows: the first failed one's partner, or none in particular. */
	if (c->flows && pi != UINT32_MAX && e.partner != RB_FAB_SEVERAL) {
		pi = e.partner < c->n ? failed_flow(c, from, e.partner) : UINT32_MAX;
		if (pi == UINT32_MAX)
			return -EPROTO;
		partner = e.partner;
	} else if (c->flows && pi != UINT32_MAX) {
		partner = e.partner;
	}
	if (e.partner != partner)
		return -EPROTO;
	c->rk[from].ended = true;
	rb_coord_set_devs(&c->rk[from], e.dev, true);
	/*
	 * Every rank it shared a flow with has silence_s from now to end its side; with
	 * several flows, once every rank it shares one with has ended (its other flows may
	 * run on: a hung one is caught by its own partners' deadlines).
	 */
	for (uint32_t i = 0; i < c->np; i++) {
		uint32_t other = c->pairs[i].server == from   ? c->pairs[i].client
		                 : c->pairs[i].client == from ? c->pairs[i].server
		                                              : UINT32_MAX;
		if (other != UINT32_MAX && !c->rk[other].ended && (!c->flows || partners_ended(c, other)))
			c->rk[other].deadline = rb_now_ns() + (uint64_t)c->cfg->silence_s * 1000000000ull;
	}
	if (partner == RB_FAB_SEVERAL)
		partner = UINT32_MAX;
	if (e.error[0]) {
		fprintf(stderr, "%s: round %u: rank %u (%s) with rank %u: %s\n", rb_prog(),
		        rb_coord_round_no(c, c->round), from, c->rk[from].join.host, partner, e.error);
		if (pi != UINT32_MAX && !c->perr[pi][0])
			snprintf(c->perr[pi], sizeof(c->perr[pi]), "rank %u: %.480s", from, e.error);
	}
	return 0;
}

/*
 * One round: rows and ENDs until every rank ended it. A rank that closes is lost; a
 * rank whose partner ended with an error has --timeout more to end its side, or is
 * lost (a host that hangs closes nothing).
 */
static int one_round(struct coord *c)
{
	struct pollfd *pfd = calloc(c->n, sizeof(*pfd));
	uint64_t next_alive = rb_now_ns();
	int ret = 0;

	if (!pfd)
		return -ENOMEM;
	/* A rank that sits the round out has nothing to wait for: it ends at once, or is hung. */
	for (uint32_t r = 0; r < c->n; r++)
		c->rk[r].deadline = pair_of(c, r) == UINT32_MAX
		                        ? rb_now_ns() + (uint64_t)c->cfg->silence_s * 1000000000ull
		                        : UINT64_MAX;
	for (;;) {
		uint32_t waiting = 0;
		int pr;

		for (uint32_t r = 0; r < c->n; r++) {
			bool wait = !c->rk[r].ended && !c->rk[r].lost;

			pfd[r].fd = wait ? c->rk[r].oob.fd : -1;
			pfd[r].events = POLLIN;
			pfd[r].revents = 0;
			waiting += wait;
		}
		if (!waiting)
			break;
		/* The first cause stays: a launcher's SIGTERM after a lost rank does not hide it. */
		if ((ret = rb_check_stop())) {
			if (!c->cause[0])
				snprintf(c->cause, sizeof(c->cause), "%s", rb_first_error());
			break;
		}
		for (uint32_t r = 0; r < c->n && !ret; r++) {
			char why[160];

			if (c->rk[r].ended || c->rk[r].lost || rb_now_ns() < c->rk[r].deadline)
				continue;
			snprintf(why, sizeof(why),
			         "no END within %u s (--oob-timeout + 10) of %s: hung, or its host froze",
			         c->cfg->silence_s,
			         pair_of(c, r) == UINT32_MAX ? "the round's start (it sat out)"
			                                     : "its partner's");
			lose(c, r, why);
			ret = -ETIMEDOUT;
		}
		if (ret)
			break;
		if (rb_now_ns() >= next_alive) {
			/* Ranks that ended wait for GO: they hear the coordinator is alive. */
			for (uint32_t r = 0; r < c->n; r++)
				if (c->rk[r].ended && c->rk[r].oob.fd >= 0 &&
				    rb_oob_send(&c->rk[r].oob, RB_MSG_PROGRESS, NULL, 0))
					rb_forget_first_error();
			next_alive = rb_now_ns() + KEEPALIVE_MS * 1000000ull;
		}
		pr = poll(pfd, c->n, KEEPALIVE_MS);
		if (pr < 0 && errno != EINTR) {
			ret = -errno;
			break;
		}
		for (uint32_t r = 0; r < c->n && !ret && pr > 0; r++) {
			struct rb_frame f;

			if (!pfd[r].revents)
				continue;
			/*
			 * A lost rank ends the run at once: the documents keep the rows that came,
			 * and are written before a launcher that saw the death too kills the job.
			 */
			if (rb_oob_recv(&c->rk[r].oob, &f, 5000)) {
				rb_forget_first_error();
				/* Rank 0 stopped (SIGINT, SIGTERM) tells us before it closes: that is the
				 * cause. */
				if ((ret = rb_check_stop())) {
					if (!c->cause[0])
						snprintf(c->cause, sizeof(c->cause), "%s", rb_first_error());
					break;
				}
				lose(c, r, "its control connection closed (the process died or was killed)");
				ret = -ECONNRESET;
				break;
			}
			if (f.type == RB_MSG_ROW)
				ret = rb_coord_on_row(c, r, &f);
			else if (f.type == RB_MSG_END)
				ret = on_end(c, r, &f);
			else
				ret = -EPROTO;
			if (ret == -EPROTO)
				lose(c, r,
				     "it sent a malformed or unexpected control frame (not its pair's, after "
				     "its END, "
				     "or past the rows a pair may send)");
		}
		if (ret)
			break;
	}
	free(pfd);
	return ret;
}

int rb_coord_play_round(struct coord *c, const struct rb_pair *pairs, uint32_t np)
{
	int ret;

	c->pairs = pairs;
	/* --victim: its flow follows the round's (the caller put it at pairs[np]); no result of theirs. */
	c->np = np + (c->v.on && !c->retesting);
	for (uint32_t i = 0; i < c->np * c->rails; i++)
		c->last[i] = NAN;
	for (uint32_t i = 0; i < c->np && c->facts; i++)
		c->facts[i] = (struct coord_flowfacts){NAN, NAN, 0, 0, 0, 0, NAN, NAN, NAN, NAN};
	memset(c->nrows_pair, 0, sizeof(*c->nrows_pair) * (c->np + 1));
	memset(c->rx, 0, sizeof(*c->rx) * (c->np + 1));
	memset(c->nrows_rx, 0, sizeof(*c->nrows_rx) * (c->np + 1));
	memset(c->perr, 0, sizeof(*c->perr) * (c->np + 1));
	c->nrows = 0;
	go(c, false);
	ret = one_round(c);
	/* What the round measured is kept, even when a rank was lost in it (the victim's idle round has
	 * no flows). */
	if (np || !c->v.on)
		rb_coord_round_done(c, pairs, np, ret != 0);
	if (c->v.on)
		rb_coord_victim_round(c);
	return ret;
}

int rb_coord_all_rounds(struct coord *c, const struct rb_pairs_spec *spec, struct rb_pair *pairs)
{
	int ret = 0;

	for (c->round = 0; !ret && c->round < c->rounds; c->round++) {
		/* --victim: round 0 is its run alone; the pattern's rounds follow, each with it beside. */
		uint32_t np = c->v.on && c->round == 0 ? 0
		              : c->flows ? rb_pattern_round(&c->cfg->fab->pattern, c->n, c->seed,
		                                            c->round - c->v.on, pairs)
		                         : rb_sched_round(spec, c->n, c->seed, c->round, pairs);

		if (c->v.on)
			pairs[np] = c->v.pair;
		ret = rb_coord_play_round(c, pairs, np);
	}
	if (ret)
		rb_coord_abort_all(c);
	return ret;
}

void rb_coord_over(struct coord *c)
{
	go(c, true);
}
