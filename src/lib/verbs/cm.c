/* SPDX-License-Identifier: BSD-2-Clause */
#include "cm.h"

#include "async.h"
#include "av.h"
#include "base/base.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CM_STEP_MS 2000 /* address and route resolution, each */

static uint64_t deadline(unsigned timeout_s)
{
	return rb_now_ns() + (uint64_t)timeout_s * 1000000000ull;
}

/* The next CM event, within the deadline; -ETIMEDOUT naming what was awaited. */
static int next_event(struct rb_cm *cm, uint64_t until, const char *what, struct rdma_cm_event **ev)
{
	for (;;) {
		struct pollfd p = {cm->ch->fd, POLLIN, 0};
		uint64_t now = rb_now_ns();
		int r;

		if (rdma_get_cm_event(cm->ch, ev) == 0)
			return 0;
		if (errno != EAGAIN && errno != EWOULDBLOCK) {
			int err = errno;
			rb_err("rdma_get_cm_event failed while waiting for %s: %s", what, strerror(err));
			return -err;
		}
		if (now >= until) {
			rb_err("rdma_cm: no %s within the timeout", what);
			return -ETIMEDOUT;
		}
		r = poll(&p, 1, (int)((until - now) / 1000000 + 1));
		if (r < 0 && errno != EINTR) {
			int err = errno;
			rb_err("poll on the rdma_cm channel failed: %s", strerror(err));
			return -err;
		}
		if (rb_check_stop())
			return -EINTR;
	}
}

/* The IB CM's reject reasons that a run meets. */
static const char *reject_reason(int status)
{
	switch (status) {
	case 1: return "no QP";
	case 3: return "no resources on the peer";
	case 4: return "timed out";
	case 8: return "nobody listens on that port (invalid service ID)";
	case 10: return "stale connection";
	case 28: return "rejected by the peer's application";
	default: return status < 0 ? strerror(-status) : "see the IB CM reject reasons";
	}
}

/* Expects event `want` on id (NULL: any id); anything else is the failure, named. */
static int expect(struct rb_cm *cm, enum rdma_cm_event_type want, uint64_t until, const char *what,
                  struct rdma_cm_event **out)
{
	struct rdma_cm_event *ev;
	int ret = next_event(cm, until, what, &ev);

	if (ret)
		return ret;
	if (ev->event == want) {
		*out = ev;
		return 0;
	}
	if (ev->event == RDMA_CM_EVENT_REJECTED)
		rb_err("rdma_cm: %s: REJECTED (reason %d: %s)", what, ev->status, reject_reason(ev->status));
	else
		rb_err("rdma_cm: %s: got %s (status %d%s%s)", what, rdma_event_str(ev->event), ev->status,
		       ev->status < 0 ? ": " : "", ev->status < 0 ? strerror(-ev->status) : "");
	rdma_ack_cm_event(ev);
	return -ECONNREFUSED;
}

static int open_channel(struct rb_cm *cm, unsigned n)
{
	memset(cm, 0, sizeof(*cm));
	cm->ch = rdma_create_event_channel();
	cm->ids = calloc(n, sizeof(*cm->ids));
	if (!cm->ch || !cm->ids) {
		int err = errno ? errno : ENOMEM;
		rb_err("rdma_create_event_channel failed: %s (is rdma_ucm loaded? /dev/infiniband/rdma_cm)",
		       strerror(err));
		return -err;
	}
	cm->n = n;
	return rb_nonblocking(cm->ch->fd, "the rdma_cm channel");
}

/* host:port as a socket address (a link-local IPv6 address may carry %scope). */
static int address(const char *host, unsigned port, bool passive, struct sockaddr_storage *sa)
{
	struct addrinfo hints = {.ai_family = AF_UNSPEC,
	                         .ai_socktype = SOCK_STREAM,
	                         .ai_flags = passive ? AI_PASSIVE : 0},
	                *ai;
	char p[16];
	int ret;

	snprintf(p, sizeof(p), "%u", port);
	if (passive && !host)
		host = "::"; /* both families: rdma_cm listens dual-stack on the IPv6 any address */
	ret = getaddrinfo(host, p, &hints, &ai);
	if (ret) {
		rb_usage_err("rdma_cm: cannot resolve '%s': %s", host, gai_strerror(ret));
		return -EINVAL;
	}
	memcpy(sa, ai->ai_addr, ai->ai_addrlen);
	freeaddrinfo(ai);
	return 0;
}

static const char *state_name(enum ibv_qp_state s)
{
	return s == IBV_QPS_INIT ? "INIT" : s == IBV_QPS_RTR ? "RTR" : "RTS";
}

/* The traffic class QP i asks for: the connection set's own for its control QP, else --tclass. */
static unsigned tclass_of(const struct rb_conn *c, const struct rb_qp_opts *q, unsigned i)
{
	return rb_conn_ctl_qp(c, i) && c->ctl_own_tclass ? c->ctl_tclass : q->tclass;
}

/*
 * One state of QP i, which the application manages: the CM's attributes
 * (rdma_init_qp_attr), adjusted by the QP options (rb_av_cm_adjust), recorded as
 * the path applied.
 */
static int to_state(struct rdma_cm_id *id, struct rb_conn *c, unsigned i, enum ibv_qp_state s,
                    const struct rb_qp_opts *q, unsigned access)
{
	struct ibv_qp_attr a = {.qp_state = s};
	struct rb_qp_path *path = rb_conn_ctl_qp(c, i) ? &c->path_ctl : &c->path;
	int mask = 0, ret = rdma_init_qp_attr(id, &a, &mask);

	if (ret) {
		int err = errno;
		rb_err("rdma_init_qp_attr(%s) failed: %s", state_name(s), strerror(err));
		return -err;
	}
	if (s == IBV_QPS_INIT)
		a.qp_access_flags = access;
	if (s == IBV_QPS_RTR)
		a.min_rnr_timer = (uint8_t)q->min_rnr_timer;
	if (s == IBV_QPS_RTS) {
		a.timeout = (uint8_t)q->timeout;
		a.retry_cnt = (uint8_t)q->retry_cnt;
		a.rnr_retry = (uint8_t)q->rnr_retry;
	}
	if (rb_av_cm_adjust(q, tclass_of(c, q, i), rb_conn_path_mtu(c), &a, path)) {
		rb_usage_err("--pkey-index %u with -R: rdma_cm takes the partition from the interface of the "
		             "address (P_Key index %u here); use an address on that partition's interface, "
		             "or leave out -R",
		             q->pkey_index, a.pkey_index);
		return -EINVAL;
	}
	ret = ibv_modify_qp(c->qp[i], &a, mask);
	if (ret) {
		rb_err("ibv_modify_qp to %s (rdma_cm) failed: %s", state_name(s), strerror(ret));
		return -ret;
	}
	if (c->nqps == 1)
		c->path = c->path_ctl;
	return 0;
}

/* The CM picked the device from the address: it must be the one this side opened. */
static int same_device(const struct rb_conn *c, struct rdma_cm_id *id, const char *where)
{
	const char *dev = id->verbs ? ibv_get_device_name(id->verbs->device) : "?";

	if (strcmp(dev, c->dev.name)) {
		rb_usage_err("rdma_cm: %s goes through %s, but this side uses %s (-d %s)", where, dev,
		             c->dev.name, dev);
		return -EINVAL;
	}
	return 0;
}

static unsigned access_of(const struct rb_conn *c)
{
	return c->dst_per_qp ? c->dst_access : 0;
}

int rb_cm_listen(struct rb_cm *cm, const char *bind, unsigned port, unsigned nqps)
{
	struct sockaddr_storage sa;
	int ret = open_channel(cm, nqps);

	if (!ret)
		ret = address(bind, port, true, &sa);
	if (!ret && rdma_create_id(cm->ch, &cm->listen, NULL, RDMA_PS_TCP)) {
		ret = -errno;
		rb_err("rdma_create_id failed: %s", strerror(-ret));
	}
	if (!ret &&
	    (rdma_bind_addr(cm->listen, (struct sockaddr *)&sa) || rdma_listen(cm->listen, (int)nqps))) {
		ret = -errno;
		rb_err("rdma_cm cannot listen on %s port %u: %s", bind ? bind : "any address", port,
		       strerror(-ret));
	}
	return ret;
}

/* What a resolution step met: an event a moment may cure (ADDR_ERROR, ROUTE_ERROR), named. */
struct cm_retry {
	unsigned tries;
	char last[160];
};

/*
 * One try at QP i's address and route from a fresh id: 0, -EAGAIN after an
 * ADDR_ERROR or ROUTE_ERROR (in r->last, not logged), another -errno (logged). The
 * ToS, when given, is set before the route is resolved: rdma_cm builds the path's
 * traffic class, and on RoCE its priority, from it.
 */
static int resolve_once(struct rb_cm *cm, struct rb_conn *c, unsigned i, uint8_t tos, const char *host,
                        struct sockaddr *sa, uint64_t until, struct cm_retry *r)
{
	static const enum rdma_cm_event_type want[2] = {RDMA_CM_EVENT_ADDR_RESOLVED,
	                                                RDMA_CM_EVENT_ROUTE_RESOLVED};
	struct rdma_cm_event *ev;
	char what[96];
	int ret;

	if (rdma_create_id(cm->ch, &cm->ids[i], NULL, RDMA_PS_TCP)) {
		ret = -errno;
		rb_err("rdma_create_id failed: %s", strerror(-ret));
		return ret;
	}
	if (tos && rdma_set_option(cm->ids[i], RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &tos, sizeof(tos))) {
		ret = -errno;
		rb_err("rdma_set_option(TOS %u) failed: %s", tos, strerror(-ret));
		return ret;
	}
	r->tries++;
	for (int step = 0; step < 2; step++) {
		ret = step ? rdma_resolve_route(cm->ids[i], CM_STEP_MS)
		           : rdma_resolve_addr(cm->ids[i], NULL, sa, CM_STEP_MS);
		if (ret) {
			ret = -errno;
			rb_err("rdma_resolve_%s(%s) failed: %s", step ? "route" : "addr", host,
			       strerror(-ret));
			return ret;
		}
		snprintf(what, sizeof(what), "%s for %s", step ? "ROUTE_RESOLVED" : "ADDR_RESOLVED", host);
		if ((ret = next_event(cm, until, what, &ev)) != 0)
			return ret;
		if (ev->event == RDMA_CM_EVENT_ADDR_ERROR || ev->event == RDMA_CM_EVENT_ROUTE_ERROR) {
			snprintf(r->last, sizeof(r->last), "%s (status %d%s%s)", rdma_event_str(ev->event),
			         ev->status, ev->status < 0 ? ": " : "",
			         ev->status < 0 ? strerror(-ev->status) : "");
			rdma_ack_cm_event(ev);
			return -EAGAIN;
		}
		if (ev->event != want[step]) {
			rb_err("rdma_cm: %s: got %s (status %d)", what, rdma_event_str(ev->event),
			       ev->status);
			rdma_ack_cm_event(ev);
			return -ECONNREFUSED;
		}
		rdma_ack_cm_event(ev);
		if (!step && (ret = same_device(c, cm->ids[i], host)) != 0)
			return ret;
	}
	return 0;
}

#define CM_RETRY_MS 250 /* between tries of a failed resolution */

/*
 * QP i's address and route, tried again after an ADDR_ERROR or ROUTE_ERROR until
 * the deadline (--oob-timeout): a neighbour not answering yet, a route or an
 * interface coming up, are often gone a moment later, as a server that is not
 * listening yet is for the out-of-band connect.
 */
static int resolve(struct rb_cm *cm, struct rb_conn *c, unsigned i, uint8_t tos, const char *host,
                   struct sockaddr *sa, uint64_t until, unsigned timeout_s)
{
	struct cm_retry r = {0};
	int ret;

	while ((ret = resolve_once(cm, c, i, tos, host, sa, until, &r)) == -EAGAIN) {
		rdma_destroy_id(cm->ids[i]);
		cm->ids[i] = NULL;
		rb_dbg("rdma_cm: %s resolving %s (try %u), trying again", r.last, host, r.tries);
		if (rb_now_ns() + CM_RETRY_MS * 1000000ull >= until) {
			rb_err(
			    "rdma_cm: cannot resolve the address and route of %s: %s, %u tries within %u s "
			    "(--oob-timeout)",
			    host, r.last, r.tries, timeout_s);
			return -EHOSTUNREACH;
		}
		usleep(CM_RETRY_MS * 1000);
		if (rb_check_stop())
			return -EINTR;
	}
	if (!ret && r.tries > 1)
		rb_warn("rdma_cm: %s resolved on try %u (retried after %s)", host, r.tries, r.last);
	return ret;
}

int rb_cm_connect(struct rb_cm *cm, struct rb_conn *c, const struct rb_qp_opts *q, const char *host,
                  unsigned port, unsigned timeout_s)
{
	struct sockaddr_storage sa;
	uint64_t until = deadline(timeout_s);
	int ret = open_channel(cm, c->nqps);

	if (!ret)
		ret = address(host, port, false, &sa);
	for (unsigned i = 0; i < c->nqps && !ret; i++) {
		struct rdma_conn_param p = {.responder_resources = 1,
		                            .initiator_depth = 1,
		                            .retry_count = (uint8_t)q->retry_cnt,
		                            .rnr_retry_count = (uint8_t)q->rnr_retry};
		uint32_t index = htonl(i);
		struct rdma_cm_event *ev;
		char what[96];

		ret = resolve(cm, c, i, (uint8_t)tclass_of(c, q, i), host, (struct sockaddr *)&sa, until,
		              timeout_s);
		if (ret || (ret = to_state(cm->ids[i], c, i, IBV_QPS_INIT, q, access_of(c))) != 0)
			break;
		p.qp_num = c->qp[i]->qp_num;
		p.private_data = &index;
		p.private_data_len = sizeof(index);
		c->qps_connected = true;
		if (rdma_connect(cm->ids[i], &p)) {
			ret = -errno;
			rb_err("rdma_connect(%s) failed: %s", host, strerror(-ret));
			break;
		}
		snprintf(what, sizeof(what), "CONNECT_RESPONSE from %s port %u for QP %u", host, port, i);
		if ((ret = expect(cm, RDMA_CM_EVENT_CONNECT_RESPONSE, until, what, &ev)) != 0)
			break;
		rdma_ack_cm_event(ev);
		ret = to_state(cm->ids[i], c, i, IBV_QPS_RTR, q, 0);
		if (!ret)
			ret = to_state(cm->ids[i], c, i, IBV_QPS_RTS, q, 0);
		if (!ret && rdma_establish(cm->ids[i])) {
			ret = -errno;
			rb_err("rdma_establish failed: %s", strerror(-ret));
		}
	}
	if (!ret)
		rb_conn_warn_unapplied(c, q);
	return ret;
}

/* One CONNECT_REQUEST: which of our QPs it is for (its private data), connected and accepted. */
static int accept_one(struct rb_cm *cm, struct rb_conn *c, const struct rb_qp_opts *q,
                      struct rdma_cm_event *ev)
{
	struct rdma_conn_param p = {
	    .responder_resources = 1, .initiator_depth = 1, .rnr_retry_count = (uint8_t)q->rnr_retry};
	struct rdma_cm_id *id = ev->id;
	uint32_t index;
	int ret;

	/* A peer's private data, read as a hostile peer wrote it: an index we have, once. */
	if (ev->param.conn.private_data_len < sizeof(index)) {
		rb_err("rdma_cm: a connection request without its QP index (private data %u bytes)",
		       ev->param.conn.private_data_len);
		rdma_reject(id, NULL, 0);
		return -EPROTO;
	}
	memcpy(&index, ev->param.conn.private_data, sizeof(index));
	index = ntohl(index);
	if (index >= cm->n || cm->ids[index]) {
		rb_err("rdma_cm: a connection request for QP %u (this side has %u, %s)", index, cm->n,
		       index < cm->n ? "that one is connected already" : "out of range");
		rdma_reject(id, NULL, 0);
		return -EPROTO;
	}
	if ((ret = same_device(c, id, "the client's connection")) != 0) {
		rdma_reject(id, NULL, 0);
		return ret;
	}
	cm->ids[index] = id;
	c->qps_connected = true;
	ret = to_state(id, c, index, IBV_QPS_INIT, q, access_of(c));
	if (!ret)
		ret = to_state(id, c, index, IBV_QPS_RTR, q, 0);
	if (!ret)
		ret = to_state(id, c, index, IBV_QPS_RTS, q, 0);
	p.qp_num = c->qp[index]->qp_num;
	if (!ret && rdma_accept(id, &p)) {
		ret = -errno;
		rb_err("rdma_accept failed: %s", strerror(-ret));
	}
	return ret;
}

int rb_cm_accept(struct rb_cm *cm, struct rb_conn *c, const struct rb_qp_opts *q, unsigned timeout_s)
{
	uint64_t until = deadline(timeout_s);
	unsigned requests = 0, established = 0;
	int ret = 0;

	while (!ret && established < cm->n) {
		struct rdma_cm_event *ev;
		char what[64];

		snprintf(what, sizeof(what), "%s (%u of %u QPs connected)",
		         requests < cm->n ? "CONNECT_REQUEST" : "ESTABLISHED", established, cm->n);
		if ((ret = next_event(cm, until, what, &ev)) != 0)
			break;
		if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST && requests < cm->n) {
			requests++;
			ret = accept_one(cm, c, q, ev);
		} else if (ev->event == RDMA_CM_EVENT_ESTABLISHED) {
			established++;
		} else {
			rb_err("rdma_cm: waiting for %s: got %s (status %d)", what, rdma_event_str(ev->event),
			       ev->status);
			ret = -ECONNREFUSED;
		}
		rdma_ack_cm_event(ev);
	}
	if (!ret)
		rb_conn_warn_unapplied(c, q);
	return ret;
}

void rb_cm_close(struct rb_cm *cm)
{
	for (unsigned i = 0; cm->ids && i < cm->n; i++)
		if (cm->ids[i]) {
			rdma_disconnect(cm->ids[i]);
			rdma_destroy_id(cm->ids[i]);
		}
	free(cm->ids);
	if (cm->listen)
		rdma_destroy_id(cm->listen);
	if (cm->ch)
		rdma_destroy_event_channel(cm->ch);
	memset(cm, 0, sizeof(*cm));
}
