#!/bin/sh
# What `tracefold record` loads (docs/manual.md, "Programs and files"): the
# tracefold binary needs the C library alone, and the process that writes
# the traces (tracefold-writer, which the command becomes once the program
# has started) holds HDF5 but none of the analysis libraries: no MPI (whose
# start-up can disturb, or be refused by, the job the program runs in), no
# cairo, pango, glib or fontconfig, and no libxml2 even when a configuration
# file was read.  In the program, the library loads capstone and libpfm4
# only when it needs them (docs/recorder.md, "Start and stop"): never when
# it does not record, capstone not with kernel capture, where the writer
# decodes, and libpfm4 not for the kernel's generic events (the default
# counters); libelf (and the zlib it brings) never: the library reads ELF
# symbol tables with <elf.h> alone, the static objects' reader is the
# writer's.
. "$top_srcdir/tests/record/lib.sh"
heavy='libmpi|libopen-pal|libopen-rte|libcairo|libpango|libglib|libgobject|libfontconfig|libharfbuzz|libxml2|libicu'
# The sanitizer build links its runtimes (with libstdc++, libm, libgcc_s)
# into every program.
runtime='linux-vdso|libc\.so|ld-linux'
if [ "${TF_SANITIZERS:-no}" = yes ]; then
    runtime="$runtime|libasan|libubsan|libstdc\+\+|libm\.so|libgcc_s"
else
    heavy="$heavy|libstdc\+\+"
fi
# The tracefold binary's libraries, as the dynamic loader resolves them.
LD_TRACE_LOADED_OBJECTS=1 "$tf" > "$tmp/front" 2>&1 || fail "listing tracefold's libraries"
others=$(grep -Ev "$runtime" "$tmp/front")
[ -z "$others" ] || fail "tracefold loads more than the C library: $others"
# The writer: the process `tracefold record` started as, once it is
# running (it holds the session's wake FIFO open: its libraries are all
# loaded), while the program (half a second of work) runs.  It holds HDF5,
# as a shared library or linked in from HDF5's static archive (configure).
writer_maps() {   # OUT RECORD-ARGS...
    out=$1
    shift
    "$tf" record -q "$@" -- "$apps/plain_app" 500 > /dev/null &
    rec=$!
    for i in $(seq 400); do
        ls -l "/proc/$rec/fd" 2>/dev/null | grep -q '/wake$' && break
        sleep 0.05
    done
    cp "/proc/$rec/maps" "$out" 2>/dev/null
    exe=$(readlink "/proc/$rec/exe")
    wait $rec || fail "record $*: exit status $?"
    grep -q H5Fcreate "$exe" || fail "record $*: $exe holds no HDF5"
    case $exe in
        */tracefold-writer) ;;
        *) fail "record $*: the process is $exe, not tracefold-writer" ;;
    esac
    loaded=$(grep -Eo "[^/ ]*($heavy)[^/ ]*" "$out" | sort -u | tr '\n' ' ')
    [ -z "$loaded" ] || fail "record $*: the writer loaded $loaded"
}
writer_maps "$tmp/plain.maps" -o "$tmp/a.h5"
printf '<tracefold>\n  <period>2ms</period>\n</tracefold>\n' > "$tmp/c.xml"
writer_maps "$tmp/config.maps" -c "$tmp/c.xml" -o "$tmp/b.h5"
lazy='libcapstone|libpfm|libelf|libz\.'
env LD_PRELOAD="$bd/record/.libs/libtracefold.so" TRACEFOLD_AUTOSTART=no \
    cat /proc/self/maps > "$tmp/off.maps" || fail "library preloaded, off: exit status $?"
grep -q libtracefold "$tmp/off.maps" || fail "library preloaded, off: not loaded"
loaded=$(grep -Eo "[^/ ]*($lazy)[^/ ]*" "$tmp/off.maps" | sort -u | tr '\n' ' ')
[ -z "$loaded" ] || fail "library preloaded, off: loaded $loaded"
"$tf" record -q --capture kernel -o "$tmp/k.h5" -- cat /proc/self/maps > "$tmp/rec.maps" ||
    fail "record --capture kernel: exit status $?"
grep -q libtracefold "$tmp/rec.maps" || fail "record --capture kernel: library not loaded"
! grep -q libcapstone "$tmp/rec.maps" || fail "record --capture kernel: the program loaded capstone"
! grep -Eq 'libelf|libz\.' "$tmp/rec.maps" || fail "record: the program loaded libelf or zlib"
# The default counters (and their software fallback) are the kernel's
# generic events, encoded without libpfm4; a name only libpfm4 knows still
# goes through it and is recorded under the name given.
! grep -q libpfm "$tmp/rec.maps" || fail "record: the program loaded libpfm4 for generic counters"
"$tf" record -q --counters PERF_COUNT_SW_TASK_CLOCK -o "$tmp/p.h5" -- cat /proc/self/maps \
    > "$tmp/pfm.maps" || fail "record --counters PERF_COUNT_SW_TASK_CLOCK: exit status $?"
grep -q libpfm "$tmp/pfm.maps" || fail "record --counters PERF_COUNT_SW_TASK_CLOCK: no libpfm4"
"$tf" info "$tmp/p.h5" | grep -q 'counters: 1 (PERF_COUNT_SW_TASK_CLOCK)' ||
    fail "record --counters PERF_COUNT_SW_TASK_CLOCK: counter not recorded"
exit 0
