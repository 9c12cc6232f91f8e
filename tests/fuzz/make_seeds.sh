#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Regenerates the seed corpus in tests/fuzz/corpus/ from a build tree:
#   sh tests/fuzz/make_seeds.sh BUILDDIR
# HDF5 seeds are written by the project itself (the formats tests'
# fixture trace, a small synthetic trace, its fold, a Paraver import); the
# Paraver seeds are the small traces below and an export of the synthetic
# trace, packed as fuzz_prv takes them (FLAGS PRV NUL PCF NUL ROW); the
# configuration seeds are the documentation's examples.  Run it after a
# format change and commit what changed.
set -eu
[ $# -eq 1 ] || { echo "usage: make_seeds.sh BUILDDIR" >&2; exit 2; }
build=$(cd "$1" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
corpus="$src/tests/fuzz/corpus"
tf="$build/tracefold"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$corpus/trace" "$corpus/fold" "$corpus/prv" "$corpus/config"

# ---- HDF5 traces and fold.h5 ----------------------------------------------
"$build/tests/formats/write_fixture_trace" "$corpus/trace/fixture.h5"
# The same in format 1 (variable-length strings), which readers still open.
"$build/tests/formats/write_fixture_trace" --v1 "$corpus/trace/fixture-v1.h5"
"$tf" synth -q --processes 1 --threads 2 --iterations 6 --samples-per-iteration 4 \
    --counters 2 --memory-samples 3 \
    --seed 3 -o "$tmp/synth.h5"

"$tf" fold -q --grid 16 --bootstrap 4 "$tmp/synth.h5" -o "$tmp/fold"
cp "$tmp/fold/fold.h5" "$corpus/fold/synth.h5"

# ---- Paraver ----------------------------------------------------------------
# One thread of two with a state, user functions, an allocation and its free,
# a memory sample with counters, a communication and a communicator line.
cat > "$tmp/mem.prv" <<'EOF'
#Paraver (02/03/2024 at 11:12):100_ns:1(2):1:1(2:1),1
c:1:1:2:1:2
1:1:1:1:1:0:50:1
2:1:1:1:1:1:41999999:1:42000050:0:60000019:3
2:1:1:1:1:2:40000040:1:40000041:4096
2:1:1:1:1:3:40000040:0:40000043:65536
2:2:1:1:2:3:42000050:7
2:1:1:1:1:4:32000000:65600:32000002:4:32000006:120:30000000:2:30000100:2:42000050:100
3:1:1:1:1:5:5:2:1:1:2:6:6:64:7
2:1:1:1:1:6:40000040:2:40000042:65536
2:1:1:1:1:8:60000019:0:42000059:2
EOF
cat > "$tmp/mem.pcf" <<'EOF'
DEFAULT_OPTIONS

LEVEL               THREAD
UNITS               NANOSEC

STATES
0    Idle
1    Running

EVENT_TYPE
0 60000019 User function
VALUES
0 End
3 solver

EVENT_TYPE
0 42000050 PAPI_TOT_INS [Instr completed]
0 42000059 PAPI_TOT_CYC [Total cycles]

EVENT_TYPE
0 30000000 Sampled functions
VALUES
2 kernel

EVENT_TYPE
0 30000100 Sampled lines
VALUES
2 42 (kernel.c)
EOF
cat > "$tmp/mem.row" <<'EOF'
LEVEL CPU SIZE 2
1.node1
2.node1

LEVEL NODE SIZE 1
node1

LEVEL THREAD SIZE 2
THREAD 1.1.1
THREAD 1.1.2
EOF
"$tf" paraver -q "$tmp/synth.h5" -o "$tmp/synth.prv"

# pack NAME FLAGS PRV [PCF [ROW]]: flags 1 gzip the text, 2 raw .gz bytes,
# 4 lenient, 8 the whole import (tests/fuzz/fuzz_prv.c).
pack() {
    name=$1 flags=$2
    shift 2
    {
        printf "\\$(printf %03o "$flags")"
        cat "$1"
        shift
        for part in "$@"; do
            printf '\000'
            cat "$part"
        done
    } > "$corpus/prv/$name"
}
pack mem-read 0 "$tmp/mem.prv" "$tmp/mem.pcf" "$tmp/mem.row"
pack mem-import 8 "$tmp/mem.prv" "$tmp/mem.pcf" "$tmp/mem.row"
pack mem-import-gzip 9 "$tmp/mem.prv" "$tmp/mem.pcf"
pack mem-lenient-noextra 12 "$tmp/mem.prv"
gzip -9n < "$tmp/mem.prv" > "$tmp/mem.prv.gz"
pack mem-gz-bytes 2 "$tmp/mem.prv.gz" "$tmp/mem.pcf" "$tmp/mem.row"
head -c 2000 "$tmp/synth.prv" > "$tmp/synth-head.prv"
pack synth-read 0 "$tmp/synth-head.prv" "$tmp/synth.pcf" "$tmp/synth.row"
pack synth-import-lenient 12 "$tmp/synth-head.prv" "$tmp/synth.pcf" "$tmp/synth.row"

# The Paraver import as an HDF5 trace (its /paraver group).
"$tf" paraver -q --force --import "$tmp/mem.prv" -o "$corpus/trace/paraver-import.h5"

# ---- XML configuration --------------------------------------------------------
extract_xml() {
    sed -n '/^<tracefold>/,/^<\/tracefold>/p' "$1"
}
extract_xml "$src/docs/recorder.md" > "$corpus/config/recorder-md.xml"
extract_xml "$src/docs/commands/record.md" > "$corpus/config/record-md.xml"
printf '<?xml version="1.0"?>\n<tracefold>\n  <period>2ms</period>\n</tracefold>\n' \
    > "$corpus/config/period.xml"
# Entities, a comment, character data and attributes: libxml2's other paths.
cat > "$corpus/config/doctype.xml" <<'EOF'
<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE tracefold [ <!ENTITY p "1ms"> ]>
<tracefold version="1">
  <!-- a comment -->
  <period>&p;</period>
  <counters><![CDATA[cycles]]>,instructions</counters>
  <stats>yes</stats>
</tracefold>
EOF
# Every option, with its default value, from the recorder's own table.
"$tf" record --print-env | sed -n 's/^TRACEFOLD_\([A-Z_]*\)=\(.*\)$/\1 \2/p' |
    while read -r var value; do
        name=$(echo "$var" | tr 'A-Z_' 'a-z-')
        printf '  <%s>%s</%s>\n' "$name" "$value" "$name"
    done > "$tmp/options"
{ echo '<tracefold>'; cat "$tmp/options"; echo '</tracefold>'; } > "$corpus/config/all-options.xml"
ls -l "$corpus"/*
