#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SIGINT in the middle of a long size keeps it: the client's documents and table end
# with a row marked partial holding its own figures up to the signal (bytes the port's
# own counter confirms were sent), the run still says it is incomplete; a
# --run-infinitely run stopped by SIGINT ends with its total; rc_write_lat keeps the
# round trips it measured.
source "$(dirname "$0")/lib.sh"

# interrupt TOOL WAIT_PATTERN SECONDS ARGS...: a client, SIGINT SECONDS after WAIT_PATTERN
# shows in its stdout; both ends waited for (CRC, SRC). The server also gets $SRV_ARGS, the
# client $CLI_ARGS (its documents: the server's own would race them onto the same path).
interrupt() {
	local tool=$1 pat=$2 after=$3
	shift 3
	start_server "$tool" ${SRV_ARGS:-} "$@"
	start_client "$tool" ${CLI_ARGS:-} "$@"
	wait_for "$T/cli.out" "$pat" 60 || fail "$(basename "$tool") never showed '$pat': $(cat "$T/cli.err")"
	sleep "$after"
	kill -INT "$CLI"
	wait_client
	wait_server
	expect_rc "client (SIGINT)" "$CRC" 130
	expect_rc "server (its client interrupted)" "$SRC" 1
}

# 1. A 20 s size cut at about 3 s: its row, partial, with the bytes it sent.
counters "$RB_DEV_PEER" "$T/c0"
CLI_ARGS="--csv $T/bw.csv --json $T/bw.json" interrupt "$BW" "^-{20}" 3 -s 64K -D 20
counters "$RB_DEV_PEER" "$T/c1"
sent=$(counter_delta "$T/c0" "$T/c1" sent_pkts)
expect_grep "$T/cli.out" "partial row: SIGINT [0-9.]+ s into the 65536-byte size; this side's own figures, never agreed with the server"
expect_grep "$T/cli.err" "interrupted by SIGINT"
table_rows "$T/cli.out" | grep -qE "^ +65536 " || fail "the partial size has no row in the table"
python3 - "$T/bw.csv" "$T/bw.json" "$sent" <<'PY' || fail "the partial row is wrong"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
doc = json.load(open(sys.argv[2]))
sent_pkts = int(sys.argv[3])
assert doc["complete"] is False and "SIGINT" in doc["error"], doc.get("error")
assert len(rows) == 2 and rows[-1]["error"], rows  # the partial row, then the error row
r = rows[0]
j = doc["results"][-1]
assert r["partial"] == "1" and j["partial"] is True, (r, j)
el, b, bw = float(r["elapsed_s"]), int(r["bytes"]), float(r["bw_avg_gbps"])
assert 1.0 < el < 15.0, el                     # cut near 3 s of a 20 s size
assert b > 0 and b % 65536 == 0, b
assert abs(bw - b * 8 / el / 1e9) <= 1e-6 * bw, (bw, b, el)
# The port's own counter: every byte went out in packets of at most the path MTU.
mtu = int(r["mtu_bytes"])
assert sent_pkts >= b // mtu, (sent_pkts, b, mtu)
print(f"partial: {b} B in {el:.2f} s = {bw:.3f} Gb/s; port sent {sent_pkts} packets (>= {b // mtu})")
PY

# 2. --run-infinitely: SIGINT after two interval rows; the last row is the total.
SRV_ARGS=--allow-infinite CLI_ARGS="--csv $T/inf.csv" interrupt "$BW" "^ +65536 .* 1\.0-2\.0" 0.5 -s 64K \
	--run-infinitely --interval 1
expect_grep "$T/cli.out" "partial row: SIGINT"
python3 - "$T/inf.csv" <<'PY' || fail "--run-infinitely's total is wrong (above); its rows: $(cut -d, -f15,16 "$T/inf.csv" | tail -n 5 | tr '\n' ' ')"
import csv, sys
sys.stderr = sys.stdout  # the failed assertion beside the test's own lines
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["size_bytes"]]
ivl = [r for r in rows if r["interval"] != "total"]
tot = rows[-1]
assert tot["interval"] == "total" and tot["partial"] == "1", tot
assert len(ivl) >= 2 and all(r["partial"] == "0" for r in ivl), ivl
# The total covers every interval row: at least their bytes, from time 0.
assert int(tot["bytes"]) >= sum(int(r["bytes"]) for r in ivl), (tot["bytes"], [r["bytes"] for r in ivl])
assert float(tot["t_start_s"]) == 0 and float(tot["elapsed_s"]) >= float(ivl[-1]["t_end_s"]) - 0.01
print(f"total after {len(ivl)} intervals: {tot['bytes']} B in {float(tot['elapsed_s']):.2f} s")
PY

# 3. rc_write_lat: the round trips measured before the signal.
CLI_ARGS="--csv $T/lat.csv" interrupt "$LAT" "^-{20}" 2 -s 8 -D 20
python3 - "$T/lat.csv" <<'PY' || fail "rc_write_lat's partial row is wrong"
import csv, sys
r = [r for r in csv.DictReader(open(sys.argv[1])) if r["size_bytes"]][-1]
assert r["partial"] == "1" and int(r["iterations"]) > 0, r
assert 0 < float(r["lat_p50_us"]) <= float(r["lat_p99_us"]) <= float(r["lat_max_us"]), r
assert 0.5 < float(r["elapsed_s"]) < 15, r["elapsed_s"]
print(f"rc_write_lat partial: {r['iterations']} round trips, p50 {r['lat_p50_us']} us")
PY
pass "SIGINT keeps the size in progress as a partial row, and --run-infinitely's total"
