/* SPDX-License-Identifier: BSD-2-Clause */
/* The triage's record and its two outputs (walk.h). */
#include "walk.h"

#include "base/base.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const mark[] = {
    [DR_OK] = "ok", [DR_FAIL] = "FAIL", [DR_WARN] = "warn", [DR_UNCHECKED] = "-", [DR_UNKNOWN] = "?"};

void dr_walk_begin(struct dr_walk *w, const char *peer, unsigned port, unsigned bound_s, bool json)
{
	memset(w, 0, sizeof(*w));
	w->peer = peer;
	w->port = port;
	w->bound_s = bound_s;
	w->json = json;
	w->t0 = rb_now_ns();
	if (!json) {
		printf("Triage with %s:%u, layer by layer (bounded: at most %u s)\n", peer, port, bound_s);
		fflush(stdout);
	}
}

static void add(struct dr_walk *w, enum dr_verdict v, const char *layer, const char *check, const char *fmt,
                va_list ap) __attribute__((format(printf, 5, 0)));
static void add(struct dr_walk *w, enum dr_verdict v, const char *layer, const char *check, const char *fmt,
                va_list ap)
{
	struct dr_step *s;

	w->kept = w->n < DR_WALK_STEPS;
	if (!w->kept)
		return;
	s = &w->s[w->n++];
	s->v = v;
	snprintf(s->layer, sizeof(s->layer), "%s", layer);
	snprintf(s->check, sizeof(s->check), "%s", check);
	vsnprintf(s->evidence, sizeof(s->evidence), fmt, ap);
	if (w->json)
		s->facts = open_memstream(&s->facts_buf, &s->facts_len);
	dr_json_members(&s->j, s->facts);
	if (!w->json) {
		printf("  %-5s %-10s %s\n", mark[v], layer, s->evidence);
		fflush(stdout);
	}
}

struct dr_json *dr_walk_facts(struct dr_walk *w)
{
	return w->kept ? &w->s[w->n - 1].j : &w->none;
}

void dr_walk_add(struct dr_walk *w, enum dr_verdict v, const char *layer, const char *check, const char *fmt,
                 ...)
{
	va_list ap;

	va_start(ap, fmt);
	add(w, v, layer, check, fmt, ap);
	va_end(ap);
}

void dr_walk_fail(struct dr_walk *w, const char *layer, const char *check, const char *next, const char *fmt,
                  ...)
{
	va_list ap;

	va_start(ap, fmt);
	add(w, DR_FAIL, layer, check, fmt, ap);
	va_end(ap);
	w->failed = true;
	snprintf(w->next, sizeof(w->next), "%s", next);
}

/* The conclusion line's text: the failed step with what to check, or healthy with the warnings' layers. */
static void conclusion(const struct dr_walk *w, char *out, size_t len)
{
	const struct dr_step *last = w->n ? &w->s[w->n - 1] : NULL;
	unsigned warns = 0;
	size_t off;

	if (w->failed && last) {
		snprintf(out, len, "%s: %s; check next: %s", last->layer, last->evidence, w->next);
		return;
	}
	off = (size_t)snprintf(out, len, "healthy: every layer passed in %.1f s",
	                       (double)(rb_now_ns() - w->t0) / 1e9);
	for (unsigned i = 0; i < w->n; i++) {
		bool said = false;
		for (unsigned j = 0; j < i; j++)
			said |= w->s[j].v == DR_WARN && !strcmp(w->s[j].layer, w->s[i].layer);
		if (w->s[i].v == DR_WARN && !said && off < len)
			off += (size_t)snprintf(out + off, len - off, "%s%s",
			                        warns++ ? ", " : " (warnings: ", w->s[i].layer);
	}
	if (warns && off < len)
		snprintf(out + off, len - off, ")");
}

void dr_walk_end(struct dr_walk *w)
{
	struct dr_json j;
	char c[1024];

	conclusion(w, c, sizeof(c));
	if (!w->json) {
		printf("Conclusion: %s\n", c);
		fflush(stdout);
		return;
	}
	dr_json_begin(&j, stdout, "triage");
	dr_json_str(&j, "peer", w->peer);
	dr_json_int(&j, "port", w->port);
	dr_json_int(&j, "bound_s", w->bound_s);
	dr_json_num(&j, "elapsed_s", round((double)(rb_now_ns() - w->t0) / 1e6) / 1e3);
	dr_json_open(&j, "steps", '[', false);
	for (unsigned i = 0; i < w->n; i++) {
		struct dr_step *s = &w->s[i];

		dr_json_open(&j, NULL, '{', true);
		dr_json_str(&j, "layer", s->layer);
		dr_json_str(&j, "check", s->check);
		dr_json_str(&j, "verdict", dr_verdict_name(s->v));
		if (s->facts && !fclose(s->facts))
			dr_json_raw(&j, s->facts_buf, s->facts_len);
		s->facts = NULL;
		free(s->facts_buf);
		s->facts_buf = NULL;
		dr_json_str(&j, "text", s->evidence);
		dr_json_close(&j);
	}
	dr_json_close(&j);
	dr_json_bool(&j, "healthy", !w->failed);
	dr_json_str(&j, "failed_layer", w->failed ? w->s[w->n - 1].layer : NULL);
	dr_json_str(&j, "next", w->failed ? w->next : NULL);
	dr_json_str(&j, "conclusion", c);
	dr_json_end(&j);
}
