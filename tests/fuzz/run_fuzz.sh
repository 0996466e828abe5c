#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Runs a fuzz target over its seed corpus (made by gen_seeds) and its regression
# inputs, tests/fuzz/regress/NAME/: every input that once crashed, leaked or hung a
# target, and the seeds worth keeping whatever gen_seeds writes later.
#
#   run_fuzz.sh fuzz   FUZZER GEN_SEEDS NAME WORKDIR [libFuzzer flags...]
#   run_fuzz.sh replay FUZZER GEN_SEEDS NAME WORKDIR
#   run_fuzz.sh long   BUILD_DIR [SECONDS] [NAME...]
#
# fuzz (meson test --suite fuzz, clang): libFuzzer from a fresh corpus in
#   WORKDIR/corpus, by default 20000 runs from seed 1, so every run of the suite
#   does the same; later flags override.
# replay (meson test --suite fuzz-replay, any compiler): every seed and regression
#   input run once, nothing mutated: libFuzzer's binary is given the files, a build
#   without libFuzzer has replay.c's main().
# long: a campaign from the clang build (-Dfuzz=enabled) of SECONDS per target
#   (default 600; or $RB_FUZZ_SECONDS) for each NAME (default: every target) from a
#   random seed (or $RB_FUZZ_SEED), printed first so a run can be repeated. Its corpus
#   stays in BUILD_DIR/tests/fuzz/long-NAME/corpus and grows from one campaign to the
#   next. An input that crashes, leaks or hangs a target is copied into
#   tests/fuzz/regress/NAME/, named for what it hit: commit it with the fix.
#     tests/fuzz/run_fuzz.sh long build/asan 1800 fabric
#
# A crash, a leak, a sanitizer report, a failed property (FUZZ_CHECK) or a hang
# (-timeout) fails the run; libFuzzer saves the input that did it in WORKDIR/artifacts/.
set -u
here=$(cd "$(dirname "$0")" && pwd)
mode=${1:-}

# A report belongs in this run's log, beside the input that caused it (a meson
# sanitize setup would send it to a file of its own).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}log_path=stderr"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}log_path=stderr"
# -close_fd_mask=2: the library's own messages (one per refused frame) stay out of the log.
common=(-timeout=10 -rss_limit_mb=2048 -close_fd_mask=2)

# seeds WORK NAME GEN: fresh seeds in WORK/seeds; dirs=() the input directories.
seeds() {
	rm -rf "$1/seeds"
	mkdir -p "$1/corpus" "$1/artifacts" || exit 1
	"$3" "$1/seeds" || { echo "FAIL: gen_seeds could not write $1/seeds"; exit 1; }
	dirs=("$1/seeds/$2")
	[ -d "$here/regress/$2" ] && dirs+=("$here/regress/$2")
}

# figures LOG: runs, speed, coverage (cov: edges, ft: features), corpus.
figures() {
	grep -E '^#[0-9]+[[:space:]]+(INITED|DONE)|^Done [0-9]+ runs|stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$1"
}

# keep NAME WORK LOG: each crash, leak, timeout or oom input of WORK/artifacts into
# regress/NAME/, named KIND-WHAT-HASH (WHAT: the failed property, else the
# sanitizer's summary, squeezed).
keep() {
	local name=$1 work=$2 log=$3 what f base kind dest kept=()
	what=$({ grep -m1 -oE 'property failed at [^ ]+:[0-9]+' "$log" || grep -m1 -E '^SUMMARY: ' "$log"; } |
		sed -E 's/^SUMMARY: //; s/[^ ]*\/([^/ ]+:[0-9]+)/\1/g; s/AddressSanitizer/asan/
			s/UndefinedBehaviorSanitizer/ubsan/; s/LeakSanitizer/lsan/; s/\.c:/-/g' |
		tr -c 'A-Za-z0-9_' '-' | tr -s '-' | cut -c1-80)
	what=${what%-}
	mkdir -p "$here/regress/$name"
	for f in "$work"/artifacts/crash-* "$work"/artifacts/leak-* "$work"/artifacts/timeout-* \
		"$work"/artifacts/oom-*; do
		[ -f "$f" ] || continue
		base=$(basename "$f")
		kind=${base%%-*}
		dest=regress/$name/$kind-${what:-unknown}-${base#*-}
		cp "$f" "$here/$dest" && kept+=("tests/fuzz/$dest")
	done
	((${#kept[@]})) || return 0
	echo "New regression input(s), replayed by every run of the fuzz suites from now on:"
	printf '  %s\n' "${kept[@]}"
	echo "Fix what they hit, check with: meson test -C BUILD_DIR --suite fuzz-replay"
	echo "then commit them with the fix: git add ${kept[*]}"
}

case $mode in
fuzz | replay)
	fuzzer=$2 gen=$3 name=$4 work=$5
	shift 5
	rm -rf "$work/corpus"
	seeds "$work" "$name" "$gen"
	log=$work/fuzz.log
	if [ "$mode" = replay ]; then
		mapfile -t inputs < <(find "${dirs[@]}" -type f ! -name '.*' | sort)
		"$fuzzer" "${common[@]}" "${inputs[@]}" >"$log" 2>&1
		rc=$?
		if [ $rc -ne 0 ]; then
			echo "FAIL: $(basename "$fuzzer") exited $rc replaying ${#inputs[@]} inputs; the last of $log:"
			tail -n 60 "$log"
			exit 1
		fi
		echo "PASS: $(basename "$fuzzer"): ${#inputs[@]} inputs replayed (${dirs[*]}), no crash, leak or hang"
		exit 0
	fi
	"$fuzzer" -runs=20000 -seed=1 "${common[@]}" -print_final_stats=1 -artifact_prefix="$work/artifacts/" \
		"$@" "$work/corpus" "${dirs[@]}" >"$log" 2>&1
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "FAIL: $(basename "$fuzzer") exited $rc; the last of $log:"
		tail -n 60 "$log"
		ls -l "$work/artifacts/"
		echo "A longer search, and the input kept as a regression test: $0 long BUILD_DIR 600 $name"
		exit 1
	fi
	figures "$log"
	echo "PASS: $(basename "$fuzzer"): no crash, leak, sanitizer report or hang"
	;;
long)
	build=${2:?usage: run_fuzz.sh long BUILD_DIR [SECONDS] [NAME...]}
	secs=${RB_FUZZ_SECONDS:-600}
	shift 2
	if [[ ${1:-} =~ ^[0-9]+$ ]]; then
		secs=$1
		shift
	fi
	names=("$@")
	if ((${#names[@]} == 0)); then
		for f in "$build"/tests/fuzz/fuzz_*; do
			[ -f "$f" ] && [ -x "$f" ] && names+=("${f##*/fuzz_}")
		done
	fi
	seed=${RB_FUZZ_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
	echo "long campaign: seed $seed, $secs s per target: ${names[*]} (again: RB_FUZZ_SEED=$seed $0 long $build $secs ${names[*]})"
	failed=()
	for name in "${names[@]}"; do
		fuzzer=$build/tests/fuzz/fuzz_$name work=$build/tests/fuzz/long-$name
		if ! "$fuzzer" -help=1 2>&1 | grep -q -- '-max_total_time'; then
			echo "FAIL: $fuzzer is not a libFuzzer binary (a clang build with -Dfuzz=enabled, built)"
			exit 1
		fi
		# The corpus is kept from one campaign to the next; the seeds are made fresh.
		seeds "$work" "$name" "$build/tests/fuzz/gen_seeds"
		rm -f "$work/artifacts"/*
		log=$work/fuzz.log
		echo "== fuzz_$name: $secs s, log $log"
		"$fuzzer" -seed="$seed" -runs=-1 -max_total_time="$secs" -use_value_profile=1 "${common[@]}" \
			-print_final_stats=1 -artifact_prefix="$work/artifacts/" \
			"$work/corpus" "${dirs[@]}" >"$log" 2>&1
		rc=$?
		figures "$log"
		if [ $rc -ne 0 ]; then
			echo "FAIL: fuzz_$name exited $rc (seed $seed); the last of $log:"
			tail -n 40 "$log"
			keep "$name" "$work" "$log"
			failed+=("$name")
		fi
	done
	if ((${#failed[@]})); then
		echo "FAIL: ${failed[*]} (seed $seed)"
		exit 1
	fi
	echo "PASS: ${names[*]}: no crash, leak, sanitizer report or hang in $secs s each (seed $seed)"
	;;
*)
	sed -n '3,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'
	exit 2
	;;
esac
