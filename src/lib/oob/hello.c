/* SPDX-License-Identifier: BSD-2-Clause */
#include "hello.h"

#include "base/base.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* A u16 count, then (key, value) pairs: the parameters, then the client's options. */
static void put_pairs(struct rb_wbuf *w, const struct rb_param *p, unsigned n)
{
	rb_put_u16(w, (uint16_t)n);
	for (unsigned i = 0; i < n; i++) {
		rb_put_str(w, p[i].key);
		rb_put_str(w, p[i].val);
	}
}

static int get_pairs(struct rb_rbuf *r, struct rb_param *p, unsigned max, unsigned *n)
{
	*n = rb_get_u16(r);
	if (*n > max)
		return -EPROTO;
	for (unsigned i = 0; i < *n && !r->err; i++) {
		rb_get_str(r, p[i].key, sizeof(p[i].key));
		rb_get_str(r, p[i].val, sizeof(p[i].val));
		if (!r->err && !p[i].key[0])
			return -EPROTO;
	}
	return 0;
}

void rb_hello_encode(struct rb_wbuf *w, const struct rb_hello *h)
{
	rb_put_str(w, h->tool);
	rb_put_str(w, h->version);
	rb_put_str(w, h->host);
	put_pairs(w, h->params, h->nparams);
	put_pairs(w, h->args, h->nargs);
}

int rb_hello_decode(const uint8_t *p, size_t len, struct rb_hello *h)
{
	struct rb_rbuf r = {p, len, 0, false};

	rb_get_str(&r, h->tool, sizeof(h->tool));
	rb_get_str(&r, h->version, sizeof(h->version));
	rb_get_str(&r, h->host, sizeof(h->host));
	if (get_pairs(&r, h->params, RB_WIRE_MAX_PARAMS, &h->nparams) ||
	    get_pairs(&r, h->args, RB_WIRE_MAX_ARGS, &h->nargs))
		return -EPROTO;
	return rb_rbuf_done(&r) && h->tool[0] ? 0 : -EPROTO;
}

int rb_hello_add(struct rb_hello *h, const char *key, const char *fmt, ...)
{
	va_list ap;
	struct rb_param *p;
	int n;

	if (h->nparams >= RB_WIRE_MAX_PARAMS || strlen(key) >= RB_WIRE_KEY_LEN)
		return -E2BIG;
	p = &h->params[h->nparams];
	va_start(ap, fmt);
	n = vsnprintf(p->val, sizeof(p->val), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(p->val))
		return -E2BIG;
	snprintf(p->key, sizeof(p->key), "%s", key);
	h->nparams++;
	return 0;
}

int rb_hello_arg_add(struct rb_hello *h, const char *name, const char *val)
{
	struct rb_param *a;

	if (h->nargs >= RB_WIRE_MAX_ARGS || strlen(name) >= RB_WIRE_KEY_LEN || strlen(val) >= RB_WIRE_VAL_LEN)
		return -E2BIG;
	a = &h->args[h->nargs++];
	snprintf(a->key, sizeof(a->key), "%s", name);
	snprintf(a->val, sizeof(a->val), "%s", val);
	return 0;
}

const char *rb_hello_get(const struct rb_hello *h, const char *key)
{
	for (unsigned i = 0; i < h->nparams; i++)
		if (!strcmp(h->params[i].key, key))
			return h->params[i].val;
	return NULL;
}

unsigned rb_hello_compare(const struct rb_hello *local, const struct rb_hello *remote,
                          void (*report)(void *ctx, const char *key, const char *l, const char *r), void *ctx)
{
	unsigned bad = 0;

	for (unsigned i = 0; i < local->nparams; i++) {
		const char *rv = rb_hello_get(remote, local->params[i].key);
		if (!rv || strcmp(rv, local->params[i].val)) {
			bad++;
			report(ctx, local->params[i].key, local->params[i].val, rv ? rv : "(absent)");
		}
	}
	for (unsigned i = 0; i < remote->nparams; i++) {
		if (!rb_hello_get(local, remote->params[i].key)) {
			bad++;
			report(ctx, remote->params[i].key, "(absent)", remote->params[i].val);
		}
	}
	return bad;
}

static int export_one(void *arg, const char *name, const char *val)
{
	struct rb_hello *h = arg;

	if (rb_hello_arg_add(h, name, val)) {
		rb_usage_err("--%s %s: too long to send to the server (or too many options)", name, val);
		return -EINVAL;
	}
	return 0;
}

int rb_opts_export(const struct rb_opt_table *tables, unsigned n, const struct rb_opts_given *given,
                   struct rb_hello *h)
{
	return rb_opts_each_export(tables, n, given, export_one, h);
}

int rb_opts_adopt(const struct rb_opt_table *tables, unsigned n, struct rb_opts_given *given,
                  const struct rb_hello *peer)
{
	unsigned here = given->n; /* the first `here` entries are this side's own */

	for (unsigned a = 0; a < peer->nargs; a++) {
		int ret = rb_opts_take(tables, n, given, here, peer->args[a].key, peer->args[a].val);
		if (ret)
			return ret;
	}
	return 0;
}

bool rb_opts_adopt_takes(const struct rb_opt_table *tables, unsigned n, const struct rb_opts_given *given,
                         const struct rb_hello *peer)
{
	for (unsigned a = 0; a < peer->nargs; a++)
		if (rb_opts_takes(tables, n, given, given->n, peer->args[a].key))
			return true;
	return false;
}
