#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Healthy runs on a loaded host pass: thirty socket_bw runs (-n, -D, -R, -b in turn)
# beside four busy loops on this host's cores. Each side's clock may stall for a
# scheduler's slice, and the clock rule must then say it cannot judge the peer's clock
# (a warning; the row keeps this side's), never fail the step on the host's account
# (seen: "peer's DONE says the step took 60.0 ms, this side measured 128.9 ms"). Runs
# alone (the 'alone' suite): its loops would slow the tests beside it.
source "$(dirname "$0")/lib.sh"
# Without the kernel's CPU pressure only this process's own waits are evidence, and a
# stall of the peer process alone can still fail a step: the claim needs the file.
if [ ! -r /proc/pressure/cpu ]; then
	echo "SKIP: no /proc/pressure/cpu (a kernel without PSI): this host's stalls are not all visible"
	exit 77
fi
busy=()
for _ in 1 2 3 4; do
	(while :; do :; done) &
	busy+=($!)
done
rb_exit_trap 'kill "${busy[@]}" 2>/dev/null; rb_cleanup'
opts=("-n 300" "-D 0.3" "-n 300 -R" "-n 300 -b" "-s 4K -n 2000" "-s 1M -n 50")
failed=0 doubts=0
for ((i = 0; i < 30; i++)); do
	o=${opts[i % ${#opts[@]}]}
	P=$((P + 1))
	# shellcheck disable=SC2086
	"$SB" -p "$P" $o --json "$T/srv.json" >"$T/srv.out" 2>"$T/srv.err" &
	SRV=$!
	# shellcheck disable=SC2086
	timeout 60 "$SB" -p "$P" $o --json "$T/cli.json" 127.0.0.1 >"$T/cli.out" 2>"$T/cli.err"
	CRC=$?
	wait_server
	if [ "$CRC" != 0 ] || [ "$SRC" != 0 ]; then
		failed=$((failed + 1))
		echo "run $i ($o): client $CRC, server $SRC: $(head -1 "$T/cli.err") / $(head -1 "$T/srv.err")"
	fi
	grep -hq "is not judged" "$T/cli.err" "$T/srv.err" && doubts=$((doubts + 1))
done
kill "${busy[@]}" 2>/dev/null
wait "${busy[@]}" 2>/dev/null
echo "30 runs beside 4 busy loops: $failed failed, $doubts with a clock not judged"
[ "$failed" = 0 ] || fail "$failed of 30 healthy runs failed on a loaded host"
pass "30 healthy runs beside 4 busy loops"
