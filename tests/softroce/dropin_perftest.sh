#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# perftest users' scripts, unchanged: each command line of tests/dropin/perftest.txt runs
# with ib_write_bw/ib_write_lat and then with rc_write_bw/rc_write_lat on the same rxe
# pair, and the parsing its users do (awk on perftest's header names, python on its
# --out_json) reads each. From ours it must read the figure our own document holds (the
# same quantity, in the same unit: a MB/sec column read as Gb/s is 8.4x off, p90 read as
# p99 is another key), and from perftest a figure of the same magnitude (the two tools'
# runs differ, a unit or a column does not: within a factor of 4).
source "$(dirname "$0")/lib.sh"
if ! command -v ib_write_bw >/dev/null || ! command -v ib_write_lat >/dev/null; then
	echo "SKIP: perftest is not installed"
	exit 77
fi
cases=$(dirname "$0")/../dropin/perftest.txt

# run NAME DIR TOOL ARGS...: a server and a client of TOOL in DIR (its --out_json files land
# there), the client's stdout to DIR/cli.out.
run() {
	local name=$1 dir=$2 tool=$3
	shift 3
	mkdir -p "$dir"
	P=$((P + 1))
	(cd "$dir" && exec timeout 60 "$tool" -d "$RB_DEV" -p "$P" "$@" >srv.out 2>srv.err) &
	SRV=$!
	# ib_*'s client gives up when no server listens yet (ours retries); its stdout is buffered.
	if [[ $tool == ib_* ]]; then
		local end=$((SECONDS + 30))
		until ss -Hltn "sport = :$P" | grep -q .; do
			((SECONDS < end)) || fail "$name: $tool's server never listened on port $P: $(cat "$dir/srv.err")"
			sleep 0.1
		done
	fi
	(cd "$dir" && exec timeout 60 "$tool" -d "$RB_DEV_PEER" -p "$P" "$@" 127.0.0.1 >cli.out 2>cli.err)
	local rc=$?
	wait_server
	[ "$rc" -eq 0 ] && [ "$SRC" -eq 0 ] || fail "$name: $tool exited $rc (its server $SRC): $(cat "$dir/cli.err" "$dir/srv.err")"
}

# parse DIR PARSER: the user's parsing of DIR's client output, from DIR.
parse() {
	(cd "$1" && bash -c "$2" <cli.out 2>/dev/null)
}

n=0
: >"$T/table"
while read -r line; do
	dropin_case "$line" || continue
	name=$DROPIN_NAME cmd=$DROPIN_CMD parser=$DROPIN_PARSER want=$DROPIN_WANT
	read -r -a words <<<"$cmd"
	theirs=${words[0]}
	case $theirs in
	ib_write_bw) ours=$BW ;;
	ib_write_lat) ours=$LAT ;;
	*) fail "$name: no tool of ours for $theirs" ;;
	esac
	run "$name" "$T/$name/pt" "$theirs" "${words[@]:1}"
	run "$name" "$T/$name/us" "$ours" "${words[@]:1}" --json "$T/$name/ours.json"
	pt=$(parse "$T/$name/pt" "$parser")
	us=$(parse "$T/$name/us" "$parser")
	out=$(python3 "$(dirname "$0")/../lib/dropin_check.py" "$name" "$pt" "$us" "$T/$name/ours.json" "$want" 2e-3 "$(printf "%-70s" "$cmd")" 2>&1) ||
		fail "$(echo "$out" | tail -n 1)"
	echo "$out" >>"$T/table"
	n=$((n + 1))
done <"$cases"
((n >= 10)) || fail "only $n cases ran"
echo "case         | command line                                                           |      perftest |         ours | our document's"
cat "$T/table"
pass "$n perftest command lines: each user's parsing reads the same quantity from rc_write_* as from ib_write_*"
