#!/bin/bash
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
pass "socket_bw input errors"
