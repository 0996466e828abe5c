#include "stepend.h"

#include <errno.h>

void rb_stepend_encode(struct rb_wbuf *w, const struct rb_stepend *e)
{
	rb_put_u64(w, e->msgs);
	rb_put_u64(w, e->bytes);
	rb_put_u64(w, e->elapsed_ns);
	rb_put_f64(w, e->peak_gbps);
	rb_put_f64(w, e->cpu_pct);
}

int rb_stepend_decode(const uint8_t *p, size_t len, struct rb_stepend *e)
{
	struct rb_rbuf r = {p, len, 0, false};

	e->msgs = rb_get_u64(&r);
	e->bytes = rb_get_u64(&r);
	e->elapsed_ns = rb_get_u64(&r);
	e->peak_gbps = rb_get_f64(&r);
	e->cpu_pct = rb_get_f64(&r);
	if (!rb_rbuf_done(&r))
		return -EPROTO;
	/* A figure that is negative or infinite is a corrupt frame; NaN says "not measured". */
	if (rb_stepend_has(e->peak_gbps) && !(e->peak_gbps >= 0 && e->peak_gbps < 1e9))
		return -EPROTO;
	if (rb_stepend_has(e->cpu_pct) && !(e->cpu_pct >= 0 && e->cpu_pct <= 100.0 * 4096))
		return -EPROTO;
	if (e->msgs && !e->elapsed_ns)
		return -EPROTO;
	/* Every message carries a byte at least. */
	return e->msgs <= e->bytes ? 0 : -EPROTO;
}
