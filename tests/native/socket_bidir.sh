#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Bidirectional over 2 sockets x 2 threads each way, verified; both sides agree on the counts.
source "$(dirname "$0")/lib.sh"
pair -s 256K,2M -n 50 -b --nsocks 2 --nthreads 2 --verify --json "$T/r.json"
expect_rc client "$CRC" 0
expect_rc server "$SRC" 0
python3 - "$T/r.json" <<'PY' || fail "bidirectional accounting wrong"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["complete"] and d["meta"]["nsocks"] == 2 and d["meta"]["nthreads"] == 2
for r in d["results"]:
    assert r["mode"] == "bidirectional" and r["msgs"] == 100 and r["iterations"] == 50, r
PY
# Size, iterations and both CPU figures agree; the rates are each side's own clock's
# (bw_step checks them against each other), so they may differ a little.
rows() { grep -E '^ +[0-9]+ ' "$1" | awk '{print $1, $2, $7, $8}'; } # #bytes, #iterations, the CPUs
diff <(rows "$T/cli.out") <(rows "$T/srv.out") >/dev/null || fail "sides differ"
pass "bidirectional verified"
