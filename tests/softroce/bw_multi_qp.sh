#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Four QPs, a post list of 4 and CQ moderation 8, payload verified; then the default
# post list.
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

# Without -l the post list is chosen per size: 32 (at most -t) up to 8 KiB, 1 above;
# the header says the rule, each row the list it used, and the payload still arrives.
# -q 3 -n 70: lists of 32 per QP end on a short one (70 = 2 x 32 + 6).
auto() { # TX_DEPTH WANT_HEADER WANT_LISTS
	pair "$BW" -s 64,8K,16K -n 70 -q 3 -t "$1" --verify --csv "$T/a.csv"
	expect_rc "client -t $1" "$CRC" 0
	expect_rc "server -t $1" "$SRC" 0
	expect_grep "$T/cli.out" "post list: $2 "
	python3 - "$T/a.csv" "$3" <<'PY' || fail "the default post list at -t $1 is not $3"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
lists = ",".join(r["post_list"] for r in rows)
assert lists == sys.argv[2] and all(int(r["msgs"]) == 210 for r in rows), (lists, rows)
print("default post list by size (64 B, 8 KiB, 16 KiB):", lists)
PY
}
auto 128 "32 to 8 KiB, 1 above" 32,32,1
auto 20 "20 to 8 KiB, 1 above" 20,20,1
pass "multi-QP + post list + CQ moderation verified; the default post list follows the size"
