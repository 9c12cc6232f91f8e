#!/bin/sh
# `tracefold fold` as a command: its outputs and their headers, the default
# output directory, region choice (default, named, nested, unknown), and the
# errors: existing or unwritable output, too few instances, wrong options;
# the same files whatever the number of threads.
set -u
tf=${TRACEFOLD:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
say_fail() { echo "FAIL: $*"; fail=1; }

# expect_exit CODE PATTERN CMD...: the command exits with CODE and its
# stderr matches PATTERN (extended regular expression).
expect_exit() {
    code=$1 pattern=$2
    shift 2
    "$@" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    [ "$rc" -eq "$code" ] || say_fail "$* exited $rc, expected $code: $(cat "$tmp/err")"
    grep -Eq -- "$pattern" "$tmp/err" || say_fail "$*: message '$(cat "$tmp/err")' lacks /$pattern/"
}

"$tf" synth -q -o "$tmp/run.h5" --seed 7 --iterations 60 --nested || exit 1

# Default region and output directory (TRACE without .h5, plus .fold).
"$tf" fold "$tmp/run.h5" 2> "$tmp/err" || say_fail "fold of a synth trace: $(cat "$tmp/err")"
grep -q "folding region 'iteration'" "$tmp/err" || say_fail "the chosen region is not named"
for f in fold.h5 instances.csv curves.csv ratios.csv; do
    [ -s "$tmp/run.fold/$f" ] || say_fail "missing $f"
done
[ "$(head -1 "$tmp/run.fold/instances.csv")" = \
  "region,group,process,thread,begin_ns,duration_ns,status,reason,samples,score,threads" ] ||
    say_fail "instances.csv header"
[ "$(head -1 "$tmp/run.fold/curves.csv")" = \
  "region,group,counter,x,y,y_lo,y_hi,rate,rate_lo,rate_hi,instances" ] ||
    say_fail "curves.csv header"
[ "$(head -1 "$tmp/run.fold/ratios.csv")" = "region,group,counter,x,per_instruction,instances" ] ||
    say_fail "ratios.csv header"
[ "$(grep -c '^iteration,' "$tmp/run.fold/instances.csv")" -eq 60 ] || say_fail "60 instance rows"
# 8 counters x 1000 grid points; ratios for the 7 counters besides instructions.
[ "$(grep -c '^iteration,0,' "$tmp/run.fold/curves.csv")" -eq 8000 ] || say_fail "curves.csv rows"
[ "$(grep -c '^iteration,0,' "$tmp/run.fold/ratios.csv")" -eq 7000 ] || say_fail "ratios.csv rows"
grep -q ',excluded,duration,' "$tmp/run.fold/instances.csv" || say_fail "no stalled instance excluded"
ls "$tmp" | grep -q 'tmp-' && say_fail "temporary directory left behind"

# Iterations shorter than the sampling period, each sample costing 100 us:
# the notes give the cost and say that the curves rest on the sampled
# instances, as many as instances.csv counts among the used ones.
"$tf" synth -q -o "$tmp/short.h5" --duration 1ms --period 5ms --iterations 400 --no-memory \
    --sample-cost 100us || exit 1
"$tf" fold "$tmp/short.h5" -o "$tmp/short" 2> "$tmp/err" || say_fail "fold of short.h5: $(cat "$tmp/err")"
grep -Eq "each sample cost the program (9[5-9]|10[0-5])\.[0-9] us" "$tmp/err" ||
    say_fail "no cost of about 100 us noted: $(cat "$tmp/err")"
sampled=$(awk -F, '$7 == "used" && $9 > 0' "$tmp/short/instances.csv" | wc -l)
grep -q "the counters' curves rest on the other $sampled\$" "$tmp/err" ||
    say_fail "no note of the $sampled sampled instances: $(cat "$tmp/err")"
grep -q "rests on" "$tmp/err" && say_fail "a counter noted as resting on fewer: $(cat "$tmp/err")"

# The output exists: refused without --force, replaced with it.
expect_exit 1 'exists.*--force' "$tf" fold -q "$tmp/run.h5"
"$tf" fold -q --force --grid 200 --bootstrap 20 "$tmp/run.h5" || say_fail "--force"
[ "$(grep -c '^iteration,0,instructions,' "$tmp/run.fold/curves.csv")" -eq 200 ] ||
    say_fail "--force did not replace the output"
mkdir "$tmp/other" && touch "$tmp/other/keep"
expect_exit 1 'a folder tracefold did not write' "$tf" fold -q --force -o "$tmp/other" "$tmp/run.h5"
[ -f "$tmp/other/keep" ] || say_fail "--force removed an unrelated directory"

# Named, nested and unknown regions.
"$tf" fold -q -r gather -o "$tmp/gather" "$tmp/run.h5" || say_fail "nested region gather"
[ "$(grep -c '^gather,' "$tmp/gather/instances.csv")" -eq 60 ] || say_fail "gather instances"
# The message names the regions there are and the ways to get the one asked.
expect_exit 1 "no region 'nosuch'.*iteration \(60\).*tracefold record --region FUNCTION.*tracefold_region_begin/end" \
    "$tf" fold -q -r nosuch -o "$tmp/x" "$tmp/run.h5"
[ -e "$tmp/x" ] && say_fail "output left after an error"

# Duration groups: two groups folded on their own (the stalled iterations
# are the longest, so they make the second group).
"$tf" fold -q --groups 2 --bootstrap 10 -o "$tmp/groups" "$tmp/run.h5" || say_fail "--groups 2"
[ "$(cut -d, -f2 "$tmp/groups/instances.csv" | grep -c '^1$')" -ge 2 ] || say_fail "no second group"
grep -q '^iteration,1,instructions,' "$tmp/groups/curves.csv" || say_fail "no curves for group 1"

# Threads never change the result: one thread and more threads than
# counters (and CPUs) give the same files, the two groups above included,
# and on a thread of 100 000 samples (samples are read in batches of
# 32 768, filed on a second thread while the next batch is read).
"$tf" synth -q -o "$tmp/long.h5" --seed 3 --iterations 40 --samples-per-iteration 2500 || exit 1
for j in 1 11; do
    "$tf" fold -q -j $j --groups 2 --bootstrap 10 -o "$tmp/j$j" "$tmp/run.h5" || say_fail "-j $j"
    "$tf" fold -q -j $j --bootstrap 10 -o "$tmp/long$j" "$tmp/long.h5" || say_fail "-j $j, long"
done
for run in j long; do
    for f in instances.csv curves.csv ratios.csv phases.csv streams.csv summary.md folded.pcf; do
        cmp -s "$tmp/${run}1/$f" "$tmp/${run}11/$f" ||
            say_fail "$run: $f differs between -j 1 and -j 11"
    done
    # folded.prv: byte for byte but the date in its header line.
    [ "$(tail -n +2 "$tmp/${run}1/folded.prv" | cksum)" = \
      "$(tail -n +2 "$tmp/${run}11/folded.prv" | cksum)" ] ||
        say_fail "$run: folded.prv differs between -j 1 and -j 11"
done

# Unwritable output, missing trace.
touch "$tmp/file"
expect_exit 1 'cannot create' "$tf" fold -q -o "$tmp/file/sub" "$tmp/run.h5"
expect_exit 1 'nosuch\.h5' "$tf" fold -q "$tmp/nosuch.h5"
# with a region (its name is also looked for as a routine when no region
# has it: not in a trace that did not open)
expect_exit 1 'nosuch\.h5' "$tf" fold -q -r iteration "$tmp/nosuch.h5"

# Fewer than 2 usable instances.
"$tf" synth -q -o "$tmp/one.h5" --iterations 1 --outliers 0 || exit 1
expect_exit 1 'no region repeats' "$tf" fold -q "$tmp/one.h5"
expect_exit 1 'at least 2' "$tf" fold -q -r iteration "$tmp/one.h5"

# Wrong command lines.
expect_exit 2 'missing TRACE' "$tf" fold
expect_exit 2 'grid' "$tf" fold --grid 1 "$tmp/run.h5"
expect_exit 2 'filter' "$tf" fold --filter median "$tmp/run.h5"
expect_exit 2 'groups' "$tf" fold --groups two "$tmp/run.h5"
expect_exit 2 'threads' "$tf" fold -j 0 "$tmp/run.h5"
expect_exit 2 'analysis-samples' "$tf" fold --analysis-samples -3 "$tmp/run.h5"
expect_exit 2 'unknown' "$tf" fold --no-such-option "$tmp/run.h5"
"$tf" fold --help | grep -q 'tracefold fold' || say_fail "--help"
exit $fail
