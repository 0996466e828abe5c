/* SPDX-License-Identifier: BSD-2-Clause */
#include "fault.h"

#include "log.h"
#include "parse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
	bool parsed;
	unsigned kind;
	uint64_t qp, msg, byte;
	bool byte_set, byte_last;
} f;

static const char *const names[] = {
    [RB_FAULT_CORRUPT] = "corrupt",         [RB_FAULT_IMM_DROP] = "imm-drop",
    [RB_FAULT_IMM_DUP] = "imm-dup",         [RB_FAULT_STALL] = "stall",
    [RB_FAULT_BAD_RKEY] = "bad-rkey",       [RB_FAULT_VERDICT_LATE] = "verdict-late",
    [RB_FAULT_WORKER_DEAF] = "worker-deaf",
};
#define NLIB       (sizeof(names) / sizeof(names[0]))
#define TOOL_KINDS 16

static const char *tool_names[TOOL_KINDS];

void rb_fault_register(const char *const *kinds, unsigned n)
{
	for (unsigned i = 0; i < n && i < TOOL_KINDS; i++)
		tool_names[i] = kinds[i];
}

/* The kind named tok, or RB_FAULT_NONE. */
static unsigned kind_named(const char *tok)
{
	for (unsigned k = 1; k < NLIB; k++)
		if (names[k] && !strcmp(tok, names[k]))
			return k;
	for (unsigned i = 0; i < TOOL_KINDS; i++)
		if (tool_names[i] && !strcmp(tok, tool_names[i]))
			return RB_FAULT_TOOL + i;
	return RB_FAULT_NONE;
}

static void parse_env(void)
{
	const char *env = getenv("RB_TEST_FAULT");
	char buf[128], *save = NULL, *tok;

	f.parsed = true;
	f.kind = RB_FAULT_NONE;
	f.qp = 0;
	f.msg = 1;
	f.byte_set = f.byte_last = false;
	if (!env || !*env)
		return;
	snprintf(buf, sizeof(buf), "%s", env);
	tok = strtok_r(buf, ":", &save);
	f.kind = tok ? kind_named(tok) : RB_FAULT_NONE;
	while (f.kind != RB_FAULT_NONE && (tok = strtok_r(NULL, ":", &save))) {
		if (!strncmp(tok, "qp=", 3) && !rb_parse_u64(tok + 3, &f.qp))
			continue;
		if (!strncmp(tok, "msg=", 4) && !rb_parse_u64(tok + 4, &f.msg) && f.msg)
			continue;
		if (!strcmp(tok, "byte=last") && (f.byte_last = true))
			continue;
		if (!strncmp(tok, "byte=", 5) && !rb_parse_u64(tok + 5, &f.byte) && (f.byte_set = true))
			continue;
		f.kind = RB_FAULT_NONE;
	}
	if (f.kind == RB_FAULT_NONE)
		rb_warn("RB_TEST_FAULT='%s' not understood; no fault injected", env);
	else
		rb_warn("test fault injection active: RB_TEST_FAULT=%s", env);
}

unsigned rb_fault_kind(void)
{
	if (!f.parsed)
		parse_env();
	return f.kind;
}

bool rb_fault_at(unsigned k, unsigned qp, uint64_t msg)
{
	return rb_fault_kind() == k && k != RB_FAULT_NONE && qp == f.qp && msg == f.msg;
}

uint64_t rb_fault_byte(uint64_t len)
{
	if (!len)
		return 0;
	if (f.byte_last)
		return len - 1;
	if (f.byte_set)
		return f.byte < len ? f.byte : len - 1;
	return len / 2;
}
