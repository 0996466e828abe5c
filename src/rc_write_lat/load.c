/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --load: what training traffic does to small-message latency. A second connection
 * set between the same two ports (its own device context, PD, CQ, QPs and MR, so
 * the latency QP's objects and its polling are untouched) carries RDMA WRITEs from
 * the client to the server. A thread of the client keeps a window of WRITEs in
 * flight on every load QP, every WRITE signaled, and counts what completes; the
 * server's side only takes the WRITEs (its buffer is the one the peer may write).
 *
 * The thread busy-polls its CQ like any bandwidth tool, but when every window is
 * full and 256 polls in a row found nothing it naps for 20 us: the windows are sized
 * (LOAD_INFLIGHT_BYTES over all QPs) to keep the wire busy through a nap, and the CPU it would
 * burn stays with the ping-pong and, on a software RoCE device, with the kernel
 * that moves the packets.
 */
#include "load.h"

#include "base/base.h"
#include "measure/measure.h"
#include "run/run.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LOAD_INFLIGHT_BYTES (4ull << 20) /* over all load QPs: their windows hold this many bytes */
#define LOAD_WINDOW_MIN     2u
#define LOAD_WINDOW_MAX     128u
#define LOAD_SETTLE_NS      (100 * RB_NS_PER_MS)
#define LOAD_IDLE_POLLS     255u /* empty polls before a nap (a mask) */
#define LOAD_NAP_NS         20000
#define LOAD_POLL_BATCH     16

struct lat_load {
	struct lat_load_spec spec;
	bool client;
	unsigned window;
	uint32_t timeout_s;
	struct rb_conn conn;
	bool have_conn;
	/* The thread (client): started per size, ended by stop or by teardown. */
	pthread_t thread;
	bool running;
	_Atomic bool stop;    /* post no more, wait for what is in flight, end */
	_Atomic bool abandon; /* end now (teardown after a failure) */
	_Atomic bool ended;
	_Atomic int err;       /* the thread's cause (said by it), 0 */
	_Atomic uint64_t done; /* WRITEs completed since the start */
	/* The thread's own. */
	unsigned *inflight; /* per QP */
	uint64_t outstanding;
	struct ibv_send_wr wr;
	struct ibv_sge sge;
	char desc[768];
	/* The measured round trips began (lat_load_mark): when, and the WRITEs done then. */
	uint64_t mark_ns, mark_done;
};

/* ---------------------------------------------------------------- the option */

int lat_load_parse(const char *arg, void *dst)
{
	struct lat_load_spec *s = dst;
	const char *x = strpbrk(arg, "xX");
	size_t n = x ? (size_t)(x - arg) : strlen(arg);
	uint64_t size, qps = 1;
	char num[32];
	int ret;

	if (n == 0 || n >= sizeof(num))
		return -EINVAL;
	memcpy(num, arg, n);
	num[n] = 0;
	ret = rb_parse_u64_range(num, 1, LAT_LOAD_MAX_SIZE, &size);
	if (!ret && x)
		ret = rb_parse_u64_range(x + 1, 1, LAT_LOAD_MAX_QPS, &qps);
	if (ret)
		return ret;
	s->size = size;
	s->qps = (uint32_t)qps;
	return 0;
}

unsigned lat_load_window(uint64_t size, unsigned qps)
{
	uint64_t w = LOAD_INFLIGHT_BYTES / (size * (qps ? qps : 1));

	return w < LOAD_WINDOW_MIN ? LOAD_WINDOW_MIN : w > LOAD_WINDOW_MAX ? LOAD_WINDOW_MAX : (unsigned)w;
}

uint64_t lat_load_bytes(const struct lat_load_spec *spec)
{
	return spec->size;
}

/* ---------------------------------------------------------------- set-up */

int lat_load_new(const struct lat_load_spec *spec, bool client, const struct rb_device *dev,
                 const struct rb_mem_opts *mem, const struct rb_qp_opts *qopt, uint32_t timeout_s,
                 struct lat_load **out)
{
	struct lat_load *ld = calloc(1, sizeof(*ld));
	/* The latency QP's port and GID: the load crosses the same two ports. */
	struct rb_dev_opts dopt = {.name = dev->name, .port = dev->port, .gid_index = dev->gid.index};
	struct rb_mem_opts host = *mem;
	unsigned window = lat_load_window(spec->size, spec->qps);
	struct rb_conn_cfg cfg = {
	    .nqps = spec->qps,
	    /* The server posts nothing on its load QPs; one WR is the least a QP is made with. */
	    .caps = {.send_wr = client ? window : 1},
	    .src_per_qp = client ? spec->size : 0,
	    .dst_per_qp = client ? 0 : spec->size,
	    .shared_buf = true, /* the payload means nothing: one buffer for every QP */
	};
	int ret;

	*out = NULL;
	if (!ld || !(ld->inflight = calloc(spec->qps, sizeof(*ld->inflight)))) {
		free(ld);
		rb_err("out of memory for %u load QPs", spec->qps);
		return -ENOMEM;
	}
	ld->spec = *spec;
	ld->client = client;
	ld->window = window;
	ld->timeout_s = timeout_s;
	host.kind = RB_MEM_HOST;
	ret = rb_conn_setup(&ld->conn, &dopt, qopt, &host, &cfg);
	if (ret) {
		lat_load_free(ld);
		return ret;
	}
	ld->have_conn = true;
	*out = ld;
	return 0;
}

int lat_load_connect(struct lat_load *ld, struct rb_oob *o, const struct rb_qp_opts *qopt)
{
	/* QPINFO connects the load QPs, also when -R brought the latency QP up through rdma_cm. */
	struct rb_qp_opts q = *qopt;
	int ret;

	q.cm = false;
	ret = rb_conn_exchange(&ld->conn, o, &q, ld->client ? ld->spec.size : 0);
	if (ret)
		return ret;
	ld->sge.addr = (uintptr_t)ld->conn.src.addr;
	ld->sge.length = (uint32_t)ld->spec.size;
	ld->sge.lkey = ld->client ? ld->conn.src_mr.mr->lkey : 0;
	ld->wr.sg_list = &ld->sge;
	ld->wr.num_sge = 1;
	ld->wr.opcode = IBV_WR_RDMA_WRITE;
	ld->wr.send_flags = IBV_SEND_SIGNALED;
	return 0;
}

void lat_load_describe(const struct lat_load *ld, FILE *f)
{
	char sz[32];

	fprintf(
	    f,
	    " Load           : %u RC QP%s x %u RDMA WRITEs of %s B in flight, client to server, posted by "
	    "a thread of the client (own context, CQ and %s); every size measured idle, then under "
	    "load\n",
	    ld->spec.qps, ld->spec.qps == 1 ? "" : "s", ld->window,
	    rb_fmt_size(ld->spec.size, sz, sizeof(sz)),
	    ld->client ? "source MR, no remote access" : "target MR, LOCAL_WRITE|REMOTE_WRITE");
}

/* ---------------------------------------------------------------- the thread */

/* Fills every QP's window; 0 or -errno (said). */
static int fill(struct lat_load *ld)
{
	struct ibv_send_wr *bad;

	for (unsigned qi = 0; qi < ld->spec.qps; qi++) {
		const struct rb_qpinfo *r = &ld->conn.remote.qp[qi];

		while (ld->inflight[qi] < ld->window) {
			int ret;

			ld->wr.wr_id = qi;
			ld->wr.wr.rdma.remote_addr = r->addr;
			ld->wr.wr.rdma.rkey = r->rkey;
			ret = ibv_post_send(ld->conn.qp[qi], &ld->wr, &bad);
			if (ret) {
				rb_err("--load: ibv_post_send on load QP %u (QPN 0x%06x) failed: %s", qi,
				       ld->conn.local.qp[qi].qpn, strerror(ret));
				return -ret;
			}
			ld->inflight[qi]++;
			ld->outstanding++;
		}
	}
	return 0;
}

/* Takes the completions there are: how many, or -EIO after naming the first error. */
static int reap(struct lat_load *ld)
{
	struct ibv_wc wc[LOAD_POLL_BATCH];
	int n = ibv_poll_cq(ld->conn.scq, LOAD_POLL_BATCH, wc);

	if (n < 0) {
		rb_err("--load: ibv_poll_cq failed (%d)", n);
		return -EIO;
	}
	for (int i = 0; i < n; i++) {
		unsigned qi = (unsigned)wc[i].wr_id;

		if (wc[i].status != IBV_WC_SUCCESS) {
			rb_wc_describe(&wc[i], "RDMA_WRITE", ld->desc, sizeof(ld->desc));
			rb_err("--load: load QP %u of %u, %llu-byte WRITEs to the server: %s", qi,
			       ld->spec.qps, (unsigned long long)ld->spec.size, ld->desc);
			return -EIO;
		}
		if (qi < ld->spec.qps && ld->inflight[qi]) {
			ld->inflight[qi]--;
			ld->outstanding--;
		}
	}
	if (n > 0)
		atomic_fetch_add_explicit(&ld->done, (uint64_t)n, memory_order_relaxed);
	return n;
}

static void nap(void)
{
	struct timespec ts = {0, LOAD_NAP_NS};

	nanosleep(&ts, NULL);
}

/*
 * Posts and reaps until told to stop, then until nothing is in flight. Bounded: no
 * completion for --timeout while WRITEs are in flight is the cause.
 */
static void *load_main(void *arg)
{
	struct lat_load *ld = arg;
	uint64_t last = rb_now_ns();
	unsigned idle = 0;
	int ret = 0;

	while (!ret && !atomic_load(&ld->abandon)) {
		bool stopping = atomic_load(&ld->stop);
		int n;

		if (!stopping && (ret = fill(ld)) != 0)
			break;
		if ((n = reap(ld)) < 0) {
			ret = n;
			break;
		}
		if (n > 0) {
			idle = 0;
			last = rb_now_ns();
			continue;
		}
		if (stopping && !ld->outstanding)
			break;
		if (++idle & LOAD_IDLE_POLLS)
			continue;
		if (rb_now_ns() - last > (uint64_t)ld->timeout_s * RB_NS_PER_S) {
			rb_err("--load: no completion on %u load QP%s for %u s with %llu %llu-byte WRITEs in "
			       "flight (--timeout)",
			       ld->spec.qps, ld->spec.qps == 1 ? "" : "s", ld->timeout_s,
			       (unsigned long long)ld->outstanding, (unsigned long long)ld->spec.size);
			ret = -ETIMEDOUT;
			break;
		}
		nap();
	}
	atomic_store(&ld->err, ret);
	atomic_store(&ld->ended, true);
	return NULL;
}

int lat_load_poll(struct lat_load *ld)
{
	int ret = atomic_load(&ld->err);

	return ret ? ret : rb_async_poll(&ld->conn.dev);
}

/* The thread ended by ld->stop or ld->abandon: joined, its error returned. */
static int join(struct lat_load *ld)
{
	uint64_t start = rb_now_ns();
	/* The thread's own bound (--timeout without a completion), and a second more. */
	uint64_t bound = ((uint64_t)ld->timeout_s + 1) * RB_NS_PER_S;

	while (!atomic_load(&ld->ended)) {
		if (rb_now_ns() - start > bound) {
			/* Cannot happen while ibv_poll_cq returns; the process is ending anyway. */
			rb_err("--load: the load thread did not end within %u s", ld->timeout_s + 1);
			atomic_store(&ld->abandon, true);
			return -ETIMEDOUT;
		}
		nap();
	}
	pthread_join(ld->thread, NULL);
	ld->running = false;
	return atomic_load(&ld->err);
}

int lat_load_start(struct lat_load *ld, uint64_t bound_ns)
{
	uint64_t start, steady = (uint64_t)ld->window * ld->spec.qps;
	struct timespec ms = {0, RB_NS_PER_MS};
	sigset_t old;
	int ret;

	atomic_store(&ld->stop, false);
	atomic_store(&ld->abandon, false);
	atomic_store(&ld->ended, false);
	atomic_store(&ld->err, 0);
	atomic_store(&ld->done, 0);
	ld->mark_ns = ld->mark_done = 0;
	/* The run's signals stay with the measuring thread, whose waits must wake. */
	rb_sig_hold(&old);
	ret = pthread_create(&ld->thread, NULL, load_main, ld);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		rb_err("--load: cannot start the load thread: %s", strerror(ret));
		return -ret;
	}
	ld->running = true;
	start = rb_now_ns();
	/* Steady: every window turned over once (the first WRITEs were acknowledged), 100 ms in. */
	for (;;) {
		uint64_t now = rb_now_ns();

		if ((ret = lat_load_poll(ld)) != 0 || (ret = rb_check_stop()) != 0)
			return ret;
		if (now - start >= LOAD_SETTLE_NS && atomic_load(&ld->done) >= steady)
			return 0;
		if (now - start >= bound_ns) {
			rb_dbg(
			    "--load: %llu of %llu WRITEs of the first windows done after %.1f s; measuring "
			    "anyway",
			    (unsigned long long)atomic_load(&ld->done), (unsigned long long)steady,
			    (double)(now - start) / 1e9);
			return 0;
		}
		nanosleep(&ms, NULL);
	}
}

void lat_load_mark(struct lat_load *ld)
{
	ld->mark_ns = rb_now_ns();
	ld->mark_done = atomic_load(&ld->done);
}

/* The client's part: the figures since the mark, then the thread stopped and joined. */
static int stop(struct lat_load *ld, struct rb_stepend *fig)
{
	uint64_t now = rb_now_ns();

	memset(fig, 0, sizeof(*fig));
	fig->peak_gbps = fig->cpu_pct = NAN;
	if (ld->mark_ns) {
		fig->msgs = atomic_load(&ld->done) - ld->mark_done;
		fig->bytes = fig->msgs * ld->spec.size;
		fig->elapsed_ns = now - ld->mark_ns;
	}
	ld->mark_ns = 0;
	atomic_store(&ld->stop, true);
	return join(ld);
}

/* The load's end as the engine's transport: one turn, this side's part. */
struct end {
	struct lat_load *ld;
	struct rb_stepend own;
	uint64_t own_ns; /* the server's clock since its mark (0: it saw no measurement) */
};

static int end_turn(void *t)
{
	struct end *e = t;
	int ret = e->ld->client ? stop(e->ld, &e->own) : 0;

	return ret ? ret : 1;
}

static uint64_t end_moved(void *t)
{
	(void)t;
	return 0;
}

static const char *end_pending(void *t)
{
	return ((struct end *)t)->ld->client ? "ending its step" : "stopping its load";
}

static int end_finish(void *t, int ret)
{
	(void)t;
	return ret;
}

static int end_figures(void *t, struct rb_stepend *own, struct rb_step_view *v)
{
	struct end *e = t;
	struct lat_load *ld = e->ld;

	if (ld->client) {
		*own = e->own;
		*v = (struct rb_step_view){.sends = RB_PEER_SENDS_NOTHING,
		                           .none = RB_STEPEND_PEAK | RB_STEPEND_CPU};
		return 0;
	}
	*own = (struct rb_stepend){0, 0, e->own_ns, NAN, NAN};
	/* The peer's load WRITEs land here unseen: held to the port's rate, the window and our clock. */
	*v = (struct rb_step_view){
	    .sends = RB_PEER_SENDS_UNSEEN,
	    .msg_bytes = ld->spec.size,
	    .want_msgs = RB_STEPEND_ANY,
	    .link_gbps = rb_port_gbps(&ld->conn.dev.port_attr),
	    .own_ns = e->own_ns,
	    .none = RB_STEPEND_PEAK | RB_STEPEND_CPU,
	};
	return 0;
}

static int end_taken(void *t, const struct rb_stepend *peer)
{
	struct end *e = t;

	if (!e->ld->client && peer->msgs && !e->own_ns) {
		rb_err("protocol error: load figures from the peer for a measurement this side did not see");
		return -EPROTO;
	}
	return 0;
}

static const struct rb_bw_ops end_ops = {
    .turn = end_turn,
    .moved = end_moved,
    .pending = end_pending,
    .finish = end_finish,
    .figures = end_figures,
    .taken = end_taken,
};

int lat_load_end(struct lat_load *ld, struct rb_oob *o, unsigned timeout_s, struct rb_stepend *fig)
{
	const struct rb_bw_cfg cfg = {.timeout_s = timeout_s, .wait_ms = 100, .untimed = true};
	struct end e = {.ld = ld, .own_ns = ld->mark_ns ? rb_now_ns() - ld->mark_ns : 0};
	struct rb_bw b;
	struct rb_bw_result res;
	int ret;

	if (!ld->client)
		ld->mark_ns = 0;
	ret = rb_bw_step(o, &cfg, &end_ops, &e, &b, &res);
	if (ret)
		return ret;
	*fig = ld->client ? res.own : res.peer;
	/* A clock this side could not judge: the load's rate is on this side's clock instead. */
	if (!ld->client && res.doubt)
		fig->elapsed_ns = e.own_ns;
	return 0;
}

void lat_load_free(struct lat_load *ld)
{
	if (!ld)
		return;
	if (ld->running) {
		atomic_store(&ld->abandon, true);
		join(ld);
		if (ld->running)
			return; /* never freed under a live thread: the process is ending */
	}
	if (ld->have_conn)
		rb_conn_destroy(&ld->conn);
	free(ld->inflight);
	free(ld);
}
