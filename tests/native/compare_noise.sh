#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# tools/compare as a gate that knows noise, on planted documents: medians 15 % apart whose
# P5..P95 ranges overlap are noise (exit 0); a 2x slowdown is one throughput finding per
# row, not one per metric (exit 1); documents without repeats are not judged (exit 3,
# "cannot judge", naming --repeat and --gate-single), even two identical ones, and under
# --gate-single are judged with a warning that the verdict rests on single samples
# (exit 1 or 0); documents measured with other qps are
# refused naming qps (exit 2) and compared under --match size_bytes, the difference
# printed; a CSV's per-repeat rows and '# model:' line read back.
source "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CMP=$ROOT/tools/compare

# plant OUT [--qps N] [--no-repeat] SIZE=BW,BW,... ...: a socket_bw-shaped document (CSV,
# or JSON when OUT ends in .json) with each size's bandwidth samples in Gb/s. With repeats:
# one row per sample (repeat 1..N), then the summary (repeat all: medians, P5, P95, min,
# max, CV of bw_avg_gbps and msg_rate_mpps); --no-repeat: one row of the first sample.
plant() {
	python3 - "$@" <<'PY'
import json, statistics, sys
out, args, qps, repeat, sizes = sys.argv[1], sys.argv[2:], None, True, []
while args:
    a = args.pop(0)
    if a == "--qps":
        qps = args.pop(0)
    elif a == "--no-repeat":
        repeat = False
    else:
        size, _, bws = a.partition("=")
        sizes.append((int(size), [float(x) for x in bws.split(",")]))


def pct(xs, p):  # linear interpolation between the closest ranks
    xs = sorted(xs)
    i = p / 100 * (len(xs) - 1)
    lo = int(i)
    return xs[lo] + (i - lo) * (xs[min(lo + 1, len(xs) - 1)] - xs[lo])


def row(size, bw, rep=None, n=None):
    r = {"tool": "socket_bw", "mode": "unidirectional", "size_bytes": size}
    if qps:
        r["qps"] = int(qps)
    r["bw_avg_gbps"], r["msg_rate_mpps"] = bw, bw * 1e3 / (size * 8)
    if rep:
        r["repeat"], r["repeats"] = rep, n
        for k in ("bw_avg_gbps", "msg_rate_mpps"):
            for s in ("p5", "p95", "min", "max", "cv_pct"):
                r["%s_%s" % (k, s)] = None
        r["unstable"] = False
    return r


rows = []
for size, bws in sizes:
    if not repeat:
        rows.append(row(size, bws[0]))
        continue
    reps = [row(size, bw, str(k), len(bws)) for k, bw in enumerate(bws, 1)]
    summary = row(size, statistics.median(bws), "all", len(bws))
    for k in ("bw_avg_gbps", "msg_rate_mpps"):
        xs = [r[k] for r in reps]
        summary.update({k: statistics.median(xs), k + "_p5": pct(xs, 5), k + "_p95": pct(xs, 95), k + "_min": min(xs),
                        k + "_max": max(xs), k + "_cv_pct": 100 * statistics.stdev(xs) / statistics.mean(xs)})
    summary["unstable"] = summary["bw_avg_gbps_cv_pct"] > 5
    rows += reps + [summary]
with open(out, "w") as f:
    if out.endswith(".json"):
        json.dump({"meta": {"tool": "socket_bw"}, "results": rows, "complete": True}, f)
    else:
        cell = lambda v: "" if v is None else str(int(v)) if isinstance(v, bool) else str(v)
        f.write(",".join(list(rows[0]) + ["error"]) + "\n")
        f.writelines(",".join(cell(v) for v in r.values()) + ",\n" for r in rows)
PY
}

# compare OLD NEW [ARGS...]: tools/compare into c.out (stdout) and c.err; sets RC.
compare() {
	local old=$1 new=$2
	shift 2
	"$CMP" "$@" "$T/$old" "$T/$new" >"$T/c.out" 2>"$T/c.err"
	RC=$?
}

# (a) The 4 KiB medians 15 % apart (10 -> 8.5 Gb/s), P5..P95 9.1..10.9 and 7.78..9.24: noise.
plant "$T/a_old.csv" 4096=9,9.5,10,10.5,11 65536=39,39.5,40,40.5,41
plant "$T/a_new.csv" 4096=7.7,8.1,8.5,9.0,9.3 65536=39,39.5,40,40.5,41
compare a_old.csv a_new.csv
expect_rc "compare, 15 % within overlapping ranges" "$RC" 0
K="^socket_bw unidirectional" # a row's line
expect_grep "$T/c.out" "$K 4096 B +bw_avg_gbps +10 +8\\.5 +0\\.850  9\\.1\\.\\.10\\.9 +7\\.78\\.\\.9\\.24 +noise"
expect_grep "$T/c.out" "^no regression beyond 10 % in 2 matched row\\(s\\); 1 move\\(s\\) past it within noise"
! grep -q "single samples" "$T/c.out" || fail "repeats in both, yet the single-sample warning"
# The same medians as single samples: not judged (exit 3), the move shown; under
# --gate-single the threshold alone judges, and says so.
plant "$T/a1_old.csv" --no-repeat 4096=10 65536=40
plant "$T/a1_new.csv" --no-repeat 4096=8.5 65536=40
compare a1_old.csv a1_new.csv
expect_rc "compare, 15 % in single samples" "$RC" 3
expect_grep "$T/c.out" "$K 4096 B +bw_avg_gbps +10 +8\\.5 +0\\.850  past 10 %$"
! grep -q "REGRESSED" "$T/c.out" || fail "single samples not gated, yet REGRESSED"
expect_grep "$T/c.out" "^1 move\\(s\\) past 10 % in 2 matched row\\(s\\), not judged:$"
expect_grep "$T/c.out" "^  ${K#^} 4096 B: throughput \\(bw_avg_gbps 0\\.850, msg_rate_mpps 0\\.850\\)$"
compare a1_old.csv a1_new.csv --gate-single
expect_rc "compare --gate-single, 15 % in single samples" "$RC" 1
expect_grep "$T/c.out" "$K 4096 B +bw_avg_gbps +10 +8\\.5 +0\\.850  REGRESSED$"
expect_grep "$T/c.out" "^1 regression\\(s\\) beyond 10 % in 2 matched row\\(s\\):$"

# (b) 64 KiB at half its bandwidth (so half its message rate): one throughput finding, both
# metrics named in it. The new document is JSON: nulls and true/false read as in a CSV.
plant "$T/b_old.csv" 4096=9,9.5,10,10.5,11 65536=39,39.5,40,40.5,41
plant "$T/b_new.json" 4096=9,9.5,10,10.5,11 65536=19.5,19.75,20,20.25,20.5
compare b_old.csv b_new.json
expect_rc "compare, 2x slowdown" "$RC" 1
[ "$(grep -c REGRESSED "$T/c.out")" -eq 1 ] || fail "2x slowdown: not one REGRESSED line"
expect_grep "$T/c.out" "$K 65536 B +bw_avg_gbps +40 +20 +0\\.500  39\\.1\\.\\.40\\.9 +19\\.55\\.\\.20\\.45 +REGRESSED$"
expect_grep "$T/c.out" "^1 regression\\(s\\) beyond 10 % in 2 matched row\\(s\\):$"
expect_grep "$T/c.out" "^  ${K#^} 65536 B: throughput \\(bw_avg_gbps 0\\.500, msg_rate_mpps 0\\.500\\)$"
cp "$T/c.out" "$T/b.out"

# (c) No repeats in either document: compare cannot judge (exit 3) and says what to do,
# even for two identical documents; --gate-single judges them all the same, with the warning.
J="^cannot judge: single samples \\(WHO no --repeat\\) cannot tell a regression from noise; run both with --repeat 5 \\(or more\\), or pass --gate-single to gate on single samples anyway$"
plant "$T/c_old.csv" --no-repeat 4096=10 65536=40
plant "$T/c_new.csv" --no-repeat 4096=10.5 65536=39
compare c_old.csv c_old.csv
expect_rc "compare, two identical single-sample documents" "$RC" 3
expect_grep "$T/c.out" "${J/WHO/old and new have}"
tail -n 1 "$T/c.out" | grep -q "^cannot judge: " || fail "identical single samples: the last line is not 'cannot judge'"
expect_grep "$T/c.out" "^no move past 10 % in 2 matched row\\(s\\)$"
! grep -qE "REGRESSED|^no regression" "$T/c.out" || fail "identical single samples: judged anyway"
compare c_old.csv c_old.csv --gate-single
expect_rc "compare --gate-single, two identical single-sample documents" "$RC" 0
expect_grep "$T/c.out" "^no regression beyond 10 % in 2 matched row\\(s\\)$"
! grep -q "^cannot judge" "$T/c.out" || fail "--gate-single, yet 'cannot judge'"
compare c_old.csv c_new.csv
expect_rc "compare, single samples within the threshold" "$RC" 3
compare c_old.csv c_new.csv --gate-single
expect_rc "compare --gate-single, single samples within the threshold" "$RC" 0
expect_grep "$T/c.out" "^note: the verdict rests on single samples \\(old and new have no --repeat\\): noise not"
expect_grep "$T/c.out" "noise not ruled out; measure both with --repeat 5$"
expect_grep "$T/c.out" "^no regression beyond 10 % in 2 matched row\\(s\\)$"
compare c_old.csv a_new.csv
expect_rc "compare, repeats in new only" "$RC" 3
expect_grep "$T/c.out" "${J/WHO/old has}"
compare c_old.csv a_new.csv --gate-single
expect_rc "compare --gate-single, repeats in new only" "$RC" 1
expect_grep "$T/c.out" "^note: the verdict rests on single samples \\(old has no --repeat\\)"

# (d) qps 1 against qps 4: refused naming qps; under --match size_bytes compared, the
# difference printed above the table.
plant "$T/d_old.csv" --qps 1 4096=9,9.5,10,10.5,11 65536=39,39.5,40,40.5,41
plant "$T/d_new.csv" --qps 4 4096=9,9.5,10,10.5,11 65536=39,39.5,40,40.5,41
compare d_old.csv d_new.csv
expect_rc "compare, qps 1 against qps 4" "$RC" 2
expect_grep "$T/c.err" "^compare: the documents were measured differently: qps 1 -> 4 \\(.*\\);"
expect_grep "$T/c.err" "; to compare them anyway, pass --match size_bytes$"
compare d_old.csv d_new.csv --match size_bytes
expect_rc "compare --match size_bytes, qps 1 against qps 4" "$RC" 0
[ "$(head -n 1 "$T/c.out")" = "differs: qps 1 -> 4" ] || fail "--match size_bytes: no 'differs: qps 1 -> 4' first"
expect_grep "$T/c.out" "^socket_bw unidirectional 65536 B x4 QPs +bw_avg_gbps +40 +40 +1\\.000 "
expect_grep "$T/c.out" "^no regression beyond 10 % in 2 matched row\\(s\\)$"
compare d_old.csv d_new.csv --match size_bytes,nsocks
expect_rc "compare --match a column the documents lack" "$RC" 2
expect_grep "$T/c.err" "^compare: --match size_bytes,nsocks: .*d_old\\.csv has no column nsocks$"

# (e) A CSV as the tools write it with --repeat 3: each size's repeats, its summary, and the
# model line after the last row. Its rows are the summaries, the repeats apart, the model its own.
cat >"$T/e.csv" <<'EOF'
tool,mode,size_bytes,bw_avg_gbps,repeat,repeats,bw_avg_gbps_p5,bw_avg_gbps_p95,bw_avg_gbps_min,bw_avg_gbps_max,bw_avg_gbps_cv_pct,unstable,error
socket_bw,unidirectional,4096,9,1,3,,,,,,0,
socket_bw,unidirectional,4096,10,2,3,,,,,,0,
socket_bw,unidirectional,4096,11,3,3,,,,,,0,
socket_bw,unidirectional,4096,10,all,3,9.1,10.9,9,11,10,1,
socket_bw,unidirectional,65536,39,1,3,,,,,,0,
socket_bw,unidirectional,65536,41,2,3,,,,,,0,
socket_bw,unidirectional,65536,40,3,3,,,,,,0,
socket_bw,unidirectional,65536,40,all,3,39.1,40.9,39,41,2.5,0,
# model: metric=bw_avg_gbps t_lat_us=1.25 b_eff_gbps=9.87 eta=0.987 n_half_bytes=1543 rel_rms_residual=0.012 sizes=23
EOF
sed 's/eta=0\.987/eta=nan/' "$T/e.csv" >"$T/e_nan.csv"
compare e.csv e_nan.csv
expect_rc "compare, documents with a model line" "$RC" 0
M="n_1/2 1543 B, residual 1\\.2 % RMS over 23 sizes \\(the document's\\)$"
expect_grep "$T/c.out" "^old model: t_lat 1\\.25 us, B_eff 9\\.87 Gb/s \\(eta 98\\.7 % of the link\\), $M"
expect_grep "$T/c.out" "^new model: t_lat 1\\.25 us, B_eff 9\\.87 Gb/s, $M"
expect_grep "$T/c.out" "$K 4096 B +bw_avg_gbps +10 +10 +1\\.000  9\\.1\\.\\.10\\.9 +9\\.1\\.\\.10\\.9 +unstable$"
expect_grep "$T/c.out" "^no regression beyond 10 % in 2 matched row\\(s\\)$"
PYTHONPATH=$ROOT/tools/lib python3 - "$T/e.csv" "$T/e_nan.csv" "$T/b_new.json" <<'PY' || fail "not read back"
import sys
from rbdoc import read, repeat_rows, size_rows
d = read(sys.argv[1])
assert d.complete and d.error is None, (d.complete, d.error)
assert [(r["size_bytes"], r["repeat"]) for r in size_rows(d)] == [("4096", "all"), ("65536", "all")], size_rows(d)
assert [r["bw_avg_gbps"] for r in repeat_rows(d)] == ["9", "10", "11", "39", "41", "40"], repeat_rows(d)
assert d.model == {"metric": "bw_avg_gbps", "t_lat_us": 1.25, "b_eff_gbps": 9.87, "eta": 0.987, "n_half_bytes": 1543,
                   "rel_rms_residual": 0.012, "sizes": 23}, d.model
assert read(sys.argv[2]).model["eta"] is None, read(sys.argv[2]).model
# JSON as a CSV reads: true as "1", null as "", and the same rows
j = read(sys.argv[3])
assert [(r["repeat"], r["unstable"]) for r in size_rows(j)] == [("all", "1"), ("all", "0")], size_rows(j)
assert len(repeat_rows(j)) == 10 and repeat_rows(j)[0]["bw_avg_gbps_p5"] == "", repeat_rows(j)[0]
PY
pass "compare: overlapping ranges are noise, a slowdown is one finding, single samples not judged (exit 3) unless --gate-single, qps refused or matched"
