#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# --persist: one server serves clients one after another, each run its own documents
# (FILE-1.EXT, FILE-2.EXT, ...) with that client's parameters; a run that fails (a
# mismatch, a client interrupted mid-run) does not stop it; SIGINT while it waits for
# the next client ends it with exit 0 and no document for the run that never came.
# A client given --persist is refused (exit 2).
source "$(dirname "$0")/lib.sh"

P=$((P + 1))
"$SB" -p "$P" --persist --timeout 30 --csv "$T/srv.csv" --json "$T/srv.json" >"$T/srv.out" 2>"$T/srv.err" &
SRV=$!
# docs N: until the server has renamed run N's documents into place (just after its client exits).
docs() {
	for ((i = 0; i < 100; i++)); do [ -e "$T/srv-$1.csv" ] && [ -e "$T/srv-$1.json" ] && return 0; sleep 0.1; done
	return 1
}
client() {
	timeout 60 "$SB" -p "$P" --quiet "$@" 127.0.0.1 2>>"$T/cli.err"
}
client -s 64K -n 100
expect_rc "client 1" $? 0
client --ping-pong -s 64 -n 300 --warmup 7
expect_rc "client 2" $? 0
# Interrupted mid-run: this run fails (its documents say so), the server goes on.
timeout --preserve-status -k 30 -s INT 1 "$SB" -p "$P" --quiet -s 4K -D 10 127.0.0.1 2>>"$T/cli.err"
expect_rc "client 3 (SIGINT)" $? 130
client --persist -s 1K
expect_rc "client given --persist" $? 2
expect_grep "$T/cli.err" "--persist is for the server"
client -s 1K,4K -n 50
expect_rc "client 4" $? 0
kill -0 "$SRV" 2>/dev/null || fail "the persistent server exited after its runs"
docs 4 || fail "run 4's documents never appeared"
kill -INT "$SRV"
reap "$SRV" 30 "the persistent server (SIGINT while it waited)"
expect_rc "persistent server stopped while waiting" $REAPED 0
SRV=
expect_grep "$T/srv.err" "stopped while waiting for a client, after 4 run\(s\), 1 failed"
[ -e "$T/srv-5.csv" ] || [ -e "$T/srv-5.json" ] && fail "a document for the run that never came"
ls "$T"/srv*.tmp* 2>/dev/null && fail "temporary files left behind"
python3 - "$T" <<'PY' || fail "the per-run documents are wrong"
import csv, json, sys
t = sys.argv[1]
def doc(n):
    return json.load(open(f"{t}/srv-{n}.json")), list(csv.DictReader(open(f"{t}/srv-{n}.csv")))
(j1, c1), (j2, c2), (j3, c3), (j4, c4) = (doc(n) for n in (1, 2, 3, 4))
assert j1["complete"] and [r["size_bytes"] for r in j1["results"]] == [65536], j1["results"]
assert j1["results"][0]["msgs"] == 100 and c1[0]["msgs"] == "100", c1
assert j2["complete"] and j2["results"][0]["mode"] == "ping_pong", j2["results"]
assert j2["results"][0]["iterations"] == 300 and j2["results"][0]["warmup"] == 7, j2["results"]
assert not j3["complete"] and "SIGINT" in j3["error"], j3
assert c3[-1]["error"], c3
assert j4["complete"] and [r["size_bytes"] for r in j4["results"]] == [1024, 4096], j4["results"]
assert all(not r["error"] for r in c4) and len(c4) == 2, c4
print("4 runs, 4 pairs of documents, each with its client's parameters; run 3 incomplete")
PY

# Started again on the same files: it numbers on (srv-5), never over srv-1..4. A
# stranger it refuses is no run: stopped after it, the server writes nothing.
cp "$T/srv-1.json" "$T/keep.json"
P=$((P + 1))
"$SB" -p "$P" --persist --csv "$T/srv.csv" --json "$T/srv.json" >"$T/srv2.out" 2>"$T/srv2.err" &
SRV=$!
client -s 4K -n 20
expect_rc "client of the restarted server" $? 0
cmp -s "$T/srv-1.json" "$T/keep.json" || fail "the restarted server replaced srv-1.json"
docs 5 || fail "the restarted server did not number on (srv-5)"
printf 'GET / HTTP/1.0\r\n\r\n' | timeout 5 bash -c "exec 3<>/dev/tcp/127.0.0.1/$P; cat >&3; sleep 1"
# A well-formed HELLO of another tool: recorded from a real client, its name changed.
Q=$((P + 1000))
python3 "$(dirname "$0")/../lib/record_hello.py" "$Q" "$T/hello.bin" "$T/rec.ready" socket_bw socket_zz &
rec=$!
for ((i = 0; i < 100; i++)); do [ -e "$T/rec.ready" ] && break; sleep 0.1; done
timeout 20 "$SB" -p "$Q" --oob-timeout 5 -s 4K 127.0.0.1 >/dev/null 2>&1
reap $rec 130 "record_hello.py"
[ "$REAPED" -eq 0 ] || fail "no HELLO recorded"
python3 - "$P" "$T/hello.bin" <<'PY' || fail "could not send the foreign HELLO"
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(open(sys.argv[2], "rb").read())
s.settimeout(5)
try:
    s.recv(4096)
except OSError:
    pass
time.sleep(0.5)
PY
expect_grep "$T/srv2.err" "refused a connection from .*socket_zz"
sleep 0.3
kill -TERM "$SRV"
reap "$SRV" 30 "the persistent server (SIGTERM after a stranger)"
expect_rc "persistent server stopped after refusing a stranger" $REAPED 0
SRV=
expect_grep "$T/srv2.err" "refused a connection from .*; still waiting for a client$"
expect_grep "$T/srv2.err" "stopped while waiting for a client, after 1 run\(s\), 0 failed"
[ -e "$T/srv-6.json" ] && fail "a document for the stranger"

# A directory is refused as without --persist, never numbered into a file name.
mkdir -p "$T/d"
expect_usage "$SB" "it is a directory" --persist --csv "$T/d/"
expect_usage "$SB" "it is a directory" --persist --csv "$T/d"
# A server that cannot listen fails once, it does not loop.
P=$((P + 1))
"$SB" -p "$P" >/dev/null 2>&1 &
blocker=$!
sleep 0.3
timeout 10 "$SB" -p "$P" --persist --csv "$T/busy.csv" >/dev/null 2>"$T/busy.err"
rc=$?
kill "$blocker" 2>/dev/null
wait "$blocker" 2>/dev/null
expect_rc "persistent server on a busy port" "$rc" 1
expect_grep "$T/busy.err" "Address already in use"
[ "$(ls "$T"/busy-*.csv 2>/dev/null | wc -l)" -le 1 ] || fail "a persistent server that cannot listen wrote document after document"
pass "a persistent server served 4 clients one after another"
