/* SPDX-License-Identifier: BSD-2-Clause */
#include "sendq.h"

void rb_sendq_init(struct rb_sendq *q, uint32_t depth, uint32_t post_list, uint32_t sig_every)
{
	q->depth = depth;
	q->post_list = post_list;
	q->sig_every = sig_every ? sig_every : 1;
	q->target = q->posted = q->completed = q->signaled = 0;
	q->limit = 0;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

struct rb_sendq_plan rb_sendq_plan(const struct rb_sendq *q)
{
	struct rb_sendq_plan p = {0, 0};
	uint64_t room, left, want, out = q->posted - q->completed;
	uint32_t cap = q->limit && q->limit < q->depth ? q->limit : q->depth;
	bool sig_out = q->signaled > q->completed;

	if (q->posted >= q->target)
		return p;
	room = cap > out ? cap - out : 0;
	left = q->target - q->posted;
	want = min_u64(min_u64(q->post_list, RB_SENDQ_MAX_POST_LIST), left);
	if (!room && !sig_out && out < q->depth) {
		/* The limit shrank below what is outstanding, none of it signaled: one signaled WR past it.
		 */
		p.n = 1;
		p.sig = 1;
		return p;
	}
	if (room >= want)
		p.n = (unsigned)want;
	else if (!sig_out && room > 0)
		/*
		 * The signaled WR that was outstanding completed, and the unsignaled ones
		 * posted after it still leave no room for a whole list: nothing else will
		 * complete, so a shorter list goes now.
		 */
		p.n = (unsigned)room;
	else
		return p; /* a signaled WR is outstanding: its completion makes room */
	for (unsigned i = 0; i < p.n; i++) {
		uint64_t seq = q->posted + 1 + i;
		if (seq % q->sig_every == 0 || seq == q->target)
			p.sig |= 1ull << i;
	}
	/*
	 * After this post the queue may not take the next list until something
	 * completes; then something must be asked to complete.
	 */
	if (!sig_out && !p.sig) {
		uint64_t left2 = left - p.n, room2 = room - p.n;
		if (left2 && room2 < min_u64(min_u64(q->post_list, RB_SENDQ_MAX_POST_LIST), left2))
			p.sig |= 1ull << (p.n - 1);
	}
	return p;
}

void rb_sendq_posted(struct rb_sendq *q, const struct rb_sendq_plan *p)
{
	for (unsigned i = p->n; i-- > 0;)
		if (p->sig >> i & 1) {
			q->signaled = q->posted + 1 + i;
			break;
		}
	q->posted += p->n;
}

uint64_t rb_sendq_complete(struct rb_sendq *q, uint64_t seq)
{
	uint64_t n = seq > q->completed ? seq - q->completed : 0;

	if (seq > q->completed)
		q->completed = seq;
	return n;
}

void rb_sendq_stop(struct rb_sendq *q)
{
	uint64_t t = q->posted == q->completed || q->signaled == q->posted ? q->posted : q->posted + 1;

	if (t < q->target)
		q->target = t;
}

uint32_t rb_sendq_max_signaled(uint32_t depth, uint32_t sig_every)
{
	/*
	 * Multiples of sig_every among `depth` consecutive WRs, one WR signaled because
	 * the queue could not take the next list (only while no other is outstanding),
	 * and the target.
	 */
	uint64_t m = sig_every ? sig_every : 1, n = (depth + m - 1) / m + 2;

	return n < depth ? (uint32_t)n : depth;
}
