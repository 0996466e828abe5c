#!/bin/bash
# What socket_bw says it moved, against a counter it does not compute: the bytes the
# kernel's loopback interface carried during the run. The run happens in a network
# namespace of its own, so its lo carries nothing but this run (parallel tests on the
# host's lo cannot inflate the count).
#
# Bound: every payload byte crosses lo once, so lo >= payload. On top come per packet
# the Ethernet, IP and TCP headers (14 + 20 + 32 bytes on GSO packets of up to 64 KiB:
# ~0.1 %), an ACK for about every data packet (~0.1 %), two small control frames per
# message (~200 bytes per MiB) and the connection set-ups (a few KiB); 0.15 % measured.
# The payload's 1 % plus 1 MiB covers that with a wide margin, and a run that claims
# one more 1 MiB message than it moved falls below the lower bound.
if [ -z "${RB_NETNS:-}" ]; then
	if unshare -n true 2>/dev/null; then
		RB_NETNS=1 exec unshare -n bash "$0" "$@"
	fi
	echo "SKIP: no network namespace here (unshare -n needs CAP_SYS_ADMIN)"
	exit 77
fi
source "$(dirname "$0")/lib.sh"
ip link set lo up || fail "cannot bring lo up in the namespace"

lo_bytes() { awk '$1 == "lo:" { print $2 }' /proc/net/dev; }

for layout in "-s 1M,4M -n 50 --nsocks 2 --nthreads 2" "-s 64K,1M -n 200 -b --nsocks 2" "-s 8M -D 1"; do
	before=$(lo_bytes)
	# shellcheck disable=SC2086
	pair $layout --csv "$T/r.csv"
	after=$(lo_bytes)
	expect_rc "client [$layout]" "$CRC" 0
	expect_rc "server [$layout]" "$SRC" 0
	python3 - "$T/r.csv" "$before" "$after" "$layout" <<'PY' || fail "[$layout] kernel count and socket_bw disagree"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
payload = sum(int(r["bytes"]) for r in rows)
lo = int(sys.argv[3]) - int(sys.argv[2])
assert payload > 0 and all(int(r["bytes"]) == int(r["msgs"]) * int(r["size_bytes"]) for r in rows), rows
print("%s: socket_bw %d bytes, lo %d bytes (+%.3f %%)" % (sys.argv[4], payload, lo, 100.0 * (lo - payload) / payload))
assert lo >= payload, "the kernel carried less than socket_bw reports"
assert lo <= payload * 1.01 + (1 << 20), "the kernel carried far more than socket_bw reports"
PY
done
pass "socket_bw's byte counts match the kernel's"
