#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SIGINT on the client, then SIGTERM on the server, mid-sweep once the first size is
# done: the signalled side stops within a bound and exits 128 + signal, the peer is
# told and exits 1, and both JSON documents keep the completed sizes and say the
# sweep is incomplete.
source "$(dirname "$0")/lib.sh"
sizes=8,16,32,64,128,256,512,1024
for victim in client:INT server:TERM; do
	who=${victim%:*} sig=${victim#*:}
	start_server "$LAT" -s $sizes -D 1 --json "$T/srv.json"
	timeout 120 "$LAT" -d "$RB_DEV_PEER" -p "$P" -s $sizes -D 1 --json "$T/cli.json" 127.0.0.1 \
		>"$T/cli.out" 2>"$T/cli.err" &
	cli=$!
	for f in cli srv; do
		wait_for "$T/$f.out" "^ +8 +[0-9]+ " 60 || fail "[$who] the first size never completed ($f)"
	done
	sent=$(now_ms)
	# timeout(1) passes INT and TERM on to the tool.
	if [ "$who" = client ]; then kill -"$sig" "$cli"; else kill -"$sig" "$SRV"; fi
	wait "$cli"
	CRC=$?
	wait_server
	took=$(($(now_ms) - sent))
	want=$([ "$sig" = INT ] && echo 130 || echo 143)
	if [ "$who" = client ]; then
		expect_rc client "$CRC" "$want"
		expect_rc server "$SRC" 1
		expect_grep "$T/cli.err" "interrupted by SIGINT"
		expect_grep "$T/srv.err" "peer .* failed: interrupted by SIGINT"
	else
		expect_rc client "$CRC" 1
		expect_rc server "$SRC" "$want"
		expect_grep "$T/srv.err" "interrupted by SIGTERM"
		expect_grep "$T/cli.err" "peer .* failed: interrupted by SIGTERM"
	fi
	expect_took "[$who SIG$sig] both ends" "$took" 5
	python3 - "$T/cli.json" "$T/srv.json" <<'PY' || fail "[$who SIG$sig] documents wrong"
import json, sys
for p in sys.argv[1:]:
    d = json.load(open(p))
    n = len(d["results"])
    assert d["complete"] is False and 1 <= n < 8, (p, d["complete"], n)
    assert [r["size_bytes"] for r in d["results"]] == [8, 16, 32, 64, 128, 256, 512][:n], d["results"]
PY
	echo "$who SIG$sig: exits $CRC/$SRC after ${took} ms; $(head -n 1 "$T/$([ $who = client ] && echo srv || echo cli).err")"
done
pass "a signal mid-sweep stops both sides, tells the peer and keeps the completed rows"
