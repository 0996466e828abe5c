#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# --output=WHAT (perftest's): one number per row on stdout and nothing else, the same
# figure the documents hold; refused with a document on stdout, or an unknown WHAT.
source "$(dirname "$0")/lib.sh"

# one SRV_ARGS... -- CLI_ARGS...: client stdout in out.txt, its JSON in cli.json
one() {
	local srv=()
	while [ "$1" != -- ]; do srv+=("$1"); shift; done
	shift
	P=$((P + 1))
	"$SB" -p "$P" --quiet "${srv[@]}" >"$T/srv.out" 2>"$T/srv.err" &
	SRV=$!
	timeout 60 "$SB" -p "$P" "$@" --json "$T/cli.json" 127.0.0.1 >"$T/out.txt" 2>"$T/cli.err"
	expect_rc "client $*" $? 0
	wait "$SRV"
	expect_rc "server" $? 0
	SRV=
}

check() { # KEY: every stdout line is that key of the matching JSON row, exactly
	python3 - "$T/out.txt" "$T/cli.json" "$1" <<'PY' || fail "--output printed something else than $1"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
rows = json.load(open(sys.argv[2]))["results"]
assert len(lines) == len(rows) >= 1, (lines, rows)
for l, r in zip(lines, rows):
    assert float(l) == r[sys.argv[3]], (l, r[sys.argv[3]])
print(sys.argv[3], lines)
PY
}

one -- --sizes 64K:256K -n 200 --output bandwidth
check bw_avg_gbps
one -- -s 1M -n 50 --output message_rate
check msg_rate_mpps
one -- --ping-pong -s 64,4K -n 300 --output latency
check lat_p50_us
expect_usage "$SB" "invalid value 'speed' for --output \(allowed: bandwidth, message_rate or latency\)" --output speed
expect_usage "$SB" "--output and a document on stdout" --output bandwidth --json - 127.0.0.1
pass "--output prints the figure alone"
