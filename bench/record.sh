#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The recorder benchmark (protocol in bench/README.md, "Recorder"): for each
# period, interleaved runs of the plain loop, the loop with a bare timer
# signal at that period, the same with the recorder's kernel set-up (counter
# group read into a ring at each overflow, record_loop --group), and the
# loop under `tracefold record`, REPS times;
# prints the medians, the slowdowns against plain, the recorder's cost per
# sample beyond the bare signal (from the loop's CPU time, and measured
# inside the handler by TRACEFOLD_STATS), the writer process's CPU time and
# the memory used.  Slowdowns use the loop's process CPU time, because on a
# shared machine wall-clock times mostly measure the other users.
# Usage: sh bench/record.sh [BUILDDIR]   (env: REPS=5 PERIODS="5ms 1ms 100us"
#        SECONDS_OF_WORK=1.2 THREADS=1 UNWIND=libunwind SAMPLER=auto MEM_SAMPLER=auto
#        CAPTURE=auto MODES="plain bare group recorder")
# With kernel capture (--capture) there is no handler: its column is 0 and
# the samples and the writer's CPU per sample come from the writer's stats
# line (its time in the kernel-ring drains, tf_kring.c).
set -eu
bd=${1:-build}
loop=$bd/bench/record_loop
tf=$bd/tracefold
reps=${REPS:-5}
periods=${PERIODS:-5ms 1ms 100us}
threads=${THREADS:-1}
unwind=${UNWIND:-libunwind}
sampler=${SAMPLER:-auto}
mem_sampler=${MEM_SAMPLER:-auto}
capture=${CAPTURE:-auto}
modes=${MODES:-plain bare group recorder}
case " $modes " in *" plain "*) ;; *) echo "record.sh: MODES must include plain" >&2; exit 2;; esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tf-bench-record.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
ns() { case $1 in *us) echo $(( ${1%us} * 1000 ));; *ms) echo $(( ${1%ms} * 1000000 ));; esac; }
n=$("$loop" --calibrate "${SECONDS_OF_WORK:-1.2}")
echo "# $(uname -srm), $(nproc) CPUs, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n1)"
echo "# loop: $n iterations, $threads thread(s), $reps repetitions, unwind=$unwind, sampler=$sampler, mem-sampler=$mem_sampler, capture=$capture, load $(cut -d' ' -f1-3 /proc/loadavg)"
: > "$tmp/runs"
for rep in $(seq "$reps"); do
    for p in $periods; do
        # Rotate the order each repetition so drifts in machine load do not
        # favour one mode.
        set -- $modes
        i=$((rep % $#))
        while [ "$i" -gt 0 ]; do m=$1; shift; set -- "$@" "$m"; i=$((i - 1)); done
        order="$*"
        for mode in $order; do
            case $mode in
            plain) out=$("$loop" --threads "$threads" "$n"); stats="";;
            bare) out=$("$loop" --threads "$threads" --bare "$(ns "$p")" "$n"); stats="";;
            group) out=$("$loop" --threads "$threads" --bare "$(ns "$p")" --group "$n"); stats="";;
            recorder)
                out=$(TRACEFOLD_STATS=yes /usr/bin/time -f "total_cpu=%U+%S" "$tf" record -q \
                      --force -o "$tmp/t.h5" --period "$p" --unwind "$unwind" --sampler "$sampler" \
                      --mem-sampler "$mem_sampler" --capture "$capture" -- "$loop" --threads "$threads" "$n" 2>"$tmp/err")
                stats=$(sed -n 's/.*stats: \([0-9]*\) samples, handler cost median \([0-9]*\) ns.*/\1 \2/p' "$tmp/err")
                kern=$(sed -n 's/.*stats: \([0-9]*\) samples captured by the kernel.*writer \([0-9]*\) ns CPU per sample.*/\1 \2/p' "$tmp/err")
                if [ -n "$kern" ]; then
                    # Samples the handler took after a switch (none here) are not added.
                    wns=${kern#* }; stats="${kern% *} 0"
                else
                    wns=0
                fi
                # The writer's CPU: the whole run's minus the program's own.
                total=$(sed -n 's/^total_cpu=//p' "$tmp/err" | bc)
                prog=$(echo "$out" | sed -n 's/.*proc_cpu=\([0-9.]*\).*/\1/p')
                stats="$stats $(echo "$total - $prog" | bc) $wns"
                rm -f "$tmp/t.h5";;
            esac
            t=$(echo "$out" | sed -n 's/.* cpu=\([0-9.]*\).*/\1/p')
            sig=$(echo "$out" | sed -n 's/.*signals=\([0-9]*\).*/\1/p')
            rss=$(echo "$out" | sed -n 's/.*maxrss_kb=\([0-9]*\).*/\1/p')
            echo "$p $mode $t $sig $rss ${stats:-0 0 0 0} $rep" >> "$tmp/runs"
        done
    done
done
awk -v reps="$reps" '
function median(key,   n, i, j, v, tmp) {
    n = cnt[key]
    for (i = 1; i <= n; i++) v[i] = val[key, i]
    for (i = 2; i <= n; i++) { tmp = v[i]; for (j = i - 1; j >= 1 && v[j] > tmp; j--) v[j + 1] = v[j]; v[j + 1] = tmp }
    return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
function add(key, x) { cnt[key]++; val[key, cnt[key]] = x }
# A mode left out by MODES shows as "-".
function sec(key) { return cnt[key] ? sprintf("%.4f", median(key)) : "-" }
function pct(key, tp) { return cnt[key] ? sprintf("%.2f", 100 * (median(key) / tp - 1)) : "-" }
# Sorts val[key, 1..n] in place.
function sort(key,   n, i, j, tmp) {
    n = cnt[key]
    for (i = 2; i <= n; i++) { tmp = val[key, i]; for (j = i - 1; j >= 1 && val[key, j] > tmp; j--) val[key, j + 1] = val[key, j]; val[key, j + 1] = tmp }
}
# The median of the paired figures under key and its distribution-free
# 95 % confidence interval: the order statistics k and n + 1 - k, k the
# largest with P(Binomial(n, 1/2) <= k - 1) <= 0.025.
function ci(key,   n, k, p, cum, i) {
    n = cnt[key]; sort(key)
    if (!n) return "-"
    p = 0.5 ^ n; cum = 0; k = 0
    for (i = 0; i < n; i++) { cum += p; if (cum > 0.025) break; k = i + 1; p = p * (n - i) / (i + 1) }
    if (k < 1) return sprintf("%+6.2f [n too small]", median(key))
    return sprintf("%+6.2f [%+6.2f, %+6.2f]", median(key), val[key, k], val[key, n + 1 - k])
}
{
    t[$1, $2, $10] = $3
    add($1 " " $2 " time", $3); add($1 " " $2 " rss", $5)
    if ($2 == "bare") add($1 " bare sig", $4)
    if ($2 == "recorder") { add($1 " rec samples", $6); add($1 " rec cost", $7); add($1 " writer", $8); add($1 " wns", $9) }
    if (!seen[$1]++) order[++np] = $1
    if (!seenrep[$10]++) nrep++
}
END {
    printf "%-7s %9s %9s %9s %8s %8s %8s %9s %9s %10s %10s %9s %10s %9s\n", "period", "plain s",
        "bare s", "rec s", "bare %", "group %", "rec %", "signals", "samples", "beyond/us",
        "handler/us", "writer s", "wr/smp us", "mem KiB"
    for (k = 1; k <= np; k++) {
        p = order[k]
        tp = median(p " plain time"); tb = median(p " bare time"); tr = median(p " recorder time")
        tg = median(p " group time")
        s = median(p " rec samples")
        printf "%-7s %9.4f %9s %9s %8s %8s %8s %9d %9d %10s %10.3f %9.3f %10.2f %9d\n", p, tp,
            sec(p " bare time"), sec(p " recorder time"), pct(p " bare time", tp),
            pct(p " group time", tp), pct(p " recorder time", tp), median(p " bare sig"), s,
            s && cnt[p " bare time"] ? sprintf("%.2f", 1e6 * (tr - tb) / s) : "-",
            median(p " rec cost") / 1000, median(p " writer"), median(p " wns") / 1000,
            median(p " recorder rss") - median(p " plain rss")
    }
    # Paired: each mode against the plain run of its own repetition, which
    # ran next to it, so slow drifts of the machine cancel.
    printf "\npaired slowdowns against plain, %%: median [95 %% CI of the median], %d repetitions\n", nrep
    printf "%-7s %-26s %-26s %-26s\n", "period", "bare", "recorder", "recorder - bare"
    for (k = 1; k <= np; k++) {
        p = order[k]
        for (r in seenrep) {
            if ((p, "bare", r) in t) add(p " pb", 100 * (t[p, "bare", r] / t[p, "plain", r] - 1))
            if ((p, "recorder", r) in t) add(p " pr", 100 * (t[p, "recorder", r] / t[p, "plain", r] - 1))
            if ((p, "recorder", r) in t && (p, "bare", r) in t)
                add(p " prb", 100 * (t[p, "recorder", r] - t[p, "bare", r]) / t[p, "plain", r])
        }
        printf "%-7s %-26s %-26s %-26s\n", p, ci(p " pb"), ci(p " pr"), ci(p " prb")
    }
}' "$tmp/runs"
