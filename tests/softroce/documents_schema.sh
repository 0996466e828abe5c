#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Every verbs tool's CSV header is its schema as rdmabench-documents(7) writes it down
# (all 24 counter columns, the spreads, the tail), whatever the options: a plain run,
# --interval, --repeat and a failed run (its error row) give the same columns.
source "$(dirname "$0")/lib.sh"
page=$(dirname "$0")/../../man/man7/rdmabench-documents.7
check=$(dirname "$0")/../lib/schema_check.py
for t in "$BW:rc_write_bw" "$LAT:rc_write_lat" "$FP:fifo_pingpong"; do
	tool=${t%%:*} name=${t##*:}
	# fifo_pingpong's rows per interval are its ping-pong's (--window 1).
	w=
	[ "$name" = fifo_pingpong ] && w="--window 1"
	for opts in "-s 4K -n 20" "-s 4K -D 1 --interval 0.5 $w" "-s 4K -n 20 --repeat 2"; do
		start_server "$tool" $opts
		run_client "$tool" $opts --csv "$T/$name.csv"
		wait_server
		expect_rc "$name $opts" "$CRC" 0
		python3 "$check" "$T/$name.csv" "$page" "$name" || fail "$name $opts: the header is not the page's"
	done
	# A failed run (no server): the error's row has the header, and the shape, too.
	timeout 30 "$tool" -d "$RB_DEV_PEER" -p "$((P + 500))" --oob-timeout 1 -s 4K --csv "$T/f.csv" 127.0.0.1 \
		>/dev/null 2>&1
	python3 "$check" "$T/f.csv" "$page" "$name" || fail "$name, failed run: the header is not the page's"
done
pass "every verbs tool's CSV has the columns rdmabench-documents(7) lists, whatever the options"
