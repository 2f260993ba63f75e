#!/usr/bin/env bash
# Records every user-visible output of ksweep on fixed inputs, so that a refactoring can prove
# it changed nothing: record before, record after, compare.
#
#   tests/golden/outputs.sh record DIR [KSWEEP]   # KSWEEP defaults to build/src/cli/ksweep
#   tests/golden/outputs.sh compare DIR_A DIR_B   # exit 1 and a diff when they differ
#
# Inputs: our own fixtures, and Debian's 6.1 tree from the setup cache when it is there (scan
# JSON, fix diff, series mails, check text/terse/JSON/SARIF). Series run with a fixed date
# (SOURCE_DATE_EPOCH), identity and branch into a private cache, so two runs are comparable.
set -uo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)

record() {
    local out=$1 ksweep=${2:-$here/build/src/cli/ksweep}
    mkdir -p "$out"
    out=$(cd "$out" && pwd)
    ksweep=$(cd "$(dirname "$ksweep")" && pwd)/$(basename "$ksweep")
    local work
    work=$(mktemp -d "${TMPDIR:-/tmp}/ksweep-golden-XXXXXX")
    trap 'rm -rf "$work"' RETURN
    export SOURCE_DATE_EPOCH=1700000000 KSWEEP_CACHE=$work/cache
    local sign="Golden Tester <golden@example.org>"

    # run NAME CMD...: stdout, stderr with the work dir masked, and the exit status.
    run() {
        local name=$1
        shift
        "$@" >"$out/$name.out" 2>"$out/$name.err"
        echo $? >"$out/$name.status"
        sed -i "s|$work|WORK|g; s|$here|SRC|g" "$out/$name.out" "$out/$name.err"
        # Timings are not outputs.
        sed -i -E 's/in [0-9]+(\.[0-9]+)? ?(ms|s)\b/in T/g' "$out/$name.err"
    }

    local fx=$here/tests/fixtures
    run scan-fixtures-text "$ksweep" scan "$fx/scan"
    run scan-fixtures-json "$ksweep" scan --format json "$fx/scan"
    run scan-fixtures-lexical "$ksweep" scan --lexical-only --format json "$fx/scan"
    run fix-fixtures "$ksweep" fix "$fx/scan"
    for p in "$fx"/check/patches/*; do
        local b
        b=$(basename "$p")
        run "check-$b-text" "$ksweep" check --tree "$fx/check/tree" "$p"
        run "check-$b-terse" "$ksweep" check --tree "$fx/check/tree" --terse --showfile --show-types "$p"
        run "check-$b-json" "$ksweep" check --tree "$fx/check/tree" --format json "$p"
        run "check-$b-sarif" "$ksweep" check --tree "$fx/check/tree" --format sarif "$p"
    done

    local env=${KSWEEP_CACHE_ENV:-$HOME/.cache/ksweep/env}
    if [ -f "$env" ]; then
        # shellcheck disable=SC1090
        local KSWEEP_TREE_6_1
        KSWEEP_TREE_6_1=$(sed -n 's/^KSWEEP_TREE_6_1=//p' "$env")
        local t=$KSWEEP_TREE_6_1
        run scan-6.1-tpm-json "$ksweep" scan --format json "$t" drivers/char/tpm
        run scan-6.1-tpm-text "$ksweep" scan "$t" drivers/char/tpm
        run scan-6.1-iio-json "$ksweep" scan --format json "$t" drivers/iio
        run fix-6.1-tpm "$ksweep" fix "$t" drivers/char/tpm
        run fix-6.1-input "$ksweep" fix "$t" drivers/input
        run series-6.1-tpm "$ksweep" series -o "$work/series" --branch golden --signoff "$sign" \
            --cache "$work/cache" "$t" drivers/char/tpm
        mkdir -p "$out/series-6.1-tpm"
        cp "$work"/series/*.patch "$out/series-6.1-tpm/" 2>/dev/null
        for p in "$work"/series/*.patch; do
            [ -f "$p" ] || continue
            local b
            b=$(basename "$p")
            run "check-series-$b-text" "$ksweep" check --tree "$t" "$p"
            run "check-series-$b-json" "$ksweep" check --tree "$t" --format json "$p"
            run "check-series-$b-sarif" "$ksweep" check --tree "$t" --format sarif "$p"
        done
    else
        echo "outputs.sh: no $env (run scripts/setup.sh): only the fixtures were recorded" >&2
    fi
    echo "recorded $(ls "$out" | wc -l) outputs in $out" >&2
}

case "${1:-}" in
record) record "${2:?record DIR [KSWEEP]}" "${3:-}" ;;
compare)
    diff -r "${2:?compare A B}" "${3:?compare A B}" && echo "identical: $(ls "$2" | wc -l) outputs" ;;
*)
    echo "usage: $0 record DIR [KSWEEP] | compare DIR_A DIR_B" >&2
    exit 2
    ;;
esac
