#!/bin/sh
# The reader API as a user gets it (docs/api.md): `make install` puts
# <tracefold/read.h>, libtracefold-read and tracefold-read.pc in place;
# examples/read_trace.c builds with `pkg-config --cflags --libs
# tracefold-read` against the staged tree, and what it reads from bundled
# traces, and from a Paraver trace it converts, is what `tracefold info`
# says of them; from a fold result, what
# `tracefold fold` wrote in instances.csv.  Errors come back as values
# naming the file.
set -u
bd=${top_builddir:?run by make check}
src=${top_srcdir:?}
tf=${TRACEFOLD:?}
command -v pkg-config >/dev/null || { echo "no pkg-config"; exit 77; }
command -v python3 >/dev/null || { echo "no python3"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tf-read-example.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

prefix=$(sed -n 's/^prefix = //p' "$bd/Makefile")
make -s -C "$bd" install DESTDIR="$tmp/root" >"$tmp/install.log" 2>&1 ||
    { cat "$tmp/install.log"; fail "make install"; }
root=$tmp/root$prefix
for f in include/tracefold/read.h lib/pkgconfig/tracefold-read.pc share/man/man3/tracefold-read.3; do
    [ -f "$root/$f" ] || fail "make install did not install $f"
done
# The staged tree as a sysroot: pkg-config puts it in front of the -I and
# -L paths; the rpath names the final prefix, so the run below says where
# the staged library is.
PKG_CONFIG_PATH=$root/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$tmp/root
export PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR
flags=$(pkg-config --cflags --libs tracefold-read) || fail "pkg-config tracefold-read"
# shellcheck disable=SC2086
${CC:-cc} -std=c17 -Wall -Wextra -Werror "$src/examples/read_trace.c" $flags -o "$tmp/read_trace" ||
    fail "cc read_trace.c \$(pkg-config --cflags --libs tracefold-read)"
run() { LD_LIBRARY_PATH=$root/lib "$tmp/read_trace" "$@"; }

# Every number read_trace prints of a trace, against `tracefold info --json`.
compare_info() {   # TRACE
    run "$1" > "$tmp/read.txt" 2>"$tmp/read.err" || { cat "$tmp/read.err"; fail "read_trace $1"; }
    "$tf" info -q --json "$1" > "$tmp/info.json" || fail "tracefold info $1"
    python3 - "$tmp/read.txt" "$tmp/info.json" <<'PY' || fail "read_trace $1 differs from tracefold info"
import json, sys
lines = [l.rstrip("\n") for l in open(sys.argv[1])]
info = json.load(open(sys.argv[2]))
def fields(prefix):
    return [l[len(prefix):].split(" ") for l in lines if l.startswith(prefix)]
bad = []
def same(what, got, want):
    if got != want:
        bad.append("%s: read_trace %r, tracefold info %r" % (what, got, want))
same("complete", fields("complete ")[0][0] == "yes", info["complete"])
procs = fields("process ")
same("processes", len(procs), len(info["processes"]))
for p, (f, ip) in enumerate(zip(procs, info["processes"])):
    same("process %d pid" % p, int(f[2]), ip["pid"])
    same("process %d rank" % p, int(f[4]), ip["rank"])
    names = [l.split(" ", 3)[3] for l in lines if l.startswith("counter %d " % p)]
    same("process %d counters" % p, names, ip["counters"])
    threads = [t for t in fields("thread ") if int(t[0]) == p]
    same("process %d threads" % p, [(int(t[3]), int(t[5]), int(t[7])) for t in threads],
         [(t["tid"], t["events"], t["samples"]) for t in ip["threads"]])
    objs = {}
    for l in lines:
        if l.startswith("object %d " % p):
            head, name = l.split(" name ", 1)
            h = head.split(" ")
            objs[int(h[3])] = (int(h[5]), int(h[7]), name)
    for o in ip["objects"]:
        same("process %d object %d" % (p, o["id"]), objs.get(o["id"]),
             (o["start"], o["size"], o["label"]))
regions = []
for l in lines:
    if l.startswith("region "):
        name, rest = l[len("region "):].split(" instances ", 1)
        v = rest.split(" ")
        regions.append({"name": name, "instances": int(v[0]), "incomplete": int(v[2]),
                        "total_ns": int(v[4]), "min_ns": int(v[6]), "median_ns": int(v[8]),
                        "max_ns": int(v[10])})
        same("region %s: instances listed" % name, int(v[12]), int(v[0]) + int(v[2]))
        same("region %s: complete ones" % name, int(v[14]), int(v[0]))
same("regions", regions, info["regions"])
for kind, n in fields("samples "):
    same("samples " + kind, int(n), info["samples"][kind])
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PY
}
for t in fixture.h5 paraver-import.h5; do
    compare_info "$src/tests/fuzz/corpus/trace/$t"
done
# A Paraver trace, converted on opening (tests/data/extrae/README.md)
compare_info "$src/tests/data/extrae/444.namd.prv.gz"

# A fold result, against the instances.csv written with it.
trace=$src/tests/fuzz/corpus/trace/fixture.h5
"$tf" fold -q "$trace" -o "$tmp/fold" 2>"$tmp/fold.err" || { cat "$tmp/fold.err"; fail "tracefold fold"; }
run "$trace" "$tmp/fold/fold.h5" > "$tmp/read.txt" || fail "read_trace TRACE fold.h5"
python3 - "$tmp/read.txt" "$tmp/fold/instances.csv" <<'PY' || fail "read_trace's fold result differs from instances.csv"
import csv, sys
lines = [l.split(" ") for l in open(sys.argv[1]).read().splitlines()]
rows = list(csv.DictReader(open(sys.argv[2])))
bad = []
for f in (l for l in lines if l[0] == "fold-region"):
    mine = [r for r in rows if r["region"] == f[1]]
    used = [r for r in mine if r["status"] == "used"]
    got = dict(zip(f[2::2], map(int, f[3::2])))
    want = {"instances": len(mine), "used": len(used),
            "excluded": sum(r["status"] == "excluded" for r in mine),
            "incomplete": sum(r["status"] == "incomplete" for r in mine),
            "groups": len({r["group"] for r in used})}
    if got != want:
        bad.append("region %s: read_trace %r, instances.csv %r" % (f[1], got, want))
    points = sum(int(l[6]) for l in lines if l[0] == "fold-group")
    if points != sum(int(r["samples"]) for r in used):
        bad.append("region %s: %d folded points, the used instances' samples %d"
                   % (f[1], points, sum(int(r["samples"]) for r in used)))
if not any(l[0] == "fold-curve" and l[-1] == "1.000" for l in lines):
    bad.append("no counter's fitted curve ends at 1")
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PY

# Errors as values: a missing file, and a trace given as a fold result.
run "$tmp/missing.h5" >/dev/null 2>"$tmp/err" && fail "read_trace on a missing file succeeded"
grep -q "missing.h5" "$tmp/err" || fail "the error does not name the file: $(cat "$tmp/err")"
run "$trace" "$trace" >/dev/null 2>"$tmp/err" && fail "a trace opened as a fold result"
grep -q "fixture.h5: .*fold" "$tmp/err" || fail "the error does not say why: $(cat "$tmp/err")"
exit 0
