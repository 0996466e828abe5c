#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# A stranger costs a server nothing, and a server holds its own limits whatever a
# client asks (socket_bw over loopback; the driver is the same for every tool):
# - a flood of well-formed HELLOs with other parameters: no documents, no run number,
#   a few log lines; the real client after them is run 1;
# - a flood of connections that say nothing useful: a bounded log;
# - --auth-key: served with the key, refused without it (exit 2 on the client), and
#   a keyed server tells a stranger nothing about itself;
# - limits: a run planned past --max-run-time, or --run-infinitely, refused before
#   anything is allocated (both numbers named, exit 2); a run that goes on past it is
#   ended by the server's own clock.
source "$(dirname "$0")/lib.sh"

# record FILE ARGS...: a real client's first frame (its HELLO, the given options in it) in FILE.
record() {
	local q=$((P + 1000)) out=$1
	shift
	rm -f "$T/rec.ready" "$out"
	python3 "$(dirname "$0")/../lib/record_hello.py" "$q" "$out" "$T/rec.ready" &
	local rec=$!
	for ((i = 0; i < 100; i++)); do [ -e "$T/rec.ready" ] && break; sleep 0.1; done
	timeout 20 "$SB" -p "$q" --oob-timeout 3 "$@" 127.0.0.1 >/dev/null 2>&1
	wait $rec || fail "no HELLO recorded"
}


# 1. 300 HELLOs of a client that gave -n 200 to a persistent server given -n 100; then
# 50 HELLOs that agree, each closed at once, and 20 followed by junk: gone before
# their runs began, they are strangers too.
record "$T/hello.bin" -s 4K -n 200
record "$T/agree.bin" -s 4K -n 100
P=$((P + 1))
"$SB" -p "$P" --persist -n 100 --csv "$T/f.csv" --json "$T/f.json" >"$T/srv.out" 2>"$T/srv.err" &
SRV=$!
t0=$SECONDS
flood 300 "$P" "$T/hello.bin" >"$T/flood.bin" || fail "the HELLO flood could not connect"
flood 50 "$P" "$T/agree.bin" close || fail "the closing HELLOs could not connect"
flood 20 "$P" "$T/agree.bin" "GET / HTTP/1.0\r\n\r\n" >/dev/null || fail "the HELLOs with junk could not connect"
took=$((SECONDS - t0))
echo "370 strangers refused in $took s"
timeout 60 "$SB" -p "$P" -s 4K -n 100 --quiet 127.0.0.1 >"$T/cli.out" 2>"$T/cli.err"
expect_rc "the real client after the flood" $? 0
stop_server TERM
expect_rc "persistent server stopped" "$SRC" 0
docs=$(ls "$T" | grep -cE '^f-[0-9]+\.(csv|json)$')
[ "$docs" -eq 2 ] || fail "expected the real client's 2 documents (f-1.csv, f-1.json), found $docs: $(ls "$T")"
[ -e "$T/f-1.json" ] || fail "the real client's run is not run 1"
n=$(grep -c "refused a connection" "$T/srv.err")
lines=$(wc -l <"$T/srv.err")
# A few lines per 10 s window (RB_OOB_REFUSAL_BURST), one more to say how many were not shown, and the stop's.
most=$((6 * (took / 10 + 2) + 1))
[ "$n" -ge 1 ] && [ "$lines" -le "$most" ] || fail "370 refusals took $lines log lines ($n refusal lines), expected 1 to $most"
expect_grep "$T/srv.err" "refused a connection from 127.0.0.1:[0-9]+: param iters mismatch: local=100 remote=200"
expect_grep "$T/srv.err" "stopped while waiting for a client, after 1 run\(s\), 0 failed"
echo "ok: 370 strangers, $lines log lines, documents of run 1 only"

# 2. 2000 connections that close at once: a bounded log, and the server serves on.
P=$((P + 1))
"$SB" -p "$P" --persist >"$T/srv.out" 2>"$T/srv.err" &
SRV=$!
t0=$SECONDS
flood 2000 "$P" - >/dev/null || fail "the connection flood could not connect"
took=$((SECONDS - t0))
timeout 60 "$SB" -p "$P" -s 4K -n 100 --quiet 127.0.0.1 >"$T/cli.out" 2>"$T/cli.err"
expect_rc "the client after 2000 empty connections" $? 0
stop_server TERM
lines=$(wc -l <"$T/srv.err")
most=$((6 * (took / 10 + 2) + 1))
[ "$lines" -le "$most" ] || fail "2000 empty connections took $lines log lines (at most $most)"
echo "ok: 2000 empty connections, $lines log lines"

# 3. --auth-key.
umask 077
printf 'job secret 1\n' >"$T/key"
printf 'another secret\n' >"$T/other"
P=$((P + 1))
"$SB" -p "$P" --persist --auth-key "$T/key" >"$T/srv.out" 2>"$T/srv.err" &
SRV=$!
timeout 60 "$SB" -p "$P" -s 4K -n 100 --quiet --auth-key "$T/key" 127.0.0.1 >"$T/cli.out" 2>"$T/cli.err"
expect_rc "client with the key" $? 0
RB_AUTH_KEY='job secret 1
' timeout 60 "$SB" -p "$P" -s 4K -n 100 --quiet 127.0.0.1 >"$T/cli.out" 2>"$T/cli.err"
expect_rc "client with the key in RB_AUTH_KEY" $? 0
timeout 60 "$SB" -p "$P" -s 4K -n 100 --oob-timeout 5 127.0.0.1 >"$T/cli.out" 2>"$T/cli.err"
expect_rc "client without a key" $? 2
expect_grep "$T/cli.err" "server 127.0.0.1:$P refused this run: authentication failed"
timeout 60 "$SB" -p "$P" -s 4K -n 100 --oob-timeout 5 --auth-key "$T/other" 127.0.0.1 >"$T/cli.out" 2>"$T/cli.err"
expect_rc "client with another key" $? 2
expect_grep "$T/cli.err" "does not hold this --auth-key secret"
# A stranger's HELLO gets one REFUSE frame: nothing of the server's HELLO (tool, host, parameters).
flood 1 "$P" "$T/hello.bin" >"$T/told.bin"
python3 - "$T/told.bin" "$(hostname)" <<'PY' || fail "a keyed server told a stranger more than its refusal"
import struct, sys
b, host = open(sys.argv[1], "rb").read(), sys.argv[2].encode()
magic, ver, typ, n = struct.unpack(">IHHI", b[:12])
assert typ == 21 and len(b) == 12 + n, (typ, len(b), n)  # REFUSE (src/lib/oob/wire.h), alone
assert b"socket_bw" not in b and host not in b, b
print("a stranger got:", b[14:].decode())
PY
stop_server TERM
expect_grep "$T/srv.err" "stopped while waiting for a client, after 2 run\(s\), 0 failed"
chmod 644 "$T/other"
expect_usage "$SB" "invalid value '$T/other' for --auth-key: others may read it" --auth-key "$T/other"
# A client's key and a server without one: refused at once, not after a time-out.
P=$((P + 1))
"$SB" -p "$P" --oob-timeout 3 >"$T/srv.out" 2>"$T/srv.err" &
SRV=$!
timeout 60 "$SB" -p "$P" -s 4K -n 100 --auth-key "$T/key" 127.0.0.1 >"$T/cli.out" 2>"$T/cli.err"
expect_rc "keyed client, server without a key" $? 2
expect_grep "$T/cli.err" "refused this run: this server runs without --auth-key"
wait_server

# 4. Limits: refused before anything is allocated, both numbers named.
P=$((P + 1))
"$SB" -p "$P" --persist --max-run-time 2 --max-run-mem 1G >"$T/srv.out" 2>"$T/srv.err" &
SRV=$!
timeout 60 "$SB" -p "$P" -s 512M --nthreads 16 -n 1 127.0.0.1 >"$T/cli.out" 2>"$T/cli.err"
expect_rc "client asking for 512M x 16 threads" $? 2
expect_grep "$T/cli.err" "refused this run: the run needs 8.0 GiB of buffers; this server allows 1.0 GiB per run \(--max-run-mem\)"
timeout 60 "$SB" -p "$P" -s 64M -b --verify --nthreads 16 -n 1 127.0.0.1 >"$T/cli.out" 2>"$T/cli.err"
expect_rc "client asking for 64M both ways x 16 threads" $? 2
expect_grep "$T/cli.err" "the run needs 2.0 GiB of buffers; this server allows 1.0 GiB per run"
hwm=$(awk '/VmHWM/ {print $2}' "/proc/$SRV/status")
[ "$hwm" -lt 65536 ] || fail "the server's peak resident memory reached $hwm kB for runs it refused"
echo "ok: 8 GiB asked of a 1 GiB server: refused, server peak RSS $hwm kB"
timeout 60 "$SB" -p "$P" -s 4K,8K -D 3 127.0.0.1 >"$T/cli.out" 2>"$T/cli.err"
expect_rc "client asking for 6 s of a 2 s server" $? 2
expect_grep "$T/cli.err" "refused this run: the run would last 6 s \(-D 3 x 2 size\(s\)\); this server allows 2 s per run \(--max-run-time\)"
# Repeats count: 1 s x 1 size x 3 repeats is 3 s of a 2 s server.
timeout 60 "$SB" -p "$P" -s 4K -D 1 --repeat 3 127.0.0.1 >"$T/cli.out" 2>"$T/cli.err"
expect_rc "client asking for 3 repeats of 1 s of a 2 s server" $? 2
expect_grep "$T/cli.err" "refused this run: the run would last 3 s \(-D 1 x 1 size\(s\) x 3 measurements each\); this server allows 2 s per run"
timeout 60 "$SB" -p "$P" -s 4K --run-infinitely 127.0.0.1 >"$T/cli.out" 2>"$T/cli.err"
expect_rc "client asking for --run-infinitely" $? 2
expect_grep "$T/cli.err" "refused this run: the run asks for --run-infinitely; this server does not allow it \(--allow-infinite, or --run-infinitely on the server too\)"
# A run by count that outlasts the limit: ended at 2 s by the server's clock, on both sides.
t0=$SECONDS
timeout 60 "$SB" -p "$P" -s 64 -n 1000000000 --json "$T/long.json" 127.0.0.1 >"$T/cli.out" 2>"$T/cli.err"
rc=$?
took=$((SECONDS - t0))
expect_rc "client of a run ended by --max-run-time" $rc 1
[ "$took" -le 15 ] || fail "the 2 s limit ended the run after $took s"
expect_grep "$T/srv.err" "the run passed this server's limit of 2 s \(--max-run-time\): ended by this side"
expect_grep "$T/cli.err" "\(the server\) failed: the run passed this server's limit of 2 s"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["complete"] is False, d["complete"]' "$T/long.json" ||
	fail "the ended run's document says complete"
timeout 60 "$SB" -p "$P" -s 4K -n 100 --quiet 127.0.0.1 >"$T/cli.out" 2>"$T/cli.err"
expect_rc "the next client of the same server" $? 0
stop_server TERM
pass "strangers refused at no cost, --auth-key both ways, limits held before allocation and by the server's clock"
