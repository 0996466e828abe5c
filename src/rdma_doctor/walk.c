/* SPDX-License-Identifier: BSD-2-Clause */
/* The triage's record and its two outputs (walk.h). */
#include "walk.h"

#include "base/base.h"
#include "report/document.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const mark[] = {
    [DR_OK] = "ok", [DR_FAIL] = "FAIL", [DR_WARN] = "warn", [DR_UNCHECKED] = "-"};

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

static void add(struct dr_walk *w, enum dr_verdict v, const char *layer, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));
static void add(struct dr_walk *w, enum dr_verdict v, const char *layer, const char *fmt, va_list ap)
{
	struct dr_step *s;

	if (w->n == DR_WALK_STEPS)
		return;
	s = &w->s[w->n++];
	s->v = v;
	snprintf(s->layer, sizeof(s->layer), "%s", layer);
	vsnprintf(s->evidence, sizeof(s->evidence), fmt, ap);
	if (!w->json) {
		printf("  %-5s %-10s %s\n", mark[v], layer, s->evidence);
		fflush(stdout);
	}
}

void dr_walk_add(struct dr_walk *w, enum dr_verdict v, const char *layer, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add(w, v, layer, fmt, ap);
	va_end(ap);
}

void dr_walk_fail(struct dr_walk *w, const char *layer, const char *next, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add(w, DR_FAIL, layer, fmt, ap);
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
	char c[1024];

	conclusion(w, c, sizeof(c));
	if (!w->json) {
		printf("Conclusion: %s\n", c);
		fflush(stdout);
		return;
	}
	printf("{\n  \"tool\": \"rdma_doctor\",\n  \"mode\": \"triage\",\n  \"peer\": ");
	rb_json_string(stdout, w->peer);
	printf(",\n  \"port\": %u,\n  \"bound_s\": %u,\n  \"elapsed_s\": %.3f,\n  \"steps\": [", w->port,
	       w->bound_s, (double)(rb_now_ns() - w->t0) / 1e9);
	for (unsigned i = 0; i < w->n; i++) {
		printf("%s\n    {\"layer\": ", i ? "," : "");
		rb_json_string(stdout, w->s[i].layer);
		printf(", \"verdict\": \"%s\", \"evidence\": ",
		       w->s[i].v == DR_FAIL ? "fail" : mark[w->s[i].v]);
		rb_json_string(stdout, w->s[i].evidence);
		printf("}");
	}
	printf("\n  ],\n  \"healthy\": %s,\n  \"failed_layer\": ", w->failed ? "false" : "true");
	if (w->failed)
		rb_json_string(stdout, w->s[w->n - 1].layer);
	else
		printf("null");
	printf(",\n  \"next\": ");
	if (w->failed)
		rb_json_string(stdout, w->next);
	else
		printf("null");
	printf(",\n  \"conclusion\": ");
	rb_json_string(stdout, c);
	printf("\n}\n");
	fflush(stdout);
}
