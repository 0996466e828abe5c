#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# --interval in a bandwidth run (as iperf3 -i): the client writes a row per interval
# with what moved in it, then the size's row. The intervals tile the size on the
# client's clock and their bytes and messages add up to its row, in CSV and JSON
# alike; the server, which was given none of it, writes the size's row alone.
# Bidirectional intervals count both directions. --run-infinitely runs one size
# until SIGINT: interval rows only, the document says it was interrupted, exit 130.
source "$(dirname "$0")/lib.sh"

check() { # CSV JSON BIDIR: the client's documents
	python3 - "$@" <<'PY' || fail "interval rows inconsistent ($*)"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
doc = json.load(open(sys.argv[2]))
bidir = sys.argv[3] == "1"
assert doc["complete"] and len(doc["results"]) == len(rows), (doc["complete"], len(rows))
for c, j in zip(rows, doc["results"]):
    assert c["interval"] == j["interval"] and int(c["bytes"]) == j["bytes"], (c, j)
ivs, total = doc["results"][:-1], doc["results"][-1]
assert total["interval"] == "total" and all(r["interval"] != "total" for r in ivs), rows
# What is guaranteed, not what a quiet machine shows: a row ends at the control thread's
# first wake-up at or after its mark, the first point of the 0.5 s grid past the previous
# row's end; never before it. How late is up to the scheduler: a starved host (CI's
# sanitizer run: 0.00-1.32, 1.32-2.13, 2.13-2.51) delays a row while the senders, on their
# own clock, end the step on time; so lateness is bounded only in that one row at least
# is on time (within 0.1 s), which a grid of the wrong pitch never is.
prev, lateness = 0.0, []
for r in ivs[:-1]:
    mark = (int(prev / 0.5 + 1e-9) + 1) * 0.5
    assert r["t_end_s"] >= mark - 1e-6, ("early", r["interval"], mark)
    lateness.append(r["t_end_s"] - mark)
    prev = r["t_end_s"]
assert not lateness or min(lateness) <= 0.1, ("no row on time", [r["interval"] for r in ivs])
assert len(ivs) <= int(total["elapsed_s"] / 0.5) + 2, [r["interval"] for r in ivs]
assert ivs[0]["t_start_s"] == 0 and total["t_start_s"] == 0, (ivs[0], total)
assert abs(ivs[-1]["t_end_s"] - total["elapsed_s"]) <= 1e-6 and total["t_end_s"] == total["elapsed_s"], (ivs[-1], total)
for a, b in zip(ivs, ivs[1:]):
    assert a["t_end_s"] == b["t_start_s"], (a, b)
size = total["size_bytes"]
assert sum(r["bytes"] for r in ivs) == total["bytes"], (sum(r["bytes"] for r in ivs), total["bytes"])
assert sum(r["msgs"] for r in ivs) == total["msgs"], (sum(r["msgs"] for r in ivs), total["msgs"])
assert total["msgs"] * size == total["bytes"] and total["mode"] == ("bidirectional" if bidir else "unidirectional")
for r in ivs:
    secs = r["t_end_s"] - r["t_start_s"]
    assert abs(r["elapsed_s"] - secs) <= 1e-6, r
    assert abs(r["bw_avg_gbps"] - r["bytes"] * 8 / secs / 1e9) <= 1e-6 * r["bw_avg_gbps"] + 1e-9, r
    # An interval has no CPU figure of either side: the step's CPU is measured over the whole step.
    assert r["cpu_client_pct"] is None and r["cpu_server_pct"] is None, r
# The intervals' rate, weighted by time, is the size's rate.
mean = sum(r["bw_avg_gbps"] * r["elapsed_s"] for r in ivs) / total["elapsed_s"]
assert abs(mean - total["bw_avg_gbps"]) <= 1e-6 * total["bw_avg_gbps"], (mean, total["bw_avg_gbps"])
print(len(ivs), "intervals:", " ".join(f'{r["interval"]}:{r["bw_avg_gbps"]:.2f}' for r in ivs),
      f'total {total["bw_avg_gbps"]:.2f} Gb/s, {total["bytes"]} bytes')
PY
}

for bidir in 0 1; do
	b=()
	[ $bidir = 1 ] && b=(-b)
	P=$((P + 1))
	"$SB" -p "$P" --json "$T/srv.json" >"$T/srv.out" 2>"$T/srv.err" &
	SRV=$!
	timeout 60 "$SB" -p "$P" -s 256K -D 3 --interval 0.5 "${b[@]}" --csv "$T/cli.csv" --json "$T/cli.json" \
		127.0.0.1 >"$T/cli.out" 2>"$T/cli.err"
	expect_rc client $? 0
	wait "$SRV"
	expect_rc server $? 0
	SRV=
	check "$T/cli.csv" "$T/cli.json" $bidir
	python3 - "$T/srv.json" <<'PY' || fail "the server's document holds more than the size's row"
import json, sys
r = json.load(open(sys.argv[1]))["results"]
assert len(r) == 1 and r[0]["interval"] is None, r
PY
	expect_grep "$T/cli.out" "interval\[s\]"
	expect_grep "$T/cli.out" " 0\.00-[0-9]+\.[0-9]+ *$"
	expect_grep "$T/cli.out" " total *$"
done

# --run-infinitely: rows every interval until SIGINT.
P=$((P + 1))
"$SB" -p "$P" --allow-infinite >"$T/srv.out" 2>"$T/srv.err" &
SRV=$!
timeout 60 "$SB" -p "$P" -s 64K --run_infinitely --interval 0.3 --json "$T/inf.json" 127.0.0.1 \
	>"$T/inf.out" 2>"$T/cli.err" &
cli=$!
# Rows come when an interval ends, not on a fixed grid: count them, not their stamps.
# (Counted in a file of its own, 0 until the client has opened it: the bandwidth runs'
# cli.out, read before this client truncated it, once ended the wait at once.)
rows() {
	local n
	n=$(grep -cE " [0-9]+\.[0-9]+-[0-9]+\.[0-9]+ *$" "$T/inf.out" 2>/dev/null)
	echo "${n:-0}"
}
for ((i = 0; i < 300 && $(rows) < 4; i++)); do sleep 0.1; done
[ "$(rows)" -ge 4 ] || fail "no fourth interval row within 30 s: $(cat "$T/inf.out" "$T/cli.err" 2>&1)"
kill -INT "$cli"
wait "$cli"
expect_rc client $? 130
wait "$SRV"
expect_rc server $? 1
SRV=
expect_grep "$T/cli.err" "interrupted by SIGINT"
expect_grep "$T/srv.err" "peer .* failed: interrupted by SIGINT"
expect_grep "$T/inf.out" "Duration       : until SIGINT/SIGTERM"
python3 - "$T/inf.json" <<'PY' || fail "the interrupted run's document is wrong"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["complete"] is False and d["error"] == "interrupted by SIGINT", (d["complete"], d["error"])
r, tot = d["results"][:-1], d["results"][-1]
assert len(r) >= 4 and all(x["interval"] != "total" and x["bytes"] > 0 and not x["partial"] for x in r), r
for a, b in zip(r, r[1:]):
    assert a["t_end_s"] == b["t_start_s"], (a, b)
# The run's total, cut by the signal: partial, from 0, holding every interval's bytes.
assert tot["interval"] == "total" and tot["partial"] is True and tot["t_start_s"] == 0, tot
assert tot["bytes"] >= sum(x["bytes"] for x in r) and tot["elapsed_s"] >= r[-1]["t_end_s"] - 0.01, tot
print(len(r), "interval rows before SIGINT, then the total:", tot["bytes"], "bytes in", tot["elapsed_s"], "s")
PY
# perftest's way: --run_infinitely on both sides is the server's consent (no --allow-infinite);
# a server given neither refuses the client, naming both ways to allow it.
for consent in --run_infinitely ""; do
	P=$((P + 1))
	# shellcheck disable=SC2086 # an empty consent is no word
	"$SB" -p "$P" $consent >"$T/srv.out" 2>"$T/srv.err" &
	SRV=$!
	timeout 60 "$SB" -p "$P" -s 64K --run_infinitely --interval 0.3 127.0.0.1 >"$T/inf.out" 2>"$T/cli.err" &
	cli=$!
	if [ -n "$consent" ]; then
		for ((i = 0; i < 300 && $(rows) < 2; i++)); do sleep 0.1; done
		[ "$(rows)" -ge 2 ] || fail "both sides --run_infinitely: no second interval row within 30 s: $(cat "$T/cli.err" "$T/srv.err")"
		kill -INT "$cli"
		wait "$cli"
		expect_rc "client, both sides --run_infinitely" $? 130
	else
		wait "$cli"
		expect_rc "client of a server that does not allow --run-infinitely" $? 2
		expect_grep "$T/cli.err" "does not allow it \(--allow-infinite, or --run-infinitely on the server too\)"
	fi
	kill -INT "$SRV" 2>/dev/null
	wait_server
done
expect_usage "$SB" "--run-infinitely with -n: it runs until SIGINT/SIGTERM" --run-infinitely -n 10
expect_usage "$SB" "--run-infinitely with -D" --run_infinitely -D 2
expect_usage "$SB" "--run-infinitely with 2 sizes: it runs one size" --run_infinitely -s 1K,2K
expect_usage "$SB" "--run-infinitely with --ping-pong" --run_infinitely --ping-pong
pass "bandwidth interval rows tile the size and add up; --run-infinitely ends on SIGINT with a valid document"
