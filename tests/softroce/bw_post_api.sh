#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# rc_write_bw posts through ibv_wr_* (extended QP) where the provider has it, rxe
# included, and through ibv_post_send with --old-post-send (perftest's
# --use_old_post_send): both move every message intact (--verify: the receiver
# checks each payload, with WRITE_WITH_IMM also each immediate's sequence), in lists
# and one by one, inline and not, and the header and the JSON meta say which was used.
source "$(dirname "$0")/lib.sh"

WR="ibv_wr_\* \(extended QP\)"
OLD="ibv_post_send \(--old-post-send\)"

# check WANT API LABEL: the last pair's outcome; WANT the header's words, API the meta's.
check() {
	local want=$1 api=$2 label=$3
	expect_rc "client [$label]" "$CRC" 0
	expect_rc "server [$label]" "$SRC" 0
	expect_grep "$T/cli.out" "Post API       : $want"
	python3 -c 'import json,sys; m = json.load(open(sys.argv[1]))["meta"]; assert m["post_api"] == sys.argv[2], m["post_api"]' \
		"$T/cli.json" "$api" || fail "[$label] meta post_api is not $api"
	[ "$(table_rows "$T/cli.out" | wc -l)" -eq 3 ] || fail "[$label] expected 3 rows"
}

# run ARGS...: both ends; the client's JSON document only.
run() {
	start_server "$BW" "$@"
	run_client "$BW" "$@" --json "$T/cli.json"
	wait_server
}

# Inline: several inline WRITEs (with immediates) in one post, and one at a time.
for extra in "" "--write-with-imm" "-I 64 --write-with-imm" "-I 64 -l 1"; do
	# shellcheck disable=SC2086
	run -s 64,4K,64K -n 100 -q 2 --verify $extra
	check "$WR" ibv_wr "wr $extra"
	# shellcheck disable=SC2086
	run -s 64,4K,64K -n 100 -q 2 --verify $extra --old-post-send
	check "$OLD" ibv_post_send "old $extra"
done
# Each side's own choice: a bidirectional run where only the client posts the old way.
start_server "$BW" -s 64,4K,64K -n 300 -b --verify --json "$T/srv.json"
run_client "$BW" -s 64,4K,64K -n 300 -b --verify --use_old_post_send --json "$T/cli.json"
wait_server
check "$OLD" ibv_post_send "bidirectional, client old"
expect_grep "$T/srv.out" "Post API       : $WR"
python3 -c 'import json,sys; m = json.load(open(sys.argv[1]))["meta"]; assert m["post_api"] == "ibv_wr", m["post_api"]' \
	"$T/srv.json" || fail "the bidirectional server's meta post_api is not ibv_wr"
pass
