#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# -N: no peak is measured; the column is "-" in the table, empty in CSV, null in JSON,
# on both sides (the server takes -N from the client). --report-both with -b: each
# direction's figures beside the sum: TX is this side's sends, RX the peer's (from its
# DONE); they add up to the sum, each side's TX is the other's RX, and rxe's own
# packet counters agree with each direction's bytes (within the ACKs a side sends).
source "$(dirname "$0")/lib.sh"
[ "$RB_TOPOLOGY" = pair ] || { echo "SKIP: needs --topology pair"; exit 77; }
start_server "$BW" --json "$T/srv.json"
run_client "$BW" -s 4096,65536 -n 200 -N --csv "$T/cli.csv" --json "$T/cli.json"
wait_server
expect_rc client "$CRC" 0
expect_rc server "$SRC" 0
[ "$(table_rows "$T/cli.out" | awk '{print $3}' | sort -u)" = "-" ] || fail "BW peak is not '-' in the table"
[ "$(table_rows "$T/srv.out" | awk '{print $3}' | sort -u)" = "-" ] || fail "BW peak is not '-' on the server"
python3 - "$T/cli.csv" "$T/cli.json" "$T/srv.json" <<'PY' || fail "-N documents wrong"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 2 and all(r["bw_peak_gbps"] == "" and float(r["bw_avg_gbps"]) > 0 for r in rows), rows
for p in sys.argv[2:]:
    d = json.load(open(p))
    assert d["meta"]["peak"] is False, d["meta"]
    assert all(r["bw_peak_gbps"] is None for r in d["results"]) and len(d["results"]) == 2, d["results"]
PY

counters "$RB_DEV" "$T/srv0"
counters "$RB_DEV_PEER" "$T/cli0"
start_server "$BW" --report-both --json "$T/srv.json"
run_client "$BW" -s 65536 -n 300 -b --report-both --csv "$T/cli.csv" --json "$T/cli.json"
wait_server
counters "$RB_DEV" "$T/srv1"
counters "$RB_DEV_PEER" "$T/cli1"
expect_rc client "$CRC" 0
expect_rc server "$SRC" 0
expect_grep "$T/cli.out" "BW TX\[MB/sec\] +BW RX\[MB/sec\]"
cs=$(counter_delta "$T/cli0" "$T/cli1" sent_pkts)
cr=$(counter_delta "$T/cli0" "$T/cli1" completer_retry_err)
ss=$(counter_delta "$T/srv0" "$T/srv1" sent_pkts)
sr=$(counter_delta "$T/srv0" "$T/srv1" completer_retry_err)
python3 - "$T/cli.csv" "$T/cli.json" "$T/srv.json" "$cs" "$cr" "$ss" "$sr" <<'PY' || fail "--report-both figures disagree"
import csv, json, sys
c = list(csv.DictReader(open(sys.argv[1])))
d, s = (json.load(open(p)) for p in sys.argv[2:4])
cs, cr, ss, sr = map(int, sys.argv[4:])
r, v = d["results"][0], s["results"][0]
assert len(c) == 1 and float(c[0]["bw_avg_tx_gbps"]) == r["bw_avg_tx_gbps"], (c, r)
n = 300 * 65536
assert r["bytes_tx"] == r["bytes_rx"] == n and r["bytes_tx"] + r["bytes_rx"] == r["bytes"], r
assert (v["bytes_tx"], v["bytes_rx"], v["bytes"]) == (r["bytes_rx"], r["bytes_tx"], r["bytes"]), (r, v)
# Each direction on its sender's clock; the sum is both directions' bytes over the
# longer of the two clocks (how far apart they are depends on scheduling, not the tool).
t = max(r["bytes_tx"] / r["bw_avg_tx_gbps"], r["bytes_rx"] / r["bw_avg_rx_gbps"])
assert abs(r["bytes"] / t - r["bw_avg_gbps"]) <= 1e-9 * r["bw_avg_gbps"], (t, r)
assert abs(r["bw_avg_tx_gbps"] - v["bw_avg_rx_gbps"]) <= 1e-9 * r["bw_avg_tx_gbps"], (r, v)
assert abs(r["bw_peak_tx_gbps"] + r["bw_peak_rx_gbps"] - r["bw_peak_gbps"]) <= 1e-9 * r["bw_peak_gbps"], r
for k in ("tx", "rx"):
    assert r[f"bw_peak_{k}_gbps"] >= r[f"bw_avg_{k}_gbps"] - 0.0005, (k, r)
# rxe counts packets: a side's writes are its messages x ceil(size / MTU); in a
# bidirectional run its sent_pkts also holds its ACKs of the peer's packets (at most
# one each, retried ones included), and a retry resends at most a window.
mtu, depth = d["meta"]["mtu_bytes"], d["meta"]["tx_depth"]
per = -(-65536 // mtu)
E = {"client": r["bytes_tx"] // 65536 * per, "server": r["bytes_rx"] // 65536 * per}
W = depth * per
for who, peer, sent, retries, peer_retries in (("client", "server", cs, cr, sr), ("server", "client", ss, sr, cr)):
    print(f"{who}: tool {E[who] * 65536 // per} B = {E[who]} packets at MTU {mtu}; rxe sent {sent} "
          f"({sent - E[who]} beyond: ACKs, {retries} retries)")
    assert E[who] <= sent <= E[who] + retries * W + E[peer] + peer_retries * W, (who, E, sent, retries)
print(f'TX {r["bw_avg_tx_gbps"]:.3f} + RX {r["bw_avg_rx_gbps"]:.3f} Gb/s, sum {r["bw_avg_gbps"]:.3f} Gb/s')
PY
pass "-N shows no peak on both sides; --report-both's directions add up and match rxe's counters"
