#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# socket_bw's threads wait for each other by sleeping, and wake rarely: the counter
# is the kernel's, the futex calls strace sees. A sender's poster runs up to a window
# (64 MiB) ahead of its workers; when the window is full it sleeps until a quarter of
# it is free, and only the worker whose count crosses that mark wakes it: at 256 KiB
# (a 256-message window) about once per 64 messages, not once per message and worker
# (two futex calls each: 8000 to 14000 here). Messages are published a run (up to 64)
# at a time, so a worker that caught up is woken once per run. Poll calls are printed,
# not bounded: a receiver that keeps up with the data waits in poll() for each
# arrival (unit test xfer counts a multi-socket worker's wake-ups instead, and fails
# 1 ms polls). Nothing yields.
source "$(dirname "$0")/lib.sh"
command -v strace >/dev/null || fail "strace is missing (tools/bootstrap installs it)"
msgs=4000
# LeakSanitizer cannot run under ptrace; the leak check is other tests' job.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
# strace -c: "% time seconds usecs/call calls [errors] syscall", then a total line.
calls() { awk -v s="$2" '$NF == s { print $4 }' "$1"; }
# 100000 B over 4 sockets: 2 chunks a message, so some sockets wait for a publication
# while others wait for the network (the receiver checks every byte: slow).
for layout in "-s 256K --nthreads 1 --nsocks 1" "-s 256K --nthreads 4 --nsocks 1" "-s 256K --nthreads 1 --nsocks 4" \
	"-s 100000 --nsocks 4 --verify"; do
	P=$((P + 1))
	# shellcheck disable=SC2086
	strace -f -qq -c --seccomp-bpf -e trace=futex,poll,sched_yield -o "$T/srv.strace" \
		"$SB" -p "$P" -n "$msgs" $layout >"$T/srv.out" 2>"$T/srv.err" &
	SRV=$!
	sleep 0.5
	# shellcheck disable=SC2086
	timeout 120 strace -f -qq -c --seccomp-bpf -e trace=futex,poll,sched_yield -o "$T/cli.strace" \
		"$SB" -p "$P" -n "$msgs" $layout 127.0.0.1 >"$T/cli.out" 2>"$T/cli.err"
	CRC=$?
	reap "$SRV" 30 "the server"
	SRC=$REAPED
	SRV=
	expect_rc "client [$layout]" "$CRC" 0
	expect_rc "server [$layout]" "$SRC" 0
	grep -Eq "^ +[0-9]+ +$msgs " "$T/cli.out" || fail "[$layout] the client's row lacks $msgs messages: $(cat "$T/cli.out")"
	for side in cli srv; do
		f=$(calls "$T/$side.strace" futex)
		p=$(calls "$T/$side.strace" poll)
		y=$(calls "$T/$side.strace" sched_yield)
		echo "[$layout] $side: ${f:-0} futex, ${p:-0} poll, ${y:-0} sched_yield calls for $msgs messages"
		[ "${f:-0}" -le $((msgs / 8)) ] || fail "[$layout] $side: $f futex calls for $msgs messages (allowed: $((msgs / 8))): threads wake per message"
		[ "${y:-0}" = 0 ] || fail "[$layout] $side: $y sched_yield calls: a wait spins"
	done
done

pass
