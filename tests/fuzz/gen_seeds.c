/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Writes the fuzz targets' seed corpus: DIR/wire/ holds a valid payload of every
 * frame type (behind fuzz_wire's selector byte), DIR/oob/ whole conversations as
 * a peer sends them (behind fuzz_oob's mode byte), plus the strangers a server
 * meets on its port, DIR/fabric/ whole --all-pairs jobs as the coordinator's port
 * sees them (behind fuzz_fabric's job byte). Made with the library's own encoders,
 * so the seeds follow the wire format as it changes.
 *
 *   gen_seeds DIR
 *
 * Here: main and what every generator uses (gen_seeds.h). Each target's seeds
 * come from a file of their own: gen_wire.c, gen_oob.c, gen_fabric.c.
 */
#include "gen_seeds.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>

const char *outdir;
static int failed;

void put(struct seed *s, const void *p, size_t n)
{
	if (n > sizeof(s->b) - s->len) {
		fprintf(stderr, "gen_seeds: seed too long\n");
		exit(1);
	}
	memcpy(s->b + s->len, p, n);
	s->len += n;
}

void save(const char *sub, const char *name, const struct seed *s)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/%s", outdir, sub, name);
	f = fopen(path, "wb");
	if (!f || fwrite(s->b, 1, s->len, f) != s->len || fclose(f)) {
		fprintf(stderr, "gen_seeds: cannot write %s: %s\n", path, strerror(errno));
		failed = 1;
	}
}

uint8_t pbuf[RB_WIRE_MAX_PAYLOAD];
static struct rb_qpinfo qps[RB_WIRE_MAX_QPS];

void qpinfo_msg(struct rb_qpinfo_msg *m, unsigned count)
{
	m->count = count;
	m->qp = qps;
	m->ctl = (struct rb_region){0x7e0000000000ull, 139264, 0x5678};
	for (unsigned i = 0; i < count; i++) {
		qps[i] =
		    (struct rb_qpinfo){.qpn = 0x11 + i, .psn = 0xabcdef, .rkey = 0x1234, .lid = 0, .mtu = 3};
		memset(qps[i].gid, 0, 10);
		qps[i].gid[10] = qps[i].gid[11] = 0xff;
		qps[i].gid[12] = 10, qps[i].gid[15] = 1;
		qps[i].len = 65536;
		qps[i].addr = 0x7f0000001000ull + (uint64_t)i * qps[i].len;
	}
}

/* A frame as the peer sends it: header, then the payload in w. */
void frame(struct seed *s, uint16_t type, const struct rb_wbuf *w)
{
	uint8_t h[RB_WIRE_HDR_LEN];

	rb_frame_hdr_encode(h, type, (uint32_t)w->len);
	put(s, h, sizeof(h));
	put(s, w->p, w->len);
}

/* The values each measurement frame carries in a real run. */
const struct rb_stepend done = {1000, 65536000, 2100000000, 0.25, NAN};
const struct rb_window window = {3, 64, 1};
const struct rb_verdict verdict = {1, 2, 17, 4095, 0xa5, 0x5a};
const struct rb_lat_summary lat = {1000, 100, 5.1, 6.2, 6.5, 0.7, 7.0, 9.9, 12.5, 40.0, 0.013};
const struct rb_stepend stepend = {1000, 1048576000, 2000000000, NAN, 87.5};

/* The longest string a field of cap bytes takes: cap - 1 of c. */
void longest(char *out, size_t cap, char c)
{
	memset(out, c, cap - 1);
	out[cap - 1] = '\0';
}

int main(int argc, char **argv)
{
	char path[4096];

	fuzz_register_msgs();
	if (argc != 2) {
		fprintf(stderr, "usage: gen_seeds DIR\n");
		return 2;
	}
	outdir = argv[1];
	for (const char *const *sub = (const char *const[]){"", "/wire", "/oob", "/fabric", NULL}; *sub;
	     sub++) {
		snprintf(path, sizeof(path), "%s%s", outdir, *sub);
		if (mkdir(path, 0755) && errno != EEXIST) {
			fprintf(stderr, "gen_seeds: cannot create %s: %s\n", path, strerror(errno));
			return 1;
		}
	}
	wire_seeds();
	oob_seeds();
	fabric_seeds();
	return failed;
}
