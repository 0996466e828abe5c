#!/bin/bash
# --all-pairs of rc_write_bw over real rxe devices, launched by Open MPI's mpirun:
# four "nodes" on one host, each rank with an rxe device of its own on a veth port
# of one bridge (a switch). A full run holds every pair once, verified, and the
# packets the devices sent (rxe's counters, read by the test) cover the data the
# rows say moved. Then one rank's link is slowed (netem rate on both ends of its
# veth): rank 0 names its three pairs slow and that rank, with its device, the suspect.
# Then three ranks with two rails each (-d a,b): rail i meets rail i, every pair has a
# row per rail and one for all rails (their sum), and the one slowed NIC is named.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/../lib/fabric.sh"
command -v mpirun >/dev/null || fail "mpirun is missing (tools/bootstrap --test installs openmpi-bin)"
BR=rbfbr
cleanup() {
	for i in 0 1 2 3 4 5; do
		rdma link delete "rbfab$i" 2>/dev/null
		ip link delete "rbf$i" 2>/dev/null
	done
	ip link delete "$BR" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
ip link add "$BR" type bridge || fail "cannot create a bridge (module bridge)"
ip link set "$BR" up
for i in 0 1 2 3 4 5; do
	ip link add "rbf$i" type veth peer name "rbf${i}b" || fail "cannot create veth rbf$i"
	sysctl -qw "net.ipv6.conf.rbf$i.accept_dad=0" "net.ipv6.conf.rbf${i}b.accept_dad=0"
	ip link set "rbf${i}b" master "$BR"
	ip link set "rbf$i" mtu 4500 up
	ip link set "rbf${i}b" mtu 4500 up
	rdma link add "rbfab$i" type rxe netdev "rbf$i" || fail "cannot add rxe on rbf$i"
done
for i in 0 1 2 3 4 5; do
	wait_for "/sys/class/infiniband/rbfab$i/ports/1/state" ACTIVE 20 || fail "rbfab$i did not become ACTIVE"
done
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
VERIFY=1 check_pairs "$T/all.json" 4 6 3 "$T/all.out"
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

# Rank 3's link at 30 Mb/s each way: every pair through it is slow, its partners are not
# suspects. Far below what the guest's other pairs reach (0.1 to 0.3 Gb/s, as low as 0.12
# while a slowed pair runs beside them): at 100 Mb/s the slowed pairs came within 0.8 x
# the median of the others on a loaded host, and the verdict was the noise's.
tc qdisc add dev rbf3 root netem rate 30mbit || fail "cannot add netem to rbf3"
tc qdisc add dev rbf3b root netem rate 30mbit || fail "cannot add netem to rbf3b"
timeout 240 "${MPIRUN[@]}" -np 4 "$RD" rbfab 1 "$BW" --all-pairs -s 64K -D 1 --json "$T/slow.json" \
	>"$T/slow.out" 2>"$T/slow.err"
expect_rc "mpirun rc_write_bw --all-pairs (rank 3 slowed)" "$?" 0
check_pairs "$T/slow.json" 4 6 3
# Always: the verdict is its rule applied to the rows (a pair is slow below 0.8 x the
# median of all pairs; a rank is a suspect when most of its pairs are slow). Rank 3
# must be the one suspect, with exactly its three pairs slow, whenever this run's own
# rows separate them: the slowest unslowed pair at 1.5 x the fastest slowed one or
# more puts all three unslowed pairs at or above the median and all three slowed ones
# below 0.8 x of it. A host too loaded for that is reported, not failed.
python3 - "$T/slow.json" "$T/slow.out" <<'PY' || fail "the slow-pair verdict is wrong"
import json, re, statistics, sys
d = json.load(open(sys.argv[1]))
o, rows = d["outliers"], d["results"]
key = lambda r: frozenset((r["client_rank"], r["server_rank"]))
bw = {key(r): r["bw_avg_gbps"] for r in rows}
med = statistics.median(bw.values())
rule = {k for k, v in bw.items() if v < 0.8 * med}
said = {key(p) for p in o["slow_pairs"]}
assert said == rule, ("slow pairs", sorted(map(sorted, said)), "by the rule", sorted(map(sorted, rule)), med)
tally = {r: sum(r in k for k in rule) for r in range(4)}
assert sorted(s["rank"] for s in o["suspects"]) == sorted(r for r, n in tally.items() if 2 * n > 3), (o["suspects"], tally)
text = open(sys.argv[2]).read()
assert len(re.findall(r"^   rank [0-9] .*x median", text, re.M)) == len(rule), text
slowed = [v for k, v in bw.items() if 3 in k]
others = [v for k, v in bw.items() if 3 not in k]
if min(others) >= 1.5 * max(slowed):
    assert rule == {k for k in bw if 3 in k}, rule
    assert [(s["rank"], s["device"]) for s in o["suspects"]] == [(3, "rbfab3")], o["suspects"]
    assert re.search(r"^ suspect: rank 3 [^ ]+ rbfab3: 3 of 3 pairs slow: suspect its link or NIC", text, re.M), text
    print(f"rank 3 named: its pairs at most {max(slowed):.3f} Gb/s, the others at least {min(others):.3f}")
else:
    print(f"NOTE: this host's noise hid the slowed link (unslowed pairs down to {min(others):.3f} Gb/s, "
          f"slowed up to {max(slowed):.3f}): the verdict was checked against its rule only")
PY
grep -E "^   rank|suspect" "$T/slow.out"

# Two rails per rank (rank r: rbfab<2r>, rbfab<2r+1>), rank 2's second NIC (rbfab5) slowed.
tc qdisc del dev rbf3 root
tc qdisc del dev rbf3b root
tc qdisc add dev rbf5 root netem rate 100mbit || fail "cannot add netem to rbf5"
tc qdisc add dev rbf5b root netem rate 100mbit || fail "cannot add netem to rbf5b"
timeout 240 "${MPIRUN[@]}" -np 3 "$RD" rbfab 2 "$BW" --all-pairs -s 64K -D 1 --json "$T/rails.json" \
	>"$T/rails.out" 2>"$T/rails.err"
expect_rc "mpirun rc_write_bw --all-pairs, 2 rails" "$?" 0
python3 - "$T/rails.json" <<'PY' || fail "the rails' rows are not what they should be"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["complete"], d.get("error")
rows = d["results"]
pairs = {frozenset((r["client_rank"], r["server_rank"])) for r in rows}
assert pairs == {frozenset(p) for p in ((0, 1), (0, 2), (1, 2))}, pairs
for p in pairs:
    mine = [r for r in rows if frozenset((r["client_rank"], r["server_rank"])) == p]
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
expect_grep "$T/rails.out" "^ suspect: rank 2 [^ ]+ rbfab5: 2 of 2 pairs slow: suspect its link or NIC"
[ "$(grep -c "suspect:" "$T/rails.out")" -eq 1 ] || fail "only rank 2's rbfab5 should be a suspect"
grep -E "^   rank|suspect" "$T/rails.out"
pass "mpirun over rxe devices: every pair once, verified, counted; a slowed link named; two rails, the slow NIC named"
