#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# --pattern under Open MPI's mpirun, 4 ranks on this host, socket_bw over loopback: what
# 4 ranks cannot run is exit 2 before anything waits; incast:3, bisection (with
# --permute), all-to-all and ring run the flows their definitions say, every flow of a
# round at once (their spans on the wall clock overlap), each verified; each round's
# line and the documents' pattern block hold the sum and Jain's index of that round's
# rows; loopback's own byte counter saw at least what the rows say moved; every flow's
# server passed its rows too (each receiving rank counted once).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/../lib/fabric.sh"
command -v mpirun >/dev/null || fail "mpirun is missing (tools/bootstrap --test installs openmpi-bin)"
lo_bytes() { awk '$1 == "lo:" { print $2 }' /proc/net/dev; }

expect_usage "$SB" "invalid value 'incast:0' for --pattern.*incast:K" --pattern incast:0
expect_usage "$SB" "invalid value 'star' for --pattern" --pattern star
expect_usage "$SB" "--permute 2 goes with --pattern bisection only" --pattern ring --permute 2
expect_usage "$SB" "--pairs with --pattern" --pattern ring --pairs ring
expect_usage "$SB" "--pattern takes no server host \(127.0.0.1\)" --pattern ring 127.0.0.1

# run NAME ARGS...: mpirun -np 4 socket_bw ARGS, the document to NAME.json; sets RC.
run() {
	local name=$1
	shift
	timeout 120 "${MPIRUN[@]}" -np 4 "$SB" "$@" --json "$T/$name.json" >"$T/$name.out" 2>"$T/$name.err"
	RC=$?
}

run k5 --pattern incast:4 -s 64K -n 10
expect_rc "mpirun (incast:4 of 4 ranks)" "$RC" 2
expect_grep "$T/k5.err" "--pattern incast:4 needs at least 5 ranks \(K \+ 1\); the launcher started 4"

b0=$(lo_bytes)
run incast --pattern incast:3 -s 64K -D 1 --verify
b1=$(lo_bytes)
expect_rc "mpirun (incast:3)" "$RC" 0
run bisect --pattern bisection --permute 3 --seed 5 -s 64K -D 1 --verify
expect_rc "mpirun (bisection)" "$RC" 0
run a2a --pattern all-to-all -s 64K -n 200 --verify
expect_rc "mpirun (all-to-all)" "$RC" 0
run ring --pattern ring -s 64K -D 1 --verify
expect_rc "mpirun (ring)" "$RC" 0
for p in incast bisect ring; do
	expect_grep "$T/$p.out" "^ round 1, [a-z:0-9-]+: [0-9]+ flows.* sum [0-9.]+ Gb/s, min [0-9.]+, max [0-9.]+, fairness [0-9.]+"
done
expect_grep "$T/incast.out" "^ round 2, incast:3: 3 flows through the receiver, rank 1 "

python3 - "$T" "$((b1 - b0))" <<'PY' || fail "the patterns' flows are not what their definitions say"
import json, sys, re
T, lo = sys.argv[1], int(sys.argv[2])

def load(name):
    d = json.load(open(f"{T}/{name}.json"))
    assert d["complete"], d.get("error")
    rows = d["results"]
    for r in rows:
        assert r["verify"] is True and r["bytes"] == r["msgs"] * r["size_bytes"] and r["msgs"] > 0, r
    return d, rows

def by_round(rows):
    out = {}
    for r in rows:
        out.setdefault(r["round"], []).append(r)
    return out

def at_once(flows, what):
    # every flow of the round measured while every other did: the latest start before the earliest end
    start = max(r["flow_start_unix_s"] for r in flows)
    end = min(r["flow_end_unix_s"] for r in flows)
    assert start < end, (what, [(r["flow_start_unix_s"], r["flow_end_unix_s"]) for r in flows])
    return end - start

def block_agrees(d, rounds):
    pat = d["outliers"]["pattern"]
    assert pat["name"] == d["meta"]["pattern"], (pat["name"], d["meta"]["pattern"])
    assert len(pat["rounds"]) == len(rounds), pat
    for pr in pat["rounds"]:
        xs = [r["bw_avg_gbps"] for r in rounds[pr["round"]]]
        assert pr["flows"] == len(xs) and pr["measured"] == len(xs) and pr["failed"] == 0, pr
        jain = sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs))
        assert abs(pr["sum"] - sum(xs)) < 1e-3 * sum(xs) and abs(pr["jain"] - jain) < 1e-4, (pr, xs, jain)
        # the block holds 6 significant digits
        assert abs(pr["min"] - min(xs)) < 1e-5 * max(xs) and abs(pr["max"] - max(xs)) < 1e-5 * max(xs), pr
        # the aggregate: every byte over the union of the flows' windows
        fl = rounds[pr["round"]]
        agg = sum(r["bytes"] for r in fl) * 8 / 1e9 / (max(r["flow_end_unix_s"] for r in fl) - min(r["flow_start_unix_s"] for r in fl))
        assert abs(pr["aggregate"] - agg) < 2e-3 * agg, (pr, agg)
        # every flow's server passed its rows too: each receiving rank's port counted once
        assert pr["receivers_counted"] == len({r["server_rank"] for r in fl}), (pr, fl)
        assert pr["receiver_loss_events"] == 0 and pr["worst_receiver_rank"] is None, pr  # TCP: no counters
    return pat

# incast:3: 4 rounds, round r has the three other ranks sending to rank r - 1, at once.
d, rows = load("incast")
rounds = by_round(rows)
assert sorted(rounds) == [1, 2, 3, 4], sorted(rounds)
for rnd, flows in rounds.items():
    assert {r["server_rank"] for r in flows} == {rnd - 1}, (rnd, flows)
    assert sorted(r["client_rank"] for r in flows) == sorted(set(range(4)) - {rnd - 1}), (rnd, flows)
    ov = at_once(flows, f"incast round {rnd}")
pat = block_agrees(d, rounds)
assert all(pr["bottleneck"] == "receiver" and pr["bottleneck_rank"] == pr["round"] - 1 for pr in pat["rounds"]), pat
moved = sum(r["bytes"] for r in rows)
print(f"incast:3: 4 rounds of 3 flows into one rank, at once (the last round's overlap {ov:.2f} s); {moved} bytes in the rows, loopback counted {lo}")
assert lo >= moved, (lo, moved)

# bisection --permute 3: each round two flows at once, every rank in one; round 1 is 0,1 -> 2,3.
d, rows = load("bisect")
rounds = by_round(rows)
assert sorted(rounds) == [1, 2, 3], sorted(rounds)
for rnd, flows in rounds.items():
    assert len(flows) == 2, flows
    ends = [r["client_rank"] for r in flows] + [r["server_rank"] for r in flows]
    assert sorted(ends) == [0, 1, 2, 3], (rnd, ends)
    at_once(flows, f"bisection round {rnd}")
assert {(r["client_rank"], r["server_rank"]) for r in rounds[1]} == {(0, 2), (1, 3)}, rounds[1]
block_agrees(d, rounds)

# all-to-all: one round, every ordered pair once.
d, rows = load("a2a")
assert {(r["client_rank"], r["server_rank"]) for r in rows} == {(c, s) for c in range(4) for s in range(4) if c != s}
assert len(rows) == 12 and {r["round"] for r in rows} == {1}
block_agrees(d, by_round(rows))

# ring: rank i to rank i + 1, at once.
d, rows = load("ring")
assert sorted((r["client_rank"], r["server_rank"]) for r in rows) == [(i, (i + 1) % 4) for i in range(4)], rows
at_once(rows, "ring")
block_agrees(d, by_round(rows))
print("bisection (3 halvings), all-to-all (12 flows) and ring (4 flows): each round's flows as defined, at once")
PY
# --victim: socket_bw's ping-pong from rank 1 to rank 0, alone (round 0), then beside each
# of incast:3's four rounds; its figures in the document's outliers block, none among the
# flows' rows, whose rounds keep the pattern's numbers. Bad input: a rank the job lacks, no -D.
# Two sizes: the victim measures beside both (-D for each), the window spans them.
run victim --pattern incast:3 -s 4K,64K -D 1 --victim 0:1
expect_rc "mpirun (incast:3 --victim 0:1)" "$RC" 0
expect_grep "$T/victim.out" "^ victim rank 1 .* -> rank 0 .* \\(socket_bw, 8 B\\), alone: p50 [0-9.]+ us, p99 [0-9.]+ us \\(the median of [0-9]+ stretches"
expect_grep "$T/victim.out" "^ victim beside round 4: p50 [0-9.]+ us, p99 [0-9.]+ us: p99 x [0-9.]+ of its idle"
python3 - "$T/victim.json" <<'PY' || fail "the victim's document"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["complete"], d.get("error")
v = d["outliers"]["victim"]
assert (v["server_rank"], v["client_rank"], v["tool"], v["size_bytes"]) == (0, 1, "socket_bw", 8), v
assert v["idle"]["error"] is None and 0 < v["idle"]["lat_p50_us"] <= v["idle"]["lat_p99_stretch_median_us"], v
assert [r["round"] for r in v["rounds"]] == [1, 2, 3, 4], v["rounds"]
for r in v["rounds"]:
    assert r["error"] is None and 0 < r["lat_p50_us"] <= r["lat_p99_stretch_median_us"], r
    assert abs(r["p99_vs_idle"] - r["lat_p99_stretch_median_us"] / v["idle"]["lat_p99_stretch_median_us"]) < 0.01, r
    # its figures are from the stretches inside the flows' window, within its own
    assert r["stretches"] >= 1 and 0 < r["coverage"] <= 1 and r["lat_p99_stretch_median_us"] <= r["lat_p99_stretch_worst_us"], r
    # only the 0.25 s stretches inside the round's flows' window count, not its whole run (-D + 2 s)
    fl = [x for x in d["results"] if x["round"] == r["round"]]
    span = max(x["flow_end_unix_s"] for x in fl) - min(x["flow_start_unix_s"] for x in fl)
    assert r["stretches"] * 0.25 <= span + 1e-3, (r, span)
    assert r["window_start_unix_s"] < r["window_end_unix_s"], r
    # the flows' window spans both sizes (2 x -D 1): more stretches inside it than one size's 1 s holds
    assert r["stretches"] >= 5, (r, span)
assert sorted({r["round"] for r in d["results"]}) == [1, 2, 3, 4] and len(d["results"]) == 24, d["results"]
assert d["meta"]["rounds"] == 4 and d["meta"]["victim_idle_rounds"] == 1, d["meta"]
# it measures beside both sizes (-D 1 each, and 2 s more): most of the window is covered
assert all(r["coverage"] >= 0.5 for r in v["rounds"]), [r["coverage"] for r in v["rounds"]]
print("victim 1 -> 0: idle p99 %.1f us; beside rounds 1-4: %s" % (v["idle"]["lat_p99_stretch_median_us"],
      ", ".join("%.1f (%d stretches, %.0f %% of the window)" % (r["lat_p99_stretch_median_us"], r["stretches"], 100 * r["coverage"]) for r in v["rounds"])))
PY
run victim_rank --pattern incast:3 -s 64K -D 1 --victim 0:4
expect_rc "mpirun (--victim 0:4 of 4 ranks)" "$RC" 2
expect_grep "$T/victim_rank.err" "invalid value '0:4' for --victim \(allowed: two of the job's ranks, 0 to 3\)"
run victim_n --pattern incast:3 -s 64K -n 100 --victim 0:1
expect_rc "mpirun (--victim with -n)" "$RC" 2
expect_grep "$T/victim_n.err" "--victim 0:1 needs -D: the victim measures for the rounds' duration"
pass "--pattern: incast, bisection, all-to-all and ring run the flows they define, at once, each round summed"
