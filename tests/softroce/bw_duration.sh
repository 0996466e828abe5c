#!/bin/bash
# Duration mode: -D runs each size for the given time and counts what completed.
source "$(dirname "$0")/lib.sh"
pair "$BW" -s 4K -D 1 --cpu-util --json "$T/r.json"
expect_rc client "$CRC" 0
expect_rc server "$SRC" 0
expect_grep "$T/cli.out" "CPU util"
python3 - "$T/r.json" <<'PY' || fail "duration result wrong"
import json, sys
d = json.load(open(sys.argv[1]))
r = d["results"][0]
assert d["complete"] is True
assert d["meta"]["duration_s"] == 1.0, d["meta"]
assert r["msgs"] > 0 and r["elapsed_s"] >= 1.0, r
assert r["bytes"] == r["msgs"] * 4096, r
assert 0 <= r["cpu_util_pct"] <= 200, r
PY
pass "duration mode"
