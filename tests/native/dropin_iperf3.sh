#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# iperf3 users' scripts, unchanged: each command line of tests/dropin/iperf3.txt runs with
# iperf3 and then with socket_bw on loopback, and the jq its users run reads each -J
# document. From ours it must read the figure our own document (--json) holds, and from
# iperf3 one of the same magnitude (two runs differ, a unit or a key does not: within a
# factor of 4).
source "$(dirname "$0")/lib.sh"
for x in iperf3 jq; do
	command -v "$x" >/dev/null || { echo "SKIP: $x is not installed"; exit 77; }
done
cases=$(dirname "$0")/../dropin/iperf3.txt

# run NAME DIR TOOL ARGS...: a one-off server and a client of TOOL; the client's stdout to DIR/cli.out.
run() {
	local name=$1 dir=$2 tool=$3 end
	shift 3
	mkdir -p "$dir"
	P=$((P + 1))
	if [ "$tool" = iperf3 ]; then
		timeout 60 iperf3 -s -1 -p "$P" >"$dir/srv.out" 2>"$dir/srv.err" &
	else
		timeout 60 "$SB" -p "$P" >"$dir/srv.out" 2>"$dir/srv.err" &
	fi
	SRV=$!
	end=$((SECONDS + 30))
	until ss -Hltn "sport = :$P" | grep -q .; do
		((SECONDS < end)) || fail "$name: $tool's server never listened on port $P: $(cat "$dir/srv.err")"
		sleep 0.1
	done
	if [ "$tool" = iperf3 ]; then
		timeout 60 iperf3 -c 127.0.0.1 -p "$P" "$@" >"$dir/cli.out" 2>"$dir/cli.err"
	else
		timeout 60 "$SB" -c 127.0.0.1 -p "$P" "$@" >"$dir/cli.out" 2>"$dir/cli.err"
	fi
	local rc=$?
	reap "$SRV" 30 "$name: $tool's server"
	SRV=
	[ "$rc" -eq 0 ] && [ "$REAPED" -eq 0 ] || fail "$name: $tool exited $rc (its server $REAPED): $(cat "$dir/cli.err" "$dir/srv.err")"
}

n=0
: >"$T/table"
while read -r line; do
	dropin_case "$line" || continue
	name=$DROPIN_NAME args=$DROPIN_CMD parser=$DROPIN_PARSER want=$DROPIN_WANT
	read -r -a words <<<"$args"
	run "$name" "$T/$name/ip" iperf3 "${words[@]}"
	run "$name" "$T/$name/us" socket_bw "${words[@]}" --json "$T/$name/ours.json"
	pt=$(bash -c "$parser" <"$T/$name/ip/cli.out" 2>&1)
	us=$(bash -c "$parser" <"$T/$name/us/cli.out" 2>&1)
	out=$(python3 "$(dirname "$0")/../lib/dropin_check.py" "$name" "$pt" "$us" "$T/$name/ours.json" "$want" 1e-6 "$(printf "iperf3 %-24s | %-45s" "$args" "$parser")" 2>&1) ||
		fail "$(echo "$out" | tail -n 1)"
	echo "$out" >>"$T/table"
	n=$((n + 1))
done <"$cases"
((n >= 8)) || fail "only $n cases ran"
echo "case        | command line                   | the parsing                                   |         iperf3 |      socket_bw"
cat "$T/table"
pass "$n iperf3 command lines: each jq reads the same quantity from socket_bw's -J as from iperf3's"
