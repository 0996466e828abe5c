#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# fifo_pingpong --account on the rxe pair: each message's time cut at the protocol's
# events, the server's stamps put on the client's clock by out-of-band probes. Every
# measured message is accounted, the segments' means add up to the measured mean
# one-way latency (the round trip the engine timed is the one the stamps span), and a
# receiver that holds each CTS 200 us (RB_TEST_FAULT=cts-delay, on both ends) moves
# that time into "cts post" and nowhere else. --account with --window > 1 is refused.
source "$(dirname "$0")/lib.sh"

# acct NAME FAULT ARGS...: a ping-pong with --account (the server takes it from the
# client), RB_TEST_FAULT=FAULT on both ends ("": none); the client's JSON in NAME.json.
acct() {
	local name=$1 fault=$2
	shift 2
	P=$((P + 1))
	env ${fault:+RB_TEST_FAULT=$fault} timeout 120 "$FP" -d "$RB_DEV" -p "$P" >"$T/srv.out" 2>"$T/srv.err" &
	SRV=$!
	env ${fault:+RB_TEST_FAULT=$fault} timeout 120 "$FP" -d "$RB_DEV_PEER" -p "$P" --window 1 --account \
		--json "$T/$name.json" "$@" 127.0.0.1 >"$T/$name.out" 2>"$T/cli.err"
	CRC=$?
	wait_server
	expect_rc "client ($name)" "$CRC" 0
	expect_rc "server ($name)" "$SRC" 0
}

acct plain "" -s 8,4K -n 2000 --warmup 100
expect_grep "$T/plain.out" "^ account of 4000 messages \(the clocks within \+-[0-9.]+ us: offset -?[0-9.]+ us, drift -?[0-9.]+ ppm\)"
for seg in "peer busy" "cts post" "cts flight" "sender post" "data flight" "rx completion"; do
	expect_grep "$T/plain.out" "^   $seg +[-0-9.]+ +[-0-9.]+ +[-0-9.]+$"
done
acct held cts-delay -s 8 -n 1000 --warmup 100
python3 - "$T/plain.json" "$T/held.json" <<'PY' || fail "the account"
import json, sys
plain = json.load(open(sys.argv[1]))["results"]
held = json.load(open(sys.argv[2]))["results"][0]
segs = ["peer_busy", "cts_post", "cts_flight", "sender_post", "data_flight", "rx_completion"]
for r in plain + [held]:
    err = r["acct_clock_err_us"]
    # every measured round trip, both its messages
    assert r["acct_messages"] == 2 * r["iterations"], r
    assert 0 <= err < 5000, r
    # the segments' means add up to the measured one-way mean: what the stamps do not span is
    # the engine's own few instructions around them
    assert abs(r["acct_unexplained_us"]) <= 1 + 0.02 * r["lat_mean_us"], r
    assert abs(r["acct_sum_of_means_us"] + r["acct_unexplained_us"] - r["lat_mean_us"]) < 0.01, r
    for s in segs:
        # the cross-clock segments may read below 0 by the clocks' band, no more
        assert r["acct_%s_p50_us" % s] >= -err - 0.01 and r["acct_%s_p99_us" % s] >= r["acct_%s_p50_us" % s], (s, r)
base = plain[0]
moved = {s: held["acct_%s_p50_us" % s] - base["acct_%s_p50_us" % s] for s in segs}
print("8 B: one-way %.1f us, account %s; clocks +-%.1f us" % (base["lat_mean_us"],
      ", ".join("%s %.1f" % (s, base["acct_%s_p50_us" % s]) for s in segs), base["acct_clock_err_us"]))
print("each CTS held 200 us: one-way %.1f us; p50s moved by %s" % (held["lat_mean_us"],
      ", ".join("%s %+.1f" % (s, moved[s]) for s in segs)))
# the held 200 us are in "cts post", and no other segment moved by half of it
assert 150 <= moved["cts_post"] <= 300, moved
assert all(abs(v) < 100 for s, v in moved.items() if s != "cts_post"), moved
PY
expect_usage "$FP" "--account is for --window 1 \(a ping-pong's messages\); --window 4 gives the sender's CTS wait share \(cts_wait_pct\)" --account --window 4
pass "--account: every message accounted, the segments add up to the measured latency, a held CTS lands in cts post"
