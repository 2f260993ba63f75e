#!/usr/bin/env bash
# `ksweep check` beside the tree's own scripts/checkpatch.pl, on the same patches against
# Debian's 6.1 tree, in one run: seconds per patch (median of RUNS runs, wall and CPU) for
# ksweep with the semantic engine, ksweep --lexical-only (what the semantic engine costs is the
# difference), and checkpatch.pl. The patches:
#   nuvoton-add   adds msleep(3) and msleep(TPM_TIMEOUT) to tpm_i2c_nuvoton.c (the enum needs
#                 the semantic engine and Debian's headers)
#   tis-helper    tpm_msleep(TPM_TIMEOUT) -> msleep(TPM_TIMEOUT) in tpm_tis_core.c (issue 13)
#   tpm.h-enum    TPM_TIMEOUT 5 -> 4 in tpm.h: no C file changes, the drivers that sleep on it
#                 are re-checked (the slow path: a header change)
#   series/000N   the patches `ksweep series` writes for drivers/char/tpm (cover letter left
#                 out); they redefine macros, so a file may be resolved before and after
#   SERIES        a whole series as CI checks it, one input with every patch (the largest series
#                 `ksweep series` writes for $SERIES_PATH: by default the input tree's 15 patches
#                 of drivers/input and drivers/iio); its figures are per patch (the run's time
#                 divided by its patches)
# Each patch is checked warm (ksweep's preambles kept in its cache from an earlier run: the
# gate's normal state; its kept parse results are cleared before each run, since a new patch's
# text is never among them) and cold (a fresh cache each run: no preamble yet; the first check
# of a file in a tree). The goal is 1.5 x checkpatch.pl per patch, warm; the summary says where
# ksweep's time goes. INSTRUCTIONS=1 adds callgrind's instruction counts of one run of each
# (slow, but independent of what else runs on the machine).
#
# usage: bench/check_bench.sh KSWEEP_BINARY [RUNS]   (default 5 runs)
#        Env: KSWEEP_TREE_6_1 (default from ~/.cache/ksweep/env), SERIES_PATH ("drivers/input drivers/iio"),
#        INSTRUCTIONS=1.
set -euo pipefail

if [ $# -lt 1 ]; then
    echo "usage: $0 KSWEEP_BINARY [RUNS]" >&2
    exit 2
fi
ksweep=$(realpath "$1")
runs=${2:-5}
if [ -z "${KSWEEP_TREE_6_1:-}" ]; then
    # shellcheck disable=SC1090
    . "${KSWEEP_CACHE:-$HOME/.cache/ksweep}/env"
fi
tree=$KSWEEP_TREE_6_1
tpm=drivers/char/tpm

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
series_path=${SERIES_PATH:-drivers/input drivers/iio}
# The warm runs' cache: the kernel sources' env and nothing else of ~/.cache/ksweep, so the
# preambles there are the ones these runs made.
mkdir -p "$work/cache"

# patch NAME FILE SUBJECT: a mail from $work/a/FILE to $work/b/FILE.
patch() {
    {
        printf 'From: A Developer <dev@example.com>\nSubject: [PATCH] %s\n\n' "$3"
        printf 'Signed-off-by: A Developer <dev@example.com>\n---\n'
        (cd "$work" && git diff --no-index --no-prefix "a/$2" "b/$2" || true)
    } > "$work/patches/$1.patch"
}
edit() { # edit FILE AWK-PROGRAM: b/FILE is a/FILE through awk
    mkdir -p "$work/a/${1%/*}" "$work/b/${1%/*}"
    cp "$tree/$1" "$work/a/$1"
    awk "$2" "$tree/$1" > "$work/b/$1"
}
mkdir -p "$work/patches"
edit $tpm/tpm_i2c_nuvoton.c '{ print } /^static s32 i2c_nuvoton_write_status/ { f = 1 }
    f && /^\tint i;$/ { print ""; print "\tmsleep(3);"; print "\tmsleep(TPM_TIMEOUT);"; f = 0 }'
patch nuvoton-add $tpm/tpm_i2c_nuvoton.c "tpm: tpm_i2c_nuvoton: wait before status writes"
edit $tpm/tpm_tis_core.c '!done && /^\t\ttpm_msleep\(TPM_TIMEOUT\);$/ {
    print "\t\tmsleep(TPM_TIMEOUT);"; done = 1; next } { print }'
patch tis-helper $tpm/tpm_tis_core.c "tpm: tis: call msleep() directly"
edit $tpm/tpm.h '{ sub(/TPM_TIMEOUT = 5,/, "TPM_TIMEOUT = 4,"); print }'
patch tpm.h-enum $tpm/tpm.h "tpm: a shorter polling timeout"
"$ksweep" series --signoff "Bench <bench@example.org>" -o "$work/series" "$tree" $tpm > "$work/series.log" 2>&1
# series writes one folder per maintainer tree: OUT/<series>/NNNN-*.patch.
for p in "$work"/series/*/000[1-9]*.patch; do
    cp "$p" "$work/patches/series-$(basename "$p" | cut -c1-4).patch"
done
# The largest series of $series_path, as one input: every patch of it, cover letter left out.
# shellcheck disable=SC2086 # several paths
"$ksweep" series --rule msleep_small --signoff "Bench <bench@example.org>" -o "$work/big" "$tree" $series_path > "$work/big.log" 2>&1
patches_in() { ls "$1" | grep -E '^[0-9]{4}-.*\.patch$' | grep -v '^0000-' || true; }
big=$(for d in "$work"/big/*/; do echo "$(patches_in "$d" | wc -l) $d"; done | sort -rn | head -1)
big_patches=${big%% *}
[ "${big_patches:-0}" -gt 0 ] || { echo "no series for $series_path" >&2; cat "$work/big.log" >&2; exit 1; }
for p in $(patches_in "${big#* }"); do cat "${big#* }/$p"; done > "$work/patches/SERIES.patch"

# Prints "WALL_MS CPU_MS" of "$@"; its output goes to $work/out, its status is ignored. On
# the shared 2-core machines wall time follows the load; CPU time is the tool's own cost.
time_ms() {
    local start end
    start=$(date +%s%N)
    /usr/bin/time -o "$work/time" -f '%U %S' "$@" > "$work/out" 2>&1 || true
    end=$(date +%s%N)
    echo "$(( (end - start) / 1000000 )) $(tail -1 "$work/time" | awk '{ printf "%d", ($1 + $2) * 1000 }')"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
findings() { grep -cE '(WARNING|CHECK|ERROR):' "$work/out" || true; }

# The command of TOOL on PATCH.
command_of() { # command_of TOOL PATCH
    case $1 in
    ksweep) echo env KSWEEP_CACHE="$work/cache" "$ksweep" check --tree "$tree" --terse "$2" ;;
    ksweep-cold) echo env KSWEEP_CACHE="$work/cold" "$ksweep" check --tree "$tree" --terse "$2" ;;
    ksweep-lex) echo "$ksweep" check --lexical-only --tree "$tree" --terse "$2" ;;
    checkpatch) echo "$tree/scripts/checkpatch.pl" --root="$tree" --terse "$2" ;;
    esac
}
run_tool() { # run_tool TOOL PATCH
    rm -rf "$work/cold" "$work/cache/parses"
    # shellcheck disable=SC2046
    time_ms $(command_of "$1" "$2")
}
# Per patch: a series input's figures divided by its patches.
per_patch() { # per_patch NAME WALL CPU
    if [ "$1" = SERIES ]; then
        echo "$(( $2 / big_patches )) $(( $3 / big_patches ))"
    else
        echo "$2 $3"
    fi
}

tools="ksweep ksweep-cold ksweep-lex checkpatch"
echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) at start, $runs runs per patch and tool"
echo "ksweep $("$ksweep" --version | head -1), $(basename "$tree"), build dir ${KSWEEP_HEADERS:-found by ksweep}"
echo "SERIES: $big_patches patches of $series_path (${big#* }), figures per patch"
# Warm: each patch once before the timed runs, so its files' preambles are in the cache.
for p in "$work"/patches/*.patch; do
    # shellcheck disable=SC2046
    $(command_of ksweep "$p") > /dev/null 2>&1 || true
done
echo
printf '%-14s' PATCH
for t in $tools; do printf ' %19s' "$t wall/cpu ms"; done
printf '  FINDINGS (ksweep, lex, checkpatch)\n'
: > "$work/medians"
for p in "$work"/patches/*.patch; do
    name=$(basename "$p" .patch)
    printf '%-14s' "$name"
    counts=""
    for t in $tools; do
        : > "$work/samples"
        for _ in $(seq "$runs"); do run_tool "$t" "$p" >> "$work/samples"; done
        read -r wall cpu < <(per_patch "$name" "$(cut -d' ' -f1 "$work/samples" | median)" \
            "$(cut -d' ' -f2 "$work/samples" | median)")
        echo "$name $t $wall $cpu" >> "$work/medians"
        printf ' %19s' "$wall / $cpu"
        counts="$counts $(findings)"
    done
    printf ' %s\n' "$counts"
done
echo
echo "median over the patches of each patch's median, seconds per patch:"
for t in $tools; do
    wall=$(awk -v t="$t" '$2 == t { print $3 }' "$work/medians" | median)
    cpu=$(awk -v t="$t" '$2 == t { print $4 }' "$work/medians" | median)
    awk -v t="$t" -v w="$wall" -v c="$cpu" \
        'BEGIN { printf "  %-11s wall %5.2f s   cpu %5.2f s\n", t, w / 1000, c / 1000 }'
done
echo "load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
echo
echo "ksweep warm / checkpatch.pl, per patch (medians): tis-helper $(awk '$1 == "tis-helper" { v[$2] = $3 } END { printf "%.2f", v["ksweep"] / v["checkpatch"] }' "$work/medians") x wall, SERIES $(awk '$1 == "SERIES" { v[$2] = $3 } END { printf "%.2f", v["ksweep"] / v["checkpatch"] }' "$work/medians") x wall"
if [ "${INSTRUCTIONS:-0}" = 1 ]; then
    # Instructions executed (callgrind, every child process counted): the machine's load does not
    # move them. One run each, ksweep warm.
    instructions() { # instructions TOOL PATCH
        rm -rf "$work/cold" "$work/cache/parses"
        # shellcheck disable=SC2046
        valgrind --tool=callgrind --trace-children=yes --callgrind-out-file="$work/cg.%p" \
            $(command_of "$1" "$2") > /dev/null 2> "$work/cg.log" || true
        grep -h '^summary:' "$work"/cg.* | awk '{ s += $2 } END { print s }'
        rm -f "$work"/cg.*
    }
    echo "instructions (callgrind, millions; SERIES per patch):"
    for name in tis-helper SERIES; do
        k=$(instructions ksweep "$work/patches/$name.patch")
        kc=$(instructions ksweep-cold "$work/patches/$name.patch")
        c=$(instructions checkpatch "$work/patches/$name.patch")
        n=1; [ "$name" = SERIES ] && n=$big_patches
        awk -v name="$name" -v k="$k" -v kc="$kc" -v c="$c" -v n="$n" 'BEGIN {
            printf "  %-11s ksweep warm %8.0f  cold %8.0f  checkpatch %8.0f  warm/checkpatch %.2f  cold/checkpatch %.2f\n",
                name, k / n / 1e6, kc / n / 1e6, c / n / 1e6, k / c, kc / c }'
    done
fi
echo
# Where ksweep's time goes on one patch: starting the binary (it loads libclang-cpp), the
# lexical path (reading, applying, lexing, site matching), and the rest: the semantic parse.
: > "$work/samples"
for _ in $(seq "$runs"); do time_ms "$ksweep" --version >> "$work/samples"; done
start_cpu=$(cut -d' ' -f2 "$work/samples" | median)
start_wall=$(cut -d' ' -f1 "$work/samples" | median)
read -r lex_wall lex_cpu < <(awk '$1 == "nuvoton-add" && $2 == "ksweep-lex" { print $3, $4 }' \
    "$work/medians")
read -r full_wall full_cpu < <(awk '$1 == "nuvoton-add" && $2 == "ksweep" { print $3, $4 }' \
    "$work/medians")
echo "where ksweep's time goes on nuvoton-add (medians, wall / cpu ms):"
echo "  start (ksweep --version)           $start_wall / $start_cpu"
echo "  lexical path (--lexical-only)      $lex_wall / $lex_cpu"
echo "  semantic parse (the rest)          $((full_wall - lex_wall)) / $((full_cpu - lex_cpu))"
echo "  (one clang parse of the driver with Debian's headers per changed C file; a second"
echo "  when the patch redefines something a reported call may depend on; a header change"
echo "  adds one or two per driver that uses what it redefines: tpm.h-enum)"
echo
echo "ksweep's output on nuvoton-add:"
"$ksweep" check --tree "$tree" --terse "$work/patches/nuvoton-add.patch" || true
