#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Bad input: one line naming the value and what is allowed, exit 2, no peer needed.
source "$(dirname "$0")/lib.sh"
expect_usage "$BW" "invalid value '0' for --size \(allowed:" -s 0
expect_usage "$BW" "invalid value '3:8' for --sizes" --sizes 3:8
expect_usage "$BW" "invalid value '0' for --qps: out of range \(allowed: an integer from 1 to [0-9]+\)" -q 0
expect_usage "$BW" "invalid value '12x' for -n|invalid value '12x' for --iters" -n 12x
expect_usage "$BW" "invalid value '5000' for --mtu \(allowed: 256, 512, 1024, 2048 or 4096\)" -m 5000
expect_usage "$BW" "unknown option '--bogus'" --bogus
expect_usage "$BW" "choose either -n 10 or -D 1, not both" -n 10 -D 1
expect_usage "$BW" "post list 64 exceeds tx depth 16" -l 64 -t 16
expect_usage "$BW" "device 'nosuch0' not found \(available: .*$RB_DEV" -d nosuch0 -p 1 --oob-timeout 1 127.0.0.1
expect_usage "$BW" "port 2 out of range for $RB_DEV \(it has 1 port\)" -d "$RB_DEV" -i 2 --oob-timeout 1 127.0.0.1
expect_usage "$BW" "GID index 77 is empty or out of range on $RB_DEV port 1 \(valid: " -d "$RB_DEV" -x 77 --oob-timeout 1 127.0.0.1
expect_usage "$BW" "cannot create /nonexistent/r.csv" --csv /nonexistent/r.csv
expect_usage "$BW" "--report-both without -b: it reports each direction" --report-both 127.0.0.1
expect_usage "$BW" "--run-infinitely with -n: it runs until SIGINT/SIGTERM, without -n or -D" --run_infinitely -n 10
expect_usage "$BW" "--run-infinitely with -D" --run-infinitely -D 2
expect_usage "$BW" "--run-infinitely with 23 sizes: it runs one size" --run_infinitely -a
expect_usage "$BW" "--run-infinitely with -b: a bidirectional run knows the peer's sends only" --run_infinitely -b
expect_usage "$BW" "--interval with -b: a bidirectional run knows the peer's sends only" --interval 1 -b 127.0.0.1
expect_usage "$BW" "-r 4 sets the receive queue, which only --write-with-imm uses" -r 4 127.0.0.1
expect_usage "$BW" "invalid value .0. for --rx-depth" --rx-depth 0
pass "bad input rejected with exit 2"
