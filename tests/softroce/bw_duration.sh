#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Duration mode: -D runs each size for the given time and counts what completed.
source "$(dirname "$0")/lib.sh"
# The client under GNU time: its whole CPU time is a counter the tool did not compute.
start_server "$BW" -s 4K -D 1 --cpu-util --json "$T/r.json"
timeout 120 /usr/bin/time -f "%U %S" -o "$T/time" "$BW" -d "$RB_DEV_PEER" -p "$P" -s 4K -D 1 --cpu-util \
	--json "$T/c.json" 127.0.0.1 >"$T/cli.out" 2>"$T/cli.err"
CRC=$?
wait_server
expect_rc client "$CRC" 0
expect_rc server "$SRC" 0
expect_grep "$T/cli.out" "CPU util"
python3 - "$T/r.json" "$T/c.json" "$T/time" <<'PY' || fail "duration result wrong"
import json, sys
d = json.load(open(sys.argv[1]))
r = d["results"][0]
assert d["complete"] is True
assert d["meta"]["duration_s"] == 1.0, d["meta"]
assert r["msgs"] > 0 and r["elapsed_s"] >= 1.0, r
assert r["bytes"] == r["msgs"] * 4096, r
assert 0 <= r["cpu_util_pct"] <= 200, r
# The sender polls its CQ through the whole step: its CPU is well above zero, and its
# step's CPU seconds fit in the process's (GNU time), with 50 ms for the clock ticks.
c = json.load(open(sys.argv[2]))["results"][0]
user, sys_ = map(float, open(sys.argv[3]).read().split()[-2:])
step_cpu = c["cpu_util_pct"] / 100 * c["elapsed_s"]
assert c["cpu_util_pct"] > 10, c
assert step_cpu <= user + sys_ + 0.05, (step_cpu, user, sys_)
print(f"client CPU {c['cpu_util_pct']:.1f} % of a {c['elapsed_s']:.3f} s step ({step_cpu:.3f} s); process: {user + sys_:.2f} s")
PY
pass "duration mode"
