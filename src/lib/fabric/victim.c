/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --victim's legs: the latency tool, another executable of the suite beside this one
 * (the tool's link.victim, with its victim_arg), as a plain two-node run between
 * the victim's ranks. Its server takes over the rank's victim listener
 * (RB_OOB_LISTEN_FD); both ends prove the job's victim secret (RB_AUTH_KEY). The
 * client's CSV row comes back as one ROW marked "victim"; a failure is a ROW too, with
 * victim_error: a victim that could not measure never fails the round it ran beside.
 */
#include "victim.h"

#include "fabmsg.h"
#include "base/base.h"
#include "run/run.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define VICTIM_SLACK_S 10 /* beyond -D, the margin and the job's --oob-timeout (its set-up): its teardown */
/*
 * The victim measures -D and this much more: it is another executable to start (2.5 s
 * on an emulated guest, where the flows, forked, measured within 0.5 s), so it measures
 * a little past them; the coordinator says in what share of its window they ran.
 */
#define VICTIM_MARGIN_S 2
#define VICTIM_STRETCH_S                                                                                     \
	0.25 /* its --interval: the coordinator keeps the stretches inside the flows' window */
#define VICTIM_STRETCHES 1000

/* The sibling executable: this one's directory, that name. */
static int sibling(const char *name, char *out, size_t cap)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n <= 0)
		return -errno;
	self[n] = 0;
	slash = strrchr(self, '/');
	if (!slash)
		return -ENOENT;
	*slash = 0;
	if ((size_t)snprintf(out, cap, "%s/%s", self, name) >= cap)
		return -ENAMETOOLONG;
	return access(out, X_OK) ? -errno : 0;
}

/* The last non-empty line of a file, cut to cap (its error, for the tool's stderr). */
static void last_line(const char *path, char *out, size_t cap)
{
	FILE *f = fopen(path, "r");
	char line[512];

	out[0] = 0;
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (line[0] && cap) {
			size_t n = strnlen(line, cap - 1);

			memcpy(out, line, n);
			out[n] = 0;
		}
	}
	if (f)
		fclose(f);
}

/* Field i of a CSV line, empty ones counted (no quoting: the tools' numbers and names hold no comma). */
static const char *csv_field(char *line, int i)
{
	char *p = line;

	for (int k = 0; p; k++) {
		char *f = strsep(&p, ",");

		if (k == i)
			return f;
	}
	return NULL;
}

/* The column of key in a CSV header line, or -1. */
static int csv_col(const char *header, const char *key)
{
	char h[4096], *p = h, *f;
	int i = 0;

	snprintf(h, sizeof(h), "%s", header);
	while ((f = strsep(&p, ",")))
		if (!strcmp(f, key))
			return i;
		else
			i++;
	return -1;
}

/* One --interval stretch of the victim's run: its span on its step's clock, its figures. */
struct stretch {
	double t0, t1, p50, p99;
	uint64_t iters;
};

/* A numeric field of a CSV data line, by the header's column; false when absent or not a number. */
static bool csv_num(const char *header, const char *line, const char *key, double *v)
{
	char copy[4096], *end;
	int c = csv_col(header, key);
	const char *f;

	snprintf(copy, sizeof(copy), "%s", line);
	if (c < 0 || !(f = csv_field(copy, c)) || !f[0])
		return false;
	*v = strtod(f, &end);
	return end != f && !*end;
}

/*
 * The victim's stretches from its client's CSV (--interval rows; the size's total row,
 * the last, gives the step's length): up to cap of them in st. Returns how many, or
 * -EPROTO when the document holds none.
 */
static int read_csv(const char *path, uint64_t *size, double *elapsed, struct stretch *st, int cap)
{
	FILE *f = fopen(path, "r");
	static char header[4096], line[4096];
	int n = 0;

	header[0] = 0;
	*elapsed = NAN;
	while (f && fgets(line, sizeof(line), f)) {
		double v[6];

		line[strcspn(line, "\r\n")] = 0;
		if (!line[0] || line[0] == '#')
			continue;
		if (!header[0]) {
			snprintf(header, sizeof(header), "%s", line);
			continue;
		}
		if (!csv_num(header, line, "size_bytes", &v[0]) ||
		    !csv_num(header, line, "lat_p50_us", &v[1]) ||
		    !csv_num(header, line, "lat_p99_us", &v[2]) || !(v[0] >= 1) || !(v[1] >= 0) ||
		    !(v[2] >= v[1]))
			continue;
		*size = (uint64_t)v[0];
		if (csv_num(header, line, "t_start_s", &v[3]) && csv_num(header, line, "t_end_s", &v[4]) &&
		    csv_num(header, line, "iterations", &v[5]) && v[4] > v[3] &&
		    strstr(line, ",total,") == NULL && n < cap) {
			st[n++] = (struct stretch){v[3], v[4], v[1], v[2], (uint64_t)v[5]};
		}
		csv_num(header, line, "elapsed_s", elapsed); /* the last row's: the step's */
	}
	if (f)
		fclose(f);
	return n > 0 && *elapsed > 0 ? n : -EPROTO;
}

/* The run's end, bounded: its exit status (-1 killed at the bound, or stopped). */
static int reap(pid_t pid, uint64_t bound_ns)
{
	uint64_t t0 = rb_now_ns();
	bool termed = false;
	int st;

	for (;;) {
		pid_t w = waitpid(pid, &st, WNOHANG);

		if (w == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
		if (w < 0 && errno != EINTR)
			return -1;
		if (!termed && (rb_stop_signal() || rb_now_ns() - t0 > bound_ns)) {
			kill(pid, SIGTERM);
			termed = true;
			t0 = rb_now_ns() - bound_ns + 5 * RB_NS_PER_S; /* then 5 s to go */
		} else if (termed && rb_now_ns() - t0 > bound_ns) {
			kill(pid, SIGKILL);
		}
		nanosleep(&(struct timespec){0, 50000000}, NULL);
	}
}

static void send_row(struct rb_oob *ch, uint32_t round, const struct rb_leg *leg, const struct rb_row *row)
{
	static uint8_t buf[RB_FAB_ROW_MAX];
	struct rb_wbuf w = {buf, 0, sizeof(buf), false};

	rb_fab_row_encode(&w, round, leg->pair.server, leg->pair.client, 0, row);
	if (rb_oob_send_w(ch, RB_MSG_ROW, &w))
		rb_forget_first_error();
}

/* Up to cap marks (stepmark.h) the run wrote into fd: each size's measured start. */
static int read_marks(int fd, uint64_t *sizes, double *starts, int cap)
{
	char buf[4096], *p, *nl;
	ssize_t got = 0, k;
	int n = 0;

	while (got < (ssize_t)sizeof(buf) - 1 && (k = read(fd, buf + got, sizeof(buf) - 1 - (size_t)got)) > 0)
		got += k;
	buf[got] = 0;
	for (p = buf; n < cap && (nl = strchr(p, '\n')); p = nl + 1) {
		*nl = 0;
		if (rb_step_mark_parse(p, &sizes[n], &starts[n]))
			n++;
	}
	return n;
}

/*
 * The client's stretches, each its row, on this host's wall clock as the flows' rows
 * say theirs: its size's measured start (the run's mark) plus the stretch's own span.
 * The coordinator keeps those inside the flows' window. -EPROTO when its CSV holds
 * none, -ENOENT when the run marked no start for its size.
 */
static int send_stretches(const char *csv, int marks, const char *name, const struct rb_legs *L,
                          const struct rb_leg *leg, struct rb_oob *ch)
{
	static struct stretch st[VICTIM_STRETCHES + 8];
	uint64_t size = 0, msize[8];
	double el, mstart[8], start = NAN;
	struct rb_row row;
	int k, nm;

	if ((k = read_csv(csv, &size, &el, st, (int)(sizeof(st) / sizeof(st[0])))) < 0)
		return k;
	nm = read_marks(marks, msize, mstart, 8);
	for (int i = 0; i < nm; i++)
		if (msize[i] == size)
			start = mstart[i];
	if (isnan(start))
		return -ENOENT;
	for (int i = 0; i < k; i++) {
		memset(&row, 0, sizeof(row));
		rb_row_str(&row, "victim", NULL, name);
		rb_row_u64(&row, "size_bytes", NULL, size);
		rb_row_u64(&row, "iterations", NULL, st[i].iters);
		rb_row_dbl(&row, "lat_p50_us", NULL, 2, st[i].p50);
		rb_row_dbl(&row, "lat_p99_us", NULL, 2, st[i].p99);
		rb_row_dbl(&row, "flow_start_unix_s", NULL, 3, start + st[i].t0);
		rb_row_dbl(&row, "flow_end_unix_s", NULL, 3, start + st[i].t1);
		send_row(ch, L->round, leg, &row);
	}
	return 0;
}

/*
 * The flows' path options, so the victim's packets travel as theirs do (the same
 * traffic class and priority, SL, GID, MTU, port): argv gets at most 12 entries.
 */
static unsigned path_args(const struct rb_legs_victim *V, const char **argv, char (*num)[16])
{
	const struct rb_legs_path *p = &V->path;
	unsigned n = 0, k = 0;

	if (!V->verbs)
		return 0;
#define ARG(opt, val)                                                                                        \
	do {                                                                                                 \
		snprintf(num[k], sizeof(num[k]), "%lld", (long long)(val));                                  \
		argv[n++] = opt;                                                                             \
		argv[n++] = num[k++];                                                                        \
	} while (0)
	ARG("--tclass", p->tclass);
	ARG("--sl", p->sl);
	ARG("--hop-limit", p->hop_limit);
	if (p->gid_index >= 0)
		ARG("--gid-index", p->gid_index);
	if (p->mtu)
		ARG("--mtu", p->mtu);
	if (p->port)
		ARG("--ib-port", p->port);
#undef ARG
	return n;
}

/* The victim's command line, its strings held in a. */
struct victim_argv {
	const char *v[40];
	char port[16], dur[32], ivl[32], oobt[16], num[6][16];
};

static void build_argv(struct victim_argv *a, const struct rb_tool *tool, const struct rb_legs *L,
                       const struct rb_leg *leg, const char *csv, unsigned oob_s)
{
	const double secs = L->victim.duration_s + VICTIM_MARGIN_S;
	unsigned n = 0;

	snprintf(a->port, sizeof(a->port), "%u", leg->port);
	snprintf(a->dur, sizeof(a->dur), "%g", secs);
	snprintf(a->oobt, sizeof(a->oobt), "%u", oob_s);
	/* Stretches of 0.25 s, or coarser for a long run: at most VICTIM_STRETCHES of them. */
	snprintf(a->ivl, sizeof(a->ivl), "%g",
	         secs / VICTIM_STRETCHES > VICTIM_STRETCH_S ? secs / VICTIM_STRETCHES : VICTIM_STRETCH_S);
	a->v[n++] = tool->link.victim;
	a->v[n++] = "-p";
	a->v[n++] = a->port;
	a->v[n++] = "-D";
	a->v[n++] = a->dur;
	a->v[n++] = "--quiet";
	a->v[n++] = "--oob-timeout";
	a->v[n++] = a->oobt;
	a->v[n++] = "--interval";
	a->v[n++] = a->ivl;
	if (tool->link.victim_arg)
		a->v[n++] = tool->link.victim_arg;
	if (tool->link.verbs && L->victim.dev && L->victim.dev[0]) {
		a->v[n++] = "-d";
		a->v[n++] = L->victim.dev;
	}
	n += path_args(&L->victim, a->v + n, a->num);
	if (leg->victim == RB_FLOW_VICTIM_CLIENT) {
		a->v[n++] = "--csv";
		a->v[n++] = csv;
		a->v[n++] = leg->host;
	}
	a->v[n] = NULL;
}

void rb_victim_setup(const struct rb_tool *tool, const void *t, struct rb_legs_victim *V)
{
	const struct rb_sizes *sz = rb_tool_sizes(tool, t);

	/* -D for each of the flows' sizes: it measures one size, its own, beside all of theirs. */
	if (sz && sz->n > 1)
		V->duration_s *= sz->n;
	V->path.gid_index = -1;
	if (tool->link.verbs) {
		const struct rb_verbs *v = (const struct rb_verbs *)((const char *)t + tool->link.verbs_at);

		V->verbs = true;
		V->path = (struct rb_legs_path){v->qp.tclass, v->qp.sl,    v->qp.hop_limit,
		                                v->qp.mtu,    v->dev.port, v->dev.gid_index};
	}
}

void rb_victim_leg(const struct rb_tool *tool, const struct rb_legs *L, const struct rb_leg *leg,
                   struct rb_oob *ch)
{
	const char *name = tool->link.victim ? tool->link.victim : "";
	const bool client = leg->victim == RB_FLOW_VICTIM_CLIENT;
	char exe[PATH_MAX], csv[] = "/tmp/rb_victim.XXXXXX", errf[] = "/tmp/rb_victim_err.XXXXXX";
	char why[300] = "", fdnum[16], markfd[16];
	const unsigned oob_s = L->victim.oob_timeout_s ? L->victim.oob_timeout_s : 60;
	static struct victim_argv argv;
	struct rb_row row;
	int ret, fd, efd, code, mk[2] = {-1, -1};
	pid_t pid;

	memset(&row, 0, sizeof(row));
	rb_row_str(&row, "victim", NULL, name);
	if ((ret = sibling(name, exe, sizeof(exe)))) {
		snprintf(why, sizeof(why), "%s is not beside this executable: %s", name, strerror(-ret));
		goto out;
	}
	fd = mkostemp(csv, O_CLOEXEC);
	if (fd >= 0)
		close(fd);
	efd = mkostemp(errf, O_CLOEXEC);
	if (fd < 0 || efd < 0) {
		snprintf(why, sizeof(why), "cannot make its files under /tmp: %s", strerror(errno));
		if (efd >= 0)
			close(efd);
		goto out;
	}
	if (client && pipe2(mk, O_CLOEXEC | O_NONBLOCK)) {
		snprintf(why, sizeof(why), "cannot make a pipe for its step's start: %s", strerror(errno));
		close(efd);
		goto out;
	}
	build_argv(&argv, tool, L, leg, csv, oob_s);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDWR);

		if (devnull >= 0) {
			dup2(devnull, 0);
			dup2(devnull, 1);
			if (devnull > 2)
				close(devnull);
		}
		dup2(efd, 2); /* the copy is not close-on-exec; efd itself is */
		setenv("RB_AUTH_KEY", L->victim.secret, 1);
		if (client) {
			/* Its size's measured start, written as it begins (stepmark.h). */
			fcntl(mk[1], F_SETFD, 0);
			snprintf(markfd, sizeof(markfd), "%d", mk[1]);
			setenv("RB_STEP_MARK_FD", markfd, 1);
		}
		if (!client && leg->srv) {
			/* The rank's victim listener, kept open across exec for the server to take over. */
			fcntl(leg->srv->fd, F_SETFD, 0);
			snprintf(fdnum, sizeof(fdnum), "%d", leg->srv->fd);
			setenv("RB_OOB_LISTEN_FD", fdnum, 1);
		}
		execv(exe, (char *const *)argv.v);
		fprintf(stderr, "exec %s: %s\n", exe, strerror(errno));
		_exit(127);
	}
	close(efd);
	if (mk[1] >= 0)
		close(mk[1]);
	if (pid < 0) {
		snprintf(why, sizeof(why), "fork failed: %s", strerror(errno));
		goto out;
	}
	/* Its set-up within --oob-timeout, its -D and margin, its teardown: what the coordinator waits. */
	code = reap(pid, (uint64_t)((L->victim.duration_s + VICTIM_MARGIN_S + oob_s + VICTIM_SLACK_S) * 1e9));
	if (code) {
		char line[256];

		last_line(errf, line, sizeof(line));
		snprintf(why, sizeof(why), "%s %s %s: %s", name, client ? "client" : "server",
		         code < 0 ? "stopped or killed" : "failed", line[0] ? line : "(nothing on stderr)");
	} else if (client) {
		ret = send_stretches(csv, mk[0], name, L, leg, ch);
		if (ret == -ENOENT)
			snprintf(why, sizeof(why),
			         "%s client: its step's start was not marked (RB_STEP_MARK_FD)", name);
		else if (ret)
			snprintf(why, sizeof(why), "%s client: no latency stretches in its CSV", name);
	}
out:
	if (why[0]) {
		rb_row_str(&row, "victim_error", NULL, why);
		send_row(ch, L->round, leg, &row);
	}
	if (mk[0] >= 0)
		close(mk[0]);
	unlink(csv);
	unlink(errf);
}
