#!/bin/bash
# Four QPs, a post list of 4 and CQ moderation 8, payload verified.
source "$(dirname "$0")/lib.sh"
pair "$BW" -s 4K,32K -n 64 -q 4 -l 4 -Q 8 --verify --csv "$T/r.csv" --quiet
expect_rc client "$CRC" 0
expect_rc server "$SRC" 0
# 64 iterations x 4 QPs per size
python3 - "$T/r.csv" <<'PY' || fail "CSV accounting wrong"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 2, rows
for r in rows:
    assert r["qps"] == "4" and r["post_list"] == "4" and r["cq_mod"] == "8", r
    assert int(r["msgs"]) == 256 and int(r["iterations"]) == 64, r
    assert int(r["bytes"]) == 256 * int(r["size_bytes"]), r
PY
pass "multi-QP + post list + CQ moderation verified"
