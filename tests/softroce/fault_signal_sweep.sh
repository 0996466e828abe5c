#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SIGINT and SIGTERM, on either side, in the middle of an rc_write_bw sweep written as
# --json and --csv on both sides (lat_signal.sh does rc_write_lat). The signalled side
# stops within seconds and exits 128 + signal; its peer is told and exits 1 naming the
# interruption; all four documents parse, hold exactly the sizes completed before the
# signal (the same rows in CSV and JSON; a client also the size it was in, marked
# partial), the JSON says "complete": false with the
# cause; no temporary file is left behind.
source "$(dirname "$0")/lib.sh"
fabric_guard
args=(--sizes 2:4M -n 1000)

for victim in client:INT server:TERM client:TERM server:INT; do
	who=${victim%:*} sig=${victim#*:}
	# The last round's output must be gone: a background redirect truncates it only
	# when its process gets to run, and wait_for would read the old rows.
	rm -f "$T"/*.json "$T"/*.csv "$T"/*.out
	start_server "$BW" "${args[@]}" --json "$T/srv.json" --csv "$T/srv.csv"
	start_client "$BW" "${args[@]}" --json "$T/cli.json" --csv "$T/cli.csv"
	for f in cli srv; do
		wait_for "$T/$f.out" "^ +8 +[0-9]+ " 60 || fail "[$who SIG$sig] the third size never completed ($f)"
	done
	# timeout(1) passes INT and TERM on to the tool.
	if [ "$who" = client ]; then kill -"$sig" "$CLI"; else kill -"$sig" "$SRV"; fi
	sent=$(now_ms)
	wait_client
	wait_server
	took=$(($(now_ms) - sent))
	want=$((128 + $(kill -l "$sig")))
	if [ "$who" = client ]; then
		vrc=$CRC prc=$SRC verr=cli.err perr=srv.err
	else
		vrc=$SRC prc=$CRC verr=srv.err perr=cli.err
	fi
	expect_rc "$who (SIG$sig)" "$vrc" "$want"
	expect_rc "the $who's peer" "$prc" 1
	expect_took "[$who SIG$sig] both sides" "$took" 10
	expect_grep "$T/$verr" "interrupted by SIG$sig"
	expect_grep "$T/$perr" "peer .* failed: interrupted by SIG$sig"
	ls "$T" | grep -q '\.tmp\.' && fail "[$who SIG$sig] temporary report files left behind: $(ls "$T")"
	python3 - "$T" "interrupted by SIG$sig" "${who:0:3}" <<'PY' || fail "[$who SIG$sig] documents wrong"
import csv, json, sys
t, why = sys.argv[1], sys.argv[2]
sizes = [2 << i for i in range(22)]
victim = sys.argv[3]
for side in ("cli", "srv"):
    d = json.load(open(f"{t}/{side}.json"))
    rows = list(csv.DictReader(open(f"{t}/{side}.csv")))
    # A client cut mid-size keeps that size as a last row marked partial: its own sends so far.
    part = [r for r in d["results"] if r["partial"]]
    if part:
        assert side == "cli" == victim and part[-1] is d["results"][-1] and len(part) == 1, (side, part)
        assert 0 < part[0]["msgs"] <= 1000 and rows[-2]["partial"] == "1", (side, part, rows[-2])
        d["results"].pop()
        rows.pop(-2)
    n = len(d["results"])
    assert d["complete"] is False and why in d["error"], (side, d["complete"], d.get("error"))
    assert 3 <= n < len(sizes), (side, n)
    assert [r["size_bytes"] for r in d["results"]] == sizes[:n], (side, d["results"])
    assert all(r["msgs"] == 1000 and r["bytes"] == 1000 * r["size_bytes"] for r in d["results"]), side
    # The CSV says so in-band: measured rows have an empty error cell, one last row the cause.
    assert why in rows[-1]["error"] and rows[-1]["size_bytes"] == "", (side, "csv", rows[-1])
    rows = rows[:-1]
    assert all(r["error"] == "" for r in rows), (side, "csv", rows)
    assert [int(r["size_bytes"]) for r in rows] == sizes[:n], (side, "csv", rows)
    assert [int(r["bytes"]) for r in rows] == [r["bytes"] for r in d["results"]], (side, "csv")
print(f"{n} of {len(sizes)} sizes kept")
PY
	echo "$who SIG$sig: exits $CRC/$SRC after $took ms; peer: $(head -n 1 "$T/$perr")"
done
pass "SIGINT/SIGTERM on either side mid-sweep: both exit, the peer is told, documents kept"
