#!/bin/sh
# What `tracefold record` loads (docs/manual.md, "Programs and files"): the
# tracefold binary needs the C library alone, and the process that writes
# the traces (tracefold-writer, which the command becomes once the program
# has started) holds HDF5 but none of the analysis libraries: no MPI (whose
# start-up can disturb, or be refused by, the job the program runs in), no
# cairo, pango, glib or fontconfig, and no libxml2 even when a configuration
# file was read.  The recorded program reads its parent's mappings once the
# writer has loaded HDF5.
. "$top_srcdir/tests/record/lib.sh"
heavy='libmpi|libopen-pal|libopen-rte|libcairo|libpango|libglib|libgobject|libfontconfig|libharfbuzz|libxml2|libicu|libstdc\+\+'
# The tracefold binary's libraries, as the dynamic loader resolves them.
LD_TRACE_LOADED_OBJECTS=1 "$tf" > "$tmp/front" 2>&1 || fail "listing tracefold's libraries"
others=$(grep -Ev 'linux-vdso|libc\.so|ld-linux' "$tmp/front")
[ -z "$others" ] || fail "tracefold loads more than the C library: $others"
# The writer, seen by the program it records.
cat > "$tmp/maps.sh" <<'SH'
for i in $(seq 200); do
    grep -q libhdf5 /proc/$PPID/maps && break
    sleep 0.05
done
cat /proc/$PPID/maps > "$1"
SH
writer_maps() {   # OUT RECORD-ARGS...
    out=$1
    shift
    "$tf" record -q "$@" -- sh "$tmp/maps.sh" "$out" || fail "record $*: exit status $?"
    grep -q libhdf5 "$out" || fail "record $*: the writer never loaded HDF5: $(cat "$out")"
    grep -q tracefold-writer "$out" || fail "record $*: the program's parent is not tracefold-writer"
    loaded=$(grep -Eo "[^/ ]*($heavy)[^/ ]*" "$out" | sort -u | tr '\n' ' ')
    [ -z "$loaded" ] || fail "record $*: the writer loaded $loaded"
}
writer_maps "$tmp/plain.maps" -o "$tmp/a.h5"
printf '<tracefold>\n  <period>2ms</period>\n</tracefold>\n' > "$tmp/c.xml"
writer_maps "$tmp/config.maps" -c "$tmp/c.xml" -o "$tmp/b.h5"
exit 0
