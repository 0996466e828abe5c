#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Several sizes with every payload checked; both sides print the same numbers. Then
# the same by duration (-D), where the step ends at a window's edge.
source "$(dirname "$0")/lib.sh"
pair "$BW" -s 2,64,4K,64K,1M -n 40 --verify
expect_rc client "$CRC" 0
expect_rc server "$SRC" 0
[ "$(table_rows "$T/cli.out" | wc -l)" -eq 5 ] || fail "expected 5 result rows"
diff <(table_rows "$T/cli.out") <(table_rows "$T/srv.out") >/dev/null || fail "client and server rows differ"
table_rows "$T/cli.out"
echo "ok: 5 sizes verified, identical rows on both sides"

# -D with --verify ends at a window's edge: a duration that ran out mid-window once cut
# the window short while announcing it whole, and the receiver checked messages never
# written ("expected 0xe8 got 0xe5" on the 4K size of this very run, every time).
pair "$BW" -s 4K,64K -D 1 --verify --json "$T/d.json"
expect_rc "client (-D --verify)" "$CRC" 0
expect_rc "server (-D --verify)" "$SRC" 0
python3 - "$T/d.json" <<'PY' || fail "the -D --verify run's rows are wrong"
import json, sys
d = json.load(open(sys.argv[1]))
r = d["results"]
assert d["complete"] and len(r) == 2 and all(x["verify"] and x["msgs"] > 0 for x in r), r
print("-D 1 --verify: " + ", ".join(f'{x["size_bytes"]} B: {x["msgs"]} msgs verified' for x in r))
PY
pass "-D with --verify: 2 sizes, every window whole"
