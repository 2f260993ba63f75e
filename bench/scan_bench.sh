#!/usr/bin/env bash
# Whole-tree scan, side by side: ksweep scan (lexical + semantic engines), spatch with
# rules/msleep_small.cocci, and checkpatch.pl's MSLEEP regex. Prints wall and CPU time (medians
# of N runs) and the sites each finds, then how ksweep's sites relate to the regex's lines.
#
# usage: bench/scan_bench.sh [-n RUNS] [-j JOBS] [--no-spatch] [-p PATH] [TREE]
#   TREE defaults to Debian's 6.1 source unpacked by scripts/setup.sh; -p PATH scans only that
#   part of it (the smoke test's tiny input). KSWEEP=path/to/ksweep overrides the binary
#   (default: build/src/cli/ksweep).
set -euo pipefail
cd "$(dirname "$0")/.."

runs=3 jobs=2 spatch=1 tree= part=.
while [ $# -gt 0 ]; do
    case "$1" in
    -n) runs=$2; shift 2 ;;
    -j) jobs=$2; shift 2 ;;
    -p) part=$2; shift 2 ;;
    --no-spatch) spatch=0; shift ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) tree=$1; shift ;;
    esac
done
if [ -z "$tree" ]; then
    . "${KSWEEP_CACHE:-$HOME/.cache/ksweep}/env"
    tree=$KSWEEP_TREE_6_1
fi
ksweep=${KSWEEP:-build/src/cli/ksweep}
[ -x "$ksweep" ] || { echo "no $ksweep: build first (make build)" >&2; exit 2; }
[ -f "$tree/Makefile" ] || { echo "$tree: not a kernel tree" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "tree: $tree   runs: $runs   jobs: $jobs   cpus: $(nproc)   load: $(cut -d' ' -f1-3 /proc/loadavg)"

# timed NAME OUTFILE CMD...: runs CMD $runs times, keeps the last output, records wall/user/sys.
timed() {
    local name=$1 out=$2
    shift 2
    for i in $(seq "$runs"); do
        /usr/bin/time -f "%e %U %S" -o "$work/$name.time.$i" "$@" >"$out" 2>"$work/$name.err" ||
            { echo "$name failed: $(tail -3 "$work/$name.err")" >&2; return 1; }
    done
    cat "$work/$name".time.* >"$work/$name.times"
}

# 1. ksweep: the whole tree, both engines: once cold (a cache of its own, empty: every file the
# semantic engine needs is parsed), then $runs times warm (its parse results kept: a file whose
# text and headers did not change is not parsed again).
export KSWEEP_CACHE=$work/cache
runs_asked=$runs runs=1
timed ksweep-cold "$work/ksweep.json" "$ksweep" scan -j "$jobs" --format json "$tree" "$part"
runs=$runs_asked
timed ksweep "$work/ksweep.json" "$ksweep" scan -j "$jobs" --format json "$tree" "$part"
# 2. checkpatch.pl's regex over the same .c/.h files.
regex='\bmsleep\s*\((\d+)\);'
timed regex "$work/regex.txt" sh -c "cd '$tree' && find './$part' -name '*.[ch]' -type f -print0 |
    xargs -0 -n 2000 perl -ne 'print \"\$ARGV:\$.\\n\" if /$regex/ && \$1 < 20; close ARGV if eof'"
# 3. spatch, report mode, the literal (and same-file literal #define) twin of the rule.
if [ "$spatch" = 1 ] && [ -f rules/msleep_small.cocci ] && command -v spatch >/dev/null; then
    timed spatch "$work/spatch.txt" spatch -D report --sp-file rules/msleep_small.cocci \
        --use-gitgrep -j "$jobs" --dir "$tree/$part" || spatch=0
else
    echo "(spatch skipped: --no-spatch, or no rules/msleep_small.cocci or spatch)"
    spatch=0
fi

python3 - "$work" "$tree" "$spatch" <<'PY'
import collections, json, os, re, sys
work, tree, have_spatch = sys.argv[1], os.path.realpath(sys.argv[2]), sys.argv[3] == "1"
scan = json.load(open(f"{work}/ksweep.json"))
findings = scan["findings"]
active = [f for f in findings if not f["inactive"]]
actionable = [f for f in active if f["actionable"]]
regex = {l.strip().lstrip("./") for l in open(f"{work}/regex.txt") if l.strip()}
regex = {os.path.normpath(l) for l in regex}
# checkpatch's test is "$1 < 20": msleep(0) counts for it too.
small_lines = {f'{f["file"]}:{f["line"]}' for f in findings
               if f["value_ms"] is not None and 0 <= f["value_ms"] < scan["threshold_ms"]}

def in_comment(where):
    """Is the regex's match on this line inside a comment (commented-out code)?"""
    path, line = where.rsplit(":", 1)
    text = open(os.path.join(tree, path), errors="replace").read()
    mask, state, i = [False] * len(text), "code", 0
    while i < len(text):
        c, n = text[i], text[i + 1:i + 2]
        if state == "code":
            if c == "/" and n == "/": state = "line"
            elif c == "/" and n == "*": state = "block"; mask[i] = True; i += 1
            elif c in "\"'": state = c
        elif state == "line" and c == "\n": state = "code"
        elif state == "block" and c == "*" and n == "/": mask[i] = True; i += 1; state = "code"
        elif state in "\"'":
            if c == "\\": i += 1
            elif c == state or c == "\n": state = "code"
        if i < len(mask) and state in ("line", "block"): mask[i] = True
        i += 1
    start = sum(len(l) + 1 for l in text.split("\n")[:int(line) - 1])
    m = re.search(r"\bmsleep\s*\(\d+\);", text[start:text.find("\n", start)])
    return bool(m) and mask[start + m.start()]
spatch_sites = set()
if have_spatch:
    for l in open(f"{work}/spatch.txt"):
        m = re.match(r"(.+?):(\d+):\d+-\d+: WARNING", l)
        if m:
            spatch_sites.add(os.path.relpath(os.path.realpath(m.group(1)), tree) + ":" + m.group(2))

def times(name):
    rows = [list(map(float, l.split())) for l in open(f"{work}/{name}.times")]
    walls = sorted(r[0] for r in rows); cpus = sorted(r[1] + r[2] for r in rows)
    mid = lambda v: v[len(v)//2] if len(v) % 2 else (v[len(v)//2-1] + v[len(v)//2]) / 2
    return mid(walls), mid(cpus)

print()
print(f"{'tool':<34} {'wall s':>8} {'cpu s':>8} {'sites':>7}  what")
w, c = times("ksweep-cold")
print(f"{'ksweep scan -j2, cold (1 run)':<34} {w:8.2f} {c:8.2f} {len(actionable):7d}  active calls, 0 < value < {scan['threshold_ms']} ms")
w, c = times("ksweep")
print(f"{'ksweep scan -j2, warm':<34} {w:8.2f} {c:8.2f} {len(actionable):7d}  the same, parse results kept")
w, c = times("regex")
print(f"{'checkpatch MSLEEP regex (perl)':<34} {w:8.2f} {c:8.2f} {len(regex):7d}  lines, literal < 20")
if have_spatch:
    w, c = times("spatch")
    print(f"{'spatch msleep_small.cocci -j2':<34} {w:8.2f} {c:8.2f} {len(spatch_sites):7d}  report lines (literal, same-file #define)")

s = scan["summary"]
print()
print(f"ksweep: {s['findings']} msleep calls in {s['files_with_findings']} files of {s['files_scanned']};"
      f" {s['files_semantic']} files parsed by the semantic engine, {s['files_fallback']} fell back to lexical")
print("  by resolution (all calls):", ", ".join(f"{k} {v}" for k, v in s["by_resolution"].items()))
found = regex & small_lines
commented = {w for w in regex - small_lines if in_comment(w)}
print(f"  checkpatch regex lines: {len(regex)}; calls found by ksweep: {len(found)};"
      f" commented-out code (not calls): {len(commented)}")
for miss in sorted(regex - small_lines - commented)[:10]:
    print("    MISSED", miss)
beyond = [f for f in actionable if f'{f["file"]}:{f["line"]}' not in regex]
kinds = collections.Counter(f["resolution"] for f in beyond)
engines = collections.Counter(f["engine"] for f in beyond)
print(f"  actionable sites the regex misses: {len(beyond)} ("
      + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())) + "; by engine "
      + ", ".join(f"{k} {v}" for k, v in sorted(engines.items())) + ")")
if have_spatch:
    act_lines = {f'{f["file"]}:{f["line"]}' for f in actionable}
    print(f"  spatch sites also found by ksweep: {len(spatch_sites & act_lines)} of {len(spatch_sites)}")
PY
