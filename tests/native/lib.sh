# Helpers for the native suite: socket_bw over loopback, no RDMA device needed.
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
SB=$RB_BUILD/src/socket_bw
# Below the ephemeral range (32768+): a port another process connects from cannot be listened on.
P=$((12000 + RANDOM % 20000))

# pair ARGS...: server and client with the same arguments; sets SRC and CRC.
pair() {
	P=$((P + 1))
	"$SB" -p "$P" "$@" >"$T/srv.out" 2>"$T/srv.err" &
	SRV=$!
	timeout 120 "$SB" -p "$P" "$@" 127.0.0.1 >"$T/cli.out" 2>"$T/cli.err"
	CRC=$?
	timeout 30 tail --pid="$SRV" -f /dev/null
	wait "$SRV"
	SRC=$?
	SRV=
}
