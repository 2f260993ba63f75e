#!/usr/bin/env bash
# `ksweep check` on the hostile sizes of issue 25, each generated here: wall time, peak memory,
# exit status and the first line ksweep said about it. Each must end in bounded time and memory
# with a result (exit 0/1) or one clear error (exit 2).
#   hunk-2^31     a hunk header claiming 2^31 lines
#   mail-200MB    a 200 MB mail on stdin (refused unread past 64 MiB)
#   files-10000   one patch creating 10,000 C files (more than check parses: a CHECK)
#   files-10000h  one patch creating 10,000 text files and changing a header (the shadow tree)
#   line-10MB     a C file with a 10 MB line
#   deep-1000     a header 1000 directories deep
#   mime-headers  a 7 MB mail of 1,000,000 one-line headers (GMime took 586 MB for it)
#   mime-parts    a 7 MB mail of 100,000 parts (GMime took 360 MB)
#   mime-deep     multipart nested 5,000 deep
#   hunks-far     a 4,000-line file, then 4,000 hunks claiming lines alternately at its start
#                 and far past its end, so that no offset carries over (git apply would search
#                 the whole file for each: ksweep stops at its budget)
#
# usage: bench/hostile_inputs.sh KSWEEP_BINARY [TREE]   (default: the fixture tree, lexical
#        and semantic engines as check picks them for it)
set -euo pipefail

if [ $# -lt 1 ]; then
    echo "usage: $0 KSWEEP_BINARY [TREE]" >&2
    exit 2
fi
ksweep=$(realpath "$1")
here=$(cd "$(dirname "$0")/.." && pwd)
tree=$(realpath "${2:-$here/tests/fixtures/check/tree}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
header=include/linux/delay.h
[ -f "$tree/$header" ] || { echo "$0: $tree has no $header" >&2; exit 2; }

mail() { # an mbox message's head
    printf 'From s@example.com Mon Dec  1 00:00:00 2026\nFrom: A Stranger <s@example.com>\n'
    printf 'Subject: [PATCH] hostile\n\n---\n'
}
new_file() { # PATH LINES...
    local path=$1; shift
    printf 'diff --git a/%s b/%s\nnew file mode 100644\n--- /dev/null\n+++ b/%s\n@@ -0,0 +1,%d @@\n' \
        "$path" "$path" "$path" $#
    printf '+%s\n' "$@"
}
header_change() { # a comment appended to the header: check builds its shadow tree
    local n
    n=$(wc -l < "$tree/$header")
    printf 'diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n@@ -%d,0 +%d @@\n+/* hostile */\n' \
        "$header" "$header" "$header" "$header" "$n" "$((n + 1))"
}

{ mail; printf -- '--- a/x.c\n+++ b/x.c\n@@ -1,2147483648 +1,2147483648 @@\n a\n'; } > "$work/hunk-2^31"
{ mail; for i in $(seq 10000); do new_file "drivers/hostile/f$i.c" "int f$i;"; done; } \
    > "$work/files-10000"
{ mail; header_change; for i in $(seq 10000); do new_file "docs/hostile/f$i.txt" "x"; done; } \
    > "$work/files-10000h"
{ mail; new_file drivers/hostile/long.c "int long_line = $(head -c 10000000 /dev/zero | tr '\0' 1);"
} > "$work/line-10MB"
deep=$(printf 'd/%.0s' $(seq 1000))
{ mail; header_change; new_file "${deep}deep.h" "#define DEEP 1"; } > "$work/deep-1000"
{
    mail
    new_file drivers/hostile/far.c $(seq -f 'a%g' 4000)
    mail
    printf -- '--- a/drivers/hostile/far.c\n+++ b/drivers/hostile/far.c\n'
    for i in $(seq 4000); do
        at=$((i % 2 ? 1 : 4000000))
        printf '@@ -%d +%d @@\n-a%d\n+b%d\n' "$at" "$at" "$i" "$i"
    done
} > "$work/hunks-far"

{ echo "Subject: [PATCH] x"; awk 'BEGIN { for (i = 0; i < 1000000; i++) print "X-A: b" }'
  printf '\n---\n'; } > "$work/mime-headers"
{
    printf 'Subject: [PATCH] x\nContent-Type: multipart/mixed; boundary="B"\n\n'
    awk 'BEGIN { for (i = 0; i < 100000; i++) printf "--B\nContent-Type: text/plain\n" \
        "Content-Transfer-Encoding: base64\n\nLS0tCg==\n" }'
    echo "--B--"
} > "$work/mime-parts"
{
    printf 'Subject: [PATCH] x\nContent-Type: multipart/mixed; boundary="b0"\n\n'
    for i in $(seq 5000); do
        printf -- '--b%d\nContent-Type: multipart/mixed; boundary="b%d"\n\n' $((i - 1)) "$i"
    done
} > "$work/mime-deep"

run() { # NAME, input on stdin
    local name=$1 out="$work/$1.out" t="$work/$1.time" status=0
    /usr/bin/time -f '%e %M' -o "$t" "$ksweep" check --tree "$tree" - > "$out" 2>&1 || status=$?
    read -r wall rss < <(tail -1 "$t") # GNU time puts "Command exited ..." first
    printf '%-13s exit %d  %6.1f s  %5d MiB  %s\n' "$name" "$status" "$wall" $((rss / 1024)) \
        "$(grep -v -e '^ksweep check: no build dir' -e '^ksweep check: target auto' -e '^ksweep check: build dir' "$out" | head -1 | cut -c1-140)"
}

echo "hostile_inputs: $tree, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for name in "hunk-2^31" files-10000 files-10000h line-10MB deep-1000 hunks-far mime-headers \
    mime-parts mime-deep; do
    run "$name" < "$work/$name"
done
set +o pipefail # the writer of the 200 MB dies of SIGPIPE once check stops reading
head -c 200000000 /dev/zero | tr '\0' x | { mail; cat; } | run mail-200MB
