#!/bin/bash
# --all-pairs under Open MPI's mpirun, 4 ranks on this host, socket_bw over loopback:
# bad input is exit 2 before anything waits; a full all-pairs run holds every pair
# once in 3 rounds, verified, and its matrix shows each row's figure; ring and
# random:1 cover what they promise; a rank that dies mid-run is named in rank 0's
# document, which keeps the rows that completed, and no rank outlives the bound.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/../lib/fabric.sh"
command -v mpirun >/dev/null || fail "mpirun is missing (tools/bootstrap --test installs openmpi-bin)"

expect_usage "$SB" "not started by a launcher" --all-pairs -n 10
expect_usage "$SB" "--all-pairs takes no server host \(127.0.0.1\)" --all-pairs 127.0.0.1
expect_usage "$SB" "invalid value 'sometimes' for --pairs.*all, ring or random:K" --all-pairs --pairs sometimes
expect_usage "$SB" "invalid value '1.5' for --slow" --all-pairs --slow 1.5
expect_usage "$SB" "--all-pairs and --persist" --all-pairs --persist
# Several devices (rails) are for --all-pairs; a list must be one.
expect_usage "$RB_BUILD/src/rc_write_bw" "-d a,b names several devices \(rails\).*--all-pairs" -d a,b 127.0.0.1
expect_usage "$RB_BUILD/src/rc_write_bw" "invalid value 'a,,b' for -d" --all-pairs -d a,,b
expect_usage "$RB_BUILD/src/rc_write_bw" "invalid value 'a,a' for -d: a named twice" --all-pairs -d a,a

# run OUT ARGS...: mpirun -np 4 socket_bw --all-pairs ARGS; sets RC and TOOK (ms).
run() {
	local out=$1 start
	shift
	start=$(now_ms)
	timeout 120 "${MPIRUN[@]}" -np 4 "$@" >"$T/$out.out" 2>"$T/$out.err"
	RC=$?
	TOOK=$(($(now_ms) - start))
}

run all "$SB" --all-pairs -s 64K -n 300 --verify --json "$T/all.json" --csv "$T/all.csv"
expect_rc "mpirun (all pairs)" "$RC" 0
VERIFY=1 check_pairs "$T/all.json" 4 6 3 "$T/all.out"
expect_grep "$T/all.out" "^ 4 ranks, 6 pairs in 3 rounds: 6 measured, 0 failed; median bw_avg_gbps"
[ "$(grep -c . "$T/all.csv")" -eq 7 ] || fail "the CSV should hold a header and 6 rows"
echo "all pairs: $((TOOK / 1000)).$((TOOK % 1000 / 100)) s"
# The matrix as a heat map: a PNG; an all-pairs document and a sweep do not share one chart.
"$(dirname "$0")/../../tools/plot" "$T/all.json" -o "$T/all.png" >"$T/plot.out" 2>&1 || fail "tools/plot failed on the all-pairs document"
[ "$(head -c 4 "$T/all.png" | od -An -c | tr -d ' ')" = "211PNG" ] || fail "tools/plot wrote no PNG"
expect_grep "$T/plot.out" "1 heat map"
timeout 30 "$SB" -p "$((P + 7))" --quiet --json "$T/sweep.json" >/dev/null 2>&1 &
timeout 30 "$SB" -p "$((P + 7))" -s 64K -n 10 --quiet 127.0.0.1 >/dev/null 2>&1
wait
"$(dirname "$0")/../../tools/plot" "$T/all.json" "$T/sweep.json" -o "$T/mixed.png" >"$T/mixed.out" 2>&1 &&
	fail "tools/plot drew an all-pairs document and a sweep together"
expect_grep "$T/mixed.out" "cannot draw --all-pairs documents and sweeps in one chart"

run ring "$SB" --all-pairs --pairs ring -s 16K -n 100 --json "$T/ring.json"
expect_rc "mpirun (ring)" "$RC" 0
check_pairs "$T/ring.json" 4 4 2
python3 - "$T/ring.json" <<'PY' || fail "ring: not the ring's edges"
import json, sys
rows = json.load(open(sys.argv[1]))["results"]
assert {frozenset((r["client_rank"], r["server_rank"])) for r in rows} == {frozenset((i, (i + 1) % 4)) for i in range(4)}
PY

run random "$SB" --all-pairs --pairs random:1 -s 16K -n 100 --json "$T/random.json"
expect_rc "mpirun (random:1)" "$RC" 0
check_pairs "$T/random.json" 4 2 1

# Rank 2 is killed (SIGKILL) 3 s in, during round 2 of 3 (each pair runs 2 s).
VICTIM=2 AFTER=3 run death -x VICTIM -x AFTER "$(dirname "$0")/../lib/kill_rank.sh" "$SB" --all-pairs -s 64K \
	-D 2 --timeout 5 --oob-timeout 10 --json "$T/death.json"
[ "$RC" -ne 0 ] || fail "mpirun exited 0 although rank 2 was killed"
expect_took "the job after rank 2 was killed" "$TOOK" 60
# mpirun kills rank 0's process group; the coordinator has one of its own and may write
# its document a moment after mpirun returned.
wait_for "$T/death.json" '"complete"' 15 || fail "rank 0's coordinator wrote no document"
python3 - "$T/death.json" <<'PY' || fail "rank 0's document does not name the lost rank or lost the rows that completed"
import json, re, sys
d = json.load(open(sys.argv[1]))
assert d["complete"] is False, d
assert re.search(r"^rank 2 \(.*, pid [0-9]+\) lost in round 2 of 3: its control connection closed", d["error"]), d["error"]
first = [r for r in d["results"] if r["round"] == 1]
assert len(first) == 2 and all(r["msgs"] > 0 for r in first), d["results"]
# The pair with the lost rank failed, in the document's outliers block too.
failed = [{p["client_rank"], p["server_rank"]} for p in d["outliers"]["failed_pairs"]]
assert any(2 in p for p in failed), d["outliers"]
print("rank 0's document:", d["error"], "|", len(d["results"]), "rows kept")
PY
expect_grep "$T/death.err" "rank 2 \(.*\) lost in round 2 of 3"

# Three ranks: each sits out one round, every pair still once.
timeout 120 "${MPIRUN[@]}" -np 3 "$SB" --all-pairs -s 16K -n 100 --json "$T/odd.json" >"$T/odd.out" 2>"$T/odd.err"
expect_rc "mpirun -np 3" "$?" 0
check_pairs "$T/odd.json" 3 3 3
expect_grep "$T/odd.out" "with 3 ranks the median may be a bad rank's own"

# A gate judged on every pair: all rows kept, exit 1, the gate named.
run gate "$SB" --all-pairs -s 16K -n 100 --min-bw 100000 --json "$T/gate.json"
expect_rc "mpirun --min-bw 100000" "$RC" 1
check_pairs "$T/gate.json" 4 6 3
expect_grep "$T/gate.err" "gate --min-bw 100000 failed"

# A rank that freezes (SIGSTOP) and never ends its round: its partner's pair fails by its
# --timeout, and the frozen rank is lost --oob-timeout + 10 s after its partner ended.
start=$(now_ms)
SIG=STOP VICTIM=2 AFTER=3 timeout 120 "${MPIRUN[@]}" -np 4 -x SIG -x VICTIM -x AFTER \
	"$(dirname "$0")/../lib/kill_rank.sh" "$SB" --all-pairs -s 64K -D 2 --timeout 3 --oob-timeout 5 \
	--json "$T/frozen.json" >"$T/frozen.out" 2>"$T/frozen.err"
took=$(($(now_ms) - start))
pkill -CONT -f -- "--json $T/frozen.json" 2>/dev/null
wait_for "$T/frozen.json" '"complete"' 15 || fail "no document after a frozen rank"
expect_took "the job with a frozen rank" "$took" 60
python3 - "$T/frozen.json" <<'PY' || fail "the frozen rank is not named as lost"
import json, re, sys
d = json.load(open(sys.argv[1]))
assert d["complete"] is False, d
assert re.search(r"^rank 2 \(.*\) lost in round 2 of 3: no END within 15 s \(--oob-timeout \+ 10\) of its partner's", d["error"]), d["error"]
print("frozen rank:", d["error"])
PY

# A pair that fails part-way (rank 1 frozen for 6 s during the second size of a sweep): the
# first size's row is kept, the pair is failed, not measured, and the document and the exit
# code say so.
SIG=STOP RESUME=6 VICTIM=1 AFTER=3.5 timeout 120 "${MPIRUN[@]}" -np 2 -x SIG -x RESUME -x VICTIM -x AFTER \
	"$(dirname "$0")/../lib/kill_rank.sh" "$SB" --all-pairs -s 64K,1M -D 2 --timeout 2 \
	--json "$T/partway.json" >"$T/partway.out" 2>"$T/partway.err"
[ $? -ne 0 ] || fail "a pair that failed part-way left exit 0"
wait_for "$T/partway.json" '"complete"' 15 || fail "no document after a pair failed part-way"
python3 - "$T/partway.json" <<'PY' || fail "a pair that failed part-way is not recorded as failed"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["complete"] is False and d["error"].startswith("1 of 1 pairs failed; the first: rank 0"), d["error"]
f = d["outliers"]["failed_pairs"]
assert len(f) == 1 and f[0]["error"], f
assert [r["size_bytes"] for r in d["results"]] == [65536], d["results"]
print("part-way:", d["error"])
PY
expect_grep "$T/partway.out" "0 measured, 1 failed"
pass "mpirun: every pair once (all, ring, random:1, 3 ranks), verified; gates; killed and frozen ranks named, rows kept; a pair failed part-way recorded"
