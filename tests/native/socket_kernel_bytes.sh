#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# What socket_bw says it moved, against a counter it does not compute: the bytes the
# kernel's loopback interface carried during the run. The run happens in a network
# namespace of its own, so its lo carries nothing but this run (parallel tests on the
# host's lo cannot inflate the count).
#
# Bound: every payload byte crosses lo once, so lo >= payload, and so does what lo
# carried less its headers (below). lo counts each packet
# from its IP header on; those headers (IP and TCP: 40 bytes, 52 with TCP timestamps,
# the namespace's default) come on data segments and ACKs alike, and how many packets
# there are depends on scheduling (a slow receiver makes small segments and many
# window updates). So the upper bound takes the headers off what lo carried and
# compares the rest, TCP's own payload, with socket_bw's: that rest also holds two
# small control frames per run of messages and the connection set-ups (a few KiB).
# The payload's 0.5 % plus 1 MiB covers them, and a run that claims one
# more 1 MiB message than it moved falls below the lower bound. lo also drops packets
# when its backlog overflows (a loaded machine): TCP resends them, and each resent
# segment (the namespace's RetransSegs) may carry up to 64 KiB again.
if [ -z "${RB_NETNS:-}" ]; then
	if unshare -n true 2>/dev/null; then
		RB_NETNS=1 exec unshare -n bash "$0" "$@"
	fi
	echo "SKIP: no network namespace here (unshare -n needs CAP_SYS_ADMIN)"
	exit 77
fi
source "$(dirname "$0")/lib.sh"
ip link set lo up || fail "cannot bring lo up in the namespace"
hdr=40
[ "$(cat /proc/sys/net/ipv4/tcp_timestamps)" = 0 ] || hdr=52

lo_bytes() { awk '$1 == "lo:" { print $2 }' /proc/net/dev; }
lo_packets() { awk '$1 == "lo:" { print $3 }' /proc/net/dev; }
# TCP segments resent so far (/proc/net/snmp: a "Tcp:" header line, then its values).
retrans() {
	awk '$1 == "Tcp:" { if (col) print $col; else for (i = 2; i <= NF; i++) if ($i == "RetransSegs") col = i }' /proc/net/snmp
}

# Each layout: the share of the payload and the bytes allowed on top, then the options.
# 64 B messages: the control channel announces messages in runs (one SIZE frame per up
# to 64), not one by one; a frame per message would add 20 bytes each, 31 %.
for spec in "0.005 1048576 -s 1M,4M -n 50 --nsocks 2 --nthreads 2" "0.005 1048576 -s 64K,1M -n 200 -b --nsocks 2" \
	"0.005 1048576 -s 8M -D 1" "0.02 65536 -s 64 -n 20000"; do
	read -r share slack layout <<<"$spec"
	before=$(lo_bytes)
	p0=$(lo_packets)
	r0=$(retrans)
	# shellcheck disable=SC2086
	pair $layout --csv "$T/r.csv"
	after=$(lo_bytes)
	resent=$(($(retrans) - r0))
	packets=$(($(lo_packets) - p0))
	expect_rc "client [$layout]" "$CRC" 0
	expect_rc "server [$layout]" "$SRC" 0
	python3 - "$T/r.csv" "$before" "$after" "$layout" "$resent" "$packets" "$hdr" "$share" "$slack" <<'PY' || fail "[$layout] kernel count and socket_bw disagree"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
payload = sum(int(r["bytes"]) for r in rows)
lo = int(sys.argv[3]) - int(sys.argv[2])
assert payload > 0 and all(int(r["bytes"]) == int(r["msgs"]) * int(r["size_bytes"]) for r in rows), rows
resent, packets, hdr = map(int, sys.argv[5:8])
tcp = lo - hdr * packets
print("%s: socket_bw %d bytes, lo %d bytes in %d packets (+%.3f %%; less %d B each: %+.4f %%), %d segments resent" %
      (sys.argv[4], payload, lo, packets, 100.0 * (lo - payload) / payload, hdr, 100.0 * (tcp - payload) / payload,
       resent))
assert lo >= payload and tcp >= payload, "the kernel carried less than socket_bw reports"
share, slack = float(sys.argv[8]), int(sys.argv[9])
assert tcp <= payload * (1 + share) + slack + resent * 65536, "the kernel carried far more than socket_bw reports"
PY
done
pass "socket_bw's byte counts match the kernel's"
