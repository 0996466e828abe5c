#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# --all-pairs under Slurm's srun (--mpi=pmix), 4 tasks on a one-host cluster the test
# starts (munge, slurmctld, slurmd): socket_bw over loopback, every pair once; then
# a task killed mid-run: Slurm leaves the others running (no --kill-on-bad-exit),
# so they end on their own: each exits 1 within the bound, and rank 0's document
# names the lost rank and keeps what completed.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/../lib/fabric.sh"
source "$(dirname "$0")/../lib/slurm.sh"
rb_exit_trap 'slurm_down; rb_cleanup'
slurm_up 4

start=$(now_ms)
timeout 120 srun -n 4 --mpi=pmix "$SB" --all-pairs -s 64K -n 300 --verify --json "$T/all.json" \
	>"$T/all.out" 2>"$T/all.err"
expect_rc "srun (all pairs)" "$?" 0
VERIFY=1 check_pairs "$T/all.json" 4 12 6 "$T/all.out"
echo "srun, all pairs: $((($(now_ms) - start) / 1000)) s"

# Task 2 killed 3 s in (round 2 of 6, 2 s pairs); every other task reports its own exit code.
start=$(now_ms)
VICTIM=2 AFTER=3 timeout 120 srun -n 4 --mpi=pmix --kill-on-bad-exit=0 -l \
	"$(dirname "$0")/../lib/kill_rank.sh" "$SB" --all-pairs -s 64K -D 2 --timeout 5 --oob-timeout 10 \
	--json "$T/death.json" >"$T/death.out" 2>"$T/death.err"
rc=$?
took=$(($(now_ms) - start))
[ "$rc" -ne 0 ] || fail "srun exited 0 although task 2 was killed"
expect_took "the job after task 2 was killed" "$took" 60
# srun: "task 2: Killed", and the other three exited 1 (Slurm folds equal codes: "tasks 0-1,3").
expect_grep "$T/death.err" "task 2: Killed"
expect_grep "$T/death.err" "tasks? [0-9,-]+: Exited with exit code 1"
python3 - "$T/death.err" <<'PY' || fail "not every other task exited 1"
import re, sys
text = open(sys.argv[1]).read()
done = set()
for m in re.finditer(r"tasks? ([0-9,-]+): Exited with exit code 1", text):
    for part in m.group(1).split(","):
        a, _, b = part.partition("-")
        done.update(range(int(a), int(b or a) + 1))
assert done == {0, 1, 3}, done
PY
python3 - "$T/death.json" <<'PY' || fail "rank 0's document does not name the lost rank"
import json, re, sys
d = json.load(open(sys.argv[1]))
assert d["complete"] is False and re.search(r"^rank 2 \(.*\) lost in round 2 of 6", d["error"]), d.get("error")
assert len([r for r in d["results"] if r["round"] == 1]) == 2, d["results"]
print("rank 0's document:", d["error"], "|", len(d["results"]), "rows kept")
PY
echo "the job ended $((took / 1000)) s after it started (task 2 killed at 3 s)"
pass "srun: every pair once, verified; a killed task named by rank 0, the others exit 1 on their own"
