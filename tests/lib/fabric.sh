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
