/* SPDX-License-Identifier: BSD-2-Clause */
#include "rails.h"

#include "fabmsg.h"
#include "base/base.h"
#include "run/run.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

struct child {
	struct rb_oob ch; /* the socketpair to this rail's child */
	pid_t pid;
	uint32_t rail;
	bool ended; /* its END came, or it is gone */
};

/* In a child: where its rows go. */
struct rail_sink {
	struct rb_oob *ch;
	const struct rb_rail_pair *p;
	uint32_t rail;
	int err;
};

static void rail_row(void *arg, const struct rb_row *row)
{
	static uint8_t buf[RB_FAB_ROW_MAX];
	struct rail_sink *s = arg;
	struct rb_wbuf w = {buf, 0, sizeof(buf), false};

	rb_fab_row_encode(&w, s->p->round, s->p->pair.server, s->p->pair.client, s->rail, row);
	if (!s->err)
		s->err = rb_oob_send_w(s->ch, RB_MSG_ROW, &w);
}

/* The child of rail i: the pair on that device, then its END; never returns. */
static void rail_child(const struct rb_tool *tool, void *t, struct rb_run *r, const struct rb_rail_pair *p,
                       uint32_t i, int fd)
{
	char **argv = calloc((size_t)r->argc + 3, sizeof(*argv));
	struct rail_sink s = {NULL, p, i, 0};
	struct rb_oob ch;
	struct rb_fab_end e;
	uint8_t buf[RB_FAB_END_MAX];
	struct rb_wbuf w = {buf, 0, sizeof(buf), false};
	int ret;

	rb_oob_from_fd(fd, 10000, &ch);
	s.ch = &ch;
	memset(&e, 0, sizeof(e));
	e.round = p->round;
	e.partner = p->host ? p->pair.server : p->pair.client;
	if (!argv) {
		ret = -ENOMEM;
		rb_err("out of memory");
	} else {
		memcpy(argv, r->argv, sizeof(*argv) * (size_t)r->argc);
		argv[r->argc] = "--ib-dev";
		argv[r->argc + 1] = (char *)p->dev[i];
		r->argv = argv;
		r->argc += 2;
		r->srv = p->srv[i];
		ret = rb_run_pair(tool, t, r, p->host, p->ports[i], rail_row, &s, e.dev);
	}
	if (ret) {
		e.code = (uint32_t)rb_exit_code(ret);
		snprintf(e.error, sizeof(e.error), "%s", rb_first_error());
	}
	rb_fab_end_encode(&w, &e);
	rb_oob_send_w(&ch, RB_MSG_END, &w);
	rb_oob_close(&ch);
	fflush(NULL);
	_exit(0);
}

/* A child's frame: its rows go on to the coordinator, its END closes it. */
static int take(struct child *c, const struct rb_rail_pair *p, char (*devs)[RB_FAB_DEVS_LEN], char *err,
                size_t errcap, int *ctl_err)
{
	struct rb_frame f;
	struct rb_fab_end e;

	if (rb_oob_recv(&c->ch, &f, 10000)) {
		rb_forget_first_error();
		if (!err[0])
			snprintf(err, errcap, "rail %u (%s): its process ended without a word (killed?)",
			         c->rail, p->dev[c->rail]);
		c->ended = true;
		return 0;
	}
	if (f.type == RB_MSG_ROW) {
		if (!*ctl_err)
			*ctl_err = rb_oob_send(p->ctl, RB_MSG_ROW, f.p, f.len);
		return 0;
	}
	if (f.type != RB_MSG_END || rb_fab_end_decode(f.p, f.len, &e)) {
		snprintf(err, errcap, "rail %u: unexpected %s frame from its process", c->rail,
		         rb_msg_name(f.type));
		c->ended = true;
		return 0;
	}
	snprintf(devs[c->rail], RB_FAB_DEVS_LEN, "%s", e.dev);
	if (e.error[0] && !err[0])
		snprintf(err, errcap, "rail %u (%s): %s", c->rail, p->dev[c->rail], e.error);
	c->ended = true;
	return 0;
}

int rb_rails_pair(const struct rb_tool *tool, void *t, struct rb_run *r, const struct rb_rail_pair *p,
                  char *devs, size_t devcap, char *err, size_t errcap, int *ctl_err)
{
	struct child c[RB_MAX_RAILS];
	static char got[RB_MAX_RAILS][RB_FAB_DEVS_LEN];
	unsigned live = 0;
	bool stopped = false;

	err[0] = '\0';
	devs[0] = '\0';
	memset(got, 0, sizeof(got));
	fflush(NULL);
	for (unsigned i = 0; i < p->n; i++) {
		int sv[2];

		c[i].rail = i;
		c[i].ended = true;
		c[i].ch.fd = -1;
		c[i].pid = -1;
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
			snprintf(err, errcap, "rail %u: socketpair failed: %s", i, strerror(errno));
			continue;
		}
		c[i].pid = fork();
		if (c[i].pid == 0) {
			close(sv[0]);
			for (unsigned j = 0; j < i; j++)
				close(c[j].ch.fd);
			rail_child(tool, t, r, p, i, sv[1]);
		}
		close(sv[1]);
		if (c[i].pid < 0) {
			snprintf(err, errcap, "rail %u: fork failed: %s", i, strerror(errno));
			close(sv[0]);
			continue;
		}
		rb_oob_from_fd(sv[0], 10000, &c[i].ch);
		c[i].ended = false;
		live++;
	}
	while (live) {
		struct pollfd pfd[RB_MAX_RAILS];
		int pr;

		/* A stop reaches the children too (a terminal's SIGINT did already): they end as any run. */
		if (!stopped && rb_stop_signal()) {
			stopped = true;
			for (unsigned i = 0; i < p->n; i++)
				if (!c[i].ended)
					kill(c[i].pid, SIGTERM);
		}
		for (unsigned i = 0; i < p->n; i++) {
			pfd[i].fd = c[i].ended ? -1 : c[i].ch.fd;
			pfd[i].events = POLLIN;
			pfd[i].revents = 0;
		}
		pr = poll(pfd, p->n, 1000);
		for (unsigned i = 0; i < p->n && pr > 0; i++) {
			if (!pfd[i].revents || c[i].ended)
				continue;
			take(&c[i], p, got, err, errcap, ctl_err);
			live -= c[i].ended;
		}
	}
	for (unsigned i = 0; i < p->n; i++) {
		int st;

		rb_oob_close(&c[i].ch);
		if (c[i].pid > 0)
			while (waitpid(c[i].pid, &st, 0) < 0 && errno == EINTR)
				;
	}
	for (unsigned i = 0, off = 0; i < p->n && off < devcap; i++)
		off += (unsigned)snprintf(devs + off, devcap - off, "%s%s", i ? "," : "",
		                          got[i][0] ? got[i] : p->dev[i]);
	return err[0] ? -EIO : 0;
}
