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
#        CAPTURE=auto)
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
        case $((rep % 4)) in 0) order="plain bare group recorder";;
                              1) order="bare group recorder plain";;
                              2) order="group recorder plain bare";;
                              *) order="recorder plain bare group";; esac
        for mode in $order; do
            case $mode in
            plain) out=$("$loop" --threads "$threads" "$n"); stats="";;
            bare) out=$("$loop" --threads "$threads" --bare "$(ns "$p")" "$n"); stats="";;
            group) out=$("$loop" --threads "$threads" --bare "$(ns "$p")" --group "$n"); stats="";;
            recorder)
                out=$(TRACEFOLD_STATS=yes /usr/bin/time -f "total_cpu=%U+%S" "$tf" record -q \
                      -o "$tmp/t.h5" --period "$p" --unwind "$unwind" --sampler "$sampler" \
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
            echo "$p $mode $t $sig $rss ${stats:-0 0 0 0}" >> "$tmp/runs"
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
{
    add($1 " " $2 " time", $3); add($1 " " $2 " rss", $5)
    if ($2 == "bare") add($1 " bare sig", $4)
    if ($2 == "recorder") { add($1 " rec samples", $6); add($1 " rec cost", $7); add($1 " writer", $8); add($1 " wns", $9) }
    if (!seen[$1]++) order[++np] = $1
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
        printf "%-7s %9.4f %9.4f %9.4f %8.2f %8.2f %8.2f %9d %9d %10.2f %10.3f %9.3f %10.2f %9d\n", p, tp,
            tb, tr, 100 * (tb / tp - 1), 100 * (tg / tp - 1), 100 * (tr / tp - 1),
            median(p " bare sig"), s,
            s ? 1e6 * (tr - tb) / s : 0, median(p " rec cost") / 1000, median(p " writer"),
            median(p " wns") / 1000,
            median(p " recorder rss") - median(p " plain rss")
    }
}' "$tmp/runs"
