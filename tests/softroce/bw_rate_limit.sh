#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# perftest's --rate_limit (software pacing): a run paced at 0.1 Gb/s, and one at 500
# messages a second in bursts of 8, never exceed the rate (beyond the first burst), and
# rxe's own counter of the client's packets agrees with the bytes the row says it sent.
source "$(dirname "$0")/lib.sh"
[ "$RB_TOPOLOGY" = pair ] || { echo "SKIP: needs --topology pair"; exit 77; }
counters "$RB_DEV_PEER" "$T/c0"
start_server "$BW" -s 65536 -D 2
run_client "$BW" -s 65536 -D 2 --rate_limit 0.1 --json "$T/g.json"
wait_server
counters "$RB_DEV_PEER" "$T/c1"
expect_rc client "$CRC" 0
expect_rc server "$SRC" 0
expect_grep "$T/cli.out" "Rate limit +: 0.1 Gb/s, bursts of 1 message\\(s\\), paced in software"
sent=$(counter_delta "$T/c0" "$T/c1" sent_pkts)
start_server "$BW" -s 4096 -D 2
run_client "$BW" -s 4096 -D 2 --rate_limit 500 --rate_units p --burst_size 8 --json "$T/p.json"
wait_server
expect_rc "client (pps)" "$CRC" 0
python3 - "$T/g.json" "$T/p.json" "$sent" <<'PY' || fail "the paced rates are wrong"
import json, sys
g, p = (json.load(open(f))["results"][0] for f in sys.argv[1:3])
sent = int(sys.argv[3])
# The bucket starts full (a burst), then earns at the rate: never more than that, a slow
# host may send less.
gb = g["bytes"] * 8 / g["elapsed_s"] / 1e9
assert g["bytes"] * 8 <= 0.1e9 * g["elapsed_s"] + 65536 * 8 and gb >= 0.07, (gb, g)
assert g["post_list"] == 1, g  # a post list is at most a burst
# rxe's own count: every byte went out in packets of at most the MTU (plus the ACKs of nothing).
assert sent >= g["bytes"] // g["mtu_bytes"], (sent, g["bytes"])
msgs_s = p["msgs"] / p["elapsed_s"]
assert p["msgs"] <= 500 * p["elapsed_s"] + 8 and msgs_s >= 350, (msgs_s, p)
print(f"paced: {gb:.4f} Gb/s at --rate_limit 0.1 (rxe sent {sent} packets); {msgs_s:.1f} msgs/s at 500 p")
PY
pass "--rate_limit paces the sends: never above the rate, in Gb/s and in messages a second"
