# SPDX-License-Identifier: BSD-2-Clause
# --all-pairs helpers, shared by the native and softroce suites.

# MPIRUN: Open MPI's mpirun as root, 4 ranks on a 2-core machine.
MPIRUN=(mpirun --allow-run-as-root --oversubscribe --mca btl self,tcp --mca pml ob1)

# check_pairs JSON N ROWS [ROUNDS]: rank 0's document of an N-rank job holds ROWS
# rows of distinct pairs (ordered with --directions both, where each pair's second
# direction is the next round, reversed), each with both ranks' hosts, in range, complete;
# each row's own figures agree (bytes = messages x size); with --verify (VERIFY=1) each
# row says its payload was checked; the text matrix (OUT, when
# given as $5) shows each row's bandwidth in its cell.
check_pairs() {
	python3 - "$@" <<'PY' || fail "rank 0's document does not hold the pairs it should: $1"
import json, os, sys, re
path, n, want = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rounds = int(sys.argv[4]) if len(sys.argv) > 4 and sys.argv[4] else None
out = sys.argv[5] if len(sys.argv) > 5 else None
d = json.load(open(path))
assert d["complete"], d.get("error")
m = d["meta"]
assert m["role"] == "all-pairs" and m["ranks"] == n, m
if rounds is not None:
    assert m["rounds"] == rounds, (m["rounds"], rounds)
rows = d["results"]
both = m["directions"] == "both"
seen = set()
for r in rows:
    a, b = r["client_rank"], r["server_rank"]
    assert 0 <= a < n and 0 <= b < n and a != b, r
    key = (a, b) if both else frozenset((a, b))
    assert key not in seen, f"pair {a}-{b} twice"
    seen.add(key)
    if both:
        back = [x for x in rows if (x["client_rank"], x["server_rank"]) == (b, a)]
        assert len(back) == 1 and abs(back[0]["round"] - r["round"]) == 1 and min(back[0]["round"], r["round"]) % 2 == 1, (r, back)
    assert r["client_host"] and r["server_host"], r
    assert 1 <= r["round"] <= m["rounds"], r
    assert r["bytes"] == r["msgs"] * r["size_bytes"] and r["msgs"] > 0, r
    if os.environ.get("VERIFY") == "1":
        assert r["verify"] is True, r
assert len(rows) == want, (len(rows), want)
# Each round has every rank at most once.
by_round = {}
for r in rows:
    for k in (r["client_rank"], r["server_rank"]):
        assert (r["round"], k) not in by_round, f"rank {k} twice in round {r['round']}"
        by_round[(r["round"], k)] = True
if out:
    text = open(out).read()
    for r in rows:
        line = re.search(r"^  %3d (.*)$" % r["client_rank"], text.split("by client (row)")[1], re.M)
        assert ("%.3f" % r["bw_avg_gbps"]) in line.group(1), (r["bw_avg_gbps"], line.group(0))
print(f"rank 0's document: {len(rows)} pairs of {n} ranks in {m['rounds']} rounds, each once")
PY
}

# rxe_bridge BRIDGE NET DEV N: N "nodes" on one switch, for the softroce suite: a bridge,
# and per i a veth NET<i> (its bridge end NET<i>b) carrying an rxe device DEV<i>, every
# port ACTIVE; all of it removed, with $T, when the test exits.
rxe_bridge() {
	local i
	RXB_BR=$1 RXB_NET=$2 RXB_DEV=$3 RXB_N=$4
	rxe_bridge_down() {
		local i
		for ((i = 0; i < RXB_N; i++)); do
			rdma link delete "$RXB_DEV$i" 2>/dev/null
			ip link delete "$RXB_NET$i" 2>/dev/null
		done
		ip link delete "$RXB_BR" 2>/dev/null
		rb_cleanup
	}
	rb_exit_trap rxe_bridge_down
	ip link add "$RXB_BR" type bridge || fail "cannot create a bridge (module bridge)"
	ip link set "$RXB_BR" up
	for ((i = 0; i < RXB_N; i++)); do
		ip link add "$RXB_NET$i" type veth peer name "$RXB_NET${i}b" || fail "cannot create veth $RXB_NET$i"
		sysctl -qw "net.ipv6.conf.$RXB_NET$i.accept_dad=0" "net.ipv6.conf.$RXB_NET${i}b.accept_dad=0"
		ip link set "$RXB_NET${i}b" master "$RXB_BR"
		ip link set "$RXB_NET$i" mtu 4500 up
		ip link set "$RXB_NET${i}b" mtu 4500 up
		rdma link add "$RXB_DEV$i" type rxe netdev "$RXB_NET$i" || fail "cannot add rxe on $RXB_NET$i"
	done
	for ((i = 0; i < RXB_N; i++)); do
		wait_for "/sys/class/infiniband/$RXB_DEV$i/ports/1/state" ACTIVE 20 || fail "$RXB_DEV$i did not become ACTIVE"
	done
}
