#!/bin/bash
# socket_bw's threads wait for each other by sleeping, and wake rarely: the counter is
# the kernel's, the futex calls strace sees. A sender's poster runs up to a window
# (64 MiB) ahead of its worker; when the window is full it sleeps until a quarter of
# it is free, so at 256 KiB (a 256-message window) it wakes about once per 64
# messages, not once per message (two futex calls a message: 8000 here). The
# receiver's workers are posted a run of messages per SIZE frame. Nothing yields.
source "$(dirname "$0")/lib.sh"
command -v strace >/dev/null || fail "strace is missing (tools/bootstrap installs it)"
msgs=4000
# LeakSanitizer cannot run under ptrace; the leak check is other tests' job.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
P=$((P + 1))
strace -f -qq -c --seccomp-bpf -e trace=futex,sched_yield -o "$T/srv.strace" \
	"$SB" -p "$P" -s 256K -n "$msgs" >"$T/srv.out" 2>"$T/srv.err" &
SRV=$!
sleep 0.5
timeout 120 strace -f -qq -c --seccomp-bpf -e trace=futex,sched_yield -o "$T/cli.strace" \
	"$SB" -p "$P" -s 256K -n "$msgs" 127.0.0.1 >"$T/cli.out" 2>"$T/cli.err"
CRC=$?
timeout 30 tail --pid="$SRV" -f /dev/null
wait "$SRV"
SRC=$?
SRV=
expect_rc client "$CRC" 0
expect_rc server "$SRC" 0
grep -Eq "^ +262144 +$msgs " "$T/cli.out" || fail "the client's row lacks $msgs messages: $(cat "$T/cli.out")"
# strace -c: "% time seconds usecs/call calls [errors] syscall", then a total line.
calls() { awk -v s="$2" '$NF == s { print $4 }' "$1"; }
for side in cli srv; do
	f=$(calls "$T/$side.strace" futex)
	y=$(calls "$T/$side.strace" sched_yield)
	echo "$side: ${f:-0} futex calls, ${y:-0} sched_yield for $msgs messages"
	[ "${f:-0}" -le $((msgs / 8)) ] || fail "$side: ${f} futex calls for $msgs messages (allowed: $((msgs / 8))): threads wake per message"
	[ "${y:-0}" = 0 ] || fail "$side: $y sched_yield calls: a wait spins"
done
pass
