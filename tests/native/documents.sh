#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Every run leaves a valid document: a failure before the first row, an output path
# that is a directory, an incomplete run where a complete result already lies.
source "$(dirname "$0")/lib.sh"
P=$((P + 1))
# No server: the client fails before any row (nothing listens on $P).
timeout 30 "$SB" -p "$P" --oob-timeout 1 -s 4K -n 10 --json "$T/early.json" --csv "$T/early.csv" 127.0.0.1 \
	>"$T/o.out" 2>"$T/o.err"
expect_rc "client without a server" $? 1
python3 - "$T/early.json" "$T/early.csv" <<'PY' || fail "early failure left no valid document"
import csv, json, sys
d = json.load(open(sys.argv[1]))
assert d["complete"] is False and d["results"] == [] and d["error"], d
assert d["meta"]["tool"] == "socket_bw" and d["meta"]["role"] == "client", d["meta"]
rows = list(csv.DictReader(open(sys.argv[2])))
assert len(rows) == 1 and rows[0]["error"] == d["error"], rows
print("early failure:", d["error"])
PY
ls "$T" | grep -q '\.tmp\.' && fail "temporary report files left behind"

# A directory is refused before the run (exit 2), not when the document is renamed.
mkdir -p "$T/dir"
expect_usage "$SB" "cannot write the json document to $T/dir: it is a directory" --json "$T/dir" 127.0.0.1

# The schema as rdmabench-documents(7) writes it down: socket_bw's header is the page's
# list (a K_* entry standing for K's five --repeat spreads), then the tail, then error.
pair -s 4K -n 10 --csv "$T/s.csv" --quiet
expect_rc "client (schema)" "$CRC" 0
python3 "$(dirname "$0")/../lib/schema_check.py" "$T/s.csv" "$(dirname "$0")/../../man/man7/rdmabench-documents.7" socket_bw ||
	fail "the CSV's columns are not the man page's"
# A complete result, then a failed run onto the same name: the complete one is kept as .prev.
pair -s 4K -n 10 --json "$T/r.json" --csv "$T/r.csv" --quiet
expect_rc "client" "$CRC" 0
expect_rc "server" "$SRC" 0
python3 - "$T/r.json" <<'PY' || fail "meta block incomplete"
import json, re, socket, sys, time
m = json.load(open(sys.argv[1]))["meta"]
assert abs(m["epoch_s"] - time.time()) < 600, m
assert m["peer_host"] == socket.gethostname(), m
assert re.fullmatch(r"(127\.0\.0\.1|::1|::ffff:127\.0\.0\.1):\d+", m["peer"]), m["peer"]
PY
cp "$T/r.json" "$T/good.json"
cp "$T/r.csv" "$T/good.csv"
timeout 30 "$SB" -p "$((P + 1))" --oob-timeout 1 -s 4K -n 10 --json "$T/r.json" --csv "$T/r.csv" 127.0.0.1 \
	>"$T/o.out" 2>"$T/o.err"
expect_rc "failed rerun" $? 1
cmp -s "$T/r.json.prev" "$T/good.json" || fail "the complete JSON was not kept as r.json.prev"
cmp -s "$T/r.csv.prev" "$T/good.csv" || fail "the complete CSV was not kept as r.csv.prev"
expect_grep "$T/o.err" "r.json held a complete result: kept as .*r.json.prev"
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["complete"] is False' "$T/r.json" ||
	fail "r.json does not hold the failed run"
# A second failed run: what it replaces is an incomplete document (its error row names the
# run), so the complete one stays as .prev, in CSV as in JSON.
timeout 30 "$SB" -p "$((P + 1))" --oob-timeout 1 -s 4K -n 10 --json "$T/r.json" --csv "$T/r.csv" 127.0.0.1 \
	>"$T/o.out" 2>"$T/o2.err"
expect_rc "second failed rerun" $? 1
cmp -s "$T/r.json.prev" "$T/good.json" || fail "a second failure replaced the complete JSON kept as .prev"
cmp -s "$T/r.csv.prev" "$T/good.csv" || fail "a second failure replaced the complete CSV kept as .prev"
grep -q "held a complete result" "$T/o2.err" && fail "an incomplete document taken for a complete one: $(cat "$T/o2.err")"
pass "documents: valid after an early failure, a directory refused, a complete result kept"
