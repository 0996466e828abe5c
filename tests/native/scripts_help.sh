#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Every executable script in tools/ and bench/ (found here, so a new one is held to it too)
# answers --help and -h with its usage and does nothing else: exit 0, a line starting
# "usage:" on stdout, within a few seconds (tools/demo --help used to boot the SoftRoCE
# VM), and nothing written in the directory it ran in. Each runs with a 10 s timeout,
# without RB_DEV and with RB_BUILD_DIR and RB_RESULTS in the scratch directory, so that a
# script that ignores --help fails early rather than measuring.
source "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)

scripts=()
while IFS= read -r f; do
	[ -x "$f" ] && scripts+=("$f")
done < <(find "$ROOT/tools" "$ROOT/bench" -maxdepth 1 -type f | sort)
# The discovery itself: the scripts this test was written against are among those found.
for s in tools/demo tools/compare tools/softroce tools/test bench/vs_reference bench/scale; do
	[[ " ${scripts[*]} " == *" $ROOT/$s "* ]] || fail "discovery: $s not found among ${#scripts[@]} executable(s)"
done

for f in "${scripts[@]}"; do
	name=${f#"$ROOT"/}
	for opt in --help -h; do
		rm -rf "$T/cwd"
		mkdir "$T/cwd"
		t0=$(now_ms)
		(cd "$T/cwd" && env -u RB_DEV -u RB_DEV_PEER RB_BUILD_DIR="$T/no-build" RB_RESULTS="$T/no-results" \
			timeout -k 2 10 "$f" "$opt" </dev/null >"$T/help.out" 2>"$T/help.err")
		rc=$?
		took=$(($(now_ms) - t0))
		expect_rc "$name $opt" "$rc" 0
		grep -qE "^(usage|Usage):" "$T/help.out" || fail "$name $opt: no line starting 'usage:' on stdout"
		expect_took "$name $opt" "$took" 5
		[ -z "$(ls -A "$T/cwd")" ] || fail "$name $opt wrote in its directory: $(ls -A "$T/cwd" | tr '\n' ' ')"
		if [ -e "$T/no-build" ] || [ -e "$T/no-results" ]; then
			fail "$name $opt made a build or results directory"
		fi
	done
	echo "ok: $name --help, -h ($took ms): $(grep -m 1 -E "^(usage|Usage):" "$T/help.out")"
done
rm -f "$T/help.out" "$T/help.err"
pass "${#scripts[@]} scripts in tools/ and bench/ print their usage on --help and -h, exit 0, do nothing else"
