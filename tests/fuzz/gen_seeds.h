/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the seed generator's files share (gen_seeds.c, gen_wire.c, gen_oob.c,
 * gen_fabric.c): a seed being built and where it is saved, the frame and row
 * encoders more than one target's seeds use, and the values a real run's
 * measurement frames carry.
 */
#ifndef RB_GEN_SEEDS_H
#define RB_GEN_SEEDS_H

#include "fuzz.h"

/* A growable byte string. */
struct seed {
	uint8_t b[FUZZ_OOB_MAX_INPUT];
	size_t len;
};

/* Every encoder, one payload each: enc(&w, arg). */
#define PAYLOAD(w, enc, arg)                                                                                 \
	do {                                                                                                 \
		(w)->len = 0;                                                                                \
		enc(w, arg);                                                                                 \
		if ((w)->err) {                                                                              \
			fprintf(stderr, "gen_seeds: %s does not fit\n", #enc);                               \
			exit(1);                                                                             \
		}                                                                                            \
	} while (0)

/* The output directory (gen_seeds DIR) and a payload buffer any generator may fill. */
extern const char *outdir;
extern uint8_t pbuf[RB_WIRE_MAX_PAYLOAD];

/* The values each measurement frame carries in a real run. */
extern const struct rb_stepend done, stepend;
extern const struct rb_window window;
extern const struct rb_verdict verdict;
extern const struct rb_lat_summary lat;

/* Appends n bytes to s (exits if they do not fit). */
void put(struct seed *s, const void *p, size_t n);
/* Writes s as DIR/sub/name (a failure makes gen_seeds exit 1 at the end). */
void save(const char *sub, const char *name, const struct seed *s);
/* A frame as the peer sends it: header, then the payload in w. */
void frame(struct seed *s, uint16_t type, const struct rb_wbuf *w);
/* count QPs as a real side describes them, in static storage m points to. */
void qpinfo_msg(struct rb_qpinfo_msg *m, unsigned count);
/* The longest string a field of cap bytes takes: cap - 1 of c. */
void longest(char *out, size_t cap, char c);
/* ROW payloads (gen_fabric.c): a pair's bandwidth at one size; a row as long as rows get. */
void bw_row(struct rb_wbuf *w, uint32_t round, uint32_t server, uint32_t client, uint32_t rail,
            uint64_t size);
void full_row(struct rb_wbuf *w, uint32_t round, uint32_t server, uint32_t client);

/* Each target's seeds, into DIR/wire/, DIR/oob/ and DIR/fabric/. */
void wire_seeds(void);
void oob_seeds(void);
void fabric_seeds(void);

#endif
