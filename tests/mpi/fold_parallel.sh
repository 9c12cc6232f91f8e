#!/bin/sh
# `mpirun -np N tracefold fold`: the ranks share the reading and the fits
# and rank 0 writes the outputs, which are those of the serial fold: every
# CSV file, the summary and the synthetic Paraver trace the same bytes (but
# the date in its header), fold.h5 the same values; of a Paraver trace,
# which rank 0 reads alone, too, and of samples whose cost the fold takes
# out, and of an analysis of part of the samples.  A 1000-process trace
# folds with the other rank's memory bounded by its share (bounds in
# docs/commands/fold.md, "Parallel folding").  A damaged member,
# or a launcher MPI cannot reach, ends every rank with exit status 1 and
# one message, and leaves no output; so does a rank that reads another run.
. "${top_srcdir:?run by make check}/tests/mpi/lib.sh"
[ -x /usr/bin/time ] || { echo "SKIP: no /usr/bin/time (Debian package time)"; exit 77; }
mpi() {
    np=$1
    shift
    timeout 300 mpirun -np "$np" --oversubscribe --bind-to none "$@"
}
if ! timeout 60 mpirun -np 3 --oversubscribe --bind-to none true >/dev/null 2>&1; then
    echo "SKIP: mpirun cannot start 3 processes here"; exit 77
fi

# same DIR1 DIR2: the outputs of two folds are the same.
same() {
    n=0
    for f in "$1"/*.csv "$1/summary.md"; do
        cmp -s "$f" "$2/${f##*/}" || fail "$2/${f##*/} differs from the serial fold's"
        n=$((n + 1))
    done
    [ "$n" -ge 8 ] || fail "only $n CSV and summary files in $1"
    # The header's first line holds the date of writing.
    tail -n +2 "$1/folded.prv" >"$tmp/one.prv"
    tail -n +2 "$2/folded.prv" >"$tmp/two.prv"
    cmp -s "$tmp/one.prv" "$tmp/two.prv" || fail "$2/folded.prv differs from the serial fold's"
    for f in folded.pcf folded.row; do
        cmp -s "$1/$f" "$2/$f" || fail "$2/$f differs from the serial fold's"
    done
    h5diff -q "$1/fold.h5" "$2/fold.h5" >/dev/null || fail "$2/fold.h5 differs from the serial fold's"
}

# 64 processes, 8 counters: split 4 + 4 over two ranks, 3 + 3 + 2 over three;
# 90 iterations, 290 000 folded samples, so that each rank's share of
# them goes to rank 0 in more than one chunk (fold_team_points.c,
# PART_CHUNK) when the outputs are written.
"$tf" synth -q -o "$tmp/t64.h5" --processes 64 --iterations 90 || fail "synth of 64 processes"
"$tf" fold -q "$tmp/t64.h5" -o "$tmp/serial" 2>"$tmp/err" || fail "serial fold: $(cat "$tmp/err")"
for np in 2 3; do
    mpi $np "$tf" fold -q "$tmp/t64.h5" -o "$tmp/np$np" >"$tmp/out" 2>"$tmp/err" ||
        fail "mpirun -np $np tracefold fold: exit status $?: $(cat "$tmp/err")"
    [ ! -s "$tmp/err" ] || fail "mpirun -np $np tracefold fold -q said: $(cat "$tmp/err")"
    same "$tmp/serial" "$tmp/np$np"
done
# An analysis of part of the samples chooses the same ones under mpirun.
"$tf" fold -q "$tmp/t64.h5" -o "$tmp/part-serial" --analysis-samples 5000 2>"$tmp/err" ||
    fail "serial fold of 5000 samples: $(cat "$tmp/err")"
grep -q 'rest on [0-9]* of the [0-9]* folded samples' "$tmp/part-serial/summary.md" ||
    fail "summary.md does not say the analysis took part of the samples"
mpi 2 "$tf" fold -q "$tmp/t64.h5" -o "$tmp/part-np2" --analysis-samples 5000 >/dev/null \
    2>"$tmp/err" || fail "mpirun -np 2 tracefold fold --analysis-samples: $(cat "$tmp/err")"
same "$tmp/part-serial" "$tmp/part-np2"
# A Paraver trace is converted and read by rank 0 alone, the other ranks
# only fit (rank 1 here could not convert: no folder for it), and the
# outputs are the serial fold's.
"$tf" synth -q -o "$tmp/p4.h5" --processes 4 --iterations 40 || fail "synth of 4 processes"
"$tf" paraver -q "$tmp/p4.h5" -o "$tmp/p4.prv" || fail "paraver export"
"$tf" fold -q "$tmp/p4.prv" -o "$tmp/prv-serial" 2>"$tmp/err" || fail "serial fold of p4.prv: $(cat "$tmp/err")"
mpi 2 sh -c '[ "$OMPI_COMM_WORLD_RANK" = 0 ] || TMPDIR=/nonexistent; export TMPDIR
    exec "$1" fold -q "$2" -o "$3"' sh "$tf" "$tmp/p4.prv" "$tmp/prv-np2" >/dev/null 2>"$tmp/err" ||
    fail "mpirun -np 2 tracefold fold p4.prv: $(cat "$tmp/err")"
same "$tmp/prv-serial" "$tmp/prv-np2"
# Samples that cost the program time (short iterations, most without a
# sample): the cost is measured on every rank's instances once gathered,
# and taken out alike.
"$tf" synth -q -o "$tmp/cost.h5" --processes 8 --iterations 400 --duration 1ms --period 5ms \
    --no-memory --sample-cost 100us || fail "synth with a sample cost"
"$tf" fold "$tmp/cost.h5" -o "$tmp/cost-serial" 2>"$tmp/err" || fail "serial fold: $(cat "$tmp/err")"
grep -q 'each sample cost the program' "$tmp/err" || fail "no cost measured: $(cat "$tmp/err")"
mpi 2 "$tf" fold -q "$tmp/cost.h5" -o "$tmp/cost-np2" >/dev/null 2>"$tmp/err" ||
    fail "mpirun -np 2 tracefold fold cost.h5: $(cat "$tmp/err")"
same "$tmp/cost-serial" "$tmp/cost-np2"

# Without -q only rank 0 speaks: one summary note.
mpi 2 "$tf" fold "$tmp/t64.h5" -o "$tmp/loud" >/dev/null 2>"$tmp/err" || fail "fold without -q"
[ "$(grep -c 'folding region' "$tmp/err")" -eq 1 ] ||
    fail "want one note of the region, got: $(cat "$tmp/err")"
[ "$(ls -d "$tmp"/loud* | wc -l)" -eq 1 ] || fail "another rank wrote: $(ls -d "$tmp"/loud*)"
# The other ranks parse the same command line to read their shares, and
# say nothing of it: one help text, one usage error.
[ "$(mpi 2 "$tf" fold --help | grep -c '^Usage: tracefold fold')" -eq 1 ] ||
    fail "want one help text under mpirun"
mpi 2 "$tf" fold --grid 1 "$tmp/t64.h5" -o "$tmp/bad" >/dev/null 2>"$tmp/err" &&
    fail "--grid 1 under mpirun succeeded"
[ "$(grep -c -- '--grid' "$tmp/err")" -eq 1 ] || fail "want one usage error, got: $(cat "$tmp/err")"

# peaks NAME PROCESSES: peak RSS (KiB) of the serial fold and of each rank
# of `mpirun -np 2` on a trace of PROCESSES processes, into $NAME_serial,
# $NAME_lead, $NAME_member; the outputs must be the same.
peaks() {
    "$tf" synth -q -o "$tmp/$1.h5" --processes "$2" --iterations 10 --no-memory ||
        fail "synth of $2 processes"
    /usr/bin/time -f %M -o "$tmp/$1.rss.serial" "$tf" fold -q "$tmp/$1.h5" -o "$tmp/$1.s" ||
        fail "serial fold of $2 processes"
    mpi 2 sh -c '/usr/bin/time -f %M -o "$1.$OMPI_COMM_WORLD_RANK" "$2" fold -q "$3" -o "$4"' \
        sh "$tmp/$1.rss" "$tf" "$tmp/$1.h5" "$tmp/$1.p" 2>"$tmp/err" ||
        fail "mpirun tracefold fold of $2 processes: $(cat "$tmp/err")"
    same "$tmp/$1.s" "$tmp/$1.p"
    eval "$1_serial=\$(cat "$tmp/$1.rss.serial") $1_lead=\$(cat "$tmp/$1.rss.0")" \
        "$1_member=\$(cat "$tmp/$1.rss.1")"
}
# 1000 processes against 1: what each fold holds for the data is its peak
# over the same fold's of a one-process trace (the program, its libraries,
# MPI's buffers).  Rank 0 holds what the serial fold holds; rank 1 the
# trace's tables (as `tracefold info` does: 21 MB of the serial fold's
# 69 MB here), its half of the samples' points, then its counters' clouds
# (measured: 40 %), the bound 60 %.
peaks small 1
peaks big 1000
serial=$((big_serial - small_serial))
lead=$((big_lead - small_lead))
member=$((big_member - small_member))
echo "peak RSS over a one-process fold's, KiB: serial $serial ($big_serial - $small_serial)," \
    "rank 0 $lead ($big_lead - $small_lead), rank 1 $member ($big_member - $small_member)"
# Not under AddressSanitizer: its quarantine keeps what the program freed
# for a while, by threads and timing, so peaks measure the sanitizer (rank
# 0, whose outputs run on threads, held 1.24 x the serial fold once).
if [ "${TF_SANITIZERS:-no}" != yes ]; then
    [ "$lead" -le $((serial + serial / 5)) ] || fail "rank 0: $lead KiB, over 1.2 x the serial $serial KiB"
    [ "$member" -le $((serial * 3 / 5)) ] || fail "rank 1: $member KiB, over 0.6 x the serial $serial KiB"
fi

# A launcher MPI cannot reach (srun without --mpi=pmix: Slurm's variables,
# no PMI): every rank refuses, rank 0 says why, nothing is written.
for r in 0 1; do
    SLURM_STEP_NUM_TASKS=2 SLURM_PROCID=$r timeout 60 "$tf" fold -q "$tmp/t64.h5" \
        -o "$tmp/lone$r" >/dev/null 2>"$tmp/err.$r"
    [ $? -eq 1 ] || fail "srun-like rank $r without PMI: want exit status 1"
    [ ! -e "$tmp/lone$r" ] || fail "srun-like rank $r without PMI wrote $tmp/lone$r"
done
grep -q "started as 2 ranks, but MPI sees a world of 1" "$tmp/err.0" ||
    fail "srun-like rank 0 without PMI said: $(cat "$tmp/err.0")"
[ ! -s "$tmp/err.1" ] || fail "srun-like rank 1 without PMI said: $(cat "$tmp/err.1")"

# A damaged member of a set: exit 1 on every rank, one message, no output.
"$tf" synth -q -o "$tmp/a.h5" --iterations 20 || fail "synth a"
head -c 3000 "$tmp/a.h5" >"$tmp/cut.h5"
mpi 2 sh -c '"$1" fold -q "$2" "$3" -o "$4"; echo "rank $OMPI_COMM_WORLD_RANK status $?" >"$5.$OMPI_COMM_WORLD_RANK"' \
    sh "$tf" "$tmp/a.h5" "$tmp/cut.h5" "$tmp/bad" "$tmp/status" >/dev/null 2>"$tmp/err"
[ $? -ne 124 ] || fail "damaged member: the ranks hung"
for r in 0 1; do
    grep -q "status 1$" "$tmp/status.$r" || fail "damaged member: rank $r: $(cat "$tmp/status.$r")"
done
[ "$(grep -c 'error' "$tmp/err")" -eq 1 ] || fail "damaged member: want one error, got: $(cat "$tmp/err")"
grep -q 'cut.h5' "$tmp/err" || fail "damaged member not named: $(cat "$tmp/err")"
[ -z "$(ls -d "$tmp"/bad* 2>/dev/null)" ] || fail "damaged member: output left: $(ls -d "$tmp"/bad*)"
# ranks_fail NAME TRACE: `mpirun -np 2 tracefold fold -q TRACE -o
# $tmp/NAME`, "%r" in TRACE standing for each rank's number, ends with exit
# status 1 on both ranks; their messages in $tmp/err.
ranks_fail() {
    mpi 2 sh -c 'trace=$(printf %s "$2" | sed "s/%r/$OMPI_COMM_WORLD_RANK/g")
        "$1" fold -q "$trace" -o "$3"; echo "status $?" >"$3.status.$OMPI_COMM_WORLD_RANK"' \
        sh "$tf" "$2" "$tmp/$1" >/dev/null 2>"$tmp/err"
    [ $? -ne 124 ] || fail "$1: the ranks hung"
    for r in 0 1; do
        grep -q "status 1$" "$tmp/$1.status.$r" || fail "$1: rank $r: $(cat "$tmp/$1.status.$r")"
    done
}

# An error rank 0 finds before it needs the shares (an OUTDIR that exists):
# the other ranks stop reading and end with its status; one message, the
# directory untouched.
mkdir "$tmp/kept" && echo earlier >"$tmp/kept/fold.h5"
ranks_fail kept "$tmp/t64.h5"
[ "$(grep -c 'error' "$tmp/err")" -eq 1 ] && grep -q 'kept: exists (use --force' "$tmp/err" ||
    fail "existing OUTDIR: want one error naming it, got: $(cat "$tmp/err")"
[ "$(cat "$tmp/kept/fold.h5")" = earlier ] || fail "existing OUTDIR: its fold.h5 changed"

# Each rank reads the trace its own arguments name (a node-local copy, on
# a cluster): one that names another run of the same program (as many
# processes, iterations and counters, another seed) is rank 0's error, not
# a mix of two runs.
"$tf" synth -q -o "$tmp/run.0.h5" --iterations 20 --seed 1 || fail "synth run 0"
"$tf" synth -q -o "$tmp/run.1.h5" --iterations 20 --seed 2 || fail "synth run 1"
ranks_fail mixed "$tmp/run.%r.h5"
grep -q "rank 1 read another trace than rank 0" "$tmp/err" ||
    fail "another run: want rank 1 named, got: $(cat "$tmp/err")"
[ ! -e "$tmp/mixed" ] || fail "another run: output left in $tmp/mixed"
echo "ok"
