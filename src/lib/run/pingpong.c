/* SPDX-License-Identifier: BSD-2-Clause */
#include "pingpong.h"
#include "stepmark.h"
#include "window.h"

#include "base/base.h"
#include "oob/oob.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool exact_affordable(const struct rb_pp_cfg *cfg)
{
	return cfg->iters && cfg->iters <= RB_PP_EXACT_MAX;
}

int rb_pp_init(struct rb_pp *pp, const struct rb_pp_cfg *cfg, bool client)
{
	memset(pp, 0, sizeof(*pp));
	pp->client = client;
	if (rb_hist_init(&pp->hist) || (client && cfg->interval_s > 0 && rb_hist_init(&pp->ihist)))
		goto oom;
	/* Exact percentiles when -n is small enough for every sample to be kept. */
	if (client && exact_affordable(cfg)) {
		pp->exact = malloc((size_t)cfg->iters * sizeof(*pp->exact));
		if (!pp->exact)
			goto oom;
	}
	return 0;
oom:
	rb_err("out of memory for the latency histogram and %u samples", cfg->iters);
	rb_pp_free(pp);
	return -ENOMEM;
}

int rb_pp_samples_check(const char **samples, bool unsorted, bool client, const struct rb_out_opts *out)
{
	bool doc_out = (out->csv && !strcmp(out->csv, "-")) || (out->json && !strcmp(out->json, "-"));
	const char *what = unsorted ? "-U" : "--samples -";

	if (unsorted && *samples) {
		rb_usage_err("-U writes the samples to stdout and --samples %s to a file: choose one",
		             *samples);
		return -EINVAL;
	}
	if (unsorted)
		*samples = "-";
	if (*samples && !client) {
		rb_usage_err("%s is for the client: it measures the round trips",
		             unsorted ? "-U" : "--samples");
		return -EINVAL;
	}
	if (*samples && !strcmp(*samples, "-") && (doc_out || out->output)) {
		rb_usage_err("%s and %s cannot share stdout", what,
		             out->output ? "--output" : "a document on stdout ('-')");
		return -EINVAL;
	}
	return 0;
}

int rb_pp_samples_open(struct rb_pp *pp, const char *path)
{
	size_t n = strlen(path) + 16;
	int fd;

	/* On stdout, the column names come with the first sample, under the run's header. */
	if (!strcmp(path, "-")) {
		pp->samples = stdout;
		return 0;
	}

	pp->samples_path = strdup(path);
	pp->samples_tmp = malloc(n);
	if (!pp->samples_path || !pp->samples_tmp) {
		rb_err("out of memory");
		return -ENOMEM;
	}
	snprintf(pp->samples_tmp, n, "%s.tmp.XXXXXX", path);
	fd = mkstemp(pp->samples_tmp);
	if (fd < 0 || !(pp->samples = fdopen(fd, "w"))) {
		rb_usage_err("cannot create the samples file %s: %s", path, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(pp->samples_tmp);
		}
		free(pp->samples_tmp);
		pp->samples_tmp = NULL;
		return -EINVAL;
	}
	fchmod(fd, 0644);
	fprintf(pp->samples, "size_bytes,iteration,latency_us\n");
	return 0;
}

void rb_pp_free(struct rb_pp *pp)
{
	if (pp->samples == stdout) {
		fflush(stdout);
	} else if (pp->samples) {
		int err = 0;

		/* Whatever was measured is kept, even from a run that failed; the FILE is closed either way.
		 */
		if (fflush(pp->samples) || fsync(fileno(pp->samples)))
			err = errno;
		if (fclose(pp->samples) && !err)
			err = errno;
		/* A run that measured nothing leaves nothing, and replaces no earlier file. */
		if (!err && !pp->samples_written)
			unlink(pp->samples_tmp);
		else if (!err && rename(pp->samples_tmp, pp->samples_path))
			err = errno;
		if (err)
			rb_warn("cannot write the samples file %s: %s (what was written is in %s)",
			        pp->samples_path, strerror(err), pp->samples_tmp);
	}
	free(pp->samples_path);
	free(pp->samples_tmp);
	rb_hist_free(&pp->hist);
	rb_hist_free(&pp->ihist);
	free(pp->exact);
	memset(pp, 0, sizeof(*pp));
}

bool rb_pp_summary_due(const struct rb_pp *pp, uint64_t echoed)
{
	return !pp->client && (!pp->total || echoed >= pp->total);
}

int rb_pp_take_summary(struct rb_pp *pp, const struct rb_frame *f, const char *peer)
{
	if (rb_latstats_decode(f->p, f->len, &pp->summary)) {
		rb_err("malformed LATSTATS from %s", peer);
		return -EPROTO;
	}
	pp->have_summary = true;
	return 0;
}

const char *rb_pp_method(const struct rb_pp_result *res)
{
	return res->exact ? "exact" : "histogram";
}

/* --interval: the interval that began at *from ends at now; its row, then a fresh histogram. */
static int interval_end(struct rb_pp *pp, const struct rb_pp_ops *ops, void *t, const struct rb_pp_cfg *cfg,
                        uint64_t t_meas, uint64_t *from, uint64_t now)
{
	struct rb_pp_result r = {.exact = false};
	int ret;

	if (!pp->ihist.n)
		return 0;
	rb_hist_summary(&pp->ihist, &r.sum);
	rb_lat_scale(&r.sum, 1.0 / (cfg->divisor ? cfg->divisor : 1));
	r.sum.warmup = 0;
	r.sum.elapsed_s = (double)(now - *from) / 1e9;
	ret = ops->interval(t, &r, (double)(*from - t_meas) / 1e9, (double)(now - t_meas) / 1e9);
	rb_hist_reset(&pp->ihist);
	*from = now;
	return ret;
}

static int client(struct rb_pp *pp, const struct rb_pp_ops *ops, void *t, const struct rb_pp_cfg *cfg,
                  uint64_t size, struct rb_pp_result *res)
{
	uint64_t total = pp->total, n = 0;
	uint64_t dur = (uint64_t)(cfg->duration_s * 1e9), t_meas = 0, t_end = 0, t_int = 0;
	uint64_t every =
	    cfg->interval_s > 0 && ops->interval && pp->ihist.counts ? (uint64_t)(cfg->interval_s * 1e9) : 0;
	double div = cfg->divisor ? cfg->divisor : 1;
	int ret = 0;

	pp->t_meas = pp->t_last = pp->measured = 0;
	pp->divisor = cfg->divisor ? cfg->divisor : 1;
	pp->warmup = cfg->warmup;
	for (uint64_t i = 1; !total || i <= total; i++) {
		uint64_t t0, t1;

		pp->iter = i;
		if ((ret = rb_check_stop()))
			return ret;
		if (!total && i > cfg->warmup + 1 && t_end - t_meas >= dur) {
			if (ops->end)
				ret = ops->end(t, i);
			break;
		}
		if (ops->ready && (ret = ops->ready(t, i)))
			return ret;
		if (i == cfg->warmup + 1) {
			rb_step_mark(size);
			rb_window_start();
		}
		t0 = rb_now_ns();
		if ((ret = ops->ping(t, i)))
			return ret;
		t1 = rb_now_ns();
		if (ops->after && (ret = ops->after(t, i)))
			return ret;
		if (i == cfg->warmup + 1)
			pp->t_meas = t_meas = t_int = t0;
		if (i > cfg->warmup) {
			rb_hist_add(&pp->hist, t1 - t0);
			pp->measured++;
			pp->t_last = t1;
			if (every) {
				rb_hist_add(&pp->ihist, t1 - t0);
				if (t1 - t_int >= every &&
				    (ret = interval_end(pp, ops, t, cfg, t_meas, &t_int, t1)))
					return ret;
			}
			if (pp->exact)
				pp->exact[n++] = t1 - t0;
			if (pp->samples && !pp->samples_written++ && pp->samples == stdout)
				fputs("size_bytes,iteration,latency_us\n", stdout);
			if (pp->samples)
				fprintf(pp->samples, "%llu,%llu,%.3f\n", (unsigned long long)size,
				        (unsigned long long)(i - cfg->warmup), (double)(t1 - t0) / div / 1e3);
		}
		t_end = t1;
	}
	if (t_meas)
		rb_window_stop();
	/* The last, shorter interval: the intervals' counts add up to the size's. */
	if (!ret && every)
		ret = interval_end(pp, ops, t, cfg, t_meas, &t_int, t_end);
	if (ret)
		return ret;
	res->exact = pp->exact != NULL;
	if (res->exact)
		rb_lat_summarize(pp->exact, n, &res->sum);
	else
		rb_hist_summary(&pp->hist, &res->sum);
	rb_lat_scale(&res->sum, 1.0 / div);
	res->sum.warmup = cfg->warmup;
	res->sum.elapsed_s = t_meas ? (double)(t_end - t_meas) / 1e9 : 0;
	if (pp->samples && ferror(pp->samples)) {
		rb_err("cannot write the samples file: %s", strerror(errno));
		return -EIO;
	}
	return 0;
}

bool rb_pp_partial(struct rb_pp *pp, struct rb_pp_result *res)
{
	if (!pp->client || !pp->measured)
		return false;
	memset(res, 0, sizeof(*res));
	res->exact = pp->exact != NULL;
	if (res->exact)
		rb_lat_summarize(pp->exact, pp->measured, &res->sum);
	else
		rb_hist_summary(&pp->hist, &res->sum);
	rb_lat_scale(&res->sum, 1.0 / pp->divisor);
	res->sum.warmup = pp->warmup;
	res->sum.elapsed_s = (double)(pp->t_last - pp->t_meas) / 1e9;
	return true;
}

/*
 * -D: the answering side ends the step by its own clock at -D plus the grace after
 * its first measured round trip, whatever the client keeps sending; looked at every
 * 64 round trips, so the answer's path gains no clock read.
 */
static int overdue(const struct rb_pp_cfg *cfg, const struct rb_oob *oob, uint64_t i, uint64_t t_meas)
{
	if (!(cfg->duration_s > 0) || !t_meas || i % 64)
		return 0;
	return rb_step_overdue(oob, rb_now_ns() - t_meas, cfg->duration_s, rb_step_grace_ns(cfg->duration_s),
	                       "sending");
}

/*
 * The client's summary is both sides' row, once this side's own counts and clock find
 * it believable: no more round trips than this side answered after the warm-up, and
 * a measured time its own clock agrees with (stepend.h's rule).
 */
static int check_summary(const struct rb_lat_summary *s, struct rb_oob *oob, uint64_t measured,
                         uint64_t own_ns)
{
	if (s->count > measured) {
		rb_err(
		    "protocol error: %s's summary counts %llu round trips, this side answered %llu after the "
		    "warm-up",
		    oob->peer, (unsigned long long)s->count, (unsigned long long)measured);
		return -EPROTO;
	}
	if (!s->count || !own_ns)
		return 0;
	/* A clock this loaded host cannot judge is said (a warning), not a failure: the row is the client's.
	 */
	return rb_stepend_check_clock(oob, own_ns, (uint64_t)(s->elapsed_s * 1e9)) < 0 ? -EPROTO : 0;
}

static int server(struct rb_pp *pp, const struct rb_pp_ops *ops, void *t, struct rb_oob *oob,
                  const struct rb_pp_cfg *cfg, struct rb_pp_result *res)
{
	uint64_t total = pp->total, t_meas = 0, answered = 0, own;
	struct rb_frame f;
	int ret = 0;

	for (uint64_t i = 1; !total || i <= total; i++) {
		pp->iter = i;
		if ((ret = rb_check_stop()) || (ret = overdue(cfg, oob, i, t_meas)))
			return ret;
		if (i == cfg->warmup + 1)
			t_meas = rb_now_ns();
		ret = ops->pong(t, i);
		if (ret == 1)
			break;
		if (ret)
			return ret;
		answered = i;
	}
	own = t_meas ? rb_now_ns() - t_meas : 0;
	if (!pp->have_summary) {
		int ms = cfg->summary_ms > oob->timeout_ms ? cfg->summary_ms : -1;

		ret = rb_oob_expect(oob, RB_MSG_LATSTATS, &f, ms);
		if (!ret)
			ret = rb_pp_take_summary(pp, &f, oob->peer);
		if (ret)
			return ret;
	}
	ret = check_summary(&pp->summary, oob, answered > cfg->warmup ? answered - cfg->warmup : 0, own);
	if (ret)
		return ret;
	res->sum = pp->summary;
	/* The method follows from the parameters both sides agreed on. */
	res->exact = exact_affordable(cfg);
	return 0;
}

int rb_pp_step(struct rb_pp *pp, const struct rb_pp_ops *ops, void *t, struct rb_oob *oob,
               const struct rb_pp_cfg *cfg, bool is_client, uint64_t size, struct rb_pp_result *res)
{
	uint8_t buf[128];
	struct rb_wbuf w = {buf, 0, sizeof(buf), false};
	int ret;

	memset(res, 0, sizeof(*res));
	rb_hist_reset(&pp->hist);
	if (pp->ihist.counts)
		rb_hist_reset(&pp->ihist);
	pp->total = cfg->iters ? (uint64_t)cfg->iters + cfg->warmup : 0;
	pp->iter = 0;
	pp->have_summary = false;
	if (!is_client)
		return server(pp, ops, t, oob, cfg, res);
	ret = client(pp, ops, t, cfg, size, res);
	if (ret)
		return ret;
	rb_latstats_encode(&w, &res->sum);
	return rb_oob_send_w(oob, RB_MSG_LATSTATS, &w);
}

void rb_pp_print_histogram(const struct rb_pp *pp, FILE *f, unsigned divisor)
{
	uint64_t counts[64] = {0}, most = 0;
	int lo = 63, hi = 0;

	if (pp->hist.n == 0)
		return;
	/* A histogram bucket never straddles a power of two: each lands in one log2 bucket. */
	for (unsigned b = 0; b < RB_HIST_BUCKETS; b++) {
		uint64_t blo, width, x;
		int k;

		if (!pp->hist.counts[b])
			continue;
		rb_hist_bucket_range(b, &blo, &width);
		x = blo / (divisor ? divisor : 1);
		k = x ? 63 - __builtin_clzll(x) : 0;
		counts[k] += pp->hist.counts[b];
		lo = k < lo ? k : lo;
		hi = k > hi ? k : hi;
	}
	for (int k = lo; k <= hi; k++)
		most = counts[k] > most ? counts[k] : most;
	fprintf(f, " histogram (%llu samples, log2 buckets):\n", (unsigned long long)pp->hist.n);
	for (int k = lo; k <= hi; k++) {
		int bar = (int)((counts[k] * 40 + most - 1) / most);
		fprintf(f, "  [%10.3f, %10.3f) us %10llu %5.1f%% %.*s\n", (double)(1ull << k) / 1e3,
		        (double)(2ull << k) / 1e3, (unsigned long long)counts[k],
		        100.0 * (double)counts[k] / (double)pp->hist.n, counts[k] ? bar : 0,
		        "########################################");
	}
}

/* ---- LATSTATS: the client's summary of one size ---- */

void rb_latstats_encode(struct rb_wbuf *w, const struct rb_lat_summary *l)
{
	rb_put_u64(w, l->count);
	rb_put_u64(w, l->warmup);
	rb_put_f64(w, l->min);
	rb_put_f64(w, l->p50);
	rb_put_f64(w, l->mean);
	rb_put_f64(w, l->stdev);
	rb_put_f64(w, l->p90);
	rb_put_f64(w, l->p99);
	rb_put_f64(w, l->p999);
	rb_put_f64(w, l->max);
	rb_put_f64(w, l->elapsed_s);
}

int rb_latstats_decode(const uint8_t *p, size_t len, struct rb_lat_summary *l)
{
	struct rb_rbuf r = {p, len, 0, false};
	const double *order[] = {&l->min, &l->p50, &l->p90, &l->p99, &l->p999, &l->max};

	l->count = rb_get_u64(&r);
	l->warmup = rb_get_u64(&r);
	l->min = rb_get_f64(&r);
	l->p50 = rb_get_f64(&r);
	l->mean = rb_get_f64(&r);
	l->stdev = rb_get_f64(&r);
	l->p90 = rb_get_f64(&r);
	l->p99 = rb_get_f64(&r);
	l->p999 = rb_get_f64(&r);
	l->max = rb_get_f64(&r);
	l->elapsed_s = rb_get_f64(&r);
	if (!rb_rbuf_done(&r) || !(l->elapsed_s >= 0 && l->elapsed_s < 1e9))
		return -EPROTO;
	for (unsigned i = 0; i < 6; i++)
		if (!(*order[i] >= 0 && *order[i] < 1e12) || (i && *order[i] < *order[i - 1]))
			return -EPROTO;
	if (!(l->mean >= l->min && l->mean <= l->max) || !(l->stdev >= 0 && l->stdev < 1e12))
		return -EPROTO;
	return 0;
}
