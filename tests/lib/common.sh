# SPDX-License-Identifier: BSD-2-Clause
# Shared by the shell test suites: a scratch directory, failure with the logs,
# and the assertions. The sourcing suite sets SRV when a server runs in the background.
set -u
: "${RB_BUILD:?RB_BUILD must name the build directory}"
T=$(mktemp -d "${TMPDIR:-/tmp}/rbtest.XXXXXX")
# Only the test's own shell removes its scratch directory: bash also runs the EXIT trap
# in an asynchronous subshell that a signal ends (`x=$(sleep 2) &`, killed by TERM, runs
# it): one stray signal to such a subshell would take $T from under the running test
# (the likeliest cause of CI's "srv.out: No such file or directory" halfway through
# socket_bw_interval, twice; no other remover of $T was found).
# rb_exit_trap CMDS: CMDS at the test shell's exit, never in a subshell's.
RB_TEST_SHELL=$BASHPID
# shellcheck disable=SC2064 # CMDS is the caller's, in single quotes: expanded at exit
rb_exit_trap() { trap "[ \"\$BASHPID\" != \"\$RB_TEST_SHELL\" ] || { $1; }" EXIT; }
rb_cleanup() { rm -rf "$T"; }
rb_exit_trap rb_cleanup
SRV=

# The assertions' Python, resolved once: a version manager's python3 (pyenv's shim is a
# bash script that forks a dozen times) costs about 10 s per call in the softroce guest,
# the interpreter itself 2 s. The tests use the standard library only.
if [ -z "${RB_PYTHON:-}" ]; then
	RB_PYTHON=/usr/bin/python3
	[ -x "$RB_PYTHON" ] || RB_PYTHON=$(command -v python3)
	export RB_PYTHON
fi
python3() { "$RB_PYTHON" "$@"; }

fail() {
	echo "FAIL: $*"
	for f in "$T"/*.err "$T"/*.out; do # the errors first: a log tail keeps them
		[ -s "$f" ] && { echo "--- $(basename "$f")"; cat "$f"; }
	done
	[ -n "$SRV" ] && { pkill -9 -P "$SRV" 2>/dev/null; kill -9 "$SRV" 2>/dev/null; }
	exit 1
}

expect_rc() { # what got want
	[ "$2" -eq "$3" ] || fail "$1: exit code $2, expected $3"
}

expect_grep() { # file pattern
	grep -qE -- "$2" "$1" || fail "$(basename "$1") lacks /$2/"
}

# expect_usage TOOL PATTERN ARGS...: TOOL ARGS fails with exit 2 and a line matching PATTERN.
expect_usage() {
	local tool=$1 want=$2
	shift 2
	timeout 30 "$tool" "$@" >"$T/o.out" 2>"$T/o.err"
	local rc=$?
	[ $rc -eq 2 ] || fail "'$(basename "$tool") $*' exited $rc, expected 2"
	expect_grep "$T/o.err" "$want"
	echo "ok: $* -> $(head -n 1 "$T/o.err")"
}

# reap PID SECONDS WHAT: waits (bounded) for the background process PID to exit and sets
# REAPED to its exit code; one still running after SECONDS is killed and the test fails
# naming WHAT, so a hang reads as its cause instead of the suite's timeout.
reap() {
	timeout "$2" tail --pid="$1" -f /dev/null
	if kill -0 "$1" 2>/dev/null; then
		pkill -9 -P "$1" 2>/dev/null
		kill -9 "$1" 2>/dev/null
		wait "$1" 2>/dev/null
		[ "$1" = "$SRV" ] && SRV=
		fail "$3 was still running $2 s later (killed)"
	fi
	wait "$1"
	REAPED=$?
}

# wait_for FILE PATTERN SECONDS: until FILE matches PATTERN (bounded); 1 on timeout.
wait_for() {
	local end=$((SECONDS + $3))
	# Bounded by the clock, not by turns: under emulation a turn can take far more than 0.1 s.
	while ((SECONDS < end)); do
		grep -qE -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	grep -qE -- "$2" "$1" 2>/dev/null
}

pass() {
	# Every test checks the documents' shape on the way: a row field a tool's schema lacks
	# is a bug the tool says on stderr (schema.h), whatever the test was about.
	local bad
	bad=$(grep -D skip -d skip -ls -- "is not in the .* schema" "$T"/* 2>/dev/null | head -n 1)
	[ -z "$bad" ] || fail "$(grep -h -m 1 -- "is not in the .* schema" "$bad")"
	echo "PASS: $*"
	exit 0
}

# Milliseconds on the monotonic-ish wall clock, for "how long until it exited".
now_ms() {
	echo $(($(date +%s%N) / 1000000))
}

# The kernel's clock at the test's start (seconds since boot, as dmesg stamps its lines).
RB_KMARK=$(cut -d' ' -f1 /proc/uptime 2>/dev/null)

# The longest stall the kernel reported since the test began ("soft lockup - CPU#0 stuck
# for 23s!": no process on that CPU ran, ours included), whole seconds; 0 when none or
# when dmesg is not readable here.
kernel_stall_s() {
	dmesg 2>/dev/null | awk -v from="${RB_KMARK:-0}" '
		match($0, /^\[ *[0-9.]+\]/) && substr($0, 2, RLENGTH - 2) + 0 >= from + 0 &&
		match($0, /soft lockup - CPU#[0-9]+ stuck for [0-9]+s/) {
			n = substr($0, RSTART, RLENGTH); sub(/.* for /, "", n); n += 0
			if (n > max) max = n
		}
		END { print max + 0 }'
}

# expect_took WHAT MS MAX_S: WHAT took MS milliseconds, at most MAX_S seconds (a generous
# bound), times RB_TIME_SCALE in a build that runs slower by design (the sanitizer
# build's test setup sets 3). Every time limit of the tests is checked here, in ms.
# A stall the kernel itself reported during the test is time no process of ours could
# run: the bound is judged on what is left, and the test says so.
expect_took() {
	# A bound in seconds: one past an hour is a bound written in ms, which holds anything.
	[ "$3" -le 3600 ] || fail "expect_took \"$1\": a bound of $3 s (a bound is seconds, not ms)"
	local max=$(($3 * ${RB_TIME_SCALE:-1} * 1000)) stall
	[ "$2" -le "$max" ] && return 0
	stall=$(kernel_stall_s)
	if [ "$stall" -gt 0 ] && [ $(($2 - stall * 1000)) -le "$max" ]; then
		echo "note: $1 took $2 ms; the kernel reported a CPU stuck for $stall s (soft lockup) during the test," \
			"so the bound of $((max / 1000)) s is judged on $(($2 - stall * 1000)) ms"
		return 0
	fi
	[ "$stall" -gt 0 ] && stall=" (the kernel reported a CPU stuck for $stall s)" || stall=
	fail "$1 took $2 ms, more than $((max / 1000)) s$stall"
}

# dropin_case LINE: splits one line of a tests/dropin/*.txt file (fields separated by
# ' ~~ ': name, command line, the parsing, what it must read) into DROPIN_NAME,
# DROPIN_CMD, DROPIN_PARSER and DROPIN_WANT. Returns 1 for a blank or comment line.
dropin_case() {
	local line=$1 rest
	[[ -z $line || $line == \#* ]] && return 1
	DROPIN_NAME=${line%% ~~ *} rest=${line#* ~~ }
	DROPIN_CMD=${rest%% ~~ *} rest=${rest#* ~~ }
	DROPIN_PARSER=${rest% ~~ *} DROPIN_WANT=${rest##* ~~ }
	DROPIN_NAME=${DROPIN_NAME//[[:space:]]/}
	DROPIN_WANT=${DROPIN_WANT//[[:space:]]/}
	return 0
}
