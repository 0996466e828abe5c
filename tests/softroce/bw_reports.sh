#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# A sweep's CSV and JSON: one document each, parseable, internally consistent.
source "$(dirname "$0")/lib.sh"
pair "$BW" --sizes 2:64K -n 30 --csv "$T/sweep.csv" --json "$T/sweep.json"
expect_rc client "$CRC" 0
expect_rc server "$SRC" 0
python3 - "$T/sweep.csv" "$T/sweep.json" <<'PY' || fail "reports inconsistent"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
doc = json.load(open(sys.argv[2]))
assert len(rows) == 16 and len(doc["results"]) == 16, (len(rows), len(doc["results"]))
meta = doc["meta"]
for k in ("tool", "version", "host", "peer", "device", "port", "link_layer", "gid_index",
          "mtu_bytes", "mem", "kernel", "rdma_core_version", "iterations", "qps",
          # every parameter that changes a number, when it ran, both hosts
          "epoch_s", "peer_host", "git_rev", "rdma_core_built", "link_gbps", "sl", "tclass", "hop_limit",
          "pkey_index", "qp_timeout_code", "retry_cnt", "rnr_retry", "min_rnr_timer", "local_qpns",
          "remote_qpns", "tx_depth", "post_list", "cq_mod", "inline_bytes"):
    assert k in meta, k
import re, socket, time
assert abs(meta["epoch_s"] - time.time()) < 600, meta["epoch_s"]
assert meta["peer_host"] == socket.gethostname(), meta["peer_host"]  # both ends run here
assert re.fullmatch(r"\S+:\d+", meta["peer"]), meta["peer"]  # address:port, one format on both sides
assert re.fullmatch(r"0x[0-9a-f]{6}", meta["local_qpns"]) and re.fullmatch(r"0x[0-9a-f]{6}", meta["remote_qpns"]), meta
assert meta["tool"] == "rc_write_bw" and meta["link_layer"] == "Ethernet"
for c, j in zip(rows, doc["results"]):
    size = int(c["size_bytes"])
    assert size == j["size_bytes"]
    assert j["msgs"] == 30 and j["bytes"] == 30 * size
    # bandwidth and message rate follow from bytes, messages and time
    bw = j["bytes"] * 8 / j["elapsed_s"] / 1e9
    assert abs(bw - j["bw_avg_gbps"]) <= 0.0015 + bw * 0.002, (bw, j["bw_avg_gbps"])
    mpps = j["msgs"] / j["elapsed_s"] / 1e6
    assert abs(mpps - j["msg_rate_mpps"]) <= 1e-6 + mpps * 0.002, (mpps, j)
    # Documents keep every digit: the CSV and JSON figures are the same double.
    assert float(c["bw_avg_gbps"]) == j["bw_avg_gbps"], (c["bw_avg_gbps"], j["bw_avg_gbps"])
print("16 rows, sizes", rows[0]["size_bytes"], "..", rows[-1]["size_bytes"])
PY
ls "$T" | grep -q '\.tmp\.' && fail "temporary report files left behind"
pass "CSV and JSON sweep documents consistent"
