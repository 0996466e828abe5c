/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The port counters that explain congestion: a fabricated sysfs tree of an mlx5 port
 * (byte counters in 4-byte words, transmit waits, out_of_buffer) and two `ethtool -S`
 * outputs in mlx5's names and layout (pause frames and durations per priority, the
 * global pause, discards, rx_out_of_buffer) give each column its delta, and the line
 * under the row names what moved and the priority paused longest, as a share of the
 * window. The ethtool reader refuses what it cannot use.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/base.h"
#include "host/ethstats.h"
#include "verbs/counters.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[64];

static void put(const char *rel, unsigned long long v)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%llu\n", v);
	fclose(f);
}

static void tree(void)
{
	static const char *const dirs[] = {"class",
	                                   "class/infiniband",
	                                   "class/infiniband/mlx5_0",
	                                   "class/infiniband/mlx5_0/ports",
	                                   "class/infiniband/mlx5_0/ports/1",
	                                   "class/infiniband/mlx5_0/ports/1/counters",
	                                   "class/infiniband/mlx5_0/ports/1/hw_counters"};
	char path[512];

	snprintf(root, sizeof(root), "/tmp/rb-counters.XXXXXX");
	assert_non_null(mkdtemp(root));
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", root, dirs[i]);
		assert_int_equal(mkdir(path, 0755), 0);
	}
}

static char *slurp(const char *name)
{
	static char buf[8192];
	char path[512];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/data/%s", RB_UNIT_DIR, name);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

static uint64_t field(const struct rb_row *r, const char *key)
{
	const struct rb_field *f = rb_row_find(r, key);

	if (!f)
		fail_msg("the row has no %s", key);
	assert_int_equal(f->type, RB_F_U64);
	return f->v.u;
}

static void congestion(void **state)
{
	static struct rb_counters c;
	struct rb_ethstats before = {0}, after = {0};
	struct rb_row row;
	char line[512];
	(void)state;

	tree();
	put("class/infiniband/mlx5_0/ports/1/counters/port_xmit_data", 1000);
	put("class/infiniband/mlx5_0/ports/1/counters/port_rcv_data", 2000);
	put("class/infiniband/mlx5_0/ports/1/counters/port_xmit_wait", 5);
	put("class/infiniband/mlx5_0/ports/1/hw_counters/out_of_buffer", 0);
	put("class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent", 10);
	rb_counters_open(&c, root, "mlx5_0", 1);
	assert_int_equal(c.n, 5);
	assert_int_equal(rb_ethstats_parse(slurp("ethtool_mlx5_before.txt"), &before), 0);
	assert_int_equal(rb_ethstats_parse(slurp("ethtool_mlx5_after.txt"), &after), 0);
	assert_int_equal(before.n, 27);
	assert_int_equal(after.n, before.n);
	rb_counters_use_eth(&c, &before, ""); /* "": a recording, never read again */
	assert_int_equal(c.n, 5 + 7);
	/* the size runs: the port sends 250 words, waits, the far end pauses priority 3 */
	put("class/infiniband/mlx5_0/ports/1/counters/port_xmit_data", 1250);
	put("class/infiniband/mlx5_0/ports/1/counters/port_xmit_wait", 82);
	memcpy(c.es.val, after.val, sizeof(uint64_t) * after.n);
	memset(&row, 0, sizeof(row));
	rb_counters_row(&c, &row, false);
	assert_int_equal(field(&row, "ctr_port_xmit_bytes"), 1000);
	assert_int_equal(field(&row, "ctr_port_rcv_bytes"), 0);
	assert_int_equal(field(&row, "ctr_port_xmit_wait"), 77);
	assert_int_equal(field(&row, "ctr_np_cnp_sent"), 0);
	assert_int_equal(field(&row, "ctr_pause_rx_frames"), 12000 + 7);
	assert_int_equal(field(&row, "ctr_pause_tx_frames"), 5);
	assert_int_equal(field(&row, "ctr_pause_rx_us"), 310000 + 2000);
	assert_int_equal(field(&row, "ctr_pause_tx_us"), 50000);
	assert_int_equal(field(&row, "ctr_discards_rx_phy"), 0);
	assert_int_equal(field(&row, "ctr_discards_tx_phy"), 0);
	assert_int_equal(field(&row, "ctr_rx_out_of_buffer"), 28);
	/* a window of exactly 1 s: priority 3 was paused 310 ms of it */
	c.window_ns = 1000000000ull;
	assert_true(rb_counters_abnormal(&c, line, sizeof(line)));
	printf("line: %s\n", line);
	assert_non_null(strstr(line, "port_xmit_wait +77"));
	assert_non_null(strstr(line, "pause_rx_frames +12007"));
	assert_non_null(strstr(line, "rx_out_of_buffer +28"));
	assert_null(strstr(line, "port_xmit_bytes")); /* traffic is no news */
	assert_non_null(
	    strstr(line, "told by the far end to pause sending 31 % of the window on priority 3"));
	assert_non_null(strstr(line,
	                       "asking the far end to pause (this port's buffers full) 5 % of the window on "
	                       "priority 3"));
	rb_counters_close(&c);
	rb_ethstats_free(&after);
	/* a driver with none of these names (veth): its statistics are dropped, never read again */
	rb_counters_open(&c, root, "mlx5_0", 1);
	assert_int_equal(rb_ethstats_parse("NIC statistics:\n     peer_ifindex: 7\n", &before), 0);
	rb_counters_use_eth(&c, &before, "veth0");
	assert_int_equal(c.n, 5);
	assert_int_equal(c.es.n, 0);
	assert_string_equal(c.ifname, "");
	rb_counters_close(&c);
}

static void ethstats_refusals(void **state)
{
	struct rb_ethstats s = {0};
	(void)state;

	assert_int_equal(rb_ethstats_parse("NIC statistics:\n     rx_packets: 12x\n", &s), -EINVAL);
	assert_int_equal(rb_ethstats_parse("NIC statistics:\n     : 12\n", &s), -EINVAL);
	assert_int_equal(
	    rb_ethstats_parse("NIC statistics:\n     a_name_far_longer_than_thirty_two_bytes_is_no_name: 1\n",
	                      &s),
	    -EINVAL);
	assert_int_equal(rb_ethstats_parse("NIC statistics:\n     rx_packets: 12\n", &s), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(rb_ethstats_find(&s, "rx_packets"), 0);
	assert_int_equal(rb_ethstats_find(&s, "tx_packets"), -1);
	rb_ethstats_free(&s);
	/* no such interface; lo has no driver statistics */
	assert_true(rb_ethstats_read("rb-none0", &s) < 0);
	assert_true(rb_ethstats_read("lo", &s) < 0);
	assert_int_equal(s.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(congestion),
	    cmocka_unit_test(ethstats_refusals),
	};
	int ret = cmocka_run_group_tests(tests, NULL, NULL);
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	if (root[0] && system(cmd))
		return 1;
	return ret;
}
