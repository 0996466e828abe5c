/* The --all-pairs coordinator's run: JOINs, rounds, rows, lost ranks (coord.h says what it does). */
#include "coord_priv.h"

#include "oob/oob.h"
#include "base/base.h"
#include "outliers.h"
#include "host/host.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#define KEEPALIVE_MS      1000
#define RB_COORD_AGG_ROWS 4096
/* Rows one pair may send in a round: sizes x rails x interval rows, with room to spare. */
#define RB_COORD_PAIR_ROWS 1000000

/*
 * "a,b" into the rank's per-rail names (missing ones left as they were). JOIN names
 * them; an END corrects a name JOIN had (the device a run opened), but does not give
 * one to a rail JOIN left unnamed (a tool without a device), so every row of a run
 * names its devices alike.
 */
static void set_devs(struct rank *k, const char *list, bool named_only)
{
	for (uint32_t i = 0; i < RB_MAX_RAILS && *list; i++) {
		size_t len = strcspn(list, ",");

		if (len && len < RB_RAIL_NAME && (!named_only || k->dev[i][0])) {
			memcpy(k->dev[i], list, len);
			k->dev[i][len] = '\0';
		}
		list += len + (list[len] == ',');
	}
}

/*
 * The JOINs. Anyone can reach the coordinator's port, so the connections that have
 * not sent a JOIN yet are a pool a stranger must not be able to drain: they are read
 * side by side without blocking, each has JOIN_FRAME_MS for its whole frame (a rank
 * sends it the moment it connects), and when every slot is taken the oldest is
 * evicted rather than the newcomer turned away (as oob_server.c's listener does): a
 * rank's JOIN, read at once on accept, never waits behind a flood of silent ones.
 */
/* ref_why below says both numbers. */
#define JOIN_PENDING  64
#define JOIN_FRAME_MS 2000
#define CTL_MS        5000 /* a joined rank's channel: receive default and send bound */
/* At most one line per reason per window; the next one says how many were not said. */
#define REFUSAL_LOG_S 5

enum refusal { REF_SILENT, REF_EVICTED, REF_CLOSED, REF_MALFORMED, REF_OTHER_JOB, REF_TWICE, REF_N };

static const char *const ref_why[REF_N] = {
    [REF_SILENT] = "sent no JOIN within 2 s",
    [REF_EVICTED] = "evicted before its JOIN: more than 64 connections without one at once",
    [REF_CLOSED] = "closed before its JOIN",
    [REF_MALFORMED] = "not a well-formed JOIN",
    [REF_OTHER_JOB] = "a JOIN of another job (size or cookie)",
    [REF_TWICE] = "a JOIN for a rank that has joined already",
};

/* The refusals, per reason: how many, and when a line last said so. */
struct refusals {
	unsigned count[REF_N], unlogged[REF_N];
	uint64_t logged_at[REF_N];
	char last_peer[REF_N][NI_MAXHOST + NI_MAXSERV + 2];
};

/* A connection that has not sent its JOIN yet: its frame so far. */
struct pending {
	int fd; /* -1: free */
	uint64_t since;
	uint32_t got;
	uint8_t buf[RB_WIRE_HDR_LEN + RB_FAB_JOIN_MAX];
	char peer[NI_MAXHOST + NI_MAXSERV + 2];
};

/* Counts a refusal; says it unless its reason was said within REFUSAL_LOG_S. */
static void note_refusal(struct refusals *rf, enum refusal why, const char *peer)
{
	uint64_t now = rb_now_ns();
	size_t n = strnlen(peer, sizeof(rf->last_peer[why]) - 1);

	rf->count[why]++;
	memmove(rf->last_peer[why], peer, n);
	rf->last_peer[why][n] = '\0';
	if (rf->logged_at[why] && now - rf->logged_at[why] < REFUSAL_LOG_S * 1000000000ull) {
		rf->unlogged[why]++;
		return;
	}
	if (rf->unlogged[why])
		rb_warn("--all-pairs: refused %u control connections (%s) in %u s; the last from %s",
		        rf->unlogged[why] + 1, ref_why[why], REFUSAL_LOG_S, peer);
	else
		rb_warn("--all-pairs: refused a control connection from %s: %s", peer, ref_why[why]);
	rf->unlogged[why] = 0;
	rf->logged_at[why] = now;
}

/* The refusals no line has said yet, one line per reason. */
static void flush_refusals(struct refusals *rf)
{
	for (int i = 0; i < REF_N; i++)
		if (rf->unlogged[i])
			rb_warn("--all-pairs: refused %u more control connections (%s); the last from %s",
			        rf->unlogged[i], ref_why[i], rf->last_peer[i]);
	memset(rf->unlogged, 0, sizeof(rf->unlogged));
}

/* "; meanwhile refused 17 control connections (16 sent no JOIN ..., 1 closed ...)", or "". */
static void refusal_summary(const struct refusals *rf, char *out, size_t cap)
{
	unsigned total = 0;
	size_t off;

	out[0] = '\0';
	for (int i = 0; i < REF_N; i++)
		total += rf->count[i];
	if (!total)
		return;
	off = (size_t)snprintf(out, cap, "; meanwhile refused %u control connection%s (", total,
	                       total == 1 ? "" : "s");
	for (int i = 0, n = 0; i < REF_N && off < cap; i++)
		if (rf->count[i])
			off += (size_t)snprintf(out + off, cap - off, "%s%u %s", n++ ? ", " : "",
			                        rf->count[i], ref_why[i]);
	if (off < cap)
		snprintf(out + off, cap - off, ")");
}

static void drop(struct pending *p, struct refusals *rf, enum refusal why)
{
	note_refusal(rf, why, p->peer);
	close(p->fd);
	p->fd = -1;
}

/*
 * Reads what a pending connection has sent, without waiting: 1 when its whole JOIN
 * frame is in, 0 while more is to come, -1 (why set) when it cannot be a rank's.
 */
static int pend_read(struct pending *p, enum refusal *why)
{
	for (;;) {
		uint32_t need = RB_WIRE_HDR_LEN;
		ssize_t n;

		if (p->got >= RB_WIRE_HDR_LEN) {
			struct rb_frame_hdr h;
			const char *bad;

			/* The header is checked before any of the payload is read. */
			if (rb_frame_hdr_decode(p->buf, &h, &bad) || h.type != RB_MSG_JOIN ||
			    h.len > RB_FAB_JOIN_MAX) {
				*why = REF_MALFORMED;
				return -1;
			}
			need += h.len;
			if (p->got == need)
				return 1;
		}
		n = recv(p->fd, p->buf + p->got, need - p->got, MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n <= 0) {
			*why = REF_CLOSED;
			return -1;
		}
		p->got += (uint32_t)n;
	}
}

/*
 * A pending connection's whole JOIN, read as a stranger may have written it: its
 * rank when it is a rank of this job (the channel is the rank's now), -EPROTO (why
 * set) for a stranger, -EINVAL (c->cause) for a rank the job cannot run with.
 */
static int take_join(struct coord *c, struct pending *p, bool *rails_known, enum refusal *why)
{
	struct rb_fab_join j;

	if (rb_fab_join_decode(p->buf + RB_WIRE_HDR_LEN, p->got - RB_WIRE_HDR_LEN, &j)) {
		*why = REF_MALFORMED;
		return -EPROTO;
	}
	if (j.size != c->n || !rb_auth_equal(j.cookie, c->cfg->cookie, sizeof(j.cookie))) {
		*why = REF_OTHER_JOB;
		return -EPROTO;
	}
	if (c->rk[j.rank].oob.fd >= 0) {
		*why = REF_TWICE;
		return -EPROTO;
	}
	/* Rail i of a rank measures with rail i of its partner: every rank has as many. */
	if (!*rails_known) {
		c->rails = j.rails;
		*rails_known = true;
	} else if (j.rails != c->rails) {
		snprintf(
		    c->cause, sizeof(c->cause),
		    "--all-pairs: rank %u (%s) has %u rail%s (%s) and another rank %u: every rank needs as "
		    "many (-d, --hca)",
		    j.rank, j.host, j.rails, j.rails == 1 ? "" : "s", j.dev[0] ? j.dev : "its default device",
		    c->rails);
		return -EINVAL;
	}
	rb_oob_from_fd(p->fd, CTL_MS, &c->rk[j.rank].oob);
	p->fd = -1;
	c->rk[j.rank].join = j;
	set_devs(&c->rk[j.rank], j.dev, false);
	return (int)j.rank;
}

/* What join_all keeps between its steps. */
struct joining {
	struct pending pend[JOIN_PENDING];
	struct refusals rf;
	uint32_t joined;
	bool rails_known, rank0;
};

/* Reads pending connection i; a JOIN complete is taken. 0, or -EINVAL (c->cause) to end the run. */
static int advance(struct coord *c, struct joining *s, int i)
{
	struct pending *p = &s->pend[i];
	enum refusal why = REF_MALFORMED;
	int r = pend_read(p, &why);

	if (r == 0)
		return 0;
	if (r > 0)
		r = take_join(c, p, &s->rails_known, &why);
	if (r == -EINVAL) {
		close(p->fd);
		p->fd = -1;
		return r;
	}
	if (r < 0) {
		drop(p, &s->rf, why);
		return 0;
	}
	s->joined++;
	s->rank0 = s->rank0 || r == 0;
	return 0;
}

/* A free slot, else the one of the oldest pending connection. */
static int slot_oldest(const struct joining *s)
{
	int oldest = 0;

	for (int i = 0; i < JOIN_PENDING; i++) {
		if (s->pend[i].fd < 0)
			return i;
		if (s->pend[i].since < s->pend[oldest].since)
			oldest = i;
	}
	return oldest;
}

/* The slot for a new connection: a free one, else the oldest's, evicted. */
static int slot_for(struct joining *s)
{
	int i = slot_oldest(s);

	if (s->pend[i].fd >= 0)
		drop(&s->pend[i], &s->rf, REF_EVICTED);
	return i;
}

/* Every connection waiting on the listener (it is non-blocking), each read at once. */
static int accept_all(struct coord *c, struct joining *s, int lfd)
{
	for (int n = 0; n < JOIN_PENDING; n++) {
		int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC), i, ret;

		if (fd < 0 && (errno == EINTR || errno == ECONNABORTED))
			continue;
		/* Out of descriptors (room_for makes it unlikely): the oldest pending one makes room. */
		if (fd < 0 && (errno == EMFILE || errno == ENFILE) && s->pend[slot_oldest(s)].fd >= 0) {
			drop(&s->pend[slot_oldest(s)], &s->rf, REF_EVICTED);
			continue;
		}
		if (fd < 0)
			return 0; /* none left (EAGAIN); anything else, poll says again */
		i = slot_for(s);
		s->pend[i].fd = fd;
		s->pend[i].since = rb_now_ns();
		s->pend[i].got = 0;
		rb_oob_peer_name(fd, s->pend[i].peer, sizeof(s->pend[i].peer));
		if ((ret = advance(c, s, i)))
			return ret;
	}
	return 0;
}

/* Why the JOINs did not all come: the first missing rank, and the strangers met meanwhile. */
static void join_failed(struct coord *c, const struct joining *s, const char *what)
{
	char refused[320];
	uint32_t r = 0;

	while (r < c->n && c->rk[r].oob.fd >= 0)
		r++;
	refusal_summary(&s->rf, refused, sizeof(refused));
	snprintf(c->cause, sizeof(c->cause),
	         "--all-pairs: %s: rank %u of %u had not reported to the coordinator (%u of %u joined)%s",
	         what, r, c->n, s->joined, c->n, refused);
}

/*
 * Every rank's JOIN: each must be a rank of this job, with its size and the cookie
 * rank 0 published through the launcher. The clock is --oob-timeout from rank 0's
 * own JOIN (it comes right after the launcher's exchange), or twice that until then.
 */
static int join_all(struct coord *c, int lfd)
{
	const uint64_t span = (uint64_t)c->cfg->join_timeout_s * 1000000000ull;
	uint64_t deadline = rb_now_ns() + 2 * span;
	struct joining *s = calloc(1, sizeof(*s));
	int ret = 0;

	if (!s) {
		snprintf(c->cause, sizeof(c->cause), "--all-pairs: the coordinator is out of memory");
		return -ENOMEM;
	}
	for (int i = 0; i < JOIN_PENDING; i++)
		s->pend[i].fd = -1;
	/* A listener that never blocks: accept_all takes every waiting connection at once. */
	fcntl(lfd, F_SETFL, fcntl(lfd, F_GETFL) | O_NONBLOCK);
	while (s->joined < c->n && !ret) {
		struct pollfd pfd[JOIN_PENDING + 1];
		uint64_t now = rb_now_ns();
		bool had0 = s->rank0;

		if ((ret = rb_check_stop())) {
			/* The signal is not the whole story: a launcher stops a job whose ranks failed. */
			join_failed(c, s, rb_first_error());
			break;
		}
		if (now >= deadline) {
			char what[96];

			snprintf(what, sizeof(what), "no JOIN within %u s (--oob-timeout)",
			         c->cfg->join_timeout_s);
			join_failed(c, s, what);
			ret = -ETIMEDOUT;
			break;
		}
		pfd[0] = (struct pollfd){lfd, POLLIN, 0};
		for (int i = 0; i < JOIN_PENDING; i++) {
			if (s->pend[i].fd >= 0 && now - s->pend[i].since > JOIN_FRAME_MS * 1000000ull)
				drop(&s->pend[i], &s->rf, REF_SILENT);
			pfd[i + 1] = (struct pollfd){s->pend[i].fd, POLLIN, 0};
		}
		if (poll(pfd, JOIN_PENDING + 1, 250) <= 0)
			continue;
		for (int i = 0; i < JOIN_PENDING && !ret; i++)
			if (s->pend[i].fd >= 0 && pfd[i + 1].revents)
				ret = advance(c, s, i);
		if (!ret && pfd[0].revents)
			ret = accept_all(c, s, lfd);
		if (s->rank0 && !had0)
			deadline = rb_now_ns() + span;
	}
	flush_refusals(&s->rf);
	for (int i = 0; i < JOIN_PENDING; i++)
		if (s->pend[i].fd >= 0)
			close(s->pend[i].fd);
	free(s);
	return ret;
}

static void send_all(struct coord *c, uint16_t type, const struct rb_wbuf *w)
{
	for (uint32_t r = 0; r < c->n; r++)
		if (c->rk[r].oob.fd >= 0 && rb_oob_send_w(&c->rk[r].oob, type, w))
			rb_forget_first_error();
}

static void go(struct coord *c, uint32_t round)
{
	uint8_t buf[16];
	struct rb_wbuf w = {buf, 0, sizeof(buf), false};

	rb_fab_go_encode(&w, round, c->seed);
	send_all(c, RB_MSG_GO, &w);
	for (uint32_t r = 0; r < c->n; r++)
		c->rk[r].ended = false;
}

/* The run is over for everyone: each living rank is told why. */
static void abort_all(struct coord *c)
{
	for (uint32_t r = 0; r < c->n; r++)
		if (c->rk[r].oob.fd >= 0)
			rb_oob_send_error(&c->rk[r].oob, "%s", c->cause);
}

static void lose(struct coord *c, uint32_t r, const char *why)
{
	struct rank *k = &c->rk[r];

	if (!c->cause[0])
		snprintf(c->cause, sizeof(c->cause), "rank %u (%s, pid %u) lost in round %u of %u: %s", r,
		         k->join.host, k->join.pid, c->round + 1, c->rounds, why);
	k->lost = true;
	rb_oob_close(&k->oob);
}

/* A pair row as the documents hold it: who measured (and the rail, or "all"), then the tool's own fields. */
static void write_row(struct coord *c, const struct rb_fab_row *fr, const char *rail)
{
	struct rb_row row;
	const struct rank *s = &c->rk[fr->server], *k = &c->rk[fr->client];

	memset(&row, 0, sizeof(row));
	rb_row_u64(&row, "round", "rnd", fr->round + 1);
	if (c->rails > 1)
		rb_row_str(&row, "rail", "rail", rail);
	rb_row_u64(&row, "client_rank", "cli", fr->client);
	rb_row_str(&row, "client_host", NULL, k->join.host);
	rb_row_str(&row, "client_device", NULL,
	           fr->rail < c->rails ? coord_devname(c, fr->client, fr->rail) : "-");
	rb_row_u64(&row, "server_rank", "srv", fr->server);
	rb_row_str(&row, "server_host", NULL, s->join.host);
	rb_row_str(&row, "server_device", NULL,
	           fr->rail < c->rails ? coord_devname(c, fr->server, fr->rail) : "-");
	for (unsigned i = 0; i < fr->row.n && row.n < RB_ROW_MAX; i++)
		row.f[row.n++] = fr->row.f[i];
	rb_reports_row(c->cfg->reps, &row);
	rb_gate_row(&c->gate, &c->cfg->gates, &row);
}

static double headline(const struct coord *c, const struct rb_row *row)
{
	if (!c->headline)
		return NAN;
	for (unsigned i = 0; i < row->n; i++)
		if (!strcmp(row->f[i].key, c->headline) && row->f[i].type == RB_F_DBL)
			return row->f[i].v.d;
	return NAN;
}

/* Fields that add up across rails measuring at once; the rest are rail 0's. */
static bool sums(const char *key)
{
	return !strcmp(key, "bytes") || !strcmp(key, "msgs") || !strcmp(key, "bw_avg_gbps") ||
	       !strcmp(key, "bw_peak_gbps") || !strcmp(key, "msg_rate_mpps") || !strncmp(key, "ctr_", 4);
}

/* Several rails, bandwidth: the pair's row of all rails together, per size (seq: its rows in order). */
static void write_aggregate(struct coord *c, uint32_t server, uint32_t client)
{
	static struct rb_fab_row agg;
	uint32_t seq = 0;

	for (;; seq++) {
		uint32_t have = 0;

		for (uint32_t rail = 0; rail < c->rails; rail++) {
			uint32_t nth = 0;
			for (uint32_t i = 0; i < c->nrows; i++) {
				const struct rb_fab_row *fr = &c->rows[i];
				if (fr->server != server || fr->client != client || fr->rail != rail ||
				    nth++ != seq)
					continue;
				if (!have++) {
					agg = *fr;
					for (unsigned f = 0; f < agg.row.n; f++) {
						agg.row.f[f].key = agg.keys[f];
						agg.row.f[f].label = agg.labels[f][0] ? agg.labels[f] : NULL;
					}
				} else {
					for (unsigned f = 0; f < agg.row.n && f < fr->row.n; f++) {
						struct rb_field *a = &agg.row.f[f];
						const struct rb_field *b = &fr->row.f[f];
						if (strcmp(a->key, b->key) || a->type != b->type ||
						    !sums(a->key))
							continue;
						if (a->type == RB_F_U64)
							a->v.u += b->v.u;
						else if (a->type == RB_F_DBL)
							a->v.d += b->v.d;
					}
				}
			}
		}
		if (have < c->rails)
			return;
		write_row(c, &agg, "all");
	}
}

/* Each pair's headline is its last row's (the largest size of a sweep), per rail. */
static void round_done(struct coord *c, const struct rb_pair *pairs, uint32_t np, bool cut)
{
	for (uint32_t p = 0; p < np && c->rails > 1 && !c->lower_better; p++)
		write_aggregate(c, pairs[p].server, pairs[p].client);
	for (uint32_t p = 0; p < np; p++) {
		const struct rank *a = &c->rk[pairs[p].server], *b = &c->rk[pairs[p].client];

		/* A round cut short: a pair still running is neither measured nor failed; one with a lost
		 * rank failed. */
		if (cut && !(a->ended && b->ended) && !a->lost && !b->lost)
			continue;
		for (uint32_t rail = 0; rail < c->rails; rail++) {
			struct rb_pair_result *x = &c->res[c->nres];
			const char *why = c->perr[p][0]        ? c->perr[p]
			                  : a->lost || b->lost ? "a rank of the pair was lost"
			                  : isnan(c->last[p * c->rails + rail]) ? "no row"
			                                                        : NULL;

			x->server = pairs[p].server * c->rails + rail;
			x->client = pairs[p].client * c->rails + rail;
			/* A pair that failed part-way is failed, whatever rows it sent first. */
			x->value = why ? NAN : c->last[p * c->rails + rail];
			c->res_err[c->nres] = why ? strdup(why) : NULL;
			c->nres++;
		}
	}
	c->nrows = 0;
}

/* Several rails of bandwidth: the round's rows kept for the row of all rails (bounded). */
static void keep_for_aggregate(struct coord *c, const struct rb_fab_row *fr)
{
	if (c->nrows == c->cap) {
		uint32_t cap = c->cap ? 2 * c->cap : 16;
		void *p = cap <= RB_COORD_AGG_ROWS ? realloc(c->rows, sizeof(*c->rows) * cap) : NULL;

		if (!p) {
			if (!c->agg_dropped)
				rb_warn("--all-pairs: round %u has more rows than the %u the coordinator "
				        "keeps to add "
				        "rails up: its rows of all rails are left out",
				        c->round + 1, RB_COORD_AGG_ROWS);
			c->agg_dropped = true;
			return;
		}
		c->rows = p;
		c->cap = cap;
	}
	c->rows[c->nrows++] = *fr;
}

static int on_row(struct coord *c, uint32_t from, const struct rb_frame *f, uint32_t pi)
{
	struct rb_fab_row *fr = &c->scratch;
	char rail[16];

	/* Only the client of this round's pair sends rows, and only for that pair. */
	if (pi >= c->np || c->rk[from].ended || ++c->nrows_pair[pi] > RB_COORD_PAIR_ROWS ||
	    rb_fab_row_decode(f->p, f->len, fr) || fr->round != c->round || fr->client != from ||
	    fr->rail >= c->rails || fr->server != c->pairs[pi].server || c->pairs[pi].client != from)
		return -EPROTO;
	for (unsigned i = 0; i < fr->row.n; i++) {
		fr->row.f[i].key = fr->keys[i];
		fr->row.f[i].label = fr->labels[i][0] ? fr->labels[i] : NULL;
	}
	if (!c->headline) {
		bool bw = false, lat = false;
		for (unsigned i = 0; i < fr->row.n; i++) {
			bw = bw || !strcmp(fr->row.f[i].key, "bw_avg_gbps");
			lat = lat || !strcmp(fr->row.f[i].key, "lat_p50_us");
		}
		c->headline = bw ? "bw_avg_gbps" : lat ? "lat_p50_us" : "tps";
		c->unit = bw ? "Gb/s" : lat ? "us" : "1/s";
		c->lower_better = !bw && lat;
	}
	snprintf(rail, sizeof(rail), "%u", fr->rail);
	write_row(c, fr, rail);
	c->last[pi * c->rails + fr->rail] = headline(c, &fr->row);
	if (c->rails > 1 && !c->lower_better)
		keep_for_aggregate(c, fr);
	return 0;
}

/* The index of rank r's pair this round, or UINT32_MAX when it sits out. */
static uint32_t pair_of(const struct coord *c, uint32_t r)
{
	for (uint32_t i = 0; i < c->np; i++)
		if (c->pairs[i].server == r || c->pairs[i].client == r)
			return i;
	return UINT32_MAX;
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
	if (e.partner != partner)
		return -EPROTO;
	c->rk[from].ended = true;
	set_devs(&c->rk[from], e.dev, true);
	if (partner != UINT32_MAX && !c->rk[partner].ended)
		c->rk[partner].deadline = rb_now_ns() + (uint64_t)c->cfg->silence_s * 1000000000ull;
	if (e.error[0]) {
		fprintf(stderr, "%s: round %u: rank %u (%s) with rank %u: %s\n", rb_prog(), c->round + 1,
		        from, c->rk[from].join.host, partner, e.error);
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
				ret = on_row(c, r, &f, pair_of(c, r));
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

static void begin_documents(const struct coord *c)
{
	struct rb_row m;

	memset(&m, 0, sizeof(m));
	rb_meta_system(&m, c->cfg->tool);
	rb_row_str(&m, "role", NULL, "all-pairs");
	rb_row_u64(&m, "ranks", NULL, c->n);
	rb_row_u64(&m, "rounds", NULL, c->rounds);
	if (c->cfg->fab->pairs.mode == RB_PAIRS_RANDOM) {
		char spec[32];
		snprintf(spec, sizeof(spec), "random:%u", c->cfg->fab->pairs.k);
		rb_row_str(&m, "pairs", NULL, spec);
	} else {
		rb_row_str(&m, "pairs", NULL, c->cfg->fab->pairs.mode == RB_PAIRS_RING ? "ring" : "all");
	}
	rb_row_u64(&m, "seed", NULL, c->seed);
	rb_row_dbl(&m, "slow_fraction", NULL, 2, c->cfg->fab->slow);
	rb_reports_begin(c->cfg->reps, &m);
}

/* Room for every round's results, once the ranks are in. */
static int alloc_results(struct coord *c)
{
	size_t per_round = (size_t)(c->n / 2 + 1) * c->rails;

	c->res = calloc((size_t)c->rounds * per_round + 1, sizeof(*c->res));
	c->last = calloc(per_round, sizeof(*c->last));
	c->nrows_pair = calloc(c->n / 2 + 1, sizeof(*c->nrows_pair));
	c->perr = calloc(c->n / 2 + 1, sizeof(*c->perr));
	c->res_err = calloc((size_t)c->rounds * per_round + 1, sizeof(*c->res_err));
	if (!c->res || !c->last || !c->nrows_pair || !c->perr || !c->res_err) {
		rb_err("--all-pairs: the coordinator is out of memory for %u ranks' results", c->n);
		return -ENOMEM;
	}
	return 0;
}

/* Every round in turn (GO, the pairs' rows and ENDs), then the GO past the last, or ABORT. */
static int all_rounds(struct coord *c, const struct rb_pairs_spec *spec, struct rb_pair *pairs)
{
	int ret = 0;

	for (c->round = 0; !ret && c->round < c->rounds; c->round++) {
		uint32_t np = rb_sched_round(spec, c->n, c->seed, c->round, pairs);

		go(c, c->round);
		c->pairs = pairs;
		c->np = np;
		for (uint32_t i = 0; i < np * c->rails; i++)
			c->last[i] = NAN;
		memset(c->nrows_pair, 0, sizeof(*c->nrows_pair) * (np + 1));
		memset(c->perr, 0, sizeof(*c->perr) * (np + 1));
		c->nrows = 0;
		ret = one_round(c);
		/* What the round measured is kept, even when a rank was lost in it. */
		round_done(c, pairs, np, ret != 0);
	}
	if (!ret)
		go(c, c->rounds);
	else
		abort_all(c);
	return ret;
}

/* One control connection per rank: the open-file limit raised to N + 64, or why not. */
static int room_for(uint32_t n)
{
	struct rlimit rl;
	rlim_t need = (rlim_t)n + JOIN_PENDING + 64;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= need)
		return 0;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need) {
		rb_err("--all-pairs: rank 0 needs %llu open files for %u ranks' control connections; the "
		       "hard limit is %llu (raise it: ulimit -Hn, or the launcher's limits)",
		       (unsigned long long)need, n, (unsigned long long)rl.rlim_max);
		return -EMFILE;
	}
	rl.rlim_cur = need;
	return setrlimit(RLIMIT_NOFILE, &rl) ? -errno : 0;
}

int rb_coord_run(const struct rb_coord_cfg *cfg, int lfd)
{
	struct coord c = {.cfg = cfg, .n = cfg->size};
	struct rb_pair *pairs = calloc(cfg->size / 2 + 1, sizeof(*pairs));
	int ret;

	c.rounds = rb_sched_rounds(&cfg->fab->pairs, c.n);
	c.rk = calloc(c.n, sizeof(*c.rk));
	c.rails = 1; /* until the first JOIN says */
	c.res = NULL;
	c.seed = ((uint64_t)random() << 32) ^ (uint64_t)random() ^ rb_now_ns();
	if (!c.rk || !pairs) {
		rb_err("--all-pairs: the coordinator is out of memory for %u ranks", c.n);
		return RB_EXIT_RUNTIME;
	}
	for (uint32_t r = 0; r < c.n; r++)
		c.rk[r].oob.fd = -1;
	if (room_for(c.n)) {
		free(c.rk);
		free(c.res);
		free(pairs);
		return RB_EXIT_RUNTIME;
	}
	/* A terminal or launcher pipe that closes under us is not a reason to lose the documents. */
	signal(SIGPIPE, SIG_IGN);
	c.text = rb_reports_text(cfg->reps);
	begin_documents(&c);
	ret = join_all(&c, lfd);
	if (!ret)
		ret = alloc_results(&c);
	/* join_all names its own failures (a stop, the deadline, a rank of another rail count). */
	if (ret && !c.cause[0])
		snprintf(c.cause, sizeof(c.cause), "%s", rb_first_error());
	/* Every rank is in: a connection from now on is a stranger's, refused by the kernel. */
	close(lfd);
	if (!ret)
		ret = all_rounds(&c, &cfg->fab->pairs, pairs);
	else
		abort_all(&c);
	/* The documents first: a launcher tearing the job down may close our terminal next. */
	coord_outliers(&c);
	/* Every round ran, but a pair that failed makes the documents say so. */
	if (!ret && c.failed_pairs) {
		for (uint32_t i = 0; i < c.nres; i++) {
			char a[160], b[160];

			if (!isnan(c.res[i].value))
				continue;
			snprintf(c.cause, sizeof(c.cause), "%u of %u pairs failed; the first: %s -> %s: %s",
			         c.failed_pairs, c.nres, coord_who(&c, c.res[i].client, a, sizeof(a)),
			         coord_who(&c, c.res[i].server, b, sizeof(b)),
			         c.res_err[i] ? c.res_err[i] : "?");
			break;
		}
	}
	{
		const struct rb_section sec = {"outliers", coord_emit_outliers, &c};

		if (rb_reports_finish_section(cfg->reps, c.cause[0] ? c.cause : NULL, &sec) && !ret)
			ret = -EIO;
	}
	coord_summary(&c);
	if (c.cause[0])
		rb_err("%s", c.cause);
	if (!ret && rb_gate_verdict(&c.gate, &cfg->gates))
		ret = -EIO;
	for (uint32_t r = 0; r < c.n; r++)
		rb_oob_close(&c.rk[r].oob);
	free(c.rows);
	free(c.res);
	free(c.tally);
	free(c.last);
	free(c.nrows_pair);
	free(c.perr);
	for (uint32_t i = 0; c.res_err && i < c.nres; i++)
		free(c.res_err[i]);
	free(c.res_err);
	free(c.rk);
	free(pairs);
	if (ret)
		return RB_EXIT_RUNTIME;
	return c.failed_pairs ? RB_EXIT_RUNTIME : RB_EXIT_OK;
}
