#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SIGINT/SIGTERM end a run through the normal path: the interrupted side exits
# 128+signal, its peer exits 1 naming the interruption, both end within seconds, and
# both --json documents keep the completed rows and say "complete": false.
source "$(dirname "$0")/lib.sh"

# interrupt VICTIM SIG ARGS...: runs both sides with ARGS, sends SIG to VICTIM
# (client|server) once the first row (64 KiB) is printed, and checks the outcome.
interrupt() {
	local victim=$1 sig=$2 cli vpid start took vrc prc verr perr
	shift 2
	P=$((P + 1))
	# The last run's output must be gone before the new one starts: a background
	# redirect truncates it only when its process gets to run.
	rm -f "$T"/*.json "$T"/*.out
	"$SB" -p "$P" "$@" --json "$T/srv.json" >"$T/srv.out" 2>"$T/srv.err" &
	SRV=$!
	timeout 120 "$SB" -p "$P" "$@" --json "$T/cli.json" 127.0.0.1 >"$T/cli.out" 2>"$T/cli.err" &
	cli=$!
	wait_for "$T/cli.out" "^ +65536 " 60 || fail "the first row never came"
	sleep 0.3
	[ "$victim" = client ] && vpid=$cli || vpid=$SRV
	kill -s "$sig" "$vpid"
	start=$(now_ms)
	wait "$cli"
	CRC=$?
	reap "$SRV" 30 "the server"
	SRC=$REAPED
	SRV=
	took=$(($(now_ms) - start))
	if [ "$victim" = client ]; then
		vrc=$CRC prc=$SRC verr=cli.err perr=srv.err
	else
		vrc=$SRC prc=$CRC verr=srv.err perr=cli.err
	fi
	expect_rc "$victim (SIG$sig)" "$vrc" $((128 + $(kill -l "$sig")))
	expect_rc "the $victim's peer" "$prc" 1
	expect_took "SIG$sig: the run" "$took" 5
	expect_grep "$T/$verr" "interrupted by SIG$sig"
	expect_grep "$T/$perr" "peer .* failed: interrupted by SIG$sig"
	python3 - "$T/cli.json" "$T/srv.json" "interrupted by SIG$sig" <<'PY' || fail "result documents wrong"
import json, re, sys
for path in sys.argv[1:3]:
    d = json.load(open(path))
    assert d["complete"] is False, (path, d.get("complete"))
    assert re.search(sys.argv[3], d["error"]), (path, d["error"])
    assert len(d["results"]) >= 1 and d["results"][0]["size_bytes"] == 65536, (path, d["results"])
PY
	echo "ok: $* ($victim SIG$sig): $(head -n 1 "$T/$perr") (${took} ms)"
}

interrupt client INT -s 64K,1M,2M,4M -D 2 --nsocks 2 --nthreads 2 --verify
interrupt server TERM -s 64K,1M,2M,4M -D 2 -b
interrupt client INT --ping-pong -s 64K,128K,256K -D 2 --verify
# SIGINT 2 s into a 20 s size keeps it as the client's partial row: bytes lo's own counter
# saw leave (a bound: lo carries headers and whatever else runs here), on the client's clock.
for mode in bw ping_pong; do
	extra=()
	[ $mode = ping_pong ] && extra=(--ping-pong)
	P=$((P + 1))
	"$SB" -p "$P" >"$T/srv.out" 2>"$T/srv.err" &
	SRV=$!
	lo0=$(cat /sys/class/net/lo/statistics/tx_bytes)
	timeout 60 "$SB" -p "$P" -s 64K -D 20 "${extra[@]}" --json "$T/cut.json" 127.0.0.1 >"$T/cli.out" 2>"$T/cli.err" &
	cli=$!
	wait_for "$T/cli.out" "^-{20}" 20 || fail "[$mode] the client never printed its header"
	sleep 2
	kill -INT "$cli"
	wait "$cli"
	expect_rc "[$mode] client (SIGINT 2 s into a 20 s size)" $? 130
	wait_server
	lo=$(($(cat /sys/class/net/lo/statistics/tx_bytes) - lo0))
	expect_grep "$T/cli.out" "partial row: SIGINT [0-9.]+ s into the 65536-byte size"
	python3 - "$T/cut.json" "$lo" "$mode" <<'PY' || fail "[$mode] the partial row is wrong"
import json, sys
d, lo, mode = json.load(open(sys.argv[1])), int(sys.argv[2]), sys.argv[3]
assert d["complete"] is False and len(d["results"]) == 1, d
r = d["results"][0]
assert r["partial"] is True and r["size_bytes"] == 65536 and 1.0 < r["elapsed_s"] < 15, r
if mode == "bw":
    assert r["bytes"] > 0 and r["bytes"] % 65536 == 0 and r["bytes"] <= lo, (r["bytes"], lo)
    assert abs(r["bw_avg_gbps"] - r["bytes"] * 8 / r["elapsed_s"] / 1e9) <= 1e-6 * r["bw_avg_gbps"], r
else:
    assert r["iterations"] > 0 and 0 < r["lat_p50_us"] <= r["lat_max_us"], r
    assert 2 * r["iterations"] * 65536 <= lo, (r["iterations"], lo)
print(f"{mode}: partial row after {r['elapsed_s']:.2f} s: {r.get('bytes') or r['iterations']} (lo sent {lo} B)")
PY
done
pass "SIGINT/SIGTERM end the run on both sides; a size cut short is kept as the client's partial row"
