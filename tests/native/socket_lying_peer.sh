#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# The lying-peer matrix for socket_bw: a man in the middle of the control connection
# (oob_mitm.py lie:TYPE:FIELD:DIR) rewrites one figure of DONE (messages, bytes, time,
# CPU) or of TCPINFO (retransmits, RTT, cwnd) going one way, unidirectional, with -R
# and with -b. No side may exit 0 with a complete document carrying a figure more than
# 2x the other side's (lying_check.py): the counts are held to what arrived, the time
# to this side's clock, and whatever this side cannot check reaches the peer it came
# from in the closing agreement's echo, which fails the step where it was rewritten.
source "$(dirname "$0")/lib.sh"
check=$(dirname "$0")/../lib/lying_check.py
caught=0 runs=0
for opts in "" "-R" "-b"; do
	for lie in DONE:msgs DONE:bytes DONE:elapsed DONE:cpu TCPINFO:retrans TCPINFO:rtt TCPINFO:cwnd; do
		for dir in c2s s2c; do
			label="${opts:-plain} $lie $dir"
			rm -f "$T/srv.json" "$T/cli.json"
			# shellcheck disable=SC2086
			mitm "lie:$lie:$dir" --json "$T/srv.json" -- -s 64K -n 100 $opts --json "$T/cli.json"
			python3 "$check" "$label" "$T/srv.json" "$SRC" "$T/cli.json" "$CRC" "$T/mitm.out" >>"$T/matrix" ||
				fail "$label: a lie reached a complete row"
			runs=$((runs + 1))
			echo "  server: $(head -c 200 "$T/srv.err" | head -1)" >>"$T/matrix"
			echo "  client: $(head -c 200 "$T/cli.err" | head -1)" >>"$T/matrix"
			if grep -q "^rewrote" "$T/mitm.out"; then
				[ "$SRC" != 0 ] && [ "$CRC" != 0 ] || fail "$label: a rewritten figure, yet server rc $SRC, client rc $CRC"
				caught=$((caught + 1))
			fi
		done
	done
done
# Every DONE rewrite in every mode, and TCPINFO where a sender's figures cross (-R: s2c,
# plain: c2s, -b: both): 3 x 8 + 3 + 3 + 6 = 36.
[ "$caught" = 36 ] || fail "$caught of $runs runs had a figure rewritten (36 expected)"
# A relay that also forges the echo is a lying peer: the counts it rewrites are held to
# what arrived (or to none, where nothing comes that way), the time to this side's clock.
for opts in "" "-R" "-b"; do
	for lie in DONE:msgs DONE:bytes DONE:elapsed; do
		for dir in c2s s2c; do
			label="${opts:-plain} forged $lie $dir"
			rm -f "$T/srv.json" "$T/cli.json"
			# shellcheck disable=SC2086
			# A 1 s step for the time: a third of it claimed is far beyond the scheduling slack.
			len="-n 100"
			[ "$lie" = DONE:elapsed ] && len="-D 1"
			# shellcheck disable=SC2086
			mitm "forge:$lie:$dir" --json "$T/srv.json" -- -s 64K $len $opts --json "$T/cli.json"
			python3 "$check" "$label" "$T/srv.json" "$SRC" "$T/cli.json" "$CRC" "$T/mitm.out" >>"$T/matrix" ||
				fail "$label: a lie reached a complete row"
			expect_grep "$T/mitm.out" "^rewrote DONE"
			echo "  server: $(head -c 200 "$T/srv.err" | head -1)" >>"$T/matrix"
			echo "  client: $(head -c 200 "$T/cli.err" | head -1)" >>"$T/matrix"
			if [ "$lie" = DONE:elapsed ]; then
				# The DONE of a side that sends nothing this way carries no clock to judge; one
				# that does is judged: the step fails, or this host stalled and says it could
				# not judge (its row keeps its own clock, which lying_check holds to the other's).
				case "${opts:-plain} $dir" in "plain s2c" | "-R c2s") continue ;; esac
				[ "$SRC" != 0 ] || [ "$CRC" != 0 ] || grep -hq "is not judged" "$T/srv.err" "$T/cli.err" ||
					fail "$label: a clock 3x short, yet neither failed nor said it could not judge"
				continue
			fi
			[ "$SRC" != 0 ] && [ "$CRC" != 0 ] || fail "$label: a forged count, yet server rc $SRC, client rc $CRC"
		done
	done
done
cat "$T/matrix"
# The same runs untouched: both complete.
mitm pass --json "$T/srv.json" -- -s 64K -n 100 -b --json "$T/cli.json"
expect_rc "server [pass]" "$SRC" 0
expect_rc "client [pass]" "$CRC" 0
pass "$caught lies in $runs runs: none reached a complete row"
