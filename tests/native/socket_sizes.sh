#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Several sizes and socket/thread layouts, every byte verified; accounting consistent.
source "$(dirname "$0")/lib.sh"
for layout in "--nsocks 1 --nthreads 1" "--nsocks 2 --nthreads 1" "--nsocks 2 --nthreads 2" "--nsocks 1 --nthreads 3"; do
	# shellcheck disable=SC2086
	pair -s 100,64K,1M,3M -n 40 --verify $layout --csv "$T/r.csv"
	expect_rc "client [$layout]" "$CRC" 0
	expect_rc "server [$layout]" "$SRC" 0
	python3 - "$T/r.csv" "$layout" <<'PY' || fail "[$layout] accounting wrong"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [int(r["size_bytes"]) for r in rows] == [100, 65536, 1 << 20, 3 << 20]
for r in rows:
    assert int(r["msgs"]) == 40 and int(r["bytes"]) == 40 * int(r["size_bytes"]), r
    bw = int(r["bytes"]) * 8 / float(r["elapsed_s"]) / 1e9
    assert abs(bw - float(r["bw_avg_gbps"])) <= 0.0015 + 0.01 * bw, (bw, r)
    # Each side moved the bytes itself: CPU time above zero, never past its threads' share.
    assert 0 < float(r["cpu_client_pct"]) <= 100 * 8 and 0 < float(r["cpu_server_pct"]) <= 100 * 8, r
print(sys.argv[2], [(r["size_bytes"], r["bw_avg_gbps"]) for r in rows])
PY
done
pass "sizes x socket layouts verified"
