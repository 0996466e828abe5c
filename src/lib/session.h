/*
 * The frame every two-sided verbs tool runs its measurement in: the shared option
 * tables, result documents opened up front, local verbs resources set up before
 * anyone waits on us, the out-of-band connection, parameter negotiation, the QP
 * exchange, and on the way out the first cause forwarded to the peer and the
 * documents closed.
 */
#ifndef RB_SESSION_H
#define RB_SESSION_H

#include "conn.h"
#include "oob.h"
#include "report.h"
#include "run.h"

struct rb_session_opts {
	struct rb_dev_opts dev;
	struct rb_qp_opts qp;
	struct rb_mem_opts mem;
	struct rb_oob_opts oob;
	struct rb_out_opts out;
};

struct rb_session {
	bool client;
	const char *host; /* client: the server named on the command line */
	struct rb_conn conn;
	bool have_conn;
	struct rb_oob oob;
	struct rb_reports reps;
	struct rb_hello peer_hello;
};

void rb_session_opts_default(struct rb_session_opts *o);

/*
 * The verbs half of a tool on the run driver (run.h): device, QP and memory
 * options, the connection set, and its meta fields.
 */
struct rb_verbs {
	struct rb_session_opts o; /* oob and out are the driver's; unused here */
	struct rb_conn conn;
	bool have_conn;
};
void rb_verbs_default(struct rb_verbs *v);
/* Appends the device, QP and memory tables; returns how many. */
unsigned rb_verbs_opt_tables(struct rb_verbs *v, struct rb_opt_table *out);
/* Local verbs objects before the peer is contacted (a wrong -d fails now). */
int rb_verbs_setup(struct rb_verbs *v, const struct rb_conn_cfg *cfg);
/* QPINFO both ways, every QP to RTS; -EPROTO (a stranger) before any QP moved. */
int rb_verbs_connect(struct rb_verbs *v, struct rb_run *r, size_t need_remote);
void rb_verbs_teardown(struct rb_verbs *v);
/* Device, port, GID, MTU and memory fields of the meta block. */
void rb_verbs_meta(const struct rb_conn *c, struct rb_row *m);

/*
 * Parses argv against the tool's table followed by the shared ones. Returns -1 when
 * the tool should go on (s->client / s->host set), else the exit code (0 after --help).
 */
int rb_session_parse(struct rb_session *s, struct rb_session_opts *o, const struct rb_opt_table *tool,
                     unsigned ntool, int argc, char **argv, const char *usage);

/* Everything up to connected QPs. Returns 0 or -errno (cause logged). */
int rb_session_open(struct rb_session *s, const struct rb_session_opts *o, const struct rb_conn_cfg *cfg,
                    const struct rb_hello *mine, size_t need_remote);


/* rb_run_finish, then frees everything; returns the exit code. */
int rb_session_close(struct rb_session *s, int ret);

/* Device, port, GID, MTU and memory fields of the meta block. */
void rb_session_meta(const struct rb_session *s, struct rb_row *m, const char *tool);
/* The MTU both sides settled on. */
enum ibv_mtu rb_conn_path_mtu(const struct rb_conn *c);

#endif
