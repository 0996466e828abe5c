#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# fifo_pingpong --threads: N independent FIFO channels, each with its own QPs, CQs and
# thread. Every message of every channel arrives and is verified, counted by rxe (the
# server's rdma_recvs), not by the tool; -D ends each channel with its own STOP; a fault
# on channel 1 is named with its channel, and a silent channel ends the run within
# --timeout; both sides must agree on the channel count.
source "$(dirname "$0")/lib.sh"

# run_pair ARGS...: both ends with ARGS (the server takes them from the client), -v for
# the channel lines; D_RECV: the server's rdma_recvs over the run.
run_pair() {
	counters "$RB_DEV" "$T/s0"
	start_server "$FP" -v --json "$T/srv.json"
	run_client "$FP" -v "$@" --json "$T/cli.json"
	wait_server
	counters "$RB_DEV" "$T/s1"
	expect_rc "client $*" "$CRC" 0
	expect_rc "server (client: $*)" "$SRC" 0
	D_RECV=$(counter_delta "$T/s0" "$T/s1" rdma_recvs)
}

# Two channels of 2 QPs, split, verified: 2 sizes x 2 channels x 300 messages x 2 QPs,
# one receive each on the server. Each side names each channel's QPs, CQs and CPU.
run_pair --window 8 --threads 2 -q 2 --split-data-on-qps -s 4K,64K -n 300 --verify --timeout 20
[ "$D_RECV" -eq 2400 ] || fail "rxe counted $D_RECV receives on the server, expected 2400"
for t in 0 1; do
	q=$((3 * t))
	for side in cli srv; do
		expect_grep "$T/$side.err" "channel $t: QPs $q\.\.$((q + 2)) \(CTS $((q + 2))\), send CQ $t, receive CQ $t, CPU -?[0-9]+"
	done
done
python3 - "$T/srv.json" "$T/cli.json" <<'PY' || fail "documents of the 2-channel run"
import json, sys
s, c = (json.load(open(p)) for p in sys.argv[1:3])
assert s["complete"] and c["complete"], (s.get("error"), c.get("error"))
assert s["meta"]["threads"] == 2 and c["meta"]["threads"] == 2, (s["meta"], c["meta"])
for a, b in zip(s["results"], c["results"]):
    assert a["msgs"] == b["msgs"] == 600 and a["bytes"] == b["bytes"] == 600 * a["size_bytes"], (a, b)
    assert a["threads"] == b["threads"] == 2, (a["threads"], b["threads"])
    assert a["thread_gbps"] is None and a["cts_wait_pct"] is None, a
    g = [float(x) for x in b["thread_gbps"].split()]
    assert len(g) == 2 and min(g) > 0, b["thread_gbps"]
    assert abs(b["thread_gbps_min"] - min(g)) < 1e-3 * max(g) and abs(b["thread_gbps_max"] - max(g)) < 1e-3 * max(g), b
    # Each channel's time is within the step's: together they carry at least the step's rate.
    assert sum(g) >= b["bw_avg_gbps"] * 0.999, (g, b["bw_avg_gbps"])
    assert 0 <= b["cts_wait_pct"] <= 100, b["cts_wait_pct"]
PY
echo "2 channels x 2 QPs: 1200 messages verified, rxe counted $D_RECV receives on the server"

# -D: each channel ends with its own STOP (a receive of its own), and clears its unused
# CTS slots before the next size, whose sender would otherwise find a stale one.
run_pair --window 8 --threads 2 -s 4K,64K,4K -D 1 --verify --timeout 20
python3 - "$T/cli.json" "$D_RECV" <<'PY' || fail "the -D run"
import json, sys
c = json.load(open(sys.argv[1]))
assert c["complete"], c.get("error")
rows = c["results"]
assert len(rows) == 3 and all(r["msgs"] > 0 and 0.5 <= r["elapsed_s"] <= 3 for r in rows), rows
want = sum(r["msgs"] for r in rows) + 3 * 2
assert int(sys.argv[2]) == want, ("rdma_recvs", sys.argv[2], "messages + STOPs", want)
PY
echo "-D 1 x 3 sizes on 2 channels: rxe counted $D_RECV receives, the messages and a STOP per channel per size"

# A byte of channel 1's message 4 flipped by the sender (qp= is channel x 8 + request):
# the server's --verify names the channel.
start_server "$FP"
RB_TEST_FAULT=corrupt:qp=8:msg=4 run_client "$FP" --threads 2 --window 4 -s 4K -n 20 --verify --timeout 20
wait_server
expect_ends 1 1 "peer .* failed: verify on channel 1: message 4 request 0 byte [0-9]+ expected" \
	"verify on channel 1: message 4 request 0 byte [0-9]+ expected 0x[0-9a-f]{2} got 0x[0-9a-f]{2}"

# Channel 1's receiver stops posting CTS: its sender ends the run within --timeout, named.
P=$((P + 1))
RB_TEST_FAULT=cts-stop:qp=1:msg=20 timeout 120 "$FP" -d "$RB_DEV" -p "$P" >"$T/srv.out" 2>"$T/srv.err" &
SRV=$!
start=$(now_ms)
run_client "$FP" --threads 2 --window 4 -s 4K -n 100 --timeout 2
wait_server
took=$(($(now_ms) - start))
expect_ends 1 1 "no clear-to-send for 2 s on channel 1 at FIFO slot 3 \(sent 19, received 0 messages of 4096 bytes\)" \
	"peer .* failed: no clear-to-send|no message for [0-9]+ s"
expect_took "a run with a silent channel" "$took" 20

# A host that stops running both ends (a frozen guest, a starved host) is no channel's
# stall: both frozen 6 s in a verified -D 8 step of 2 channels with --timeout 2, once the
# server's rxe counts messages, past each worker's bound and the crew's (twice it): the
# step ends whole.
rm -f "$T/cli.out" "$T/srv.json" "$T/cli.json"
start_server "$FP" --json "$T/srv.json"
start_client "$FP" -v --threads 2 --window 8 -s 64K -D 8 --verify --timeout 2 --json "$T/cli.json"
wait_for "$T/cli.err" "channel 1: QPs" 60 || fail "the frozen run never started: $(cat "$T/cli.err")"
counters "$RB_DEV" "$T/f0"
for ((i = 0; i < 100; i++)); do
	counters "$RB_DEV" "$T/f1"
	[ "$(counter_delta "$T/f0" "$T/f1" rdma_recvs)" -gt 0 ] && break
	sleep 0.1
done
[ "$i" -lt 100 ] || fail "the frozen run's messages never reached the server's rxe"
spid=$(tool_pid "$SRV")
cpid=$(tool_pid "$CLI")
[ -n "$spid" ] && [ -n "$cpid" ] ||
	fail "an end of the frozen run is gone (server $spid, client $cpid): $(tail -n 5 "$T/cli.err" "$T/srv.err" "$T/cli.out")"
kill -STOP "$spid" "$cpid"
sleep 6
kill -CONT "$spid" "$cpid"
wait_client
wait_server
expect_rc "client, both ends frozen 6 s" "$CRC" 0
expect_rc "server, both ends frozen 6 s" "$SRC" 0
python3 - "$T/srv.json" "$T/cli.json" <<'PY' || fail "the frozen run's documents"
import json, sys
s, c = (json.load(open(p)) for p in sys.argv[1:3])
assert s["complete"] and c["complete"], (s.get("error"), c.get("error"))
r = c["results"][0]
assert r["msgs"] > 0 and r["msgs"] == s["results"][0]["msgs"], (r, s["results"][0])
assert r["elapsed_s"] >= 6, r  # the freeze fell inside the measured step
print("frozen 6 s: %d messages verified in %.1f s" % (r["msgs"], r["elapsed_s"]))
PY

# Both sides use the same channels: a server told otherwise refuses the client, names
# it, and waits on for a client that fits (--oob-timeout 3 here, then exit 1).
start_server "$FP" --threads 3 --oob-timeout 3
run_client "$FP" --threads 2 -s 4K -n 10
wait_server
expect_rc "client, --threads 2 against 3" "$CRC" 2
expect_grep "$T/cli.err" "param threads mismatch: local=2 remote=3"
expect_rc "server --threads 3, refused client only" "$SRC" 1
expect_grep "$T/srv.err" "refused 1 other connection\\(s\\), the last from .*: param threads mismatch: local=3 remote=2"
pass "2 channels: every message verified and counted by rxe, -D's STOPs and clearing per channel, faults named by channel, bounded, the count agreed"
