#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# The lying-peer matrix for rc_write_bw on rxe: a man in the middle of the control
# connection (oob_mitm.py lie:DONE:FIELD:DIR) rewrites one figure of DONE (messages,
# bytes, time, peak) going one way, with and without -b. No side exits 0 with a
# complete document carrying a figure more than 2x the other side's (lying_check.py).
# Then as a lying peer (forge: the closing agreement's echo forged too): counts beyond
# what the size and -n allow fail the step on the side that reads them; a time this
# side cannot see (a WRITE lands unannounced) stays within the port's rate, and the
# row that carries it says it is the peer's (measured_by).
source "$(dirname "$0")/lib.sh"
check=$(dirname "$0")/../lib/lying_check.py

for opts in "" "-b"; do
	for field in msgs bytes elapsed peak; do
		for dir in c2s s2c; do
			label="${opts:-plain} DONE:$field $dir"
			# shellcheck disable=SC2086
			bw_mitm "lie:DONE:$field:$dir" $opts
			python3 "$check" "$label" "$T/srv.json" "$SRC" "$T/cli.json" "$CRC" "$T/mitm.out" ||
				fail "$label: a lie reached a complete row"
			expect_grep "$T/mitm.out" "^rewrote DONE $field"
			[ "$SRC" != 0 ] && [ "$CRC" != 0 ] || fail "$label: a rewritten figure, yet server rc $SRC, client rc $CRC"
			echo "  server: $(head -1 "$T/srv.err" | cut -c1-200)"
		done
	done
done
for field in msgs bytes elapsed; do
	label="forged DONE:$field c2s"
	bw_mitm "forge:DONE:$field:c2s"
	expect_grep "$T/mitm.out" "^rewrote DONE $field"
	echo "$label: server rc $SRC, client rc $CRC; server: $(head -1 "$T/srv.err" | cut -c1-200)"
	if [ "$field" = elapsed ]; then
		# Faster than the client's own clock, but within the port: the server's row, if
		# any, is labelled as the client's figures.
		[ "$SRC" != 0 ] || python3 - "$T/srv.json" <<'PY' || fail "$label: the peer's figures not labelled"
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    assert r["measured_by"] == "peer", r["measured_by"]
PY
	else
		[ "$SRC" != 0 ] && [ "$CRC" != 0 ] || fail "$label: a forged count, yet server rc $SRC, client rc $CRC"
	fi
done
# Untouched, both complete; the client's row is its own sends, the server's its peer's.
bw_mitm pass
expect_rc "server [pass]" "$SRC" 0
expect_rc "client [pass]" "$CRC" 0
python3 - "$T/srv.json" "$T/cli.json" <<'PY' || fail "measured_by"
import json, sys
s, c = (json.load(open(p))["results"][0]["measured_by"] for p in sys.argv[1:])
assert (s, c) == ("peer", "self"), (s, c)
PY
pass "every DONE figure rewritten in flight fails the step; a lying peer's counts fail, its time is labelled"
