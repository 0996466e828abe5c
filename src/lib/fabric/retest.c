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
	p->need = retests ? retests : 1;
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

/*
 * A free rank whose end on the rail is trusted in the role, other than rank me,
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

			if (g == me || !trusted(p, e, role) ||
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
static bool place(struct rb_retest *p, struct rb_rt_hyp *h, struct rb_pair *out, uint32_t *np, bool *exists)
{
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
	}
	p->busy[out[*np].server] = p->busy[out[*np].client] = true;
	(*np)++;
	return true;
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

uint32_t rb_retest_plan(struct rb_retest *p, struct rb_pair *out)
{
	uint32_t ne = nends(p), *left = calloc(ne, sizeof(*left)), *order = calloc(ne, sizeof(*order));
	uint32_t *better = calloc(ne, sizeof(*better)), np = 0, no = 0;

	if (!left || !order || !better) {
		free(left);
		free(order);
		free(better);
		return 0;
	}
	explain(p, left, better);
	/* A link is tested once both of its ends are cleared and its result is still unexplained. */
	for (uint32_t i = 0; i < p->nbad; i++) {
		struct rb_rt_bad *b = &p->bad[i];
		struct rb_rt_hyp *l = &p->links[b->link];

		if (l->state == RB_RT_NONE && !b->explained) {
			enum rb_rt_state tx = end_hyp(p, b->c, 0)->state, rx = end_hyp(p, b->s, 1)->state;

			if (decided(tx) && decided(rx))
				l->state = tx == RB_RT_UNDECIDED || rx == RB_RT_UNDECIDED ||
				                   tx == RB_RT_UNSTEADY || rx == RB_RT_UNSTEADY
				               ? RB_RT_UNDECIDED
				               : RB_RT_OPEN;
		} else if (l->state == RB_RT_OPEN && b->explained) {
			l->state = RB_RT_EXPLAINED;
		}
	}
	memset(p->busy, 0, sizeof(*p->busy) * p->ranks);
	/* Waits: a hypothesis whose every bad result a better one, still open, may explain. */
	for (uint32_t i = 0; i < ne; i++)
		if (p->ends[i].state == RB_RT_OPEN && better[i] < left[i])
			order[no++] = i;
	sort_left = left;
	qsort(order, no, sizeof(*order), by_left);
	for (uint32_t i = 0; i < no; i++) {
		bool exists = false;
		struct rb_rt_hyp *h = &p->ends[order[i]];

		if (!place(p, h, out, &np, &exists) && !exists)
			h->state = RB_RT_UNDECIDED;
	}
	for (uint32_t i = 0; i < p->nlinks; i++) {
		bool exists = false;

		if (p->links[i].state == RB_RT_OPEN)
			place(p, &p->links[i], out, &np, &exists);
	}
	free(left);
	free(order);
	free(better);
	/* Nothing placed with hypotheses open: an end just made undecided may leave links to decide. */
	if (!np) {
		for (uint32_t i = 0; i < p->nlinks; i++)
			if (p->links[i].state == RB_RT_NONE && !p->bad[i].explained &&
			    decided(end_hyp(p, p->bad[i].c, 0)->state) &&
			    decided(end_hyp(p, p->bad[i].s, 1)->state))
				return rb_retest_plan(p, out);
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
		h->state = h->kind == RB_RT_LINK || h->bad * 2 > h->seen ? RB_RT_CONFIRMED : RB_RT_UNSTEADY;
}

void rb_retest_record(struct rb_retest *p, uint32_t c, uint32_t s, bool bad)
{
	uint32_t n = p->ranks * p->rails;
	struct rb_rt_hyp *tx, *rx;

	if (c >= n || s >= n)
		return;
	tx = end_hyp(p, c, 0);
	rx = end_hyp(p, s, 1);
	/* The link first: it is open only when both ends are cleared, so no end hypothesis takes this too. */
	for (uint32_t i = 0; i < p->nlinks; i++)
		if (p->links[i].state == RB_RT_OPEN && p->links[i].a == c && p->links[i].b == s)
			return add(p, &p->links[i], bad);
	if (tx->state == RB_RT_OPEN && trusted(p, s, 1))
		add(p, tx, bad);
	else if (rx->state == RB_RT_OPEN && trusted(p, c, 0))
		add(p, rx, bad);
}

double rb_retest_finish(struct rb_retest *p, uint64_t results)
{
	uint32_t left = 0;

	for (uint32_t i = 0; i < p->nbad; i++) {
		const struct rb_rt_bad *b = &p->bad[i];

		left += !(end_hyp(p, b->c, 0)->state == RB_RT_CONFIRMED ||
		          end_hyp(p, b->s, 1)->state == RB_RT_CONFIRMED);
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
