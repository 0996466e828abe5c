#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# --pattern incast:3 of rc_write_bw over real rxe devices under mpirun: four "nodes" on
# one host, each rank with an rxe device on a veth port of one bridge. Rank 0's port is
# shaped (netem's rate on the bridge side of its veth: what reaches rank 0), far below
# what three flows of the guest reach: in the round where rank 0 receives, the three
# flows' aggregate (every byte over the union of their windows) is within 15 % of the
# shaped rate (less what RoCE's headers take), their
# fairness index near 1, all three measured at once, and the round's line gives the
# model (the wire's rate over O = 3) and a verdict. Then rank 3's own transmit is
# throttled as well: in that round its flow is the one named starved, in text and in
# the document. With 2 % loss on rank 0's receive path instead, rank 0's own counters
# (its servers' rows) show the drops and the round names it. Unshaped, bisection runs its two flows at once (their spans overlap),
# all-to-all every ordered pair, ring rank i to i + 1 at once, each with --verify.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/../lib/fabric.sh"
command -v mpirun >/dev/null || fail "mpirun is missing (tools/bootstrap --test installs openmpi-bin)"
rxe_bridge rbpbr rbp rbpat 4
RD=$(dirname "$0")/../lib/rank_dev.sh
RATE_MBIT=60
tc qdisc add dev rbp0b root netem rate ${RATE_MBIT}mbit || fail "cannot add netem to rbp0b"

# run NAME: incast:3 of 16 KiB WRITEs, 2 s a flow, 8 in flight a sender (what waits in the
# shaped queue drains within -D's grace: 128 x 64 KiB from each of three took 6 s); the
# document to NAME.json.
run() {
	timeout 300 "${MPIRUN[@]}" -np 4 "$RD" rbpat 1 "$BW" --pattern incast:3 -s 16K -t 8 -D 2 \
		--json "$T/$1.json" >"$T/$1.out" 2>"$T/$1.err"
	expect_rc "mpirun rc_write_bw --pattern incast:3 ($1)" "$?" 0
}

run shaped
python3 - "$T/shaped.json" "$T/shaped.out" "$RATE_MBIT" <<'PY' || fail "the shaped incast is not what the shaping allows"
import json, re, sys
d = json.load(open(sys.argv[1]))
text, rate = open(sys.argv[2]).read(), float(sys.argv[3]) / 1000
assert d["complete"], d.get("error")
r1 = [r for r in d["results"] if r["round"] == 1]
assert sorted(r["client_rank"] for r in r1) == [1, 2, 3] and {r["server_rank"] for r in r1} == {0}, r1
assert max(r["flow_start_unix_s"] for r in r1) < min(r["flow_end_unix_s"] for r in r1), "not at once"
pr = d["outliers"]["pattern"]["rounds"][0]
# payload over the wire: 4096-byte packets with their Ethernet, IP, UDP, BTH and ICRC headers
eta = 4096 / (4096 + 14 + 20 + 8 + 12 + 4 + 4)
want = rate * eta
# every byte of the round over the union of its flows' windows (a sum of the flows' own
# rates is not the port's: a flow that started 1 s before the others had the port alone)
assert abs(pr["aggregate"] - want) <= 0.15 * want, (pr["aggregate"], want)
assert pr["jain"] > 0.9, pr
assert pr["oversubscription"] == 3 and pr["model_per_flow"] > 0, pr
assert pr["receivers_counted"] == 1, pr  # rank 0's servers passed their rows: one port
assert re.search(r"^ round 1, incast:3: 3 flows through the receiver, rank 0 .*fairness (0\.9|1\.0)", text, re.M), text
assert re.search(r"^   model: [0-9.]+ Gb/s a flow \([0-9.]+ Gb/s of wire over O = 3 flows", text, re.M), text
assert re.search(r"^   verdict: ", text, re.M), text
print(f"incast:3 into rank 0 shaped at {rate * 1000:.0f} Mb/s: aggregate {pr['aggregate'] * 1000:.1f} Mb/s "
      f"(want {want * 1000:.1f} within 15 %), fairness {pr['jain']:.3f}; verdict: {pr['verdict']}")
PY

# A victim: rc_write_lat from rank 1 to rank 0, alone first, then beside each round. Beside
# round 1 its WRITEs queue in rank 0's shaped port behind three flows' data: its p99 rises.
# -D 6: this guest takes 2.5 s to start the victim's executable, which the flows, forked,
# do not, and the victim must measure while they run.
timeout 300 "${MPIRUN[@]}" -np 4 "$RD" rbpat 1 "$BW" --pattern incast:3 -s 16K -t 8 -D 6 --victim 0:1 \
	--json "$T/victim.json" >"$T/victim.out" 2>"$T/victim.err"
expect_rc "mpirun rc_write_bw --pattern incast:3 --victim 0:1" "$?" 0
python3 - "$T/victim.json" "$T/victim.out" <<'PY' || fail "the victim's figures: $(cat "$T/victim.err")$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["outliers"].get("victim")); [print(r["round"], r["client_rank"], r["flow_start_unix_s"], r["flow_end_unix_s"]) for r in d["results"]]' "$T/victim.json")"
import json, re, sys
d = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
assert d["complete"], d.get("error")
v = d["outliers"]["victim"]
assert (v["server_rank"], v["client_rank"], v["tool"]) == (0, 1, "rc_write_lat"), v
idle, r1 = v["idle"], v["rounds"][0]
assert idle["error"] is None and 0 < idle["lat_p50_us"] <= idle["lat_p99_stretch_median_us"], v
# Its figures beside round 1 are from its stretches inside the flows' window: queued
# behind the incast in rank 0's shaped port, its tail is far above the idle one.
assert r1["round"] == 1 and r1["error"] is None and r1["stretches"] >= 2, v
assert r1["lat_p99_stretch_median_us"] > 2 * idle["lat_p99_stretch_median_us"], v
assert abs(r1["p99_vs_idle"] - r1["lat_p99_stretch_median_us"] / idle["lat_p99_stretch_median_us"]) < 0.01, r1
# The flows' rows keep the pattern's round numbers, and no victim row is among them.
assert sorted({r["round"] for r in d["results"]}) == [1, 2, 3, 4], {r["round"] for r in d["results"]}
assert all("victim" not in r for r in d["results"]), d["results"][:2]
assert re.search(r"^ victim rank 1 .* -> rank 0 .* \(rc_write_lat, 2 B\), alone: p50 [0-9.]+ us, p99 [0-9.]+ us", text, re.M), text
assert re.search(r"^ victim beside round 1: p50 [0-9.]+ us, p99 [0-9.]+ us: p99 x [0-9.]+ of its idle", text, re.M), text
print("victim rank 1 -> 0: idle p50 %.1f p99 %.1f us; beside round 1 p50 %.1f p99 %.1f us (x %.1f; %d stretches, %.0f %% of the flows' window)"
      % (idle["lat_p50_us"], idle["lat_p99_stretch_median_us"], r1["lat_p50_us"], r1["lat_p99_stretch_median_us"], r1["p99_vs_idle"], r1["stretches"], 100 * r1["coverage"]))
print(text)
PY

# Rank 3's own transmit throttled far below its share: the starved flow of round 1.
tc qdisc add dev rbp3 root netem rate 5mbit || fail "cannot add netem to rbp3"
run starved
python3 - "$T/starved.json" "$T/starved.out" <<'PY' || fail "rank 3's throttled flow is not the one named starved"
import json, re, sys
d = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
pr = d["outliers"]["pattern"]["rounds"][0]
assert [(s["client_rank"], s["server_rank"]) for s in pr["starved"]] == [(3, 0)], pr
assert pr["jain"] < 0.9, pr
line = re.search(r"^   starved: rank 3 \([^)]*\) -> rank 0 \([^)]*\): [0-9.]+ Gb/s, 0\.[0-4][0-9] of the round's mean", text, re.M)
assert line, text
print(line.group(0).strip(), f"| fairness {pr['jain']:.3f}")
PY

# Rank 0's receive path drops 2 % instead: its own port's counters (its server legs' rows)
# see the gaps, and the round names it as the receiver that dropped.
tc qdisc del dev rbp3 root
tc qdisc replace dev rbp0b root netem loss 2% || fail "cannot add netem loss to rbp0b"
run lossy
python3 - "$T/lossy.json" "$T/lossy.out" <<'PY' || fail "the receiver's drops did not reach the round's verdict"
import json, re, sys
d = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
pr = d["outliers"]["pattern"]["rounds"][0]
assert pr["receivers_counted"] == 1 and pr["receiver_loss_events"] > 0 and pr["worst_receiver_rank"] == 0, pr
assert pr["verdict"].startswith("loss: ") and "at the receivers" in pr["verdict"], pr["verdict"]
line = re.search(r"^   receiver rank 0 \([^)]*\): [1-9][0-9]* drops or out-of-sequence arrivals", text, re.M)
assert line, text
print(line.group(0).strip(), "|", pr["verdict"])
PY

# Unshaped: the other patterns' flows, each verified.
tc qdisc del dev rbp0b root
# -D 1 where the flows' overlap is checked (a -n flow of 4 KiB messages is over in
# milliseconds, less than the ranks' start skew), -n for all-to-all's 12 flows.
for p in "bisection -D 1" "all-to-all -n 50" "ring -D 1"; do
	# shellcheck disable=SC2086 # the pattern and its length, two words
	timeout 300 "${MPIRUN[@]}" -np 4 "$RD" rbpat 1 "$BW" --pattern $p -s 4K --verify \
		--json "$T/${p%% *}.json" >"$T/${p%% *}.out" 2>"$T/${p%% *}.err"
	expect_rc "mpirun rc_write_bw --pattern $p" "$?" 0
done
python3 - "$T" <<'PY' || fail "a pattern over rxe ran other flows than it defines"
import json, sys
def rows(p):
    d = json.load(open(f"{sys.argv[1]}/{p}.json"))
    assert d["complete"], (p, d.get("error"))
    return d["results"]
def ends(rs):
    return sorted((r["client_rank"], r["server_rank"]) for r in rs)
def at_once(rs, what):
    assert max(r["flow_start_unix_s"] for r in rs) < min(r["flow_end_unix_s"] for r in rs), f"{what}: not at once"
b = rows("bisection")
assert {r["round"] for r in b} == {1} and ends(b) == [(0, 2), (1, 3)], ends(b)
at_once(b, "bisection")
a = rows("all-to-all")
assert ends(a) == [(c, s) for c in range(4) for s in range(4) if c != s], ends(a)
r = rows("ring")
assert ends(r) == [(i, (i + 1) % 4) for i in range(4)], ends(r)
at_once(r, "ring")
print("over rxe: bisection 0,1 -> 2,3 at once; all-to-all 12 flows; ring 4 flows at once; every flow verified")
PY
pass "--pattern over rxe: incast:3's shaped receiver shared fairly, a throttled sender named starved; bisection, all-to-all and ring run their flows"
