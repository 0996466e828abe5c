#include "session.h"

#include "log.h"
#include "sig.h"
#include "sysinfo.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void rb_session_opts_default(struct rb_session_opts *o)
{
	rb_dev_opts_default(&o->dev);
	rb_qp_opts_default(&o->qp);
	rb_mem_opts_default(&o->mem);
	rb_oob_opts_default(&o->oob);
	rb_out_opts_default(&o->out);
}

void rb_verbs_default(struct rb_verbs *v)
{
	memset(v, 0, sizeof(*v));
	rb_session_opts_default(&v->o);
}

unsigned rb_verbs_opt_tables(struct rb_verbs *v, struct rb_opt_table *out)
{
	out[0] = rb_dev_opt_table(&v->o.dev);
	out[1] = rb_qp_opt_table(&v->o.qp);
	out[2] = rb_mem_opt_table(&v->o.mem);
	return 3;
}

int rb_verbs_setup(struct rb_verbs *v, const struct rb_conn_cfg *cfg)
{
	int ret = rb_conn_setup(&v->conn, &v->o.dev, &v->o.qp, &v->o.mem, cfg);

	v->have_conn = !ret;
	return ret;
}

int rb_verbs_connect(struct rb_verbs *v, struct rb_run *r, size_t need_remote)
{
	int ret = rb_conn_exchange(&v->conn, &r->oob, &v->o.qp, need_remote);

	/* Once a QP moved for this peer, a failure is the run's, not a stranger's. */
	return ret == -EPROTO && v->conn.qps_connected ? -EIO : ret;
}

void rb_verbs_teardown(struct rb_verbs *v)
{
	if (v->have_conn)
		rb_conn_destroy(&v->conn);
	v->have_conn = false;
}

void rb_verbs_meta(const struct rb_conn *c, struct rb_row *m)
{
	char gid[64];

	rb_row_str(m, "device", NULL, c->dev.name);
	rb_row_u64(m, "port", NULL, c->dev.port);
	rb_row_str(m, "link_layer", NULL, rb_link_layer_name(&c->dev));
	rb_row_u64(m, "gid_index", NULL, (uint64_t)c->dev.gid.index);
	rb_row_str(m, "gid", NULL, rb_gid_fmt(c->dev.gid.raw, gid, sizeof(gid)));
	rb_row_str(m, "gid_type", NULL, rb_gid_type_name(c->dev.gid.type));
	rb_row_u64(m, "mtu_bytes", NULL, rb_mtu_bytes(rb_conn_path_mtu(c)));
	rb_row_str(m, "mem", NULL, c->src.huge || c->dst.huge ? "host-hugepages" : "host");
	rb_row_dbl(m, "numa_node", NULL, 0, c->dev.numa_node < 0 ? NAN : c->dev.numa_node);
	rb_row_dbl(m, "mr_reg_us", NULL, 1, c->src_mr.mr ? c->src_mr.reg_us : c->dst_mr.reg_us);
}

int rb_session_parse(struct rb_session *s, struct rb_session_opts *o, const struct rb_opt_table *tool,
                     unsigned ntool, int argc, char **argv, const char *usage)
{
	struct rb_opt_table tables[8];
	unsigned n = 0;
	int pos;

	for (unsigned i = 0; i < ntool && i < 2; i++)
		tables[n++] = tool[i];
	tables[n++] = rb_dev_opt_table(&o->dev);
	tables[n++] = rb_qp_opt_table(&o->qp);
	tables[n++] = rb_mem_opt_table(&o->mem);
	tables[n++] = rb_oob_opt_table(&o->oob);
	tables[n++] = rb_out_opt_table(&o->out);
	tables[n++] = rb_common_opts();

	memset(s, 0, sizeof(*s));
	s->oob.fd = -1;
	rb_sig_install();
	pos = rb_opts_parse(tables, n, argc, argv, usage, NULL);
	srandom((unsigned)time(NULL) ^ (unsigned)getpid());
	return rb_run_host(argc, argv, pos, &s->host, &s->client);
}

/*
 * Server: the first client whose HELLO, parameters and QPINFO all hold is the
 * peer. A connection that turns to garbage after a well-formed HELLO (nothing of
 * ours was touched yet: QPINFO is checked before any QP moves) is refused like
 * any other stranger, and its errors are not the run's cause.
 */
struct exchange {
	struct rb_session *s;
	const struct rb_session_opts *o;
	size_t need_remote;
};

static int exchange(void *arg)
{
	struct exchange *x = arg;
	int ret = rb_conn_exchange(&x->s->conn, &x->s->oob, &x->o->qp, x->need_remote);

	/* Once a QP moved for this peer, a failure is the run's, not a stranger's. */
	return ret == -EPROTO && x->s->conn.qps_connected ? -EIO : ret;
}

static int serve(struct rb_session *s, const struct rb_session_opts *o, const struct rb_hello *mine,
                 size_t need_remote)
{
	struct exchange x = {s, o, need_remote};
	return rb_run_serve(&o->oob, &s->oob, mine, &s->peer_hello, exchange, &x);
}

int rb_session_open(struct rb_session *s, const struct rb_session_opts *o, const struct rb_conn_cfg *cfg,
                    const struct rb_hello *mine, size_t need_remote)
{
	int ret;

	/* Output paths are checked before anyone waits on us: a typo is exit 2 at once. */
	ret = rb_reports_open(&s->reps, &o->out);
	if (ret)
		return -EINVAL;
	/* Local resources next: a wrong device fails now, not after a peer waited. */
	ret = rb_conn_setup(&s->conn, &o->dev, &o->qp, &o->mem, cfg);
	if (ret)
		return ret;
	s->have_conn = true;
	if (s->client) {
		ret = rb_oob_connect(s->host, &o->oob, &s->oob);
		if (!ret)
			ret = rb_oob_negotiate(&s->oob, mine, &s->peer_hello);
		if (!ret)
			ret = rb_conn_exchange(&s->conn, &s->oob, &o->qp, need_remote);
		return ret;
	}
	return serve(s, o, mine, need_remote);
}

int rb_session_close(struct rb_session *s, int ret)
{
	ret = rb_run_finish(&s->oob, &s->reps, ret);
	if (s->have_conn)
		rb_conn_destroy(&s->conn);
	s->have_conn = false;
	rb_oob_close(&s->oob);
	return rb_exit_code(ret);
}

enum ibv_mtu rb_conn_path_mtu(const struct rb_conn *c)
{
	enum ibv_mtu r = (enum ibv_mtu)c->remote.qp[0].mtu;
	return c->mtu < r ? c->mtu : r;
}

void rb_session_meta(const struct rb_session *s, struct rb_row *m, const char *tool)
{
	memset(m, 0, sizeof(*m));
	rb_meta_system(m, tool);
	rb_row_str(m, "role", NULL, s->client ? "client" : "server");
	rb_row_str(m, "peer", NULL, s->client ? s->host : s->oob.peer);
	rb_verbs_meta(&s->conn, m);
}
