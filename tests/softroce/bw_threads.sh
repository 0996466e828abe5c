#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# --threads: the sends of 4 QPs over 2 posting threads, each with a block of QPs of its
# own and their send CQ. WRITE_WITH_IMM, so the server consumes one receive per message and
# checks each QP's immediate sequence: 4 x 20000 messages arrive in order, the client's
# rxe counted at least that many packets, the row says 2 threads, and the threads'
# own rates add up to no less than the total's (each thread's time is at most the
# step's). -D and -b: both sides post from 2 threads and stop at -D. A server killed
# mid-step: the threaded client exits 1 naming the cause, within its bounds.
source "$(dirname "$0")/lib.sh"
counters "$RB_DEV_PEER" "$T/p0"
# The client's document alone (the server, given the same path, would race it).
start_server "$BW" -s 64 -n 20000 -q 4 --threads 2 --write-with-imm
run_client "$BW" -s 64 -n 20000 -q 4 --threads 2 --write-with-imm --json "$T/r.json" -v
wait_server
expect_rc client "$CRC" 0
expect_rc server "$SRC" 0
counters "$RB_DEV_PEER" "$T/p1"
sent=$(counter_delta "$T/p0" "$T/p1" sent_pkts)
[ "$sent" -ge 80000 ] || fail "the client's rxe sent $sent packets for 4 x 20000 messages"
for t in 0 1; do
	expect_grep "$T/cli.err" "posting thread $t: QPs $((2 * t))\.\.$((2 * t + 1)), send CQ $t, CPU [0-9]+"
done
python3 - "$T/r.json" "$RB_DEV_PEER" <<'PY' || fail "the threaded row is wrong"
import json, sys
d = json.load(open(sys.argv[1]))
r = d["results"][0]
assert d["complete"] and r["device"] == sys.argv[2] and r["msgs"] == 80000 and r["threads"] == 2, r
per = [float(x) for x in r["thread_gbps"].split()]
assert len(per) == 2 and all(x > 0 for x in per), per
assert abs(r["thread_gbps_min"] - min(per)) <= 1e-3 * max(per) and abs(r["thread_gbps_max"] - max(per)) <= 1e-3 * max(per), r
# Each thread's rate is its messages over its own time (at most the step's): their sum is at least the total's.
assert sum(per) >= r["bw_avg_gbps"] * 0.999, (per, r["bw_avg_gbps"])
print(f"4 x 20000 messages over 2 threads: {r['bw_avg_gbps']:.3f} Gb/s, the threads' own {per}")
PY
echo "the client's rxe sent $sent packets"

start_server "$BW" -s 4K -D 2 -q 2 --threads 2 -b
run_client "$BW" -s 4K -D 2 -q 2 --threads 2 -b --json "$T/d.json"
wait_server
expect_rc "client -D 2 -b" "$CRC" 0
expect_rc "server -D 2 -b" "$SRC" 0
python3 - "$T/d.json" <<'PY' || fail "the -D -b threaded row is wrong"
import json, sys
d = json.load(open(sys.argv[1]))
r = d["results"][0]
assert d["complete"] and r["threads"] == 2 and len(r["thread_gbps"].split()) == 2, r
assert 1.9 <= r["elapsed_s"] <= 4, r["elapsed_s"]
print(f"-D 2 -b: both sides on 2 threads, {r['elapsed_s']:.2f} s, {r['msgs']} messages")
PY

start_server "$BW" -s 64K -D 30 -q 2 --timeout 5
timeout 60 "$BW" -d "$RB_DEV_PEER" -p "$P" -s 64K -D 30 -q 2 --threads 2 --timeout 5 127.0.0.1 \
	>"$T/cli.out" 2>"$T/cli.err" &
CLI=$!
for ((i = 0; i < 30; i++)); do moving "$RB_DEV_PEER" && break; done
moving "$RB_DEV_PEER" || fail "the client's rxe sends nothing: $(cat "$T/cli.err")"
sleep 1
kill_server
wait "$CLI"
expect_rc "client whose server died" $? 1
wait_server
grep -qE "completion error|no send completion|out-of-band|peer" "$T/cli.err" ||
	fail "the client's error names no cause: $(cat "$T/cli.err")"
echo "server killed: $(grep -m1 -E 'error|peer' "$T/cli.err")"
pass "--threads: 2 posting threads carry every message in order, report their own rates, stop at -D and fail with a cause"
