#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# tools/sweep against a --persist socket_bw server: interrupted after its first point
# (SIGINT), it says so and exits 130; run again it skips what the CSV holds and
# finishes; the CSV then holds every point of the definition exactly once, each with
# its document. A flag doubles the points.
source "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
P=$((P + 1))
"$SB" --persist -p "$P" >"$T/srv.out" 2>"$T/srv.err" &
SRV=$!
cat >"$T/s.sweep" <<DEF
# two sizes x two --nsocks x with and without -b; points long enough (-n 50000: some
# seconds in all) that the SIGINT after the first lands before the last
tools = socket_bw
sizes = 4K,64K
vary = --nsocks 1 2
flag = -b
args = -n 50000
DEF
cd "$T" || fail "no scratch directory"
"$ROOT/tools/sweep" s.sweep 127.0.0.1 --port "$P" >"$T/sw1.out" 2>&1 &
SW=$!
wait_for "$T/s.csv" "^socket_bw " 60 || fail "the sweep wrote no point within 60 s"
kill -INT "$SW"
wait "$SW"
expect_rc "interrupted sweep" $? 130
expect_grep "$T/sw1.out" "interrupted: run it again to resume"
first=$(grep -c '^socket_bw ' "$T/s.csv")
[ "$first" -ge 1 ] && [ "$first" -lt 8 ] || fail "the interrupted sweep holds $first points (expected 1 to 7)"
"$ROOT/tools/sweep" s.sweep 127.0.0.1 --port "$P" >"$T/sw2.out" 2>&1
expect_rc "resumed sweep" $? 0
expect_grep "$T/sw2.out" "s.csv: 8 of 8 points \\($first skipped as done before, 0 failed\\)"
python3 - "$T/s.csv" <<'PY' || fail "the resumed CSV does not hold each point once"
import csv, itertools, sys
rows = list(csv.DictReader(open(sys.argv[1])))
want = {"socket_bw 127.0.0.1 -s %s --nsocks %s%s" % (s, n, b) for s, n, b in itertools.product(["4K", "64K"], ["1", "2"], [" -b", ""])}
got = [r["point"] for r in rows]
assert sorted(got) == sorted(want), (sorted(got), sorted(want))
assert all(r["mode"] == ("bidirectional" if r["point"].endswith(" -b") else "unidirectional") for r in rows), [r["mode"] for r in rows]
print("8 points, each once: %s" % ", ".join(sorted(got)[:2]) + ", ...")
PY
[ "$(ls "$T"/s.csv.d/*.json | wc -l)" -eq 8 ] || fail "not one document per point"
kill "$SRV"
wait "$SRV"
SRV=
# No server on the port: the sweep says so before any point, not one --oob-timeout per point.
start=$(now_ms)
"$ROOT/tools/sweep" s.sweep 127.0.0.1 --port "$P" --out none.csv >"$T/sw3.out" 2>&1
expect_rc "sweep with no server" $? 1
expect_grep "$T/sw3.out" "^sweep: no server at 127\.0\.0\.1 port $P \(Connection refused within 5 s\): start the tool with --persist there first$"
expect_took "a sweep with no server" $(($(now_ms) - start)) 10
[ ! -e none.csv ] && [ ! -e none.csv.d ] || fail "a sweep that ran no point wrote files"
pass "sweep: interrupted, resumed, every point once; no server: said before any point"
