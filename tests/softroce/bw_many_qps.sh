#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Many QPs (issue 18): 64 and 256 QPs with every payload verified, and a sweep whose
# time goes into posting (64 QPs, each post a system call on rxe) with a short
# --timeout: liveness runs on the clock, so the busy sender's heartbeat keeps the
# server from declaring it silent, and nothing else stalls.
source "$(dirname "$0")/lib.sh"
for q in 64 256; do
	pair "$BW" -q $q -s 64 -n 20 --verify --timeout 10 --csv "$T/r.csv" --quiet
	expect_rc "client (-q $q --verify)" "$CRC" 0
	expect_rc "server (-q $q --verify)" "$SRC" 0
	python3 - "$T/r.csv" $q <<'PY' || fail "-q $q accounting wrong"
import csv, sys
r = list(csv.DictReader(open(sys.argv[1])))[0]
q = int(sys.argv[2])
assert int(r["qps"]) == q and int(r["msgs"]) == 20 * q and r["verify"] in ("1", "true"), r
PY
	echo "ok: -q $q --verify"
done

# A sweep of 16 sizes, and a step that takes longer than --timeout: the old
# 256-turn heartbeat left the server without a frame for the whole 64 KiB step
# ("peer silent for 3 s while waiting for its DONE").
start=$(now_ms)
pair "$BW" -q 64 --sizes 2:64K -n 20 --timeout 3 --csv "$T/sweep.csv"
expect_rc "client (-q 64 sweep)" "$CRC" 0
expect_rc "server (-q 64 sweep)" "$SRC" 0
pair "$BW" -q 64 -s 64K -n 100 --timeout 3 --csv "$T/long.csv"
took=$((($(now_ms) - start) / 1000))
expect_rc "client (-q 64 -n 100)" "$CRC" 0
expect_rc "server (-q 64 -n 100)" "$SRC" 0
python3 - "$T/sweep.csv" "$T/long.csv" <<'PY' || fail "sweep rows wrong"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 16, len(rows)
assert all(int(r["msgs"]) == 20 * 64 for r in rows), rows
rows = list(csv.DictReader(open(sys.argv[2])))
assert len(rows) == 1 and all(int(r["msgs"]) == 100 * 64 for r in rows), rows
for r in rows:
    print("  -q 64 -n 100 -s %6s: %s s, %s Gb/s" % (r["size_bytes"], r["elapsed_s"], r["bw_avg_gbps"]))
PY
pass "64 and 256 QPs verified; 64-QP sweeps with --timeout 3 in ${took}s"
