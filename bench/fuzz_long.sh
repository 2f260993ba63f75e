#!/usr/bin/env bash
# A fuzz target of tests/fuzz run far longer than `make test` runs it (20 s): how many inputs it
# ran, the coverage it reached, and what it found. Findings (crash-*, leak-*, timeout-*,
# oom-*) go to BUILD/tests/fuzz/TARGET_findings/; each one becomes a regression test and a
# seed (tests/fuzz/seeds_*). The corpus grows in BUILD/tests/fuzz/TARGET_corpus, which the
# short runs of `make test` start from too.
#
# usage: bench/fuzz_long.sh BUILD_DIR [TARGET] [SECONDS]
#        TARGET: mail_reader_fuzz (default), virtio_i2c_fuzz or vhost_user_fuzz; SECONDS: 1800.
set -euo pipefail

if [ $# -lt 1 ]; then
    echo "usage: $0 BUILD_DIR [TARGET] [SECONDS]" >&2
    exit 2
fi
build=$(realpath "$1")
target=${2:-mail_reader_fuzz}
seconds=${3:-1800}
here=$(cd "$(dirname "$0")/.." && pwd)
binary=$build/tests/fuzz/$target
case $target in
    mail_reader_fuzz)
        seeds=("$here/tests/fuzz/seeds_mail" "$here/tests/fixtures/check/patches"
               "$here/tests/fixtures/check/series" "$here/tests/fixtures/mail/add_literal"
               "$here/tests/fixtures/mail/add_header_macro") ;;
    virtio_i2c_fuzz) seeds=("$here/tests/fuzz/seeds") ;;
    vhost_user_fuzz) seeds=("$here/tests/fuzz/seeds_vhost") ;;
    *) echo "$0: unknown target $target" >&2; exit 2 ;;
esac
if [ ! -x "$binary" ]; then
    echo "$0: no $binary: build it first (cmake --build $1 --target ${target}_build)" >&2
    exit 2
fi
corpus=$build/tests/fuzz/${target}_corpus
findings=$build/tests/fuzz/${target}_findings
mkdir -p "$corpus" "$findings"
log=$findings/run-$(date -u +%Y%m%d-%H%M%S).log

echo "fuzz_long: $target for $seconds s (load average $(cut -d' ' -f1-3 /proc/loadavg))" >&2
status=0
"$binary" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
    -artifact_prefix="$findings/" "$corpus" "${seeds[@]}" > "$log" 2>&1 || status=$?

runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
found=$(find "$findings" -maxdepth 1 -type f ! -name '*.log' | wc -l)
echo "fuzz_long: $target: ${runs:-?} inputs in $seconds s, ${cov:-cov: ?}, corpus $(ls "$corpus" | wc -l) files, $found findings in $findings (log $log), exit $status"
exit "$status"
