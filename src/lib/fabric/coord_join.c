/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The coordinator's door: the open-file room for every rank's control connection,
 * and the JOINs (the pending connections a stranger may fill, the refusals and their
 * lines, each rank's channel and devices as its JOIN names them).
 */
#include "coord_priv.h"

#include "oob/oob.h"
#include "base/base.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

/*
 * "a,b" into the rank's per-rail names (missing ones left as they were). JOIN names
 * them; an END corrects a name JOIN had (the device a run opened), but does not give
 * one to a rail JOIN left unnamed (a tool without a device), so every row of a run
 * names its devices alike.
 */
void rb_coord_set_devs(struct rank *k, const char *list, bool named_only)
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
	rb_coord_set_devs(&c->rk[j.rank], j.dev, false);
	return (int)j.rank;
}

/* What rb_coord_join_all keeps between its steps. */
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
		/* Out of descriptors (rb_coord_room_for makes it unlikely): the oldest pending one makes
		 * room.
		 */
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
int rb_coord_join_all(struct coord *c, int lfd)
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

/* One control connection per rank: the open-file limit raised to N + JOIN_PENDING + 64, or why not. */
int rb_coord_room_for(uint32_t n)
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
