#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Post list x CQ moderation (issue 8, defect 2): settings whose queue used to fill
# with unsignaled WRs and stall until --timeout run to the end, in -n and -D mode.
source "$(dirname "$0")/lib.sh"
check() { # expected_msgs ARGS...
	local want=$1
	shift
	pair "$BW" -s 4K --timeout 5 --csv "$T/r.csv" --quiet "$@"
	expect_rc "client ($*)" "$CRC" 0
	expect_rc "server ($*)" "$SRC" 0
	python3 - "$T/r.csv" "$want" "$@" <<'PY' || fail "$* accounted wrong"
import csv, sys
r = list(csv.DictReader(open(sys.argv[1])))[0]
want = int(sys.argv[2])
assert int(r["bytes"]) == int(r["msgs"]) * 4096, r
assert (want and int(r["msgs"]) == want) or (not want and int(r["msgs"]) > 0), r
print("ok:", " ".join(sys.argv[3:]), "->", r["msgs"], "messages,", r["bw_avg_gbps"], "Gb/s")
PY
}
check 1000 -n 1000 -l 64             # the defaults -t 128 -Q 100
check 1000 -n 1000 -t 16 -l 3
check 1000 -n 1000 -t 128 -Q 128 -l 3
check 1200 -n 300 -q 4 -t 16 -l 3 -Q 16
check 0 -D 1 -l 64
check 0 -D 1 -q 2 -t 16 -l 3
pass "post list x CQ moderation never stalls"
