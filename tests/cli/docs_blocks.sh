#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Every shell (sh, shell, bash) and Python block of README.md and docs/
# runs as written, with the built tracefold first on PATH (issue 35).  The
# blocks of one page run in order in one scratch folder, so a page reads as
# a session.  An HTML comment on the line before a block, invisible in the
# rendered page, says what the test must know (docs/manual.md, "Examples
# in these pages"):
#   <!-- docs-test: skip (REASON) -->       not run, and why
#   <!-- docs-test: needs INPUT... -->      inputs prepared first (below)
#   <!-- docs-test: file NAME -->           any block saved as NAME for later blocks
# Every other fenced block names its language (text for output and
# synopses), so no command hides in an untagged block.  A block with no
# marker runs.  Inputs a block may need:
#   run.h5         a synthetic trace (tracefold synth -o run.h5)
#   run.fold       its fold (tracefold fold run.h5 -o run.fold)
#   timeline.gp    the gnuplot scripts of run.h5's report (render -b
#                  gnuplot), in the page's folder
#   444.namd.prv   the Extrae trace of tests/data/extrae/ (.prv, .pcf, .row)
#   build          the build tree, as build/ (where scripts/build builds)
#   st.%r.h5       an MPI run, a trace per rank: examples/stencil_mpi, 2 ranks
#   run/           the same in the folder run/ (run/0.h5, run/1.h5)
#   h5py           a python3 that imports h5py, first on PATH (else the
#                  block is skipped); every Python block needs it
#   installed      tracefold staged by make install, first on PATH, its
#                  pkg-config file found (PREFIX names the prefix)
#   gfortran       the Fortran compiler configure found (else skipped)
#   mpirun         Open MPI's mpirun (else skipped)
#   unsanitized    a build without the sanitizers (else skipped: Open MPI's
#                  ranks of an instrumented program abort under them, as
#                  mpirun does not hand the sanitizers' options on)
#   NAME           the block another page saves as NAME ("file NAME")
set -u
src=${top_srcdir:?run by make check}
bd=${top_builddir:?run by make check}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tf-docs-blocks.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bin"
# The built command, first on PATH under its own name.
printf '#!/bin/sh\nexec %s "$@"\n' "${TRACEFOLD:?}" > "$tmp/bin/tracefold"
chmod +x "$tmp/bin/tracefold"
PATH=$tmp/bin:$PATH
unset LD_LIBRARY_PATH
export PATH
ran=0 skipped=0 saved=0 fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

py=
for p in python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import h5py' 2>/dev/null; then
        py=$(command -v "$p"); break
    fi
done

# blocks PAGE OUTDIR: writes each fenced block of PAGE to OUTDIR/N and
# prints "N LINE LANGUAGE MARKER" per block (tab-separated), where LINE is
# the fence's line and MARKER the docs-test comment before it, if any.
blocks() {
    awk -v out="$2" '
        function flush_marker() { marker = "" }
        /^```/ {
            if (inblock) { inblock = 0; close(file); next }
            inblock = 1; n++; file = out "/" n
            lang = substr($0, 4); sub(/[ \t].*/, "", lang)
            printf "%d\t%d\t%s\t%s\n", n, FNR, lang, marker
            printf "" > file
            next
        }
        inblock { print > file; next }
        /^<!-- docs-test: .* -->$/ { marker = $0; sub(/^<!-- docs-test: /, "", marker)
                                     sub(/ -->$/, "", marker); next }
        { marker = "" }' "$1"
}

# Staged once: make install under DESTDIR, found through --define-prefix
# (the prefix pkg-config reports is where the .pc file lies, as for a real
# install there).
staged=
stage_install() {
    [ -z "$staged" ] || return 0
    prefix=$(sed -n 's/^prefix = //p' "$bd/Makefile")
    make -s -C "$bd" install DESTDIR="$tmp/root" >"$tmp/install.log" 2>&1 ||
        { cat "$tmp/install.log"; return 1; }
    staged=$tmp/root$prefix
    mkdir "$tmp/pcbin"
    printf '#!/bin/sh\nexec %s --define-prefix "$@"\n' "$(command -v pkg-config)" > "$tmp/pcbin/pkg-config"
    chmod +x "$tmp/pcbin/pkg-config"
}

# prepare INPUT: makes INPUT in the current folder (a page's), or prints
# why the block cannot run here (the block is then skipped) and returns 1,
# or returns 2 on a real failure.  Settings go to ./env, which the block
# sources.
prepare() {
    case $1 in
    run.h5) [ -f run.h5 ] || tracefold synth -q -o run.h5 || return 2 ;;
    run.fold)
        prepare run.h5 || return
        [ -d run.fold ] || tracefold fold -q run.h5 -o run.fold || return 2 ;;
    timeline.gp)   # a gnuplot folder, the block run in it as the page says
        command -v gnuplot >/dev/null 2>&1 || { echo "no gnuplot (Debian package gnuplot-nox)"; return 1; }
        [ -f timeline.gp ] && return 0
        prepare run.h5 || return
        # Out of the way of the page's own run.fold.
        tracefold fold -q run.h5 -o .gnuplot.fold &&
            tracefold render -q .gnuplot.fold/fold.h5 -b gnuplot -o .gnuplot && cp .gnuplot/* . ||
            return 2 ;;
    444.namd.prv)
        [ -f 444.namd.prv ] && return 0
        cp "$src/tests/data/extrae/444.namd.pcf" "$src/tests/data/extrae/444.namd.row" . &&
            gzip -dc "$src/tests/data/extrae/444.namd.prv.gz" > 444.namd.prv || return 2 ;;
    build) [ -e build ] || ln -s "$bd" build ;;
    st.%r.h5 | run/)
        prepare mpirun || return
        [ "$1" = run/ ] && pattern=run/%r.h5 || pattern=$1
        ls ${pattern%\%r.h5}*.h5 >/dev/null 2>&1 && return 0
        mkdir -p "$(dirname "$pattern")"
        (. ./env && mpirun -np 2 tracefold record -q -o "$pattern" -- \
            "$bd/examples/stencil_mpi" -i 50 >/dev/null 2>&1) || return 2 ;;
    h5py)
        [ -n "$py" ] || { echo "no python3 imports h5py (Debian package python3-h5py)"; return 1; }
        echo "PATH=$tmp/py:\$PATH" >> env
        [ -e "$tmp/py/python3" ] || { mkdir -p "$tmp/py" && ln -s "$py" "$tmp/py/python3"; } ;;
    installed)
        stage_install || return 2
        echo "PREFIX=$staged; PATH=$tmp/pcbin:$staged/bin:\$PATH" >> env
        echo "PKG_CONFIG_PATH=$staged/lib/pkgconfig; TRACEFOLD_PROGRAM=$staged/bin/tracefold" >> env
        echo "export PREFIX PATH PKG_CONFIG_PATH TRACEFOLD_PROGRAM" >> env ;;
    gfortran)
        grep -q '^FC = .' "$bd/Makefile" ||
            { echo "configure found no Fortran compiler"; return 1; } ;;
    mpirun)
        [ -x "$bd/examples/stencil_mpi" ] && command -v mpirun >/dev/null 2>&1 ||
            { echo "built without MPI, or no mpirun"; return 1; }
        # CI runs as root on few cores; Open MPI refuses both unless told.
        echo "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1" >> env
        echo "export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM OMPI_MCA_rmaps_base_oversubscribe" >> env
        # Open MPI's plugins keep their allocations to the end (tests/mpi/lib.sh).
        [ "${TF_SANITIZERS:-no}" != yes ] ||
            echo "ASAN_OPTIONS=\${ASAN_OPTIONS:+\$ASAN_OPTIONS:}detect_leaks=0; export ASAN_OPTIONS" >> env ;;
    unsanitized)
        [ "${TF_SANITIZERS:-no}" != yes ] ||
            { echo "the sanitizer build: Open MPI's ranks abort under AddressSanitizer"; return 1; } ;;
    *)  # a block another page saves with "file NAME"
        [ -f "$1" ] && return 0
        for other in $pages; do
            grep -qx "<!-- docs-test: file $1 -->" "$src/$other" || continue
            awk -v marker="<!-- docs-test: file $1 -->" '$0 == marker { getline; take = 1; next }
                 take && /^```/ { exit }
                 take' "$src/$other" > "$1"
            return 0
        done
        echo "unknown input '$1'"; return 2 ;;
    esac
}

# run_block PAGE N LINE LANGUAGE MARKER: in the page's folder.
run_block() {
    page=$1 n=$2 line=$3 lang=$4 marker=$5
    where="$page:$line"
    case $marker in
    'skip ('*')')
        echo "skip $where: ${marker#skip }"; skipped=$((skipped + 1)); return ;;
    skip*) fail "$where: a skip says why: skip (REASON)"; return ;;
    'file '*)
        name=${marker#file }
        case $name in */* | '') fail "$where: file NAME: a plain file name"; return ;; esac
        cp "$blockdir/$n" "./$name"; saved=$((saved + 1)); return ;;
    '' | 'needs '*) ;;
    *) fail "$where: unknown docs-test marker '$marker'"; return ;;
    esac
    case $lang in
    sh | shell | bash) run=sh ;;
    python) run=python3 ;;
    '') fail "$where: a block without a language (text for output and synopses)"; return ;;
    *) [ -z "$marker" ] || fail "$where: a $lang block is not run, its marker means nothing"
       return ;;
    esac
    : > env
    inputs=${marker#needs }
    # Python blocks read traces with h5py (skipped where it does not import).
    [ "$run" = sh ] || inputs="h5py $inputs"
    if [ -n "$inputs" ]; then
        for input in $inputs; do
            prepare "$input" </dev/null >"$tmp/why" 2>&1
            case $? in
            0) ;;
            1) echo "skip $where: $(cat "$tmp/why")"; skipped=$((skipped + 1)); return ;;
            *) fail "$where: preparing $input: $(cat "$tmp/why")"; return ;;
            esac
        done
    fi
    [ "$run" = sh ] && flags=-e || flags=
    start=$(date +%s)
    if (. ./env && timeout 120 $run $flags "$blockdir/$n" </dev/null) >"$tmp/out" 2>&1; then
        ran=$((ran + 1))
        echo "ran $where ($(($(date +%s) - start)) s)"
    else
        fail "$where: the $lang block exits $?:"
        sed 's/^/    /' "$blockdir/$n"
        echo "  its output (last 20 lines):"
        tail -20 "$tmp/out" | sed 's/^/    /'
    fi
}

cd "$src" || exit 1
pages=$(ls README.md docs/*.md docs/*/*.md)
for page in $pages; do
    dir=$tmp/pages/$(echo "$page" | tr / _)
    blockdir=$dir.blocks
    mkdir -p "$dir" "$blockdir"
    blocks "$src/$page" "$blockdir" > "$dir.list"
    tab=$(printf '\t')
    (cd "$dir" &&
     while IFS=$tab read -r n line lang marker; do
         run_block "$page" "$n" "$line" "$lang" "$marker"
         echo "$n" > "$dir.last"
     done < "$dir.list"
     echo "$ran $skipped $saved $fails" > "$dir.counts")
    read -r r s v f < "$dir.counts"
    ran=$r skipped=$s saved=$v fails=$f
    # Every block was seen (a command reading the list would end the loop).
    [ "$(cat "$dir.last" 2>/dev/null || echo 0)" = "$(wc -l < "$dir.list" | tr -d ' ')" ] ||
        fail "$page: blocks after number $(cat "$dir.last" 2>/dev/null) were not looked at"
done
echo "docs blocks: $ran ran, $skipped skipped, $saved saved as files, $fails failed"
[ "$fails" -eq 0 ]
