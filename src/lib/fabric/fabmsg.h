/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The --all-pairs control messages between every rank and the coordinator (a
 * child process of rank 0), over the framed out-of-band channel:
 *
 *   JOIN  rank -> coordinator   u32 rank, u32 size, u32 pid, u32 rails, 16 B cookie (the job's
 *                               secret, from rank 0 through the launcher; it keys the pair
 *                               connections too), str host, str devices
 *                               (its rails, comma-separated; "" for the default one), str address
 *   GO    coordinator -> rank   u32 round, u32 partner (UINT32_MAX: none), u8 role (0 serve
 *                               the partner, 1 be its client, 2 sit out, 3 the run is over,
 *                               4 several flows at once), u8 phase (0 the schedule, 1 a
 *                               re-test): the coordinator alone plans, so a re-test round is a
 *                               round like the others; role 4 (--pattern) adds u16 n (1 to
 *                               RB_FAB_GO_FLOWS) and n x (u32 partner, u8 role: 0 serve, 1 be
 *                               its client, 2 serve the victim, 3 be the victim's client),
 *                               no partner and role twice
 *   ROW   rank -> coordinator   u32 round, u32 server, u32 client, u32 rail, u16 n, n fields:
 *                               u8 type, u8 prec, str key, str label ("" = none), value
 *                               (u64; f64; u8 bool; str)
 *   END   rank -> coordinator   u32 round, u32 partner (UINT32_MAX: sat out; with several flows,
 *                               the first failed one's, else RB_FAB_SEVERAL), u32 exit code,
 *                               str error ("" when the pair succeeded), str devices (as the
 *                               rank's runs opened them, comma-separated by rail; "" when none)
 *   ERROR coordinator -> rank   the run is aborted, and why
 *   PROGRESS                    coordinator -> a waiting rank: still alive
 *
 * The decoders read what another process wrote: every count, length and rank is
 * checked before use; a bad frame is -EPROTO.
 */
#ifndef RB_FABMSG_H
#define RB_FABMSG_H

#include "report/report.h"
#include "oob/oob.h"

#include <stdint.h>

/* The frame types (registered by rb_fab_register_msgs) and their longest payloads. */
enum {
	RB_MSG_JOIN = 13, /* a rank reports to the coordinator */
	RB_MSG_ROW = 14,  /* one result row of a pair */
	RB_MSG_END = 15,  /* a rank's pair of a round is over (and how) */
	RB_MSG_GO = 16,   /* the coordinator starts a round */
};
#define RB_FAB_ROW_MAX  32768
#define RB_FAB_DEVS_LEN 256 /* a rank's rails' device names, comma-separated */
#define RB_FAB_JOIN_MAX (32u + 2u * (2 + RB_WIRE_HOST_LEN) + 2 + RB_FAB_DEVS_LEN)
#define RB_FAB_END_MAX  (12u + 2 + RB_WIRE_MSG_LEN + 2 + RB_FAB_DEVS_LEN)
#define RB_FAB_GO_FLOWS 65 /* RB_PATTERN_RANK_FLOWS, and the victim's */
#define RB_FAB_GO_MAX   (12u + 5u * RB_FAB_GO_FLOWS)
/* END's partner of a rank whose several flows all ended well. */
#define RB_FAB_SEVERAL (UINT32_MAX - 1)
/* JOIN, ROW, END and GO made known to the framing (rb_msg_register); 0 or -EEXIST. */
int rb_fab_register_msgs(void);

#define RB_FAB_KEY_LEN 48
/* The job's cookie: 128 random bits, published as 32 hex digits. */
#define RB_FAB_COOKIE_LEN 16
#define RB_FAB_LABEL_LEN  32

struct rb_fab_join {
	uint32_t rank, size, pid, rails;
	uint8_t cookie[RB_FAB_COOKIE_LEN];
	char host[RB_WIRE_HOST_LEN], dev[RB_FAB_DEVS_LEN], addr[RB_WIRE_HOST_LEN];
};

struct rb_fab_row {
	uint32_t round, server, client, rail;
	struct rb_row row; /* keys and labels point into the arrays below */
	char keys[RB_ROW_MAX][RB_FAB_KEY_LEN];
	char labels[RB_ROW_MAX][RB_FAB_LABEL_LEN];
};

struct rb_fab_end {
	uint32_t round, partner, code;
	char error[RB_WIRE_MSG_LEN];
	char dev[RB_FAB_DEVS_LEN];
};

void rb_fab_join_encode(struct rb_wbuf *w, const struct rb_fab_join *j);
int rb_fab_join_decode(const uint8_t *p, size_t len, struct rb_fab_join *j);
/* A row with a key or label too long for the decoder's arrays sets w->err. */
void rb_fab_row_encode(struct rb_wbuf *w, uint32_t round, uint32_t server, uint32_t client, uint32_t rail,
                       const struct rb_row *row);
int rb_fab_row_decode(const uint8_t *p, size_t len, struct rb_fab_row *r);
void rb_fab_end_encode(struct rb_wbuf *w, const struct rb_fab_end *e);
int rb_fab_end_decode(const uint8_t *p, size_t len, struct rb_fab_end *e);
enum { RB_GO_SERVER, RB_GO_CLIENT, RB_GO_IDLE, RB_GO_OVER, RB_GO_FLOWS };
enum { RB_GO_SCHEDULE, RB_GO_RETEST };
/* A flow's role: a pattern's (RB_GO_SERVER, RB_GO_CLIENT), or the --victim's latency run. */
enum { RB_FLOW_VICTIM_SERVER = 2, RB_FLOW_VICTIM_CLIENT = 3 };
struct rb_fab_flow {
	uint32_t partner;
	uint8_t role; /* RB_GO_SERVER, RB_GO_CLIENT, RB_FLOW_VICTIM_SERVER or RB_FLOW_VICTIM_CLIENT */
};
struct rb_fab_go {
	uint32_t round, partner;
	uint8_t role, phase;
	uint16_t nflows; /* role RB_GO_FLOWS */
	struct rb_fab_flow flows[RB_FAB_GO_FLOWS];
};
void rb_fab_go_encode(struct rb_wbuf *w, const struct rb_fab_go *g);
int rb_fab_go_decode(const uint8_t *p, size_t len, struct rb_fab_go *g);

#endif
