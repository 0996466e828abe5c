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
# --units MB/sec: perftest's MiB/s in the table, the repeats' P5 and P95 with them; the
# document keeps Gb/s (its keys say so).
P=$((P + 1))
"$SB" -p "$P" --quiet >/dev/null 2>&1 &
SRV=$!
timeout 60 "$SB" -p "$P" -s 64K -n 300 --repeat 3 --units MB/sec --json "$T/u.json" 127.0.0.1 >"$T/u.out" 2>"$T/u.err"
expect_rc "--units MB/sec --repeat 3" $? 0
wait_server
expect_grep "$T/u.out" "BW average\[MB/sec\]"
python3 - "$T/u.json" "$T/u.out" <<'PY' || fail "--units MB/sec figures wrong"
import json, re, sys
r = [x for x in json.load(open(sys.argv[1]))["results"] if x["repeat"] == "all"][0]
row = [l.split() for l in open(sys.argv[2]) if re.match(r"^ +65536 ", l)][0]
mib = 1e9 / 8 / 2**20
for got, key in ((row[2], "bw_avg_gbps"), (row[6], "bw_avg_gbps_p5"), (row[7], "bw_avg_gbps_p95")):
    assert abs(float(got) - r[key] * mib) <= 0.0015 + 1e-6 * r[key] * mib, (key, got, r[key] * mib)
PY
pass "--output prints the figure alone; --units MB/sec converts every bandwidth figure of the table"
