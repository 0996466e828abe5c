/* SPDX-License-Identifier: BSD-2-Clause */
/* A bandwidth step's pipelines (pipes.h): the sender threads, the transfer states, the counts. */
#include "pipes.h"

#include "base/base.h"
#include "run/run.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

int pipes_send_ctl(struct sock_run *r, uint16_t type, const struct rb_wbuf *w)
{
	int ret;

	pthread_mutex_lock(&r->send_lock);
	ret = rb_oob_send_w(r->oob, type, w);
	pthread_mutex_unlock(&r->send_lock);
	return ret;
}

/* Tells the peer that count more messages of size are on their way (0, 0: the end). */
static int send_run(struct sender *s, uint64_t size, uint32_t count)
{
	uint8_t buf[24];
	struct rb_wbuf w = {buf, 0, sizeof(buf), false};

	if (!s->tagged) {
		rb_msgrun_encode(&w, size, count);
		return pipes_send_ctl(s->r, SOCK_MSG_SIZE, &w);
	}
	sock_srun_encode(&w, s->stream, size, count);
	return pipes_send_ctl(s->r, SOCK_MSG_SRUN, &w);
}

/*
 * Publishes each message to the workers, and their sizes to the peer, whose workers
 * receive only what was announced. Every message of a step has the step's size, so
 * one SIZE frame announces a run of them (xfer_run_len): the control traffic is a
 * frame per run, not per message. A run is announced once its messages are
 * published here, which never waits on the peer (a run is at most a quarter of the
 * window a poster may run ahead of its workers).
 * Created before the step's barrier; it starts when the control thread starts the
 * clock, so thread creation is not part of the measured time.
 */
static void *sender_main(void *arg)
{
	struct sender *s = arg;
	const struct sock_opts *o = s->r->opt;
	const struct rb_runlen_opts *len = &o->len;
	uint64_t stop;
	uint32_t n, run = xfer_run_len(s->size);
	int go, ret = 0;

	rb_window_thread_ready(&s->ready);
	/* The barrier can take seconds: sleep through it. */
	while ((go = atomic_load_explicit(&s->go, memory_order_acquire)) == 0)
		RB_SEQWAIT_ONCE(&s->go_wq, atomic_load(&s->go) != 0, 100);
	if (go < 0) {
		atomic_store(&s->ret, -ECANCELED);
		return NULL;
	}
	stop = s->t0 + (uint64_t)(len->duration_s * 1e9);
	/* A run at a time: published at once (one wake-up for the workers), then announced. */
	for (uint64_t m = 0; !ret && (len->forever || (len->iters ? m < len->iters : rb_now_ns() < stop));
	     m += n) {
		n = len->iters && !len->forever && len->iters - m < run ? (uint32_t)(len->iters - m) : run;
		ret = xfer_post(s->x, s->size, n, (int)o->timeout_s * 1000);
		if (!ret)
			ret = send_run(s, s->size, n);
		if (!ret)
			s->msgs += n;
	}
	if (!ret)
		ret = xfer_post(s->x, 0, 1, (int)o->timeout_s * 1000);
	if (!ret)
		ret = send_run(s, 0, 0);
	/* A control-channel failure was logged by rb_oob_send; the control thread sees ret. */
	atomic_store(&s->ret, ret ? ret : 1);
	return NULL;
}

int pipes_sender_start(struct sender *s)
{
	sigset_t old;
	int ret;

	rb_sig_hold(&old);
	ret = pthread_create(&s->thread, NULL, sender_main, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret)
		rb_err("cannot start the sender thread: %s", strerror(ret));
	else
		rb_window_threads_ready(&s->ready, 1, 2000);
	return -ret;
}

/*
 * Bytes this side's workers moved so far this step, both directions, every pipeline
 * (a direction that never started counts 0; one joined keeps its count).
 */
uint64_t pipes_moved(const struct bw_live *l)
{
	uint64_t b = 0;

	for (unsigned i = 0; i < l->n; i++)
		b += atomic_load(&l->p[i].rx->bytes) + atomic_load(&l->p[i].tx->bytes);
	return b;
}

/* The messages this side's senders posted, every pipeline. */
uint64_t pipes_sent(const struct bw_live *l)
{
	uint64_t m = 0;

	for (unsigned i = 0; i < l->n; i++)
		m += l->p[i].snd.msgs;
	return m;
}

/* Frees the pipelines' transfer states and the live state (nothing of theirs runs). */
void pipes_free(struct sock_run *r)
{
	struct bw_live *l = r->live;

	for (unsigned i = 0; l && i < SOCK_MAX_STREAMS; i++) {
		free(l->p[i].tx);
		free(l->p[i].rx);
	}
	free(l);
	r->live = NULL;
}

/* The transfer states of every pipeline; -ENOMEM (said). */
int pipes_alloc(struct sock_run *r, unsigned n, uint64_t size, bool tagged)
{
	struct bw_live *l = calloc(1, sizeof(*l));

	r->live = l;
	if (!l) {
		rb_err("out of memory");
		return -ENOMEM;
	}
	l->n = n;
	for (unsigned i = 0; i < n; i++) {
		struct pipe *p = &l->p[i];

		p->tx = calloc(1, sizeof(*p->tx));
		p->rx = calloc(1, sizeof(*p->rx));
		if (!p->tx || !p->rx) {
			pipes_free(r);
			rb_err("out of memory");
			return -ENOMEM;
		}
		/* Written, not only allocated: a calloc's fresh heap pages would fault at the first count. */
		explicit_bzero(p->tx, sizeof(*p->tx));
		explicit_bzero(p->rx, sizeof(*p->rx));
		p->snd = (struct sender){.r = r, .x = p->tx, .size = size, .stream = i, .tagged = tagged};
	}
	return 0;
}
