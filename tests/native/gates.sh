#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# --min-bw, --max-lat-p99, --max-cv and --min-efficiency: the sweep runs to its end with every row kept, the
# documents are complete, and the side that set the gate exits 1 naming the first size
# that failed it and how many did; through the closing agreement the other side exits 1
# too, naming the gate as the peer's verdict. A gate that holds exits 0 on both.
source "$(dirname "$0")/lib.sh"

# The client alone sets the gate.
P=$((P + 1))
"$SB" -p "$P" --json "$T/s.json" >"$T/srv.out" 2>"$T/srv.err" &
SRV=$!
timeout 120 "$SB" -p "$P" -s 64K,1M -n 50 --min-bw 100000 --json "$T/g.json" 127.0.0.1 >"$T/cli.out" 2>"$T/cli.err"
CRC=$?
wait "$SRV"
SRC=$?
SRV=
expect_rc "client, --min-bw 100000" "$CRC" 1
expect_rc "server (no gate of its own: the client's verdict)" "$SRC" 1
expect_grep "$T/cli.err" "gate --min-bw 100000 failed at 65536 bytes: bandwidth [0-9.]+ Gb/s \(2 sizes failed\)"
expect_grep "$T/srv.err" "the client \(127.0.0.1:[0-9]+\) judged the run failed: gate --min-bw 100000 failed at 65536 bytes"
python3 -c '
import json, sys
for p in sys.argv[1:]:
    d = json.load(open(p))
    assert d["complete"] and len(d["results"]) == 2, (p, d)
' "$T/g.json" "$T/s.json" || fail "the gated run's documents are not complete with both rows"
echo "ok: $(head -n 1 "$T/cli.err")"

pair -s 64K -n 50 --min-bw 0.001
expect_rc "client, --min-bw 0.001 (holds)" "$CRC" 0
expect_rc "server, the client's --min-bw 0.001 (holds)" "$SRC" 0

pair --ping-pong -s 64,4K -n 300 --max-lat-p99 0.001
expect_rc "client, --max-lat-p99 0.001" "$CRC" 1
expect_grep "$T/cli.err" "gate --max-lat-p99 0.001 failed at 64 bytes: p99 latency [0-9.]+ us \(2 sizes failed\)"
echo "ok: $(head -n 1 "$T/cli.err")"
pair --ping-pong -s 64 -n 300 --max-lat-p99 1000000
expect_rc "client, --max-lat-p99 1000000 (holds)" "$CRC" 0

# --max-cv judges the spread of a size's repeats (--repeat): a CV no run reaches fails it.
pair -s 4K,64K -n 50 --repeat 3 --max-cv 0.0001 --json "$T/cv.json"
expect_rc "client, --repeat 3 --max-cv 0.0001" "$CRC" 1
expect_grep "$T/cli.err" "gate --max-cv 0.0001 failed at 4096 bytes: CV over the repeats [0-9.e-]+ % \(2 sizes failed\)"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
rows = [r for r in d["results"] if r["repeat"] == "all"]
assert d["complete"] and len(d["results"]) == 8 and len(rows) == 2, d
assert all(r["unstable"] and r["bw_avg_gbps_cv_pct"] > 0.0001 for r in rows), rows
' "$T/cv.json" || fail "the --max-cv run's document lacks its repeats or its unstable marks"
echo "ok: $(head -n 1 "$T/cli.err")"
pair -s 64K -n 50 --repeat 2 --max-cv 1000
expect_rc "client, --max-cv 1000 (holds)" "$CRC" 0
# A server's --max-cv waits for its client's --repeat; a server's --interval refuses it.
P=$((P + 1))
"$SB" -p "$P" --max-cv 1000 >"$T/srv.out" 2>"$T/srv.err" &
SRV=$!
timeout 120 "$SB" -p "$P" -s 64K -n 50 --repeat 2 127.0.0.1 >"$T/cli.out" 2>"$T/cli.err"
CRC=$?
wait_server
expect_rc "client --repeat 2 of a server with --max-cv alone" "$CRC" 0
expect_rc "server with --max-cv alone, its client's --repeat taken" "$SRC" 0
P=$((P + 1))
"$SB" -p "$P" --interval 1 >"$T/srv.out" 2>"$T/srv.err" &
SRV=$!
timeout 120 "$SB" -p "$P" -s 64K -n 50 --repeat 2 127.0.0.1 >"$T/cli.out" 2>"$T/cli.err"
CRC=$?
kill "$SRV" 2>/dev/null
wait "$SRV" 2>/dev/null
SRV=
expect_rc "client --repeat 2 of a server with --interval" "$CRC" 2
expect_grep "$T/cli.err" "refused this run: --repeat 2 with --interval: choose one"
echo "ok: $(head -n 1 "$T/cli.err")"
# A gate whose figure no row has judged nothing: that is not a pass (socket_bw has no wire share).
pair -s 64K -n 50 --min-efficiency 10
expect_rc "client, --min-efficiency on socket_bw" "$CRC" 1
expect_grep "$T/cli.err" "gate --min-efficiency 10 judged nothing: no row of this run has its figure \(wire_eff_pct\)"
echo "ok: $(head -n 1 "$T/cli.err")"

expect_usage "$SB" "--max-cv 5 needs --repeat N \(N >= 2\): the CV is taken over a size's repeats" --max-cv 5 127.0.0.1
expect_usage "$SB" "invalid value '101' for --repeat: out of range \(allowed: an integer from 1 to 100\)" --repeat 101
expect_usage "$SB" "--repeat 3 with --interval: choose one" --repeat 3 --interval 1 127.0.0.1
expect_usage "$SB" "invalid value 'x' for --min-bw \(allowed: a number from 0 to 100000\)" --min-bw x
pass "gates: exit 1 with the offending size on both sides, documents complete"
