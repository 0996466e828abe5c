#!/usr/bin/env bash
# Runs one fuzz target over its seed corpus (made by gen_seeds) and the saved
# regression inputs in tests/fuzz/regress/NAME/ (where an input that once failed
# goes, with the fix).
#
#   run_fuzz.sh fuzz   FUZZER GEN_SEEDS NAME WORKDIR [libFuzzer flags...]
#   run_fuzz.sh replay FUZZER GEN_SEEDS NAME WORKDIR
#
# fuzz: libFuzzer from a fresh corpus in WORKDIR/corpus, by default 20000 runs with a
# fixed seed (CI); later flags override. A longer campaign, from the clang build:
#   tests/fuzz/run_fuzz.sh fuzz build/asan/tests/fuzz/fuzz_oob build/asan/tests/fuzz/gen_seeds \
#       oob /tmp/fuzz-oob -runs=-1 -max_total_time=720 -seed=0 -use_value_profile=1
# replay: a build without libFuzzer runs each input once.
# A crash, a leak, a sanitizer report, a failed property or a hang (-timeout)
# fails the run; the input that did it is saved in WORKDIR/artifacts/.
set -u
mode=$1 fuzzer=$2 gen=$3 name=$4 work=$5
shift 5
regress=$(cd "$(dirname "$0")" && pwd)/regress/$name

rm -rf "$work/seeds" "$work/corpus"
mkdir -p "$work/corpus" "$work/artifacts" || exit 1
"$gen" "$work/seeds" || { echo "FAIL: gen_seeds could not write $work/seeds"; exit 1; }
dirs=("$work/seeds/$name")
[ -d "$regress" ] && dirs+=("$regress")

if [ "$mode" = replay ]; then
	exec "$fuzzer" "${dirs[@]}"
fi

log=$work/fuzz.log
# A report belongs in this run's log, beside the input that caused it.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}log_path=stderr"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}log_path=stderr"
# -close_fd_mask=2: the library's own messages (one per refused frame) stay out of the log.
"$fuzzer" -runs=20000 -seed=1 -timeout=10 -rss_limit_mb=2048 -close_fd_mask=2 -print_final_stats=1 \
	-artifact_prefix="$work/artifacts/" "$@" "$work/corpus" "${dirs[@]}" >"$log" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
	echo "FAIL: $(basename "$fuzzer") exited $rc; the last of $log:"
	tail -n 60 "$log"
	ls -l "$work/artifacts/"
	exit 1
fi
# The figures: runs, speed, coverage, corpus.
grep -E '^#[0-9]+[[:space:]]+DONE|^Done [0-9]+ runs|stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$log"
echo "PASS: $(basename "$fuzzer"): no crash, leak, sanitizer report or hang"
