#!/bin/sh
# make test-lava: the historical Nuvoton patch (the demo's tree: 6.1's tpm_i2c_nuvoton.c in its
# pre-v4.12 msleep form) validated twice — L4 as LAVA jobs run by lava-run on this machine and
# read back, and L4 booted locally — and the two reports compared: both pass, both PCR-checked,
# both find the patched driver faster, and their median ratios agree within 0.15.
# Needs lava-dispatcher (apt-get install lava-dispatcher) and `make demo` run once (its tree).
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
ksweep=${KSWEEP:-$here/build/src/cli/ksweep}
# The demo's tree, keyed by the source's version (ksweep demo makes it; the newest one).
tree=$(ls -dt "${KSWEEP_CACHE:-$HOME/.cache/ksweep}"/demo/linux-source-6.1-nuvoton-2017-* 2>/dev/null | head -1)
n=${LAVA_EXTENDS:-200} boots=${LAVA_BOOTS:-2}
[ -n "$tree" ] && [ -f "$tree/drivers/char/tpm/tpm_i2c_nuvoton.c" ] ||
    { echo "test-lava: no demo tree in ${KSWEEP_CACHE:-$HOME/.cache/ksweep}/demo: run make demo once" >&2; exit 1; }
command -v lava-run >/dev/null || { echo "no lava-run: apt-get install lava-dispatcher" >&2; exit 1; }
work=$(mktemp -d /tmp/ksweep-lava-e2e.XXXXXX)
trap 'rm -rf "$work"' EXIT

"$ksweep" series --signoff='T <t@example.org>' -o "$work/sweep" "$tree" \
    drivers/char/tpm/tpm_i2c_nuvoton.c >/dev/null
# series writes one folder per maintainer tree (OUT/<series>/): the driver's is the only one.
set -- "$work"/sweep/*/
[ $# -eq 1 ] && [ -d "$1" ] || { echo "test-lava: expected one series in $work/sweep, found: $*" >&2; exit 1; }
series=${1%/}
common="--series $series --levels 1,4 -n $n --boots $boots"
# Each step's progress goes to a log, shown when the step fails.
step() {
    log=$work/$1.log
    shift
    "$@" >"$log" 2>&1 || { cat "$log" >&2; echo "test-lava: failed: $*" >&2; exit 1; }
    grep -E '^(PASSED|FAILED|ksweep-series)' "$log" || true
}
step jobs "$ksweep" validate $common --lava "$work/lava" -o "$work/jobs" "$tree"
step lava-run "$here/lava/run-local.sh" "$work/lava" "$work/results"
step lava-results "$ksweep" validate $common --lava-results "$work/results" -o "$work/report-lava" "$tree"
step local "$ksweep" validate $common -o "$work/report-local" "$tree"

/usr/bin/python3 - "$work/report-lava/report.json" "$work/report-local/report.json" <<'PY'
import json, sys
runs = {}
for name, path in zip(("lava", "local"), sys.argv[1:]):
    report = json.load(open(path))
    patch = report["patches"][0]
    assert patch["levels"]["L4"]["status"] == "passed", (name, patch["levels"]["L4"])
    device = patch["devices"][0]
    assert all(b["pcr_passed"] for b in device["boots"]), name
    runs[name] = device
    print(f"{name}: median ratio {device['median_ratio']:.2f} "
          f"({device['median_ratio_low']:.2f}-{device['median_ratio_high']:.2f}), baseline "
          f"{device['variants']['baseline']['median_us']:.0f} us, patched {device['variants']['patched']['median_us']:.0f} us")
lava, local = runs["lava"]["median_ratio"], runs["local"]["median_ratio"]
assert lava < 0.6 and local < 0.6, "the patched driver is not faster in both"
assert abs(lava - local) < 0.15, f"the ratios disagree: LAVA {lava:.2f}, local {local:.2f}"
print("test-lava: LAVA and local L4 agree")
PY
