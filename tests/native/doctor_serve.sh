#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# rdma_doctor --serve and --peer over loopback, no RDMA needed: both sides read a
# fabricated sysfs with no RDMA device, so the walk passes the oob layer and stops at
# the hosts layer, naming this host's missing device, in text and JSON. The serve
# holds against strangers (garbage, an HTTP request, another tool's client) and
# answers the next asker; with --auth-key, an asker without the key stops at oob; no
# serve on the port stops at oob within --oob-timeout; SIGTERM ends the serve (exit 0)
# and the servers it started with it.
source "$(dirname "$0")/lib.sh"
DR=$RB_BUILD/src/rdma_doctor
mkdir -p "$T/empty/sys"
umask 077
printf 'triage secret\n' >"$T/key"

serve() { # ARGS...
	P=$((P + 3))
	"$DR" --serve -p "$P" --sysfs-root "$T/empty/sys" "$@" >"$T/srv.out" 2>"$T/srv.err" &
	SRV=$!
	wait_for "$T/srv.out" "serving triage on port $P" 20 || fail "the serve did not start: $(cat "$T/srv.err")"
}

# walk NAME RC ARGS...: a JSON triage into $T/NAME.json; its first failed layer must be LAYER (python check).
walk() {
	local name=$1 want=$2
	shift 2
	timeout 60 "$DR" --peer 127.0.0.1 -p "$P" --sysfs-root "$T/empty/sys" --json "$@" >"$T/$name.json" 2>"$T/$name.err"
	expect_rc "triage ($name)" $? "$want"
}
layer() { # NAME LAYER PYTHON
	python3 - "$T/$1.json" "$2" "$3" <<'PY' || fail "$1: $(cat "$T/$1.json")"
import json, re, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "rdma_doctor/2" and d["mode"] == "triage" and d["tool"] == "rdma_doctor" and d["version"], d
assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", d["date"]) and d["host"], d
assert all(s["check"] and s["text"] and s["verdict"] in ("ok", "warn", "fail") for s in d["steps"]), d["steps"]
assert d["failed_layer"] == sys.argv[2] and not d["healthy"], d["failed_layer"]
assert d["steps"][-1]["verdict"] == "fail" and d["conclusion"].startswith(sys.argv[2] + ": "), d
assert eval(sys.argv[3]), sys.argv[3]
print(f"{sys.argv[1].split('/')[-1]}: {d['conclusion']}")
PY
}

serve
walk plain 1
layer plain hosts 'd["steps"][0]["layer"] == "oob" and d["steps"][0]["verdict"] == "ok" and "answered" in d["steps"][0]["text"] and "this host: no RDMA device" in d["conclusion"] and d["elapsed_s"] <= d["bound_s"]'
# The steps' facts as fields: how long the peer took, its version; both hosts' ports, unusable.
layer plain hosts 'isinstance(d["steps"][0]["answered_ms"], (int, float)) and d["steps"][0]["same_version"] is True and d["steps"][0]["peer_version"] == d["version"] and d["steps"][1]["check"] == "ports" and d["steps"][1]["here_usable"] is False and d["steps"][1]["peer_usable"] is False and d["steps"][1]["here_device"] is None'
expect_grep "$T/srv.out" "facts sent to 127\.0\.0\.1:[0-9]+ \(no RDMA port here\)"
# The text form: a header with the bound, a line per step, the conclusion.
timeout 60 "$DR" --peer 127.0.0.1 -p "$P" --sysfs-root "$T/empty/sys" >"$T/text.out" 2>"$T/text.err"
expect_rc "triage (text)" $? 1
expect_grep "$T/text.out" "^Triage with 127\.0\.0\.1:$P, layer by layer \(bounded: at most [0-9]+ s\)$"
expect_grep "$T/text.out" "^  ok    oob        127\.0\.0\.1:$P answered in [0-9]+ ms: rdma_doctor "
expect_grep "$T/text.out" "^  FAIL  hosts      this host: no RDMA device"
expect_grep "$T/text.out" "^Conclusion: hosts: this host: no RDMA device.*; check next: "

# Strangers: garbage, an HTTP request, another tool's client. The serve goes on.
python3 - "$P" <<'PY'
import socket, sys
for payload in (b"\x00" * 64, b"GET / HTTP/1.0\r\n\r\n"):
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
    s.sendall(payload)
    try:
        s.recv(4096)
    except OSError:
        pass
    s.close()
PY
timeout 30 "$SB" -p "$P" -s 4K -n 10 --oob-timeout 5 127.0.0.1 >"$T/sb.out" 2>"$T/sb.err"
expect_rc "socket_bw against the serve" $? 2
expect_grep "$T/sb.err" "this server does not run socket_bw"
expect_grep "$T/srv.err" "refused a connection from 127\.0\.0\.1:[0-9]+"
walk after_strangers 1
layer after_strangers hosts 'True'
# A flood of askers costs a bounded log: 300 whose HELLO says another version (answered:
# the asker's walk says so) and 300 garbage connections, then a few lines each way.
q=$((P + 500))
rm -f "$T/rec.ready"
python3 "$(dirname "$0")/../lib/record_hello.py" "$q" "$T/hello.bin" "$T/rec.ready" 0.1.0 9.9.9 &
rec=$!
for ((i = 0; i < 100; i++)); do [ -e "$T/rec.ready" ] && break; sleep 0.1; done
timeout 20 "$DR" --peer 127.0.0.1 -p "$q" --oob-timeout 3 --sysfs-root "$T/empty/sys" >/dev/null 2>&1
wait $rec || fail "no HELLO recorded"
grep -q 9.9.9 "$T/hello.bin" || fail "the recorded HELLO has no version to change"
before_out=$(wc -l <"$T/srv.out") before_err=$(wc -l <"$T/srv.err")
start=$(now_ms)
flood 300 "$P" "$T/hello.bin" >"$T/answers.bin" || fail "the asker flood could not connect"
flood 300 "$P" - >/dev/null || fail "the empty flood could not connect"
took=$(($(now_ms) - start))
out=$(($(wc -l <"$T/srv.out") - before_out)) err=$(($(wc -l <"$T/srv.err") - before_err))
most=$((6 * (took / 10000 + 2)))
[ "$out" -le "$most" ] && [ "$err" -le "$most" ] || fail "600 askers took $out stdout and $err stderr lines (at most $most each)"
answered=$(grep -ao port_verdict "$T/answers.bin" | wc -l)
[ "$answered" -eq 300 ] || fail "$answered of the 300 askers got the facts"
echo "ok: 600 askers in $took ms (300 answered): $out stdout and $err stderr lines"
kids=$(pgrep -P "$SRV" | wc -l)
kill -TERM "$SRV"
wait "$SRV"
expect_rc "serve after SIGTERM" $? 0
SRV=
sleep 0.5
[ -z "$(pgrep -f -- "--persist -p $((P + 1))")$(pgrep -f -- "--persist -p $((P + 2))")" ] ||
	fail "the serve's servers outlived it: $(pgrep -af -- "--persist -p $((P + 1))|--persist -p $((P + 2))")"
echo "ok: SIGTERM ended the serve and the $kids server(s) it ran"

# --auth-key: without it the asker stops at oob; with it, it gets through.
serve --auth-key "$T/key"
walk nokey 1 --oob-timeout 3
layer nokey oob '"authentication failed" in d["conclusion"]'
walk withkey 1 --auth-key "$T/key"
layer withkey hosts 'True'
kill -TERM "$SRV"
wait "$SRV"
SRV=

# No serve on the port: oob, within --oob-timeout.
start=$(now_ms)
walk none 1 --oob-timeout 2
# Bounded by --oob-timeout 2 and the walk's own start (python, rdma_doctor): 20 s holds a
# host loaded by the other suites (11 s was seen in a full run), and no hang.
expect_took "a triage with no serve" $(($(now_ms) - start)) 20
layer none oob '"Connection refused" in d["conclusion"] and d["steps"][0]["check"] == "connect" and "Connection refused" in d["steps"][0]["error"]'
pass "rdma_doctor --serve/--peer: oob then hosts on a host without RDMA; strangers refused, the key enforced, SIGTERM ends it all"
