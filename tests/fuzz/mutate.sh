#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A bounded mutation run of each reader's corpus (about a minute in all),
# in the sanitizer build only, where a bad read is caught where it happens.
# TF_FUZZ_SECONDS (per reader, default 15) and TF_FUZZ_SEED (default 1)
# change it.  A reader with reproducers waiting in tests/fuzz/found/READER
# (defects known and not fixed yet) is left out, saying so: it would only
# find them again.
. "$top_srcdir/tests/fuzz/lib.sh"
if [ "$TF_SANITIZERS" != yes ]; then
    echo "SKIP: the mutation run is part of the sanitizer build's check"
    exit 77
fi
seconds=${TF_FUZZ_SECONDS:-15}
seed=${TF_FUZZ_SEED:-1}
findings="$fuzz_bin/findings"
mkdir -p "$findings" || exit 1
ran=0
status=0
for r in $readers; do
    if has_files "$fuzz_src/found/$r"; then
        echo "left out: $r: $(ls "$fuzz_src/found/$r" | wc -l) known reproducers in tests/fuzz/found/$r"
        continue
    fi
    ran=$((ran + 1))
    if ! "$fuzz_bin/fuzz_$r" -t "$seconds" -s "$seed" -o "$findings" -T 5 \
            "$fuzz_src/corpus/$r"; then
        echo "FAIL: $r: the input is saved in $findings (replay: $fuzz_bin/fuzz_$r FILE)"
        status=1
    fi
done
if [ $ran -eq 0 ]; then
    echo "SKIP: every reader has known reproducers waiting in tests/fuzz/found"
    exit 77
fi
exit $status
