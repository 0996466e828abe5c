#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Bidirectional: both ends write at once; the reported total is both directions.
source "$(dirname "$0")/lib.sh"
pair "$BW" -s 4K,64K -n 50 -b --verify --csv "$T/r.csv"
expect_rc client "$CRC" 0
expect_rc server "$SRC" 0
python3 - "$T/r.csv" <<'PY' || fail "bidirectional accounting wrong"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 2
for r in rows:
    assert r["direction"] == "bidirectional"
    assert int(r["msgs"]) == 100, r          # 50 each way
    # each direction's peak, summed: never below the total average
    assert float(r["bw_peak_gbps"]) + 0.0005 >= float(r["bw_avg_gbps"]), r
PY
pass "bidirectional verified, 2x messages counted"
