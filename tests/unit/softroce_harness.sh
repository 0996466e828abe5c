#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# tools/softroce's own contract: usage errors exit 2, the command's exit code comes
# back, and a run that overstays --timeout is killed and reported (exit 124).
set -u
sr=$1
fail() { echo "FAIL: $*"; exit 1; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT

"$sr" --topology ring -- true >"$out" 2>&1
[ $? -eq 2 ] || fail "unknown topology should exit 2"
grep -q "unknown topology 'ring' (allowed: loop, pair)" "$out" || fail "no topology message: $(cat "$out")"
grep -q "^usage:" "$out" || fail "no usage line"
"$sr" --topology loop >"$out" 2>&1
[ $? -eq 2 ] || fail "missing command should exit 2"
grep -q "missing command" "$out" || fail "no missing-command message"
"$sr" --timeout 0 -- true >"$out" 2>&1
[ $? -eq 2 ] || fail "timeout 0 should exit 2"

"$sr" --topology loop -- bash -c 'test -n "$RB_DEV" && test -d /sys/class/infiniband/$RB_DEV && exit 7' >"$out" 2>&1
rc=$?
[ $rc -eq 7 ] || fail "command exit 7 came back as $rc: $(tail -n 5 "$out")"
# The guest kernel and initramfs were prepared at most once, by the first boot.
"$sr" --topology loop -- true >"$out" 2>&1 || fail "second boot failed: $(tail -n 5 "$out")"
grep -q "preparing guest kernel" "$out" && fail "the second run prepared the guest kernel again"

# The kill, not the boot, is under test: a guest still booting at 8 s is killed the same way.
start=$(date +%s%N)
"$sr" --topology loop --timeout 8 -- sleep 600 >"$out" 2>&1
rc=$?
took=$((($(date +%s%N) - start) / 1000000))
[ $rc -eq 124 ] || fail "overstaying run exited $rc, expected 124"
grep -q "did not finish within 8s and was killed" "$out" || fail "no timeout message: $(tail -n 3 "$out")"
# timeout(1) sends TERM at 8 s and KILL 10 s later at most.
[ $took -le 20000 ] || fail "the timeout kill took $took ms, more than 20 s"
echo "PASS: usage errors, exit code propagation, timeout kill ($took ms)"
