#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# BW peak means something at any QP count (issues 10, 18): every row has one, it is
# never below the average and never above what the port can carry (the header's
# link speed, rb_port_gbps; rxe reports a nominal 10 Gb/s). Checked for 1 and 16 QPs,
# for -n and -D, and for -b (each direction's peak, summed: at most twice the link).
source "$(dirname "$0")/lib.sh"
check() { # DIRECTIONS ARGS...
	local dirs=$1
	shift
	pair "$BW" --json "$T/r.json" "$@"
	expect_rc "client ($*)" "$CRC" 0
	expect_rc "server ($*)" "$SRC" 0
	link=$(sed -nE 's/^ Link speed *: ([0-9.]+) Gb\/s.*/\1/p' "$T/cli.out")
	[ -n "$link" ] || fail "no link speed in the client's header"
	python3 - "$T/r.json" "$link" "$dirs" "$*" <<'PY' || fail "peak wrong ($*)"
import json, sys
d = json.load(open(sys.argv[1]))
link, dirs = float(sys.argv[2]), int(sys.argv[3])
assert d["complete"] is True and d["results"], d
for r in d["results"]:
    peak, avg = r["bw_peak_gbps"], r["bw_avg_gbps"]
    assert peak is not None, ("no peak", r)
    assert avg <= peak + 0.0005, ("peak below the average", r)      # both rounded to 3 decimals
    assert peak <= dirs * link, ("peak above the link", link, r)
    print("  %-28s %8d B  avg %.3f  peak %.3f  link %.1f Gb/s" % (sys.argv[4], r["size_bytes"], avg, peak, link))
PY
}
check 1 -s 64K -n 400
check 1 --sizes 4K:64K -n 40 -q 16
check 1 -s 64K -D 1 -q 16
check 2 -s 64K -n 200 -b
pass "peak >= average and <= link rate for 1 and 16 QPs"
