#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# --all-pairs of rc_write_bw over real rxe devices, launched by Open MPI's mpirun:
# four "nodes" on one host, each rank with an rxe device of its own on a veth port
# of one bridge (a switch). A full run holds every pair once each way, verified, and
# the packets the devices sent (rxe's counters, read by the test) cover the data the
# rows say moved. Then one rank's transmit path is slowed (netem on its veth's
# egress): the re-tests confirm that rank's transmit, and nothing else. Then the same
# for its first pair only (a passing spell): the slow pair is cleared, nobody named.
# A host name that does not resolve: the job completes (addresses, not names).
# Then three ranks with two rails each (-d a,b): rail i meets rail i, every pair has a
# row per rail and one for all rails (their sum), and the one slowed NIC is confirmed
# both ways.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/../lib/fabric.sh"
command -v mpirun >/dev/null || fail "mpirun is missing (tools/bootstrap --test installs openmpi-bin)"
rxe_bridge rbfbr rbf rbfab 6
RD=$(dirname "$0")/../lib/rank_dev.sh

# sent DEVS...: the sum of rxe's sent_pkts over the devices.
sent() {
	local s=0 d
	for d in "$@"; do s=$((s + $(cat "/sys/class/infiniband/$d/ports/1/hw_counters/sent_pkts"))); done
	echo "$s"
}

before=$(sent rbfab0 rbfab1 rbfab2 rbfab3)
timeout 240 "${MPIRUN[@]}" -np 4 "$RD" rbfab 1 "$BW" --all-pairs -s 64K -n 100 --verify \
	--json "$T/all.json" >"$T/all.out" 2>"$T/all.err"
expect_rc "mpirun rc_write_bw --all-pairs" "$?" 0
after=$(sent rbfab0 rbfab1 rbfab2 rbfab3)
VERIFY=1 check_pairs "$T/all.json" 4 12 6 "$T/all.out"
python3 - "$T/all.json" "$((after - before))" <<'PY' || fail "the rows and rxe's counters disagree"
import json, sys
d = json.load(open(sys.argv[1]))
rows, sent = d["results"], int(sys.argv[2])
for r in rows:
    assert r["client_device"] == "rbfab%d" % r["client_rank"] and r["server_device"] == "rbfab%d" % r["server_rank"], r
# Each WRITE of 64 KiB is 64K / MTU packets at least; the devices sent those and their ACKs.
mtu = d["results"][0].get("mtu_bytes") or 4096
need = sum(r["msgs"] * -(-r["size_bytes"] // mtu) for r in rows)
assert sent >= need, (sent, need)
print(f"rxe sent {sent} packets across the 4 devices; the rows' data needs {need}")
PY

# A guest whose host name is not in its hosts file (a UTS namespace of its own, as in
# a container): ranks publish the address of their interface, so the job completes and
# the name is only a label.
getent hosts rb-unresolvable-node >/dev/null && fail "rb-unresolvable-node resolves in the guest"
timeout 240 unshare --uts sh -c 'hostname rb-unresolvable-node && exec "$@"' sh "${MPIRUN[@]}" -np 3 "$RD" rbfab 1 \
	"$BW" --all-pairs -s 64K -n 100 --retests 0 --json "$T/unres.json" >"$T/unres.out" 2>"$T/unres.err"
expect_rc "mpirun rc_write_bw --all-pairs (a host name that does not resolve)" "$?" 0
check_pairs "$T/unres.json" 3 6 6
python3 - "$T/unres.json" <<'PY' || fail "the rows do not carry the unresolvable name as a label"
import json, sys
d = json.load(open(sys.argv[1]))
assert {r["client_host"] for r in d["results"]} == {"rb-unresolvable-node"}, d["results"][0]
print("a host name that does not resolve: every pair measured, reached on", d["meta"]["rank0_reached_on"])
PY

# Rank 3's transmit path only: netem at 30 Mb/s on the egress of its veth end (its
# receive path and every other rank untouched). Far below what the guest's other pairs
# reach (0.1 to 0.3 Gb/s, as low as 0.12 while a slowed pair runs beside them). Each
# pair runs both ways, so the three pairs where rank 3 sent are slow and the three where
# it received are not; the re-tests (3 by default) measure rank 3 sending to partners
# that measured well and confirm its transmit path, and nothing else: each partner's
# one slow pair is explained by it.
tc qdisc add dev rbf3 root netem rate 30mbit || fail "cannot add netem to rbf3"
timeout 300 "${MPIRUN[@]}" -np 4 "$RD" rbfab 1 "$BW" --all-pairs -s 64K -D 1 --json "$T/slow.json" \
	>"$T/slow.out" 2>"$T/slow.err"
expect_rc "mpirun rc_write_bw --all-pairs (rank 3's transmit slowed)" "$?" 0
check_pairs "$T/slow.json" 4 12 6
python3 - "$T/slow.json" "$T/slow.out" <<'PY' || fail "rank 3's transmit path is not the one confirmed suspect"
import json, re, sys
d = json.load(open(sys.argv[1]))
o, text = d["outliers"], open(sys.argv[2]).read()
bw = {(r["client_rank"], r["server_rank"]): r["bw_avg_gbps"] for r in d["results"]}
sent = [v for (c, s), v in bw.items() if c == 3]
others = [v for (c, s), v in bw.items() if c != 3]
assert max(sent) < 0.5 * min(others), ("rank 3 sending", sent, "the others", others)
assert o["suspects_confirmed_by_retests"] is True, o
assert [(s["rank"], s["device"], s["direction"]) for s in o["suspects"]] == [(3, "rbfab3", "transmit")], o["suspects"]
confirmed = [f for f in o["findings"] if f["verdict"] == "confirmed"]
assert len(confirmed) == 1 and confirmed[0]["retests"] == confirmed[0]["retests_slow"] == 3, confirmed
# Every re-test of rank 3 sending was slow, against partners that measured well.
mine = [x for x in o["retests"] if x["client_rank"] == 3]
assert len(mine) == 3 and all(x["slow"] for x in mine) and len({x["server_rank"] for x in mine}) >= 2, mine
assert o["retest_runs"] == len(o["retests"]), o
line = re.search(r"^ confirmed: rank 3 \([^ ]+ rbfab3\) transmit: 3 of 3 re-tests slow \(3 of 3 pairs slow in the schedule\)$", text, re.M)
assert line, text
print(line.group(0).strip(), f"| {o['retest_runs']} re-test runs in {o['retest_rounds']} rounds;",
      f"rank 3 sending at most {max(sent):.3f} Gb/s, the others at least {min(others):.3f}")
PY
grep -E "re-test|confirmed|cleared" "$T/slow.out"

# The same netem for rank 3's first pair as the sender only (removed as soon as its row
# arrives): a passing spell. That pair is slow in the schedule; the re-tests, run on a
# healthy fabric, clear every explanation of it, and nobody is named.
timeout 300 "${MPIRUN[@]}" -np 4 "$RD" rbfab 1 "$BW" --all-pairs -s 64K -D 1 --json "$T/spell.json" \
	>"$T/spell.out" 2>"$T/spell.err" &
job=$!
for ((i = 0; i < 3000; i++)); do
	grep -qE "^ +[0-9]+ +3 +[0-9]+ +65536 " "$T/spell.out" 2>/dev/null && break
	sleep 0.1
done
tc qdisc del dev rbf3 root || fail "cannot remove netem from rbf3"
wait "$job"
expect_rc "mpirun rc_write_bw --all-pairs (rank 3 slowed for its first pair)" "$?" 0
python3 - "$T/spell.json" "$T/spell.out" <<'PY' || fail "a passing spell was not cleared, or someone was named"
import json, re, sys
d = json.load(open(sys.argv[1]))
o, text = d["outliers"], open(sys.argv[2]).read()
assert d["complete"], d.get("error")
slow = [(p["client_rank"], p["server_rank"]) for p in o["slow_pairs"]]
# Rank 3's first pair as the sender is slow; the guest's noise may add others (-D 1 pairs
# at 0.1 to 0.3 Gb/s), and they are re-tested the same way.
first = min((r["round"], r["server_rank"]) for r in d["results"] if r["client_rank"] == 3)
assert (3, first[1]) in slow, ("the spell's pair", first, "slow pairs", slow)
assert o["suspects"] == [] and not [f for f in o["findings"] if f["verdict"] == "confirmed"], o["findings"]
tx = [f for f in o["findings"] if f["kind"] == "transmit" and f["rank"] == 3]
assert tx and tx[0]["verdict"] == "cleared", tx
assert re.search(r"^ cleared: rank 3 \([^ ]+ rbfab3\) transmit \(schedule: [0-9] of 3 slow; re-tests: [0-9] of [0-9] slow\)$", text, re.M), text
print(f"{len(slow)} slow pair(s) in the schedule, none confirmed: {o['retest_runs']} re-test runs in {o['retest_rounds']} rounds")
PY
grep -E "re-test|confirmed|cleared" "$T/spell.out"

# Two rails per rank (rank r: rbfab<2r>, rbfab<2r+1>), rank 2's second NIC (rbfab5) slowed
# both ways: its transmit and receive paths are confirmed (2 re-tests each, to save rounds).
tc qdisc add dev rbf5 root netem rate 100mbit || fail "cannot add netem to rbf5"
tc qdisc add dev rbf5b root netem rate 100mbit || fail "cannot add netem to rbf5b"
timeout 300 "${MPIRUN[@]}" -np 3 "$RD" rbfab 2 "$BW" --all-pairs -s 64K -D 1 --retests 2 --json "$T/rails.json" \
	>"$T/rails.out" 2>"$T/rails.err"
expect_rc "mpirun rc_write_bw --all-pairs, 2 rails" "$?" 0
python3 - "$T/rails.json" <<'PY' || fail "the rails' rows are not what they should be"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["complete"], d.get("error")
rows = d["results"]
pairs = {(r["client_rank"], r["server_rank"]) for r in rows}
assert pairs == {(a, b) for a in range(3) for b in range(3) if a != b}, pairs
for p in pairs:
    mine = [r for r in rows if (r["client_rank"], r["server_rank"]) == p]
    by = {r["rail"]: r for r in mine}
    assert sorted(by) == ["0", "1", "all"], sorted(by)
    for rail in ("0", "1"):
        r = by[rail]
        i = int(rail)
        assert r["client_device"] == "rbfab%d" % (2 * r["client_rank"] + i), r
        assert r["server_device"] == "rbfab%d" % (2 * r["server_rank"] + i), r
    a = by["all"]
    assert abs(a["bw_avg_gbps"] - by["0"]["bw_avg_gbps"] - by["1"]["bw_avg_gbps"]) < 1e-9, a
    assert a["bytes"] == by["0"]["bytes"] + by["1"]["bytes"], a
print("rails: each pair has rail 0, rail 1 and all (their sum), on the right devices")
PY
expect_grep "$T/rails.out" "^ confirmed: rank 2 \\([^ ]+ rbfab5\\) transmit: 2 of 2 re-tests slow \\(2 of 2 pairs slow in the schedule\\)"
expect_grep "$T/rails.out" "^ confirmed: rank 2 \\([^ ]+ rbfab5\\) receive: 2 of 2 re-tests slow \\(2 of 2 pairs slow in the schedule\\)"
[ "$(grep -c "^ confirmed:" "$T/rails.out")" -eq 2 ] || fail "only rank 2's rbfab5 should be confirmed"
grep -E "re-test|confirmed|cleared" "$T/rails.out"
pass "mpirun over rxe devices: every pair each way, verified, counted; a slowed transmit path confirmed by re-tests, a passing spell cleared; two rails, the slow NIC confirmed both ways"
