/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rc_write_lat's --load (load.c): bulk RDMA WRITE traffic on extra RC QPs between
 * the same two ports, from the client to the server, driven by a thread of the
 * client, while the ping-pong measures. Below the waits (wait.c): calls only the
 * library.
 */
#ifndef RB_RC_WRITE_LAT_LOAD_H
#define RB_RC_WRITE_LAT_LOAD_H

#include "verbs/verbs.h"
#include "oob/oob.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* --load SIZE[xQPS]: size 0 means no load. */
struct lat_load_spec {
	uint64_t size;
	uint32_t qps;
};

#define LAT_LOAD_MAX_SIZE (1ull << 30)
#define LAT_LOAD_MAX_QPS  64
#define LAT_LOAD_ALLOWED  "SIZE[xQPS], SIZE 1 to 1G bytes (K, M, G suffixes), QPS 1 to 64 (e.g. 1Mx2)"

/* --load's parser (RB_OPT_FN, dst a struct lat_load_spec): 0, -EINVAL or -ERANGE. */
int lat_load_parse(const char *arg, void *dst);
/*
 * The WRITEs each of qps load QPs keeps in flight for messages of size bytes: 4 MiB
 * over them all (a QP's queue, and its memory, is this deep), 2 to 128 each.
 */
unsigned lat_load_window(uint64_t size, unsigned qps);

struct lat_load;

/*
 * The load's own device context (the latency QP's device, port and GID), PD, CQ,
 * QPs and one buffer of spec->size bytes: the client's a source (no remote access),
 * the server's a target (LOCAL_WRITE | REMOTE_WRITE). Host memory whatever --mem
 * says; the MTU offered is qopt's. timeout_s bounds every wait of the load. 0 or
 * -errno (said).
 */
int lat_load_new(const struct lat_load_spec *spec, bool client, const struct rb_device *dev,
                 const struct rb_mem_opts *mem, const struct rb_qp_opts *qopt, uint32_t timeout_s,
                 struct lat_load **out);
/* The buffer bytes lat_load_new allocates on either side. */
uint64_t lat_load_bytes(const struct lat_load_spec *spec);
/* After the latency QP: QPINFO of the load QPs both ways over o, every load QP to RTS. */
int lat_load_connect(struct lat_load *ld, struct rb_oob *o, const struct rb_qp_opts *qopt);
/* The header's line. */
void lat_load_describe(const struct lat_load *ld, FILE *f);
/* Stops the thread if it runs (nothing drained) and frees everything. NULL is fine. */
void lat_load_free(struct lat_load *ld);

/*
 * Client: starts the thread, then waits until every QP's window has turned over
 * once and 100 ms have passed, or bound_ns (the load is then running, if not yet
 * steady). 0 or -errno (said).
 */
int lat_load_start(struct lat_load *ld, uint64_t bound_ns);
/* Either side: the measured round trips begin now (the client's count of WRITEs done, too). */
void lat_load_mark(struct lat_load *ld);
/*
 * The measurement ended: the load's step ends on the bandwidth engine (run/bwstep.h),
 * DONE both ways over o, nothing heard for timeout_s failing it. The client's part:
 * *fig gets the WRITEs completed since the mark and the time; then the thread posts
 * no more, waits (bounded) for what is in flight and ends. The server's: the client's
 * figures into *fig, held as a hostile peer might have written them: bytes = messages
 * x SIZE, no peak or CPU figure, no faster than the port, a time this side's own clock
 * (since its mark) agrees with, else this side's time. 0 or -errno (said).
 */
int lat_load_end(struct lat_load *ld, struct rb_oob *o, unsigned timeout_s, struct rb_stepend *fig);
/* Either side, between samples and in long waits: the thread's error (said), the load device's async events.
 */
int lat_load_poll(struct lat_load *ld);

#endif
