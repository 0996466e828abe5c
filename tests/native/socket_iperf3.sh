#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# iperf3's command lines (socket_bw(1), IPERF3 USERS): its spellings run with iperf3's
# meaning against a bare server, which takes them from its client; the letters that mean
# something else here are caught in iperf3's words (exit 2); a run far too long for -n is
# warned of before it starts, and runs. Which way the data went, and the buffers the
# sockets got, are read from the kernel (ss), not from socket_bw.
source "$(dirname "$0")/lib.sh"

# iperf3 SERVER_ARGS -- CLIENT_ARGS...: a server and a client with those arguments (the
# client names its server itself: -c 127.0.0.1); sets SRC and CRC, and SRV_PID and CLI_PID.
# With WATCH=N set, the kernel's view of the sockets ($T/ss.txt) is taken from WATCH_FROM s
# into the run, again and again while the client runs, until N of the two processes'
# sockets have carried 1 MB (the data sockets): a host slow to start the step is still seen.
iperf3() {
	local srv=() cli n best=0
	while [ "$1" != -- ]; do srv+=("$1"); shift; done
	shift
	P=$((P + 1))
	"$SB" -p "$P" "${srv[@]}" >"$T/srv.out" 2>"$T/srv.err" &
	SRV=$!
	SRV_PID=$SRV
	# No timeout(1) around it: ss names socket_bw's own pid. Its waits are bounded (--timeout).
	"$SB" -p "$P" "$@" >"$T/cli.out" 2>"$T/cli.err" &
	cli=$!
	CLI_PID=$cli
	if [ -n "${WATCH:-}" ]; then
		rm -f "$T/ss.txt"
		sleep "${WATCH_FROM:-0.5}"
		while kill -0 "$cli" 2>/dev/null && ss -tinmpH >"$T/ss.new" 2>/dev/null; do
			# ss -i: a socket's line, then its figures on the next (mawk: no {7,}).
			n=$(awk -v a="pid=$SRV_PID," -v b="pid=$cli," '
				mine && /bytes_(sent|received):[0-9][0-9][0-9][0-9][0-9][0-9][0-9]/ { n++ }
				{ mine = $1 == "ESTAB" && (index($0, a) || index($0, b)) }
				END { print n + 0 }' "$T/ss.new")
			# The last look while every data socket still stands, the fullest so far.
			((n > 0 && n >= best)) && best=$n && cp "$T/ss.new" "$T/ss.txt"
			((n >= WATCH)) && break
			sleep 0.1
		done
	fi
	wait "$cli"
	CRC=$?
	expect_rc "client [$*]" "$CRC" 0 # (first: a client that failed leaves its server waiting)
	wait_server
	expect_rc "server [$*]" "$SRC" 0
}

# kernel_view server=DIRS client=DIRS [SNDBUF RCVBUF]: the data sockets in ss.txt, each
# side's sending (tx) or receiving (rx) by what the kernel counted on it (the other way:
# the 18-byte greeting at most), and their buffers as the kernel holds them.
kernel_view() {
	if [ ! -s "$T/ss.txt" ]; then
		echo "note: no ss here: which way the data went is socket_bw's word only"
		return
	fi
	python3 - "$T/ss.txt" "$P" "$SRV_PID" "$CLI_PID" "$@" <<'PY' || fail "the kernel's view of the data sockets: $*"
import re, sys
lines, port, pids = open(sys.argv[1]).read().splitlines(), sys.argv[2], sys.argv[3:5]
want = dict(a.split("=") for a in sys.argv[5:7])
bufs = [int(b) for b in sys.argv[7:9]]
seen = {"server": [], "client": []}
for head, info in zip(lines, lines[1:]):
    f = head.split()
    side = [s for s, pid in zip(("server", "client"), pids) if "pid=%s," % pid in head]
    if not (f and f[0] == "ESTAB" and side) or any(a.endswith(":" + port) for a in f[3:5]):
        continue
    # ss leaves a count out when it is 0.
    get = lambda k: int((re.search(r"\b%s(\d+)" % k, info) or [0, 0])[1])
    sent, got = get("bytes_sent:"), get("bytes_received:")
    assert max(sent, got) > 10**6 and min(sent, got) < 100, head + info
    seen[side[0]].append("tx" if sent > got else "rx")
    if bufs:
        assert (get(",tb"), get("rb")) == tuple(bufs), (bufs, info)
for side, dirs in want.items():
    assert sorted(seen[side]) == sorted(dirs.split(",")), seen
print("ok: the kernel's view:", seen, "buffers", bufs or "auto")
PY
}

# The client line of iperf3 itself: -c, -t, -P, -l and -J (iperf3's layout alone on stdout),
# with our own document beside it: -P 2 is two independent streams, each its row.
iperf3 -- -c 127.0.0.1 -t 1 -P 2 -l 64K -J --json "$T/ours.json"
python3 - "$T/cli.out" "$T/ours.json" <<'PY' || fail "-c 127.0.0.1 -t 1 -P 2 -l 64K -J"
import json, sys
d, o = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
m, rows = o["meta"], o["results"]
assert d["complete"] and m["role"] == "client" and m["streams"] == 2 and m["duration_s"] == 1, m
assert [r["stream"] for r in rows] == ["1", "2", "sum"], rows
r = rows[-1]
assert r["streams"] == 2 and r["size_bytes"] == 65536 and r["mode"] == "unidirectional", r
# -t 1 is -D 1: a step of a second, ended by its 2 s grace at the latest (a host that
# stalls for a moment makes it longer, never shorter).
assert 0.9 <= r["elapsed_s"] <= 3, r["elapsed_s"]
assert r["bytes"] == r["msgs"] * 65536 > 0, r
# Each stream's messages are its own, whole: they add up to the sum, and no stream is empty.
assert sum(s["bytes"] for s in rows[:2]) == r["bytes"] and all(s["bytes"] > 0 for s in rows[:2]), rows
# iperf3's layout holds the same figures under iperf3's keys.
t, e = d["start"]["test_start"], d["end"]
assert t["num_streams"] == 2 and t["blksize"] == 65536 and t["duration"] == 1, t
assert e["sum_sent"]["bytes"] == r["bytes"] and abs(e["sum_sent"]["bits_per_second"] - r["bw_avg_gbps"] * 1e9) < 1, e
assert [s["sender"]["bytes"] for s in e["streams"]] == [s["bytes"] for s in rows[:2]], e["streams"]
PY
expect_grep "$T/srv.out" "Streams +: 2 independent TCP streams \\(iperf3's -P\\)"
expect_grep "$T/srv.out" "Duration +: 1 s per size"
# A run of ordinary length is not warned of.
grep -q "warning: -n" "$T/cli.err" "$T/srv.err" && fail "a warning for a 1 s run"

# -w: both buffers of both sides' data sockets (the server took it from its client), as the
# kernel gave them: twice what was asked, capped by net.core.[wr]mem_max; -N and -1 change
# nothing. -R: the server sends.
w=131072
wmax=$(cat /proc/sys/net/core/wmem_max) rmax=$(cat /proc/sys/net/core/rmem_max)
snd=$((2 * (w < wmax ? w : wmax))) rcv=$((2 * (w < rmax ? w : rmax)))
WATCH=2 WATCH_FROM=1 iperf3 -1 -- -c 127.0.0.1 -R -w 128K -t 2 -N --json "$T/r.json"
SPEC="SO_SNDBUF $snd \\(asked $w; the kernel doubles it\\), SO_RCVBUF $rcv \\(asked $w; the kernel doubles it\\)"
expect_grep "$T/cli.out" "Socket options : TCP_NODELAY on, $SPEC"
expect_grep "$T/srv.out" "Socket options : TCP_NODELAY on, $SPEC"
expect_grep "$T/cli.out" "Mode +: unidirectional \\(server sends: -R\\)"
python3 - "$T/r.json" "$snd" "$rcv" <<'PY' || fail "-R -w 128K: the documents"
import json, sys
d = json.load(open(sys.argv[1]))
m, r = d["meta"], d["results"][0]
assert m["sndbuf_bytes"] == int(sys.argv[2]) and m["rcvbuf_bytes"] == int(sys.argv[3]), m
assert r["mode"] == "reverse" and r["bytes"] > 0, r
PY
kernel_view server=tx client=rx "$snd" "$rcv"

# --bidir: both ways at once, a socket each way on each side; -k is -n.
WATCH=4 iperf3 -- -c 127.0.0.1 --bidir -t 1 -l 256K --csv "$T/b.csv"
python3 - "$T/b.csv" <<'PY' || fail "--bidir -t 1 -l 256K"
import csv, sys
r = list(csv.DictReader(open(sys.argv[1])))[0]
assert r["mode"] == "bidirectional" and r["size_bytes"] == "262144", r
assert int(r["msgs"]) == 2 * int(r["iterations"]) > 0 and int(r["bytes"]) == int(r["msgs"]) * 262144, r
PY
kernel_view server=tx,rx client=tx,rx
iperf3 -- -c 127.0.0.1 -k 50 -l 64K --csv "$T/k.csv"
expect_grep "$T/k.csv" "^socket_bw,unidirectional,lo,1,1,1,1,0,0,,65536,50,50,3276800,"

# A run far beyond what -n should ask for (iperf3's -n 1G is bytes; socket_bw's, messages):
# one line before the run starts, and the run goes on until SIGINT ends it.
P=$((P + 1))
"$SB" -p "$P" >"$T/srv.out" 2>"$T/srv.err" &
SRV=$!
timeout 60 "$SB" -p "$P" -c 127.0.0.1 -n 1G >"$T/cli.out" 2>"$T/cli.err" & # timeout passes SIGINT on
cli=$!
wait_for "$T/cli.out" "Iterations +: 1073741824 per size" 20 || fail "the -n 1G run did not start"
sleep 0.5
kill -INT "$cli"
wait "$cli"
expect_rc "client, -n 1G cut by SIGINT" $? 130
wait_server
W="socket_bw: warning: -n 1073741824 x 1 MiB messages moves 1\\.0 PiB \\(about 3\\.5 days at 30 Gb/s, 1 M messages/s at best\\); give -D SEC for a timed run \\(-n counts messages here: iperf3's -n 1G, bytes, is -n 1024 at -s 1M\\)$"
head -n 1 "$T/cli.err" | grep -qE -- "^$W" || fail "no warning before the -n 1G run (first line: $(head -n 1 "$T/cli.err"))"
grep -q "warning: -n" "$T/srv.err" && fail "the server warned too (the client's run, the client's word)"
echo "ok: $(head -n 1 "$T/cli.err")"

# iperf3's letters that mean something else here, used as iperf3 uses them.
expect_usage "$SB" "^socket_bw: -s needs SIZES here: it is the message size \\(iperf3's -s, the server, is socket_bw without a SERVER argument; drop -s\\)$" -s
expect_usage "$SB" "-s needs SIZES here" -s -p 5201
expect_usage "$SB" "^socket_bw: -b 10G: -b is --bidirectional here and takes no value \\(iperf3's -b, a target bitrate: socket_bw always sends as fast as it can\\)$" -c 127.0.0.1 -b 10G
expect_usage "$SB" "-b 100M/10: -b is --bidirectional here" -b 100M/10 127.0.0.1
expect_usage "$SB" "^socket_bw: -D needs SEC here: it is the duration of each size \\(iperf3's -D, a daemon" -D
expect_usage "$SB" "^socket_bw: --json needs FILE here \\('-' = stdout; iperf3's --json is -J\\)$" --json -c 127.0.0.1
expect_usage "$SB" "invalid value '2G' for --iters: out of range \\(allowed: an integer from 1 to 1073741824\\)" -n 2G 127.0.0.1
# iperf3's options socket_bw has none of: what to do instead.
expect_usage "$SB" "^socket_bw: unknown option '-u' \\(iperf3's; socket_bw measures TCP only\\)$" -c 127.0.0.1 -u
expect_usage "$SB" "invalid value '0' for --interval" -c 127.0.0.1 -i 0
expect_usage "$SB" "unknown option '--bitrate' \\(iperf3's; socket_bw always sends as fast as it can\\)" --bitrate=1G
# Its spellings' values, checked as the options they spell.
expect_usage "$SB" "invalid value '0' for --duration: out of range \\(allowed: a number of seconds above 0, up to 86400; --run-infinitely runs until SIGINT\\)" -t 0 -c 127.0.0.1
expect_usage "$SB" "invalid value '17' for --parallel: out of range \\(allowed: an integer from 1 to 16\\)" -P 17 -c 127.0.0.1
expect_usage "$SB" "--streams 2 \\(iperf3's -P\\) with --nsocks 2: independent streams have a thread and a socket each" -P 2 --nsocks 2 -c 127.0.0.1
expect_usage "$SB" "^socket_bw: -c needs HOST, the server to connect to$" -c -t 1
expect_usage "$SB" "-c 127.0.0.1 inside a cluster of letters: give -c HOST as a word of its own" -Jc 127.0.0.1
expect_usage "$SB" "--json and -J cannot both write to stdout" -J --json - -c 127.0.0.1
expect_usage "$SB" "-J writes iperf3's layout, one TCP test: give one size" -J -l 64K,1M -c 127.0.0.1
expect_usage "$SB" "unexpected argument" -c 127.0.0.1 127.0.0.2
expect_usage "$SB" "-R and -b exclude each other \\(-b has the server send as well\\)" -R -b 127.0.0.1
expect_usage "$SB" "-R and --ping-pong exclude each other" -R --ping-pong 127.0.0.1
# -V is the version here, even among a run's options (said, and nothing runs); alone, quietly.
timeout 10 "$SB" -V -c 127.0.0.1 -t 5 >"$T/v.out" 2>"$T/v.err"
expect_rc "-V -c 127.0.0.1 -t 5" $? 0
expect_grep "$T/v.out" "^socket_bw \\(rdmabench\\) "
expect_grep "$T/v.err" "^socket_bw: warning: -V is --version here \\(iperf3's -V, more output, is -v\\): nothing runs$"
"$SB" -V 2>"$T/v.err" >/dev/null
[ -s "$T/v.err" ] && fail "-V alone said: $(cat "$T/v.err")"
# --help has the mapping, and says which letters differ.
"$SB" --help >"$T/help.out"
expect_grep "$T/help.out" "^iperf3's spellings \\(socket_bw\\(1\\), IPERF3 USERS; -s, -b, -n, -D, -V and -v mean other things here\\):$"
for o in "-c, --client=HOST" "-t, --duration=SEC" "-P, --parallel=N" "-l, --length=SIZE" "-J, --json-stdout" "--bidir" \
	"-R, --reverse" "-w, --window=BYTES" "-Z, --zerocopy"; do
	grep -qF -- "$o" "$T/help.out" || fail "--help lacks $o"
done
pass "iperf3's spellings run with iperf3's meaning; its other letters are caught in its words"
