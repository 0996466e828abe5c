#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# fifo_pingpong --account on the rxe pair: each message's time cut at the protocol's
# events, the server's stamps put on the client's clock by out-of-band probes. Every
# measured message is accounted, the segments' means add up to the measured mean
# one-way latency (the round trip the engine timed is the one the stamps span), and a
# receiver that holds each CTS 200 us (RB_TEST_FAULT=cts-delay, on both ends) moves
# that time into "cts post" and nowhere else. Pipelined (--window 8), each message's
# credit loop (message m-8 posted -> CTS m seen) is cut into segments whose sum, with
# the sender's post, is the time 8 messages took by the engine's own count, and a held
# CTS lands in the receiver's turn-around (cts post). rc_write_lat --account cuts the
# raw WRITE at the same events (sender post, data flight), every round trip accounted
# and adding up to its measured latency. --account with --threads 2 is refused.
source "$(dirname "$0")/lib.sh"

# acct NAME FAULT ARGS...: a ping-pong with --account (the server takes it from the
# client), RB_TEST_FAULT=FAULT on both ends ("": none); the client's JSON in NAME.json.
acct() {
	local name=$1 fault=$2
	shift 2
	P=$((P + 1))
	env ${fault:+RB_TEST_FAULT=$fault} timeout 120 "$FP" -d "$RB_DEV" -p "$P" >"$T/srv.out" 2>"$T/srv.err" &
	SRV=$!
	env ${fault:+RB_TEST_FAULT=$fault} timeout 120 "$FP" -d "$RB_DEV_PEER" -p "$P" --account \
		--json "$T/$name.json" "$@" 127.0.0.1 >"$T/$name.out" 2>"$T/cli.err"
	CRC=$?
	wait_server
	expect_rc "client ($name)" "$CRC" 0
	expect_rc "server ($name)" "$SRC" 0
}

acct plain "" --window 1 -s 8,4K -n 2000 --warmup 100
expect_grep "$T/plain.out" "^ account of 4000 messages \(the clocks within \+-[0-9.]+ us: offset -?[0-9.]+ us, drift -?[0-9.]+ ppm\)"
for seg in "peer busy" "cts post" "cts flight" "sender post" "data flight" "rx completion"; do
	expect_grep "$T/plain.out" "^   $seg +[-0-9.]+ +[-0-9.]+ +[-0-9.]+$"
done
acct held cts-delay --window 1 -s 8 -n 1000 --warmup 100
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

# Pipelined: 64 KiB and 8 B at window 8, then 8 B with every CTS held.
acct pipe "" --window 8 -s 64K,8 -n 1000
expect_grep "$T/pipe.out" "^   credit loop, message m - 8 handed to the NIC -> CTS m seen:$"
for seg in "data flight" "rx completion" "cts post" "sender posting" "sender busy" "cts flight" "sender post"; do
	expect_grep "$T/pipe.out" "^   $seg +[-0-9.]+ +[-0-9.]+ +[-0-9.]+$"
done
expect_grep "$T/pipe.out" "^   = loop +[0-9.]+ +[0-9.]+ +[0-9.]+   \(mostly [a-z ]+: [0-9]+ % of its mean\)$"
acct pipeheld cts-delay --window 8 -s 8 -n 1000
python3 - "$T/pipe.json" "$T/pipeheld.json" <<'PY' || fail "the pipelined account"
import json, sys
pipe = json.load(open(sys.argv[1]))["results"]
held = json.load(open(sys.argv[2]))["results"][0]
loop = ["data_flight", "rx_completion", "cts_post", "sender_posting", "sender_busy", "cts_flight"]
for r in pipe + [held]:
    err = r["acct_clock_err_us"]
    # every message past the first window has a credit loop
    assert r["acct_messages"] == r["msgs"] - r["window"], r
    assert 0 <= err < 5000, r
    assert r.get("acct_peer_busy_p50_us") is None, r
    # the loop and the sender post are the time a window of messages took, by the engine's clock
    window_us = r["window"] * r["elapsed_s"] * 1e6 / r["msgs"]
    assert abs(r["acct_sum_of_means_us"] + r["acct_unexplained_us"] - window_us) < 0.01, (window_us, r)
    assert abs(r["acct_unexplained_us"]) <= 1 + 0.02 * window_us, (window_us, r)
    for s in loop + ["sender_post"]:
        assert r["acct_%s_p50_us" % s] >= -err - 0.01 and r["acct_%s_p99_us" % s] >= r["acct_%s_p50_us" % s], (s, r)
    assert r["acct_loop_p99_us"] >= r["acct_loop_p50_us"] > 0, r
base = pipe[1]
moved = {s: held["acct_%s_p50_us" % s] - base["acct_%s_p50_us" % s] for s in loop + ["sender_post"]}
for r in pipe:
    print("%d B window 8: %d messages every %.1f us; loop p50 %.1f us: %s" % (r["size_bytes"],
          r["window"], r["acct_sum_of_means_us"], r["acct_loop_p50_us"],
          ", ".join("%s %.1f" % (s, r["acct_%s_p50_us" % s]) for s in loop)))
print("8 B, each CTS held 200 us: p50s moved by %s; a window every %.1f us (was %.1f); the sender waited "
      "for a CTS %.1f %% (was %.1f %%)" % (", ".join("%s %+.1f" % (s, moved[s]) for s in moved),
      held["acct_sum_of_means_us"], base["acct_sum_of_means_us"], held["cts_wait_pct"], base["cts_wait_pct"]))
# the receiver's held CTS are its turn-around: cts post takes at least the 200 us; the receiver
# holds its 8 CTS of a window one after the other, so a window takes 8 x 200 us at least, and
# the loop is the receiver's: the sender's own parts of it (posting, busy) are a small share
assert moved["cts_post"] >= 150, moved
assert abs(moved["sender_post"]) < 50, moved
assert held["acct_sum_of_means_us"] >= 0.9 * 8 * 200, held["acct_sum_of_means_us"]
loop_mean = held["acct_sum_of_means_us"] - held["acct_sender_post_mean_us"]
own = held["acct_sender_posting_mean_us"] + held["acct_sender_busy_mean_us"]
assert own < 0.25 * loop_mean, (own, loop_mean)
PY
# The raw WRITE: rc_write_lat --account, arrival by memory poll and by completion.
for arrival in poll imm; do
	P=$((P + 1))
	timeout 120 "$LAT" -d "$RB_DEV" -p "$P" >"$T/srv.out" 2>"$T/srv.err" &
	SRV=$!
	timeout 120 "$LAT" -d "$RB_DEV_PEER" -p "$P" --account -s 8,4K -n 1000 $([ $arrival = imm ] && echo --write-with-imm) \
		--json "$T/raw_$arrival.json" 127.0.0.1 >"$T/raw_$arrival.out" 2>"$T/cli.err"
	CRC=$?
	wait_server
	expect_rc "rc_write_lat --account ($arrival)" "$CRC" 0
	expect_rc "its server ($arrival)" "$SRC" 0
	for seg in "sender post" "data flight"; do
		expect_grep "$T/raw_$arrival.out" "^   $seg +[-0-9.]+ +[-0-9.]+ +[-0-9.]+$"
	done
done
python3 - "$T/raw_poll.json" "$T/raw_imm.json" "$T/plain.json" <<'PY' || fail "the raw WRITE's account"
import json, sys
poll, imm, fifo = (json.load(open(p))["results"] for p in sys.argv[1:])
for r in poll + imm:
    err = r["acct_clock_err_us"]
    assert r["acct_messages"] == 2 * r["iterations"], r
    assert abs(r["acct_unexplained_us"]) <= 1 + 0.02 * r["lat_mean_us"], r
    assert abs(r["acct_sum_of_means_us"] + r["acct_unexplained_us"] - r["lat_mean_us"]) < 0.01, r
    for s in ("sender_post", "data_flight"):
        assert r["acct_%s_p50_us" % s] >= -err - 0.01 and r["acct_%s_mean_us" % s] >= -err - 0.01, (s, r)
for p, i, f in zip(poll, imm, fifo):
    print("%d B one-way means: raw WRITE %.1f us (sender post %.2f, data flight %.1f; with immediate data, "
          "data flight %.1f), fifo_pingpong %.1f us (CTS wait %.1f, data flight %.1f)" % (
          p["size_bytes"], p["lat_mean_us"], p["acct_sender_post_mean_us"], p["acct_data_flight_mean_us"],
          i["acct_data_flight_mean_us"], f["lat_mean_us"],
          sum(f["acct_%s_mean_us" % s] for s in ("peer_busy", "cts_post", "cts_flight")),
          f["acct_data_flight_mean_us"]))
PY

# tools/plot draws both accounts as stacked bars, a legend entry per segment.
"$(dirname "$0")/../../tools/plot" "$T/plain.json" "$T/pipe.json" -o "$T/acct.svg" >"$T/plot.out" 2>&1 ||
	fail "tools/plot of the accounts: $(cat "$T/plot.out")"
for seg in "peer busy" "cts post" "cts flight" "sender post" "data flight" "rx completion" "sender posting" "sender busy"; do
	expect_grep "$T/acct.svg" "<title>$seg</title>"
done
expect_usage "$FP" "--account with --threads 2: the account follows one channel's credit loop \(allowed: --threads 1\)" --account --window 4 --threads 2
pass "--account: every message accounted, the segments add up to the measured latency or window, a held CTS lands in cts post"
