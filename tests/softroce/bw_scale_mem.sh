#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Memory per QP (issue 34): rc_write_bw's client costs no more per QP than
# perftest's ib_write_bw, measured in the same run as the growth of the peak resident
# set (GNU time) from 16 to 1024 QPs at -s 64 -n 10; and the set-up's phases are in
# -v's debug line and the JSON meta.
source "$(dirname "$0")/lib.sh"
if ! command -v ib_write_bw >/dev/null || [ ! -x /usr/bin/time ]; then
	echo "SKIP: ib_write_bw or GNU time missing"
	exit 77
fi
# rss VAR TOOL QPS ARGS...: both ends run (the client also with cx[@]); VAR = its peak RSS in KiB.
cx=()
rss() {
	local var=$1 tool=$2 q=$3
	shift 3
	start_server "$tool" -s 64 -n 10 -q "$q" "$@"
	sleep 1
	/usr/bin/time -f %M -o "$T/time" timeout 120 "$tool" -d "$RB_DEV_PEER" -p "$P" -s 64 -n 10 -q "$q" \
		"$@" "${cx[@]}" 127.0.0.1 >"$T/cli.out" 2>"$T/cli.err"
	CRC=$?
	wait_server
	expect_rc "$tool -q $q client" "$CRC" 0
	expect_rc "$tool -q $q server" "$SRC" 0
	printf -v "$var" %s "$(tail -n 1 "$T/time")"
}
theirs16='' theirs='' ours16='' ours=''
rss theirs16 ib_write_bw 16 -x 0 -F
rss theirs ib_write_bw 1024 -x 0 -F
rss ours16 "$BW" 16
cx=(-v --json "$T/doc.json")
rss ours "$BW" 1024

grep -E "set-up: create [0-9.]+ ms, register [0-9.]+ ms, exchange [0-9.]+ ms, RTR/RTS [0-9.]+ ms for 1024 QPs" \
	"$T/cli.err" || fail "no set-up phases in -v's debug output"
python3 - "$T/doc.json" <<'PY' || fail "set-up phases missing from the JSON meta"
import json, sys
m = json.load(open(sys.argv[1]))["meta"]
v = [m["setup_" + k + "_s"] for k in ("create", "register", "exchange", "rtr_rts")]
assert all(isinstance(x, (int, float)) and x >= 0 for x in v) and v[0] > 0, v
PY
python3 - "$theirs16" "$theirs" "$ours16" "$ours" <<'PY' || fail "rc_write_bw costs more memory per QP than ib_write_bw"
import sys
t16, t, o16, o = map(int, sys.argv[1:])
theirs, ours = (t - t16) / 1008, (o - o16) / 1008
print(f"  KiB per QP, 16 -> 1024 QPs: ib_write_bw {theirs:.1f} ({t16} -> {t}), rc_write_bw {ours:.1f} ({o16} -> {o})")
assert ours <= theirs, (ours, theirs)
PY
pass "memory per QP at most ib_write_bw's; set-up phases reported"
