#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Duration mode reports samples and transactions per second; --histogram prints
# buckets whose counts add up to the samples.
source "$(dirname "$0")/lib.sh"
pair "$LAT" -s 64 -D 1 --histogram --csv "$T/r.csv"
expect_rc client "$CRC" 0
expect_rc server "$SRC" 0
expect_grep "$T/cli.out" "trans/s"
diff <(table_rows "$T/cli.out") <(table_rows "$T/srv.out") >/dev/null || fail "client and server rows differ"
expect_grep "$T/cli.out" "histogram \([0-9]+ samples, log2 buckets\)"
python3 - "$T/r.csv" "$T/cli.out" <<'PY' || fail "duration/histogram inconsistent"
import csv, re, sys
r = list(csv.DictReader(open(sys.argv[1])))[0]
n = int(r["iterations"])
assert n > 10, r
tps, secs = float(r["tps"]), float(r["elapsed_s"])
assert secs >= 1.0 and abs(tps - n / secs) <= 0.05 * tps + 0.1, r
counts = [int(m.group(1)) for m in re.finditer(r"\) us +(\d+) ", open(sys.argv[2]).read())]
assert sum(counts) == n, (sum(counts), n)
print(f"{n} samples in {secs:.2f} s = {tps:.0f} trans/s; histogram adds up")
PY
pass "duration mode and histogram"
