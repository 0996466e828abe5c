#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Bad input: exit 2 with the value and what is allowed.
source "$(dirname "$0")/lib.sh"
expect_usage "$SB" "invalid value '0' for --nsocks: out of range \(allowed: an integer from 1 to 16\)" --nsocks 0
expect_usage "$SB" "invalid value '5' for --family \(allowed: 4, 6, AF_INET or AF_INET6\)" --family 5
expect_usage "$SB" "--ping-pong and -b exclude each other" --ping-pong -b
expect_usage "$SB" "choose either -n 5 or -D 1, not both" -n 5 -D 1
expect_usage "$SB" "invalid value '1x' for --sndbuf" --sndbuf 1x
# Long options match exactly: getopt would have taken --time as --timeout without a word.
expect_usage "$SB" "unknown option '--time' \(did you mean --timeout\?\)" --time 3
expect_usage "$SB" "option --verify takes no value \(given 'yes'\)" --verify=yes
# Values once accepted and silently ignored.
expect_usage "$SB" "invalid value '0' for --duration: out of range \(allowed: a number of seconds above 0" -D 0
expect_usage "$SB" "--warmup 3 needs --ping-pong" --warmup 3
expect_usage "$SB" "--bind 127.0.0.1 is for the server" --bind 127.0.0.1 127.0.0.1
expect_usage "$SB" "--csv $T/x and --json $T/x name the same file" --csv "$T/x" --json "$T/x"
# 192.0.2.0/24 is TEST-NET-1: no host has it.
expect_usage "$SB" "invalid value '192.0.2.7' for --bind: no interface of this host has that address" \
	--bind 192.0.2.7 -p "$P" --oob-timeout 5
expect_usage "$SB" "invalid value '' for --csv \(allowed: a non-empty FILE\)" --csv= 127.0.0.1
expect_usage "$SB" "invalid value '0.001' for --interval: out of range \(allowed: a number of seconds from 0.01" \
	--ping-pong --interval 0.001
mkfifo "$T/ff"
expect_usage "$SB" "cannot write the csv document to $T/ff: not a regular file" --csv "$T/ff" 127.0.0.1
# NCCL's variables go through the option's own parser: a bad one is refused, never skipped.
NCCL_NSOCKS_PERTHREAD=x expect_usage "$SB" "invalid NCCL_NSOCKS_PERTHREAD='x', the default of --nsocks \(allowed: an integer from 1 to 16\)" 127.0.0.1
NCCL_SOCKET_FAMILY=5 expect_usage "$SB" "invalid NCCL_SOCKET_FAMILY='5', the default of --family" 127.0.0.1
pass "socket_bw input errors"
