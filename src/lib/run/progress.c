/* SPDX-License-Identifier: BSD-2-Clause */
/* The sweep's progress line (progress.h): a thread ticks once a second within a size. */
#include "progress.h"

#include "base/base.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* Within a size, the terminal line says how far it is only once it lasts this long. */
#define WITHIN_AFTER_S 2

static void erase(struct rb_progress *p)
{
	if (!p->shown)
		return;
	fputs("\r\033[K", stderr);
	fflush(stderr);
	p->shown = false;
	rb_log_progress(false);
}

static void how_far(char *buf, size_t len, unsigned secs, double expect_s)
{
	if (expect_s > 0)
		snprintf(buf, len, "%u s of %.0f s", secs, expect_s);
	else
		snprintf(buf, len, "%u s", secs);
}

/* The terminal's line, rewritten: the size's place and the ETA, then how far into the size. */
static void show(struct rb_progress *p, uint64_t now)
{
	unsigned in_size = (unsigned)((now - p->t_size) / RB_NS_PER_S), eta;
	char far[64];

	if (!p->sweep && in_size < WITHIN_AFTER_S)
		return;
	fprintf(stderr, "\r\033[K%s: size %llu B", rb_prog(), (unsigned long long)p->size);
	if (p->sweep)
		fprintf(stderr, " (%u/%u)", p->i + 1, p->n);
	if (p->sweep && p->i > 0) {
		eta = (unsigned)((double)(p->t_size - p->t_sweep) / 1e9 / p->i * (p->n - p->i) + 0.5);
		fprintf(stderr, ", ETA %u:%02u", eta / 60, eta % 60);
	}
	if (in_size >= WITHIN_AFTER_S) {
		how_far(far, sizeof(far), in_size, p->expect_s);
		fprintf(stderr, ", %s", far);
	}
	fflush(stderr);
	p->shown = true;
	rb_log_progress(true);
}

/* Not a terminal: a line now and then, so a log shows a long size is alive. */
static void line(struct rb_progress *p, uint64_t now)
{
	unsigned in_size = (unsigned)((now - p->t_size) / RB_NS_PER_S);
	char far[64];

	if (in_size < p->next_line)
		return;
	p->next_line = (in_size / RB_PROGRESS_LINE_S + 1) * RB_PROGRESS_LINE_S;
	how_far(far, sizeof(far), in_size, p->expect_s);
	if (p->sweep)
		fprintf(stderr, "%s: size %llu B (%u/%u): %s\n", rb_prog(), (unsigned long long)p->size,
		        p->i + 1, p->n, far);
	else
		fprintf(stderr, "%s: size %llu B: %s\n", rb_prog(), (unsigned long long)p->size, far);
	fflush(stderr);
}

static void tick(struct rb_progress *p)
{
	uint64_t now = rb_now_ns();

	if (!p->active)
		return;
	if (p->tty)
		show(p, now);
	else
		line(p, now);
}

static void *ticker(void *arg)
{
	struct rb_progress *p = arg;
	struct timespec ts;

	pthread_mutex_lock(&p->mu);
	while (!p->quit) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_sec += 1;
		if (pthread_cond_timedwait(&p->cv, &p->mu, &ts) == ETIMEDOUT)
			tick(p);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

void rb_progress_start(struct rb_progress *p, bool tty, bool lines, bool sweep)
{
	pthread_condattr_t ca;
	sigset_t old;

	memset(p, 0, sizeof(*p));
	p->tty = tty;
	p->lines = lines && !tty;
	p->sweep = sweep;
	p->t_sweep = rb_now_ns();
	if (!p->tty && !p->lines)
		return;
	pthread_mutex_init(&p->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->cv, &ca);
	pthread_condattr_destroy(&ca);
	/* The run's signals stay with the control thread (sig.h). */
	rb_sig_hold(&old);
	p->running = pthread_create(&p->th, NULL, ticker, p) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!p->running) {
		rb_dbg("no progress thread: the sizes' progress is shown at their start only");
		pthread_cond_destroy(&p->cv);
		pthread_mutex_destroy(&p->mu);
	}
}

void rb_progress_size(struct rb_progress *p, unsigned i, unsigned n, uint64_t size, double expect_s)
{
	if (!p->tty && !p->lines)
		return;
	if (p->running)
		pthread_mutex_lock(&p->mu);
	p->i = i;
	p->n = n;
	p->size = size;
	p->expect_s = expect_s;
	p->t_size = rb_now_ns();
	p->next_line = RB_PROGRESS_LINE_S;
	p->active = true;
	if (p->tty)
		show(p, p->t_size);
	if (p->running)
		pthread_mutex_unlock(&p->mu);
}

void rb_progress_pause(struct rb_progress *p)
{
	if (!p->tty && !p->lines)
		return;
	if (p->running)
		pthread_mutex_lock(&p->mu);
	erase(p);
}

void rb_progress_resume(struct rb_progress *p)
{
	if ((p->tty || p->lines) && p->running)
		pthread_mutex_unlock(&p->mu);
}

void rb_progress_idle(struct rb_progress *p)
{
	rb_progress_pause(p);
	p->active = false;
	rb_progress_resume(p);
}

void rb_progress_stop(struct rb_progress *p)
{
	rb_progress_idle(p);
	if (!p->running)
		return;
	pthread_mutex_lock(&p->mu);
	p->quit = true;
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
	pthread_join(p->th, NULL);
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->mu);
	p->running = false;
}
