/*
 * socket_bw: the TCP baseline, shaped like NCCL's socket transport. A control
 * connection carries every message's size; the payload moves over nsocks sockets
 * per thread x nthreads threads, split into chunks of at least 64 KiB. Also a
 * --ping-pong latency mode with rc_write_lat's statistics.
 */
#include "socket_bw.h"

#include "latency.h"
#include "log.h"
#include "sig.h"
#include "netif.h"
#include "oob.h"
#include "parse.h"
#include "pattern.h"
#include "rb_config.h"
#include "report.h"
#include "sizes.h"
#include "sock_xfer.h"
#include "stats.h"
#include "session.h"
#include "sysinfo.h"
#include "timeutil.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define TOOL     "socket_bw"
#define USAGE    TOOL " [options]            (server)\n       " TOOL " [options] SERVER     (client)"
#define NS_PER_S 1000000000ull

/* ---------------------------------------------------------------- options */

static int parse_family(const char *arg, void *dst)
{
	if (!strcmp(arg, "4") || !strcmp(arg, "AF_INET"))
		*(uint32_t *)dst = 4;
	else if (!strcmp(arg, "6") || !strcmp(arg, "AF_INET6"))
		*(uint32_t *)dst = 6;
	else
		return -EINVAL;
	return 0;
}

/* NCCL's environment sets the defaults; flags parsed later override them. */
static void sock_opts_default(struct sock_opts *o)
{
	const char *e;
	uint64_t v;

	memset(o, 0, sizeof(*o));
	o->nsocks = o->nthreads = 1;
	o->timeout_s = 10;
	if ((e = getenv("NCCL_NSOCKS_PERTHREAD")) && !rb_parse_u64_range(e, 1, 16, &v)) {
		o->nsocks = (uint32_t)v;
		o->env_applied[o->nenv++] = "NCCL_NSOCKS_PERTHREAD";
	}
	if ((e = getenv("NCCL_SOCKET_NTHREADS")) && !rb_parse_u64_range(e, 1, 16, &v)) {
		o->nthreads = (uint32_t)v;
		o->env_applied[o->nenv++] = "NCCL_SOCKET_NTHREADS";
	}
	if ((e = getenv("NCCL_SOCKET_IFNAME")) && *e) {
		o->ifname = e;
		o->env_applied[o->nenv++] = "NCCL_SOCKET_IFNAME";
	}
	if ((e = getenv("NCCL_SOCKET_FAMILY")) && !parse_family(e, &o->family))
		o->env_applied[o->nenv++] = "NCCL_SOCKET_FAMILY";
}

static const struct rb_opt_table *sock_opt_table(struct sock_opts *o)
{
	static struct rb_opt rows[24];
	static struct rb_opt_table table = {"Test", rows};
	struct rb_opt r[] = {
	    {"iters", 'n', RB_OPT_U32, &o->iters, "N",
	     "messages (round trips with --ping-pong) per size (default 1000)", 1, 1u << 30, NULL, NULL},
	    {"duration", 'D', RB_OPT_DOUBLE, &o->duration_s, "SEC",
	     "run each size for SEC seconds instead of -n", 0, 86400, NULL, NULL},
	    {"nsocks", 0, RB_OPT_U32, &o->nsocks, "N",
	     "sockets per thread (default $NCCL_NSOCKS_PERTHREAD or 1)", 1, 16, NULL, NULL},
	    {"nthreads", 0, RB_OPT_U32, &o->nthreads, "N", "threads (default $NCCL_SOCKET_NTHREADS or 1)", 1,
	     16, NULL, NULL},
	    {"bidirectional", 'b', RB_OPT_FLAG, &o->bidir, NULL, "both sides send at once; reports the sum",
	     0, 0, NULL, NULL},
	    {"ping-pong", 0, RB_OPT_FLAG, &o->pingpong, NULL, "latency: one message each way per round trip",
	     0, 0, NULL, NULL},
	    {"warmup", 0, RB_OPT_U32, &o->warmup, "N", "--ping-pong round trips not measured (default 100)",
	     0, 1u << 24, NULL, NULL},
	    {"ifname", 0, RB_OPT_STR, &o->ifname, "LIST",
	     "interfaces, NCCL_SOCKET_IFNAME syntax: prefixes, '=' exact, '^' exclude", 0, 0, NULL, NULL},
	    {"family", 0, RB_OPT_FN, &o->family, "4|6", "address family of the interface (default: either)",
	     0, 0, parse_family, "4, 6, AF_INET or AF_INET6"},
	    {"verify", 0, RB_OPT_FLAG, &o->verify, NULL, "the receiver checks every byte of every message", 0,
	     0, NULL, NULL},
	    {"no-nodelay", 0, RB_OPT_FLAG, &o->no_nodelay, NULL,
	     "leave Nagle on (TCP_NODELAY is set by default)", 0, 0, NULL, NULL},
	    {"sndbuf", 0, RB_OPT_U64, &o->sndbuf, "BYTES",
	     "SO_SNDBUF of data sockets (default: kernel autotuning)", 4096, 1ull << 30, NULL, NULL},
	    {"rcvbuf", 0, RB_OPT_U64, &o->rcvbuf, "BYTES",
	     "SO_RCVBUF of data sockets (default: kernel autotuning)", 4096, 1ull << 30, NULL, NULL},
	    {"zerocopy", 0, RB_OPT_FLAG, &o->zerocopy, NULL, "send with MSG_ZEROCOPY", 0, 0, NULL, NULL},
	    {"timeout", 0, RB_OPT_U32, &o->timeout_s, "SEC", "fail when nothing moves for SEC s (default 10)",
	     1, 3600, NULL, NULL},
	    {0},
	};
	rb_size_opt_rows(&o->size, rows);
	memcpy(rows + 3, r, sizeof(r));
	return &table;
}

static int sock_opts_finish(struct sock_opts *o, bool warmup_given)
{
	if (rb_size_opts_resolve(&o->size, o->pingpong ? 8 : 1u << 20, &o->sizes))
		return -EINVAL;
	if (rb_iters_or_duration(&o->iters, o->duration_s, 1000))
		return -EINVAL;
	if (o->pingpong && o->bidir) {
		rb_usage_err("--ping-pong and -b exclude each other");
		return -EINVAL;
	}
	if (!warmup_given)
		o->warmup = o->pingpong ? 100 : 0;
	return 0;
}

/* ---------------------------------------------------------------- bandwidth step */

struct sender {
	struct sock_run *r;
	struct xfer *x;
	uint64_t size, msgs;
	uint64_t t0;
	_Atomic int go;  /* 0 until the clock starts, then 1; -1: give up */
	_Atomic int ret; /* set when the thread ends */
	pthread_t thread;
};

static int send_ctl(struct sock_run *r, uint16_t type, const struct rb_wbuf *w)
{
	int ret;

	pthread_mutex_lock(&r->send_lock);
	ret = rb_oob_send_w(&r->oob, type, w);
	pthread_mutex_unlock(&r->send_lock);
	return ret;
}

static int send_size(struct sender *s, uint64_t size)
{
	const struct sock_opts *o = s->r->opt;
	uint8_t buf[16];
	struct rb_wbuf w = {buf, 0, sizeof(buf), false};
	int ret = xfer_post(s->x, size, (int)o->timeout_s * 1000);

	rb_u64_encode(&w, size);
	return ret ? ret : send_ctl(s->r, RB_MSG_SIZE, &w);
}

/*
 * Publishes each message to the workers and its size to the peer, as NCCL does.
 * Created before the step's barrier; it starts when the control thread starts the
 * clock, so thread creation is not part of the measured time.
 */
static void *sender_main(void *arg)
{
	struct sender *s = arg;
	const struct sock_opts *o = s->r->opt;
	uint64_t stop;
	int go, ret = 0;

	while ((go = atomic_load_explicit(&s->go, memory_order_acquire)) == 0)
		sched_yield();
	if (go < 0) {
		atomic_store(&s->ret, -ECANCELED);
		return NULL;
	}
	stop = s->t0 + (uint64_t)(o->duration_s * 1e9);
	for (uint64_t m = 0; !ret && (o->iters ? m < o->iters : rb_now_ns() < stop); m++) {
		ret = send_size(s, s->size);
		if (!ret)
			s->msgs++;
	}
	if (!ret)
		ret = send_size(s, 0);
	/* A control-channel failure was logged by rb_oob_send; the control thread sees ret. */
	atomic_store(&s->ret, ret ? ret : 1);
	return NULL;
}

static int sender_start(struct sender *s)
{
	sigset_t block, old;
	int ret;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	ret = pthread_create(&s->thread, NULL, sender_main, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret)
		rb_err("cannot start the sender thread: %s", strerror(ret));
	return -ret;
}

struct bw_step {
	struct rb_stepend own, peer;
	double cpu_local;
};

int sock_hear_peer(struct sock_run *r)
{
	uint64_t deadline = rb_now_ns() + NS_PER_S;
	struct rb_frame f;

	/* Frames sent before the failure (sizes of messages that will not come) are passed over. */
	for (;;) {
		uint64_t now = rb_now_ns();
		int ret;

		if (now >= deadline || rb_oob_readable(&r->oob, (int)((deadline - now) / 1000000) + 1) <= 0)
			return 0;
		ret = rb_oob_recv(&r->oob, &f, 1000);
		if (ret)
			return ret;
	}
}

/*
 * The cause of a step whose workers stopped (or whose sender gave up with err): the
 * peer's own message when it closed a data connection after failing, else the
 * workers' first error, or the stop signal.
 */
static int workers_failed(struct sock_run *r, struct xfer *rx, struct xfer *tx, int err)
{
	struct xfer *x = rx && xfer_error(rx, false) ? rx : tx && xfer_error(tx, false) ? tx : NULL;
	int ret;

	if (!x) {
		ret = rb_check_stop();
		if (ret)
			return ret;
		if (err && err != -ECANCELED)
			return err; /* logged where it happened */
		rb_err("internal error: the data path stopped without a cause");
		return -EIO;
	}
	if (xfer_error(x, false) == -ECONNRESET && (ret = sock_hear_peer(r)))
		return ret;
	return xfer_error(x, true);
}

/* The receiver's and the sender's counts of one direction agree, or the step failed. */
static int check_counts(const char *who, uint64_t msgs, uint64_t bytes, const char *other, uint64_t omsgs,
                        uint64_t obytes)
{
	if (msgs == omsgs && bytes == obytes)
		return 0;
	rb_err("%s %llu messages (%llu bytes), %s %llu (%llu bytes)", who, (unsigned long long)msgs,
	       (unsigned long long)bytes, other, (unsigned long long)omsgs, (unsigned long long)obytes);
	return -EPROTO;
}

static int bw_step(struct sock_run *r, uint64_t size, uint64_t seq, struct bw_step *res)
{
	uint8_t buf[64];
	struct rb_frame f;
	const struct sock_opts *o = r->opt;
	bool sending = r->client || o->bidir, receiving = !r->client || o->bidir;
	struct xfer *tx = calloc(1, sizeof(*tx)), *rx = calloc(1, sizeof(*rx));
	struct sender snd = {.r = r, .x = tx, .size = size};
	struct xfer_cfg xc = {.verify = o->verify,
	                      .zerocopy = o->zerocopy,
	                      .nthreads = o->nthreads,
	                      .nsocks = o->nsocks,
	                      .max_size = size,
	                      .timeout_ms = (int)o->timeout_s * 1000};
	bool rx_done = !receiving, acked = !sending, rx_on = false, tx_on = false, snd_on = false;
	uint64_t rx_msgs = 0, rx_bytes = 0, cpu0 = 0, t1 = 0, last_move, last_bytes = 0;
	struct rb_stepend peer_rx = {0};
	int ret = 0;

	memset(res, 0, sizeof(*res));
	if (!tx || !rx) {
		free(tx);
		free(rx);
		rb_err("out of memory");
		return -ENOMEM;
	}
	/* Buffers and threads first: the clock starts after the barrier and times the transfer only. */
	if (receiving) {
		xc.tx = false;
		ret = xfer_start(rx, &xc, r->client ? r->s2c : r->c2s, NULL);
		rx_on = !ret;
	}
	if (!ret && sending) {
		xc.tx = true;
		ret = xfer_start(tx, &xc, r->client ? r->c2s : r->s2c, r->client ? r->zc_c2s : r->zc_s2c);
		tx_on = !ret;
		if (!ret)
			ret = sender_start(&snd);
		snd_on = !ret;
	}
	if (!ret)
		ret = rb_oob_barrier(&r->oob, seq);
	if (!ret) {
		cpu0 = rb_cpu_ns();
		snd.t0 = rb_now_ns();
		atomic_store_explicit(&snd.go, 1, memory_order_release);
	}
	last_move = rb_now_ns();
	/* The control thread: the peer's sizes in, our acknowledgement out. */
	while (!ret && !(rx_done && acked)) {
		uint64_t v,
		    moved = (rx_on ? atomic_load(&rx->bytes) : 0) + (tx_on ? atomic_load(&tx->bytes) : 0);
		int rd, e;

		ret = rb_check_stop();
		if (ret)
			break;
		if ((rx_on && xfer_aborted(rx)) || (tx_on && xfer_aborted(tx))) {
			ret = workers_failed(r, rx_on ? rx : NULL, tx_on ? tx : NULL, 0);
			break;
		}
		if (snd_on && (e = atomic_load(&snd.ret)) < 0) {
			ret = workers_failed(r, rx_on ? rx : NULL, tx, e);
			break;
		}
		if (moved != last_bytes) {
			last_bytes = moved;
			last_move = rb_now_ns();
		}
		rd = rb_oob_readable(&r->oob, 50);
		if (rd < 0) {
			ret = rd;
			rb_err("out-of-band channel to %s failed: %s", r->oob.peer, strerror(-rd));
			break;
		}
		if (!rd) {
			if (rb_now_ns() - last_move > o->timeout_s * NS_PER_S) {
				rb_err("nothing moved for %u s (--timeout)", o->timeout_s);
				ret = -ETIMEDOUT;
			}
			continue;
		}
		ret = rb_oob_recv(&r->oob, &f, (int)o->timeout_s * 1000);
		if (ret)
			break;
		last_move = rb_now_ns();
		if (f.type == RB_MSG_SIZE && receiving && !rx_done && !rb_u64_decode(f.p, f.len, &v) &&
		    v <= size) {
			if (v && v != size) {
				rb_err("peer announced a %llu-byte message in the %llu-byte step",
				       (unsigned long long)v, (unsigned long long)size);
				ret = -EPROTO;
				break;
			}
			ret = xfer_post(rx, v, (int)o->timeout_s * 1000);
			if (ret) {
				ret = workers_failed(r, rx, tx_on ? tx : NULL, ret);
				break;
			}
			if (v) {
				rx_msgs++;
				continue;
			}
			/* End of the peer's messages: once all have landed, say so. */
			xfer_join(rx);
			rx_on = false;
			if (xfer_error(rx, false))
				ret = workers_failed(r, rx, NULL, 0);
			rx_bytes = atomic_load(&rx->bytes);
			if (!ret) {
				struct rb_stepend got = {rx_msgs, rx_bytes, 0, 0};
				struct rb_wbuf w = {buf, 0, sizeof(buf), false};
				rb_stepend_encode(&w, &got);
				ret = send_ctl(r, RB_MSG_RXDONE, &w);
			}
			rx_done = true;
		} else if (f.type == RB_MSG_RXDONE && sending && !acked &&
		           !rb_stepend_decode(f.p, f.len, &peer_rx)) {
			t1 = rb_now_ns();
			acked = true;
		} else {
			rb_err("protocol error: unexpected or malformed %s frame from %s",
			       rb_msg_name(f.type), r->oob.peer);
			ret = -EPROTO;
		}
	}
	if (snd_on) {
		if (ret)
			xfer_abort(tx);
		/* Never started (the barrier failed): it gives up at once. */
		if (!atomic_load(&snd.go))
			atomic_store(&snd.go, -1);
		pthread_join(snd.thread, NULL);
		if (!ret && atomic_load(&snd.ret) < 0)
			ret = workers_failed(r, NULL, tx, atomic_load(&snd.ret));
	}
	if (tx_on) {
		if (ret)
			xfer_abort(tx);
		xfer_join(tx);
		if (!ret)
			ret = xfer_error(tx, true);
	}
	if (rx_on) {
		xfer_abort(rx);
		xfer_join(rx);
	}
	if (tx_on && o->zerocopy && atomic_load(&tx->zc_completions) &&
	    atomic_load(&tx->zc_copied) == atomic_load(&tx->zc_completions))
		rb_dbg(
		    "MSG_ZEROCOPY: the kernel copied all %llu sends of this step (no zero-copy on this path)",
		    (unsigned long long)atomic_load(&tx->zc_completions));
	if (ret)
		goto out;
	/* What the peer says arrived must be exactly what was sent. */
	if (sending)
		ret = check_counts("peer received", peer_rx.msgs, peer_rx.bytes, "we sent", snd.msgs,
		                   snd.msgs * size);
	if (ret)
		goto out;
	res->cpu_local = 100.0 * (double)(rb_cpu_ns() - cpu0) / (double)(rb_now_ns() - snd.t0);
	res->own = (struct rb_stepend){snd.msgs, snd.msgs * size, sending ? t1 - snd.t0 : 0, res->cpu_local};
	{
		struct rb_wbuf w = {buf, 0, sizeof(buf), false};
		rb_stepend_encode(&w, &res->own);
		ret = send_ctl(r, RB_MSG_TXDONE, &w);
	}
	if (!ret)
		ret = rb_oob_expect(&r->oob, RB_MSG_TXDONE, &f, -1);
	if (!ret && rb_stepend_decode(f.p, f.len, &res->peer)) {
		rb_err("malformed TXDONE from %s", r->oob.peer);
		ret = -EPROTO;
	}
	if (!ret && receiving)
		ret = check_counts("the peer sent", res->peer.msgs, res->peer.bytes, "we received", rx_msgs,
		                   rx_bytes);
out:
	free(tx);
	free(rx);
	return ret;
}

/* ---------------------------------------------------------------- output */

static void hello_params(const struct sock_opts *o, struct rb_hello *h)
{
	rb_hello_sweep(h, TOOL, &o->sizes, o->iters, o->duration_s);
	rb_hello_add(h, "nsocks", "%u", o->nsocks);
	rb_hello_add(h, "nthreads", "%u", o->nthreads);
	rb_hello_add(h, "bidirectional", "%d", o->bidir);
	rb_hello_add(h, "ping_pong", "%d", o->pingpong);
	rb_hello_add(h, "warmup", "%u", o->warmup);
	rb_hello_add(h, "verify", "%d", o->verify);
}

static void print_header(const struct sock_run *r)
{
	const struct sock_opts *o = r->opt;
	char sizes[256];

	printf("---------------------------------------------------------------------------------------\n");
	printf("                    TCP %s Test (rdmabench %s %s)\n",
	       o->pingpong ? "ping-pong latency" : "BW", TOOL, RB_VERSION);
	printf(" Role           : %s, peer %s\n", r->client ? "client" : "server", r->oob.peer);
	printf(" Interface      : %s %s%s\n", r->nif.name[0] ? r->nif.name : "?", r->nif.addr_str,
	       o->ifname ? "" : " (routed; --ifname not set)");
	if (o->ifname)
		printf(" Interface list : %s\n", o->ifname);
	for (unsigned i = 0; i < o->nenv; i++)
		printf(" From env       : %s\n", o->env_applied[i]);
	printf(" Sizes          : %s\n", rb_sizes_fmt(&o->sizes, sizes, sizeof(sizes)));
	if (o->duration_s > 0)
		printf(" Duration       : %g s per size\n", o->duration_s);
	else
		printf(" Iterations     : %u per size\n", o->iters);
	if (o->pingpong)
		printf(" Mode           : ping-pong over one socket, %u warm-up round trips%s\n", o->warmup,
		       o->verify ? ", verify" : "");
	else
		printf(" Sockets        : %u per thread x %u threads = %u per direction, chunks >= 64 KiB\n",
		       o->nsocks, o->nthreads, r->total);
	if (!o->pingpong)
		printf(" Mode           : %s%s%s\n",
		       o->bidir ? "bidirectional" : "unidirectional (client sends)",
		       o->verify ? ", verify" : "", o->zerocopy ? ", MSG_ZEROCOPY" : "");
	printf(" Socket options : TCP_NODELAY %s, SO_SNDBUF %s, SO_RCVBUF %s\n", o->no_nodelay ? "off" : "on",
	       o->sndbuf ? "set" : "auto", o->rcvbuf ? "set" : "auto");
	printf("---------------------------------------------------------------------------------------\n");
	fflush(stdout);
}

static void common_fields(struct rb_row *r, const struct sock_run *run, uint64_t size)
{
	const struct sock_opts *o = run->opt;

	memset(r, 0, sizeof(*r));
	rb_row_str(r, "tool", NULL, TOOL);
	rb_row_str(r, "mode", NULL,
	           o->pingpong ? "ping_pong"
	           : o->bidir  ? "bidirectional"
	                       : "unidirectional");
	rb_row_str(r, "interface", NULL, run->nif.name);
	rb_row_u64(r, "nsocks", NULL, o->nsocks);
	rb_row_u64(r, "nthreads", NULL, o->nthreads);
	rb_row_bool(r, "nodelay", NULL, !o->no_nodelay);
	rb_row_bool(r, "zerocopy", NULL, o->zerocopy);
	rb_row_bool(r, "verify", NULL, o->verify);
	rb_row_u64(r, "size_bytes", "#bytes", size);
}

static void bw_row(struct rb_row *r, const struct sock_run *run, uint64_t size, const struct bw_step *s)
{
	const struct rb_stepend *cl = run->client ? &s->own : &s->peer,
	                        *sv = run->client ? &s->peer : &s->own;
	uint64_t msgs = s->own.msgs + s->peer.msgs, bytes = s->own.bytes + s->peer.bytes;
	uint64_t ns = s->own.elapsed_ns > s->peer.elapsed_ns ? s->own.elapsed_ns : s->peer.elapsed_ns;

	common_fields(r, run, size);
	rb_row_u64(r, "iterations", "#iterations", run->opt->bidir ? msgs / 2 : msgs);
	rb_row_u64(r, "msgs", NULL, msgs);
	rb_row_u64(r, "bytes", NULL, bytes);
	rb_row_dbl(r, "elapsed_s", NULL, 6, (double)ns / 1e9);
	rb_row_dbl(r, "bw_avg_gbps", "BW average[Gb/s]", 3, rb_gbps(bytes, ns));
	rb_row_dbl(r, "msg_rate_per_s", "Msg/s", 1, ns ? (double)msgs * 1e9 / (double)ns : 0);
	rb_row_dbl(r, "cpu_client_pct", "CPU client[%]", 1, cl->cpu_pct);
	rb_row_dbl(r, "cpu_server_pct", "CPU server[%]", 1, sv->cpu_pct);
}

static void pp_row(struct rb_row *r, const struct sock_run *run, uint64_t size,
                   const struct rb_lat_summary *m)
{
	common_fields(r, run, size);
	rb_row_u64(r, "iterations", "#iterations", m->count);
	rb_row_u64(r, "warmup", NULL, m->warmup);
	rb_lat_row(r, m);
	rb_row_dbl(r, "elapsed_s", NULL, 6, m->elapsed_s);
	rb_row_dbl(r, "tps", run->opt->duration_s > 0 ? "trans/s" : NULL, 1, rb_lat_tps(m));
}

/* ---------------------------------------------------------------- main */

/* A dual-stack listener sees IPv4 peers as ::ffff:a.b.c.d; interfaces list the IPv4 address. */
static const struct sockaddr *unmapped(struct sockaddr_storage *ss)
{
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;

	if (ss->ss_family == AF_INET6 && IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr)) {
		struct sockaddr_in s4 = {.sin_family = AF_INET, .sin_port = s6->sin6_port};
		memcpy(&s4.sin_addr, &s6->sin6_addr.s6_addr[12], sizeof(s4.sin_addr));
		memcpy(ss, &s4, sizeof(s4));
	}
	return (const struct sockaddr *)ss;
}

static bool has_warmup(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strncmp(argv[i], "--warmup", 8))
			return true;
	return false;
}

int main(int argc, char **argv)
{
	struct sock_opts so;
	struct rb_oob_opts oopt;
	struct rb_out_opts out;
	struct rb_reports reps = {0};
	struct sock_run run;
	struct rb_hello mine, theirs;
	struct rb_row meta, row;
	int pos, ret;

	rb_log_init(argv[0]);
	rb_sig_install();
	sock_opts_default(&so);
	rb_oob_opts_default(&oopt);
	rb_out_opts_default(&out);
	{
		const struct rb_opt_table *tables[] = {sock_opt_table(&so), rb_oob_opt_table(&oopt),
		                                       rb_out_opt_table(&out), rb_common_opts(), NULL};
		pos = rb_opts_parse(tables, argc, argv, USAGE);
	}
	if (pos == RB_OPTS_HELP)
		return RB_EXIT_OK;
	if (pos < 0 || sock_opts_finish(&so, has_warmup(argc, argv)))
		return RB_EXIT_USAGE;
	if (argc - pos > 1) {
		rb_usage_err("unexpected argument '%s' (only one server host is allowed)", argv[pos + 1]);
		return RB_EXIT_USAGE;
	}
	memset(&run, 0, sizeof(run));
	run.opt = &so;
	run.client = pos < argc;
	run.total = so.nsocks * so.nthreads;
	run.oob.fd = -1;
	pthread_mutex_init(&run.send_lock, NULL);
	for (int i = 0; i < MAX_SOCKETS; i++)
		run.c2s[i] = run.s2c[i] = -1;
	if (run.total > MAX_SOCKETS) {
		rb_usage_err("--nsocks %u x --nthreads %u is more than %d sockets per direction", so.nsocks,
		             so.nthreads, MAX_SOCKETS);
		return RB_EXIT_USAGE;
	}
	/* A name that matches nothing is an error now, never a silent fallback. */
	if (so.ifname || so.family) {
		ret = rb_netif_find(so.ifname, (int)so.family, &run.nif);
		if (ret)
			return RB_EXIT_USAGE;
		if (!run.client && !oopt.bind)
			oopt.bind = run.nif.addr_str;
	}
	if (rb_reports_open(&reps, &out))
		return RB_EXIT_USAGE;
	ret = run.client ? rb_oob_connect(argv[pos], &oopt, &run.oob) : rb_oob_accept(&oopt, &run.oob);
	if (ret)
		goto done;
	hello_params(&so, &mine);
	ret = rb_oob_negotiate(&run.oob, &mine, &theirs);
	if (ret)
		goto done;
	if (!so.ifname && !so.family) {
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);
		if (!getsockname(run.oob.fd, (struct sockaddr *)&ss, &sl))
			rb_netif_of_addr(unmapped(&ss), &run.nif);
	}
	ret = run.client ? connect_data(&run) : serve_data(&run);
	if (ret)
		goto done;
	if (rb_reports_text(&reps))
		print_header(&run);
	memset(&meta, 0, sizeof(meta));
	rb_meta_system(&meta, TOOL);
	rb_row_str(&meta, "role", NULL, run.client ? "client" : "server");
	rb_row_str(&meta, "peer", NULL, run.client ? argv[pos] : run.oob.peer);
	rb_row_str(&meta, "interface", NULL, run.nif.name);
	rb_row_str(&meta, "address", NULL, run.nif.addr_str);
	rb_row_u64(&meta, "iterations", NULL, so.iters);
	rb_row_dbl(&meta, "duration_s", NULL, 3, so.duration_s > 0 ? so.duration_s : NAN);
	rb_row_u64(&meta, "nsocks", NULL, so.nsocks);
	rb_row_u64(&meta, "nthreads", NULL, so.nthreads);
	rb_row_str(&meta, "percentile_method", NULL, "nearest rank");
	rb_reports_begin(&reps, &meta);
	for (unsigned i = 0; i < so.sizes.n && !ret; i++) {
		ret = rb_check_stop();
		if (ret)
			break;
		if (so.pingpong) {
			struct rb_lat_summary sum;
			ret = pp_step(&run, so.sizes.v[i], i + 1, &sum);
			if (!ret)
				pp_row(&row, &run, so.sizes.v[i], &sum);
		} else {
			struct bw_step st;
			ret = bw_step(&run, so.sizes.v[i], i + 1, &st);
			if (!ret)
				bw_row(&row, &run, so.sizes.v[i], &st);
		}
		if (!ret)
			rb_reports_row(&reps, &row);
	}
	if (rb_reports_text(&reps) && !ret)
		printf("-------------------------------------------------------------------------------------"
		       "--\n");
done:
	ret = rb_run_finish(&run.oob, &reps, ret);
	for (int i = 0; i < MAX_SOCKETS; i++) {
		if (run.c2s[i] >= 0)
			close(run.c2s[i]);
		if (run.s2c[i] >= 0)
			close(run.s2c[i]);
	}
	rb_oob_close(&run.oob);
	return rb_exit_code(ret);
}
