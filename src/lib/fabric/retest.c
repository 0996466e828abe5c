/* SPDX-License-Identifier: BSD-2-Clause */
#include "retest.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static uint32_t nends(const struct rb_retest *p)
{
	return p->ranks * p->rails * (p->round_trip ? 1u : 2u);
}

/* The end hypothesis of end e in a role (0 transmit, 1 receive). */
static struct rb_rt_hyp *end_hyp(const struct rb_retest *p, uint32_t e, int role)
{
	return &p->ends[p->round_trip ? e : e * 2 + (uint32_t)role];
}

static bool decided(enum rb_rt_state s)
{
	return s != RB_RT_NONE && s != RB_RT_OPEN;
}

/*
 * Whether end e can stand in as a partner in a role: nothing against it, cleared, or
 * explained; or, still open, at least as many of its results in that role fine as bad
 * and no re-test slow (the partners of a NIC whose transmit is bad each have one bad
 * result of N - 1: they are what confirms it).
 */
static bool trusted(const struct rb_retest *p, uint32_t e, int role)
{
	const struct rb_rt_hyp *h = end_hyp(p, e, role);

	switch (h->state) {
	case RB_RT_NONE:
	case RB_RT_CLEARED:
	case RB_RT_EXPLAINED: return true;
	case RB_RT_OPEN: return h->slow == 0 && h->seen - h->bad >= h->bad;
	default: return false;
	}
}

int rb_retest_init(struct rb_retest *p, uint32_t ranks, uint32_t rails, uint32_t retests, bool round_trip)
{
	memset(p, 0, sizeof(*p));
	p->ranks = ranks;
	p->rails = rails ? rails : 1;
	p->need = retests == 0 ? 1 : retests > RB_RT_MAX_R ? RB_RT_MAX_R : retests;
	p->round_trip = round_trip;
	p->ends = calloc(nends(p), sizeof(*p->ends));
	p->busy = calloc(ranks, sizeof(*p->busy));
	if (!p->ends || !p->busy) {
		rb_retest_free(p);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < nends(p); i++) {
		p->ends[i].kind = round_trip ? RB_RT_END : i % 2 ? RB_RT_RX : RB_RT_TX;
		p->ends[i].a = round_trip ? i : i / 2;
		p->ends[i].b = UINT32_MAX;
	}
	return 0;
}

void rb_retest_free(struct rb_retest *p)
{
	free(p->ends);
	free(p->links);
	free(p->bad);
	free(p->busy);
	memset(p, 0, sizeof(*p));
}

void rb_retest_add_seen(struct rb_retest *p, uint32_t e, int role, uint32_t n)
{
	if (e < p->ranks * p->rails)
		end_hyp(p, e, role)->seen += n;
}

int rb_retest_seen(struct rb_retest *p, uint32_t c, uint32_t s, bool bad)
{
	struct rb_rt_hyp *tx, *rx;
	uint32_t n = p->ranks * p->rails;

	if (c >= n || s >= n)
		return -EINVAL;
	tx = end_hyp(p, c, 0);
	rx = end_hyp(p, s, 1);
	tx->seen++;
	rx->seen++;
	if (!bad)
		return 0;
	if (p->nbad == p->cap) {
		uint32_t cap = p->cap ? 2 * p->cap : 16;
		void *b = realloc(p->bad, sizeof(*p->bad) * cap), *l;

		if (!b)
			return -ENOMEM;
		p->bad = b;
		l = realloc(p->links, sizeof(*p->links) * cap);
		if (!l)
			return -ENOMEM;
		p->links = l;
		p->cap = cap;
	}
	tx->bad++;
	rx->bad++;
	tx->state = rx->state = RB_RT_OPEN;
	p->links[p->nlinks] = (struct rb_rt_hyp){.kind = RB_RT_LINK, .a = c, .b = s, .bad = 1, .seen = 1};
	p->bad[p->nbad++] = (struct rb_rt_bad){.c = c, .s = s, .link = p->nlinks++};
	return 0;
}

/*
 * Marks the results a confirmed fault explains, and the hypotheses left with none to
 * explain. left: per end hypothesis, its unexplained bad results; better: how many of
 * them the open hypothesis of their other end explains more of (it goes first).
 */
static void explain(struct rb_retest *p, uint32_t *left, uint32_t *better)
{
	memset(left, 0, sizeof(*left) * nends(p));
	for (uint32_t i = 0; i < p->nbad; i++) {
		struct rb_rt_bad *b = &p->bad[i];

		b->explained = b->explained || end_hyp(p, b->c, 0)->state == RB_RT_CONFIRMED ||
		               end_hyp(p, b->s, 1)->state == RB_RT_CONFIRMED ||
		               p->links[b->link].state == RB_RT_CONFIRMED;
		if (b->explained)
			continue;
		left[end_hyp(p, b->c, 0) - p->ends]++;
		left[end_hyp(p, b->s, 1) - p->ends]++;
	}
	for (uint32_t i = 0; i < nends(p); i++)
		if (p->ends[i].state == RB_RT_OPEN && !left[i])
			p->ends[i].state = RB_RT_EXPLAINED;
	memset(better, 0, sizeof(*better) * nends(p));
	for (uint32_t i = 0; i < p->nbad; i++) {
		const struct rb_rt_bad *b = &p->bad[i];
		uint32_t tx = (uint32_t)(end_hyp(p, b->c, 0) - p->ends),
		         rx = (uint32_t)(end_hyp(p, b->s, 1) - p->ends);

		if (b->explained)
			continue;
		better[tx] += p->ends[rx].state == RB_RT_OPEN && left[rx] > left[tx];
		better[rx] += p->ends[tx].state == RB_RT_OPEN && left[tx] > left[rx];
	}
}

/* Whether rank g was a partner of h's re-tests already. */
static bool used(const struct rb_rt_hyp *h, uint32_t g)
{
	for (uint32_t i = 0; i < h->tests && i < RB_RT_MAX_R; i++)
		if (h->used[i] == g)
			return true;
	return false;
}

/*
 * A free rank whose end on the rail is trusted in the role, other than rank me and
 * those h was re-tested with,
 * starting from the hypothesis's turn (partners rotate). One with nothing against it
 * in that role, so a bad link to one partner cannot convict an end; only when there
 * is none at all (busy or not), one trusted on the balance of its results (a NIC
 * whose transmit is bad has no partner without a slow pair from it). UINT32_MAX when
 * none is free; *exists: whether any rank could serve at all.
 */
static uint32_t partner(struct rb_retest *p, struct rb_rt_hyp *h, uint32_t me, uint32_t rail, int role,
                        bool *exists)
{
	for (int pass = 0; pass < 2 && !*exists; pass++)
		for (uint32_t k = 0; k < p->ranks; k++) {
			uint32_t g = (me + 1 + h->turn + k) % p->ranks, e = g * p->rails + rail;

			if (g == me || !trusted(p, e, role) || used(h, g) ||
			    (!pass && end_hyp(p, e, role)->state == RB_RT_OPEN))
				continue;
			*exists = true;
			if (p->busy[g])
				continue;
			h->turn += k + 1;
			return g;
		}
	return UINT32_MAX;
}

/* Puts the hypothesis's next re-test into the round, when its ranks are free. */
static bool place(struct rb_retest *p, uint32_t idx, struct rb_pair *out, uint32_t *hyp, uint32_t *np,
                  bool *exists)
{
	struct rb_rt_hyp *h = idx < nends(p) ? &p->ends[idx] : &p->links[idx - nends(p)];
	uint32_t me = h->a / p->rails, rail = h->a % p->rails, g;

	if (h->kind == RB_RT_LINK) {
		uint32_t sr = h->b / p->rails;

		*exists = true;
		if (p->busy[me] || p->busy[sr])
			return false;
		out[*np] = (struct rb_pair){.server = sr, .client = me};
	} else {
		if (p->busy[me])
			return (*exists = true), false;
		/* Transmit: the partner receives (its receive trusted); receive: it sends. */
		g = partner(p, h, me, rail, h->kind == RB_RT_TX ? 1 : 0, exists);
		if (g == UINT32_MAX)
			return false;
		out[*np] = h->kind == RB_RT_RX ? (struct rb_pair){.server = me, .client = g}
		                               : (struct rb_pair){.server = g, .client = me};
		h->used[h->tests < RB_RT_MAX_R ? h->tests : RB_RT_MAX_R - 1] = g;
	}
	p->busy[out[*np].server] = p->busy[out[*np].client] = true;
	hyp[*np] = idx;
	(*np)++;
	return true;
}

/* Slow with every partner, as the schedule says: confirmed; slow in re-tests only: unsteady. */
static enum rb_rt_state slow_verdict(const struct rb_rt_hyp *h)
{
	return h->kind == RB_RT_LINK || h->bad * 2 > h->seen ? RB_RT_CONFIRMED : RB_RT_UNSTEADY;
}

/*
 * No partner left that it was not re-tested with: slow with at least two of them and
 * never fine is the same verdict as R slow (two bad links from one end at once are
 * not the likely reading); anything less is undecided.
 */
static void out_of_partners(struct rb_rt_hyp *h)
{
	h->state = h->tests >= 2 && h->slow == h->tests ? slow_verdict(h) : RB_RT_UNDECIDED;
}

/* Order of the end hypotheses: most unexplained bad results first, then by end. */
static const uint32_t *sort_left;
static int by_left(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	if (sort_left[a] != sort_left[b])
		return sort_left[a] < sort_left[b] ? 1 : -1;
	return (a > b) - (a < b);
}

/* Links whose ends are both decided: to test, or undecided with an end. Returns how many changed. */
static uint32_t open_links(struct rb_retest *p)
{
	uint32_t changed = 0;

	for (uint32_t i = 0; i < p->nbad; i++) {
		struct rb_rt_bad *b = &p->bad[i];
		struct rb_rt_hyp *l = &p->links[b->link];

		if (l->state == RB_RT_NONE && !b->explained) {
			enum rb_rt_state tx = end_hyp(p, b->c, 0)->state, rx = end_hyp(p, b->s, 1)->state;

			if (!decided(tx) || !decided(rx))
				continue;
			l->state = tx == RB_RT_UNDECIDED || rx == RB_RT_UNDECIDED || tx == RB_RT_UNSTEADY ||
			                   rx == RB_RT_UNSTEADY
			               ? RB_RT_UNDECIDED
			               : RB_RT_OPEN;
			changed++;
		} else if (l->state == RB_RT_OPEN && b->explained) {
			l->state = RB_RT_EXPLAINED;
			changed++;
		}
	}
	return changed;
}

/* One pass: the round's pairs, or 0 with *changed saying whether any hypothesis was decided. */
static uint32_t plan_once(struct rb_retest *p, struct rb_pair *out, uint32_t *hyp, uint32_t *left,
                          uint32_t *order, uint32_t *better, uint32_t *changed)
{
	uint32_t ne = nends(p), np = 0, no = 0;

	explain(p, left, better);
	*changed = open_links(p);
	memset(p->busy, 0, sizeof(*p->busy) * p->ranks);
	/* Waits: a hypothesis whose every bad result a better one, still open, may explain. */
	for (uint32_t i = 0; i < ne; i++)
		if (p->ends[i].state == RB_RT_OPEN && better[i] < left[i])
			order[no++] = i;
	sort_left = left;
	qsort(order, no, sizeof(*order), by_left);
	for (uint32_t i = 0; i < no; i++) {
		bool exists = false;

		if (!place(p, order[i], out, hyp, &np, &exists) && !exists) {
			out_of_partners(&p->ends[order[i]]);
			(*changed)++;
		}
	}
	for (uint32_t i = 0; i < p->nlinks; i++) {
		bool exists = false;

		if (p->links[i].state == RB_RT_OPEN)
			place(p, ne + i, out, hyp, &np, &exists);
	}
	return np;
}

uint32_t rb_retest_plan(struct rb_retest *p, struct rb_pair *out, uint32_t *hyp)
{
	uint32_t ne = nends(p), *left = calloc(ne, sizeof(*left)), *order = calloc(ne, sizeof(*order));
	uint32_t *better = calloc(ne, sizeof(*better)), np = 0, changed = 1;

	/* Nothing placed: what was just decided may open links, or let waiting ends go; again until still. */
	while (left && order && better && !np && changed)
		np = plan_once(p, out, hyp, left, order, better, &changed);
	free(left);
	free(order);
	free(better);
	if (!np) {
		/* Whatever is still open had nothing to be tested against: undecided, never left open. */
		for (uint32_t i = 0; i < rb_retest_count(p); i++) {
			struct rb_rt_hyp *h = i < ne ? &p->ends[i] : &p->links[i - ne];

			if (h->state == RB_RT_OPEN)
				h->state = RB_RT_UNDECIDED;
		}
		return 0;
	}
	p->rounds++;
	p->runs += np;
	return np;
}

/* Confirmed by R slow re-tests in a row; one that is not clears it (a fault does not come and go). */
static void add(struct rb_retest *p, struct rb_rt_hyp *h, bool bad)
{
	h->tests++;
	h->slow += bad;
	if (!bad)
		h->state = RB_RT_CLEARED;
	else if (h->slow >= p->need)
		h->state = slow_verdict(h);
}

void rb_retest_record(struct rb_retest *p, uint32_t hyp, bool bad)
{
	struct rb_rt_hyp *h;

	if (hyp >= rb_retest_count(p))
		return;
	h = hyp < nends(p) ? &p->ends[hyp] : &p->links[hyp - nends(p)];
	if (h->state == RB_RT_OPEN)
		add(p, h, bad);
}

double rb_retest_finish(struct rb_retest *p, uint64_t results)
{
	uint32_t left = 0;

	for (uint32_t i = 0; i < p->nbad; i++) {
		const struct rb_rt_bad *b = &p->bad[i];

		/* A confirmed link's own result is not noise: its guard is against the others. */
		left += !(end_hyp(p, b->c, 0)->state == RB_RT_CONFIRMED ||
		          end_hyp(p, b->s, 1)->state == RB_RT_CONFIRMED ||
		          p->links[b->link].state == RB_RT_CONFIRMED);
	}
	p->links_tested = 0;
	for (uint32_t i = 0; i < p->nlinks; i++)
		p->links_tested += p->links[i].tests > 0;
	p->noise = results ? (double)left / (double)results : 0;
	p->false_alarms = p->links_tested * pow(p->noise, p->need);
	for (uint32_t i = 0; p->false_alarms > 0.05 && i < p->nlinks; i++)
		if (p->links[i].state == RB_RT_CONFIRMED)
			p->links[i].state = RB_RT_UNSTEADY;
	return p->false_alarms;
}

uint32_t rb_retest_count(const struct rb_retest *p)
{
	return nends(p) + p->nlinks;
}

const struct rb_rt_hyp *rb_retest_hyp(const struct rb_retest *p, uint32_t i)
{
	return i < nends(p) ? &p->ends[i] : &p->links[i - nends(p)];
}

const char *rb_rt_kind_name(enum rb_rt_kind k)
{
	static const char *const names[] = {"transmit", "receive", "both directions", "link"};

	return names[k];
}

const char *rb_rt_state_name(enum rb_rt_state s)
{
	static const char *const names[] = {"trusted",   "open",      "confirmed", "cleared",
	                                    "explained", "undecided", "unsteady"};

	return names[s];
}
