/* SPDX-License-Identifier: BSD-2-Clause */
#include "legs.h"
#include "victim.h"

#include "fabmsg.h"
#include "base/base.h"
#include "run/run.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct child {
	struct rb_oob ch; /* the socketpair to this leg's child */
	pid_t pid;
	unsigned i;
	bool ended; /* its END came, or it is gone */
};

/* In a child: where its rows go. */
struct leg_sink {
	struct rb_oob *ch;
	const struct rb_legs *L;
	const struct rb_leg *leg;
	int err;
};

/* The row's elapsed_s, or NaN. */
static double elapsed(const struct rb_row *row)
{
	for (unsigned i = 0; i < row->n; i++)
		if (!strcmp(row->f[i].key, "elapsed_s") && row->f[i].type == RB_F_DBL)
			return row->f[i].v.d;
	return NAN;
}

static void leg_row(void *arg, const struct rb_row *row)
{
	static uint8_t buf[RB_FAB_ROW_MAX];
	static struct rb_row wall;
	struct leg_sink *s = arg;
	struct rb_wbuf w = {buf, 0, sizeof(buf), false};
	const struct rb_row *out = row;
	double el = elapsed(row);

	/*
	 * A flow's span on this host's clock: its row comes as its measurement ends, so it
	 * began elapsed_s before. Flows of one round on several hosts compare to NTP's precision.
	 */
	if (s->L->wall && isfinite(el) && row->n + 2 <= RB_ROW_MAX) {
		struct timespec ts;
		double now;

		clock_gettime(CLOCK_REALTIME, &ts);
		now = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
		wall = *row;
		rb_row_dbl(&wall, "flow_start_unix_s", NULL, 3, now - el);
		rb_row_dbl(&wall, "flow_end_unix_s", NULL, 3, now);
		out = &wall;
	}
	rb_fab_row_encode(&w, s->L->round, s->leg->pair.server, s->leg->pair.client, s->leg->rail, out);
	if (!s->err)
		s->err = rb_oob_send_w(s->ch, RB_MSG_ROW, &w);
}

/* Whether the coordinator said something (or closed): during a round, only to abort it. */
static bool pfd_ctl_ready(const struct rb_legs *L)
{
	struct pollfd p = {L->ctl ? L->ctl->fd : -1, POLLIN, 0};

	return p.fd >= 0 && poll(&p, 1, 0) == 1 && (p.revents & (POLLIN | POLLHUP | POLLERR));
}

/* The partner of a leg: the other end of its pair. */
static uint32_t partner_of(const struct rb_leg *leg)
{
	return leg->host ? leg->pair.server : leg->pair.client;
}

/* The child of leg i: its run, then its END; never returns. */
static void leg_child(const struct rb_tool *tool, void *t, struct rb_run *r, const struct rb_legs *L,
                      unsigned i, int fd)
{
	const struct rb_leg *leg = &L->leg[i];
	char **argv = calloc((size_t)r->argc + 3, sizeof(*argv));
	struct leg_sink s = {NULL, L, leg, 0};
	struct rb_oob ch;
	struct rb_fab_end e;
	uint8_t buf[RB_FAB_END_MAX];
	struct rb_wbuf w = {buf, 0, sizeof(buf), false};
	int ret;

	rb_oob_from_fd(fd, 10000, &ch);
	s.ch = &ch;
	/* The coordinator's connection is the parent's: a child holding it would hide the rank's death. */
	if (L->ctl && L->ctl->fd >= 0)
		close(L->ctl->fd);
	memset(&e, 0, sizeof(e));
	e.round = L->round;
	e.partner = partner_of(leg);
	if (leg->victim) {
		/* Another tool's run: its figures, or why it has none, are its rows; it fails no round. */
		free(argv);
		argv = NULL;
		rb_victim_leg(tool, L, leg, &ch);
		ret = 0;
	} else if (!argv) {
		ret = -ENOMEM;
		rb_err("out of memory");
	} else {
		memcpy(argv, r->argv, sizeof(*argv) * (size_t)r->argc);
		if (leg->dev) {
			argv[r->argc] = "--ib-dev";
			argv[r->argc + 1] = (char *)leg->dev;
			r->argc += 2;
		}
		r->argv = argv;
		if (leg->srv)
			r->srv = *leg->srv;
		/* Flows share the rank's listener: each child reads one connection at a time. */
		r->srv.single = !L->rails;
		/* A flow's server passes its rows too: what its port's counters saw, the receiver's side. */
		r->server_rows = !L->rails;
		ret = rb_run_pair(tool, t, r, leg->host, leg->port, leg_row, &s, e.dev);
	}
	if (ret) {
		e.code = (uint32_t)rb_exit_code(ret);
		snprintf(e.error, sizeof(e.error), "%s", rb_first_error());
	} else if (s.err) {
		e.code = (uint32_t)rb_exit_code(s.err);
		snprintf(e.error, sizeof(e.error), "its rows could not be passed on: %s", strerror(-s.err));
	}
	rb_fab_end_encode(&w, &e);
	rb_oob_send_w(&ch, RB_MSG_END, &w);
	rb_oob_close(&ch);
	fflush(NULL);
	_exit(0);
}

/* "rail 1 (mlx5_1)" or "with rank 3": which leg, for an error. */
static void leg_name(const struct rb_legs *L, unsigned i, char *buf, size_t cap)
{
	if (L->rails)
		snprintf(buf, cap, "rail %u (%s)", L->leg[i].rail, L->leg[i].dev ? L->leg[i].dev : "-");
	else
		snprintf(buf, cap, "%s rank %u", L->leg[i].host ? "to" : "from", partner_of(&L->leg[i]));
}

/* A child's frame: its rows go on to the coordinator, its END closes it. */
static void take(struct child *c, const struct rb_legs *L, char (*devs)[RB_FAB_DEVS_LEN], char *err,
                 size_t errcap, uint32_t *partner, int *ctl_err)
{
	struct rb_frame f;
	struct rb_fab_end e;
	char name[64];

	leg_name(L, c->i, name, sizeof(name));
	c->ended = true;
	if (rb_oob_recv(&c->ch, &f, 10000)) {
		rb_forget_first_error();
		if (!err[0])
			snprintf(err, errcap, "%s: its process ended without a word (killed?)", name);
	} else if (f.type == RB_MSG_ROW) {
		if (!*ctl_err)
			*ctl_err = rb_oob_send(L->ctl, RB_MSG_ROW, f.p, f.len);
		c->ended = false;
		return;
	} else if (f.type != RB_MSG_END || rb_fab_end_decode(f.p, f.len, &e)) {
		if (!err[0])
			snprintf(err, errcap, "%s: unexpected %s frame from its process", name,
			         rb_msg_name(f.type));
	} else {
		snprintf(devs[c->i], RB_FAB_DEVS_LEN, "%s", e.dev);
		if (e.error[0] && !err[0])
			snprintf(err, errcap, "%s: %s", name, e.error);
		else
			return;
	}
	if (*partner == UINT32_MAX)
		*partner = partner_of(&L->leg[c->i]);
}

int rb_legs_run(const struct rb_tool *tool, void *t, struct rb_run *r, const struct rb_legs *L, char *devs,
                size_t devcap, char *err, size_t errcap, uint32_t *partner, int *ctl_err)
{
	struct child c[RB_LEGS_MAX];
	static char got[RB_LEGS_MAX][RB_FAB_DEVS_LEN];
	unsigned live = 0;
	bool stopped = false;

	err[0] = '\0';
	devs[0] = '\0';
	*partner = UINT32_MAX;
	memset(c, 0, sizeof(c)); /* a leg that never started has nothing to close */
	for (unsigned i = 0; i < RB_LEGS_MAX; i++)
		c[i].ch.fd = -1;
	memset(got, 0, sizeof(got));
	fflush(NULL);
	for (unsigned i = 0; i < L->n; i++) {
		int sv[2];

		c[i].i = i;
		c[i].ended = true;
		c[i].ch.fd = -1;
		c[i].pid = -1;
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
			snprintf(err, errcap, "leg %u: socketpair failed: %s", i, strerror(errno));
			if (*partner == UINT32_MAX)
				*partner = partner_of(&L->leg[i]);
			continue;
		}
		c[i].pid = fork();
		if (c[i].pid == 0) {
			close(sv[0]);
			for (unsigned j = 0; j < i; j++)
				close(c[j].ch.fd);
			leg_child(tool, t, r, L, i, sv[1]);
		}
		close(sv[1]);
		if (c[i].pid < 0) {
			snprintf(err, errcap, "leg %u: fork failed: %s", i, strerror(errno));
			close(sv[0]);
			if (*partner == UINT32_MAX)
				*partner = partner_of(&L->leg[i]);
			continue;
		}
		rb_oob_from_fd(sv[0], 10000, &c[i].ch);
		c[i].ended = false;
		live++;
	}
	while (live) {
		struct pollfd pfd[RB_LEGS_MAX + 1];
		int pr;

		/*
		 * A stop reaches the children too (a terminal's SIGINT did already): they end as any
		 * run. So does the coordinator's word during a round (an ERROR, or its connection
		 * closing: it sends nothing else to a rank that has not ended); the frame is left
		 * for the caller to read.
		 */
		if (!stopped && (rb_stop_signal() || (L->n < RB_LEGS_MAX + 1 && pfd_ctl_ready(L)))) {
			stopped = true;
			for (unsigned i = 0; i < L->n; i++)
				if (!c[i].ended)
					kill(c[i].pid, SIGTERM);
		}
		for (unsigned i = 0; i < L->n; i++) {
			pfd[i].fd = c[i].ended ? -1 : c[i].ch.fd;
			pfd[i].events = POLLIN;
			pfd[i].revents = 0;
		}
		pr = poll(pfd, L->n, 1000);
		for (unsigned i = 0; i < L->n && pr > 0; i++) {
			if (!pfd[i].revents || c[i].ended)
				continue;
			take(&c[i], L, got, err, errcap, partner, ctl_err);
			live -= c[i].ended;
		}
	}
	for (unsigned i = 0; i < L->n; i++) {
		int st;

		rb_oob_close(&c[i].ch);
		if (c[i].pid > 0)
			while (waitpid(c[i].pid, &st, 0) < 0 && errno == EINTR)
				;
	}
	/* Rails: each rail's device in turn; flows, all on the command line's device: the first. */
	for (unsigned i = 0, off = 0; i < (L->rails ? L->n : (L->n > 0)) && off < devcap; i++)
		off += (unsigned)snprintf(devs + off, devcap - off, "%s%s", i ? "," : "",
		                          got[i][0]       ? got[i]
		                          : L->leg[i].dev ? L->leg[i].dev
		                                          : "");
	return err[0] ? -EIO : 0;
}
