#!/usr/bin/env bash
# The device files' L4 matrix: every device of devices/*.yaml, with its patch from a real sweep
# of the tree (`ksweep series` on the driver's file), through L1 and L4 at each HZ, on each
# tree; then the negative cases on 6.1: the naive ak8974 and srf08 patches (tests/negative/)
# against their slow parts, where the shipped driver must pass and the patch fail naming the
# driver's error. One line per (tree, device, HZ) with the medians, the ratio and the value
# check; the reports stay in WORK.
#
# usage: bench/devices.sh [KSWEEP_BINARY]
#   TREES="6.1 6.12"   the trees (KSWEEP_TREE_6_1, KSWEEP_TREE_6_12 from the setup's env)
#   HZ=250,1000        the guest kernels' HZ (each its own build of each tree, cached)
#   DEVICES="..."      the device files' drivers (default: every file of devices/)
#   EXTENDS=N          operations per boot (default 30)    BOOTS=N  boots per variant (2)
#   NEGATIVE=0         skip the negative cases             WORK=DIR keep everything in DIR
# Cost: the guest kernels (minutes each, cold; cached per tree, config and HZ), then about a
# minute per (device, HZ) at EXTENDS=30, BOOTS=2 on 2 cores.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
ksweep=${1:-$here/build/src/cli/ksweep}
cache=${KSWEEP_CACHE:-$HOME/.cache/ksweep}
[ -x "$ksweep" ] || { echo "no ksweep binary at $ksweep (make build first)" >&2; exit 2; }
# shellcheck disable=SC1091
. "$cache/env"
trees=${TREES:-6.1 6.12}
hz=${HZ:-250,1000}
extends=${EXTENDS:-30}
boots=${BOOTS:-2}
devices=${DEVICES:-$(sed -n 's/^driver: //p' "$here"/devices/*.yaml | tr '\n' ' ')}
work=${WORK:-$(mktemp -d)}; mkdir -p "$work"
[ -n "${WORK:-}" ] || trap 'rm -rf "$work"' EXIT

# The driver's source of a device file: its directory and first module, as <dir>/<module>.c.
source_of() {
    local file=$here/devices/$1.yaml
    local dir module
    dir=$(sed -n 's/^ *directory: //p' "$file")
    module=$(sed -n 's/^ *load: \[\([^],]*\).*/\1/p' "$file")
    echo "$dir/$module.c"
}

# One line of a validate report: L4 per HZ with the medians and the ratio (python3: the
# report is JSON, docs/report-json.md).
summarize() { # REPORT_JSON TREE DEVICE
    /usr/bin/python3 - "$@" <<'PY'
import json, sys
report, tree, device = sys.argv[1:]
r = json.load(open(report))
for p in r.get("patches", []):
    l4 = p["levels"]["L4"]
    for d in p.get("devices", []):
        v = d["variants"]
        print(f"{tree:5} {device:12} HZ={d['hz']:<5} L4 {l4['status']:6} "
              f"baseline {v['baseline']['median_us']:9.0f} us  patched {v['patched']['median_us']:9.0f} us"
              f"  ratio {d['median_ratio']:.2f}x  ({d['extends']} x {d['command']})")
    if not p.get("devices"):
        print(f"{tree:5} {device:12} L4 {l4['status']}: {l4['message']}")
for e in r.get("errors", []):
    print(f"{tree:5} {device:12} error: {e}")
PY
}

start=$(date +%s)
echo "devices: $devices; trees: $trees; HZ $hz; $boots+$boots boots of $extends operations" >&2
echo "host: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for tree_version in $trees; do
    var=KSWEEP_TREE_${tree_version//./_}
    tree=${!var:?$var is not set: run scripts/setup.sh}
    files=()
    for device in $devices; do files+=("$(source_of "$device")"); done
    sweep=$work/$tree_version/sweep
    "$ksweep" series -o "$sweep" "$tree" "${files[@]}" >"$work/$tree_version.series.log" 2>&1
    for device in $devices; do
        file=$(source_of "$device")
        series=$work/$tree_version/$device
        mkdir -p "$series"
        patch=$(grep -l "^diff --git a/$file " "$sweep"/*/*.patch | head -1 || true)
        if [ -z "$patch" ]; then
            echo "$tree_version $device: the sweep wrote no patch for $file" | tee -a "$work/summary.txt"
            continue
        fi
        cp "$patch" "$series/"
        "$ksweep" validate --series "$series" --levels 1,4 --guest-hz "$hz" --boots "$boots" \
            -n "$extends" -o "$series/report" "$tree" >"$series/validate.log" 2>&1 || true
        summarize "$series/report/report.json" "$tree_version" "$device" | tee -a "$work/summary.txt"
    done
done

if [ "${NEGATIVE:-1}" = 1 ]; then
    # The naive patches (tests/negative/naive_patch.sh) against their slow parts; both are
    # HZ=250 cases (the profiles say why).
    for negative in ak8974:ak8974_slow_conversion srf08:srf08_slow_ranging; do
        name=${negative%%:*} profile=${negative#*:}
        series=$work/negative-$name
        bash "$here/tests/negative/naive_patch.sh" "$name" "$KSWEEP_TREE_6_1" "$series"
        "$ksweep" validate --series "$series" --levels 1,4 --guest-hz 250 --boots "$boots" \
            -n "$extends" --profile "$here/qemu/profiles/$profile.yaml" -o "$series/report" \
            "$KSWEEP_TREE_6_1" >"$series/validate.log" 2>&1 || true
        summarize "$series/report/report.json" "6.1" "$name-naive" | tee -a "$work/summary.txt"
        grep -h "L4 " "$series/validate.log" | tee -a "$work/summary.txt" || true
    done
fi
echo "done in $(($(date +%s) - start)) s; reports in $work" >&2
