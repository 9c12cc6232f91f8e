#!/bin/sh
# Accuracy of `tracefold fold` against the ground truth that `tracefold synth`
# stores in its traces (docs/commands/synth.md), with the bars of issue 4:
# on the five-phase scenario (300 iterations, ~13 samples each, 2 % jitter,
# ±1 % boundary shifts, 3 % rate noise, 5 % stalled iterations), for several
# seeds: curve error <= 0.25 %, mean rate error <= 3 % outside ±2 % of each
# change, changes within ±1 %, >= 95 % of stalls excluded, >= 95 % of
# ordinary iterations kept, mean rate = total/duration within 0.5 %, and
# per-instruction ratios within 3 % on average.  Also
# the looser documented bounds of sparse (3 samples per iteration) and
# Poisson sampling, accuracy growing with the samples, and the existing
# tool's median ± 1.5·MAD rule dropping ordinary iterations; and a trace
# whose samples each cost the program a tenth of a short iteration folded
# about as well as without that cost.
set -u
. "${top_srcdir:?run by make check}/tests/fold/truth_cases.sh"

issue_bars() {
    expect "$1" curve_max_err le 0.0025
    expect "$1" rate_mean_rel_err le 0.03
    expect "$1" change_max_dist le 0.01
    expect "$1" outlier_recall ge 0.95
    expect "$1" ordinary_kept ge 0.95
    expect "$1" mean_rate_rel_err le 0.005
    expect "$1" ratio_mean_rel_err le 0.03
}

for seed in 1 2 3; do
    fold_case "seed$seed" --seed "$seed" && issue_bars "seed$seed"
done

# Sparse sampling: 3 samples per iteration (docs/algorithms.md, "Accuracy").
for seed in 1 2; do
    if fold_case "sparse$seed" --seed "$seed" --samples-per-iteration 3; then
        expect "sparse$seed" curve_max_err le 0.03
        expect "sparse$seed" rate_mean_rel_err le 0.15
        expect "sparse$seed" change_max_dist le 0.01
        expect "sparse$seed" outlier_recall ge 0.95
        expect "sparse$seed" ordinary_kept ge 0.95
        expect "sparse$seed" mean_rate_rel_err le 0.02
    fi
done

# Poisson sampling at ~13 samples per iteration.
if fold_case poisson --seed 4 --poisson; then
    expect poisson curve_max_err le 0.005
    expect poisson rate_mean_rel_err le 0.03
    expect poisson change_max_dist le 0.01
    expect poisson outlier_recall ge 0.95
    expect poisson ordinary_kept ge 0.95
    expect poisson mean_rate_rel_err le 0.005
fi

# More samples, smaller errors.
if fold_case spi6 --seed 1 --samples-per-iteration 6; then
    s3=$(metric sparse1 curve_max_err) s6=$(metric spi6 curve_max_err) s13=$(metric seed1 curve_max_err)
    if awk -v a="$s3" -v b="$s6" -v c="$s13" 'BEGIN { exit !(a > b && b > c) }'; then
        echo "ok: curve error falls with samples: $s3 (3/it) > $s6 (6/it) > $s13 (13/it)"
    else
        echo "FAIL: curve error does not fall with samples: $s3, $s6, $s13"
        fail=1
    fi
fi

# The recording's cost per sample (docs/algorithms.md, "The recording's cost
# per sample"): iterations of 1 ms sampled every 5 ms, each sample stopping
# the program 100 us (a tenth of an iteration, five times its jitter).  The
# fold measures the cost and takes it out: it keeps the sampled iterations
# (the only ones with samples) and is about as accurate as on the same
# trace without the cost.
short="--seed 1 --duration 1ms --period 5ms --no-memory --iterations 3000"
# shellcheck disable=SC2086
if fold_case short $short && fold_case short_cost $short --sample-cost 100us; then
    expect short_cost ordinary_kept ge 0.95
    expect short_cost outlier_recall ge 0.95
    for m in curve_max_err:0.002 rate_mean_rel_err:0.02 mean_rate_rel_err:0.01 ratio_mean_rel_err:0.04; do
        expect short_cost "${m%:*}" le "$(awk -v a="$(metric short "${m%:*}")" -v d="${m#*:}" \
                                           'BEGIN { print a + d }')"
    done
fi

# The existing tool's rule drops about a third of ordinary iterations.
if fold_case mad15 --seed 1 -- --filter mad15; then
    expect mad15 ordinary_kept lt 0.8
    expect mad15 outlier_recall ge 0.95
fi
exit $fail
