#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# --zerocopy --verify: with MSG_ZEROCOPY the kernel reads the sender's pages until
# their completion arrives on the error queue, so a sender that refills its buffer for
# the next message while the last one is still queued puts the wrong bytes on the wire.
# A small receive window keeps data queued (the case that failed before the sender
# alternated buffers and waited for completions). Every byte verified, both sides exit 0.
source "$(dirname "$0")/lib.sh"
for layout in "--nsocks 1 --nthreads 1" "--nsocks 2 --nthreads 2" "-b --nsocks 2 --nthreads 1"; do
	for rcv in "" "--rcvbuf 65536"; do
		# shellcheck disable=SC2086
		pair -s 64K,1M,3M -n 60 --zerocopy --verify $layout $rcv --csv "$T/r.csv"
		expect_rc "client [$layout $rcv]" "$CRC" 0
		expect_rc "server [$layout $rcv]" "$SRC" 0
		python3 - "$T/r.csv" <<'PY' || fail "[$layout $rcv] accounting wrong"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [int(r["size_bytes"]) for r in rows] == [65536, 1 << 20, 3 << 20], rows
for r in rows:
    assert r["zerocopy"] == "1" and r["verify"] == "1", r
    assert int(r["bytes"]) == int(r["msgs"]) * int(r["size_bytes"]), r
PY
		echo "ok: $layout $rcv: $(grep -E '^ +3145728 ' "$T/cli.out")"
	done
done
pass "zerocopy with verify"
