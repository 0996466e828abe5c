#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Every long option a tool's --help lists is documented in its man page.
set -u
tool=$1 page=$2 min=${3:-10} # min: how many options --help lists at least
help=$("$tool" --help) || { echo "FAIL: $tool --help exited non-zero"; exit 1; }
missing=0
text=$(sed 's/\\-/-/g' "$page") # man pages escape dashes: \-\-size
for opt in $(grep -oE -- '--[a-z][a-z0-9_-]*' <<<"$help" | sort -u); do
	grep -qE -- "(^|[^a-z0-9_-])$opt([^a-z0-9_-]|$)" <<<"$text" || { echo "not in $(basename "$page"): $opt"; missing=1; }
done
# A short letter names one option: a second row with it would never be reached.
dups=$(grep -oE -- '^  -[A-Za-z],' <<<"$help" | sort | uniq -d)
[ -z "$dups" ] || { echo "FAIL: short options used twice in --help: $dups"; missing=1; }
n=$(grep -cE -- '--[a-z]' <<<"$help")
[ "$n" -ge "$min" ] || { echo "FAIL: only $n options in --help?"; exit 1; }
[ $missing -eq 0 ] && echo "PASS: all $n options of $(basename "$tool") documented"
exit $missing
