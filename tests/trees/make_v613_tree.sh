#!/usr/bin/env bash
# A v6.13-shaped kernel tree made from Debian's 6.12 tree, for tests of what ksweep reads from a
# tree rather than from its version number (src/kbuild/sleep_api.h).
#
#   tests/trees/make_v613_tree.sh [TREE_6_12 [CACHE]]   # prints the made tree's path
#
# TREE_6_12 defaults to $KSWEEP_TREE_6_12, then that line of ~/.cache/ksweep/env; CACHE to
# $KSWEEP_CACHE, then ~/.cache/ksweep. The copy is CACHE/trees/v6.13-shaped-<key>, hard links
# into the 6.12 tree (cp -al; a plain copy across file systems), where <key> hashes this script
# and the 6.12 files it derives from, so an edited script or another 6.12 makes a new copy and
# a stale one is never reused. A copy is used only once complete (.ksweep-complete).
#
# What changes, from the facts in REFERENCE.md §1 and §8 (ksweep's own words, not upstream's):
# - include/linux/delay.h: fsleep() takes v6.13's body as upstream writes it (max_slack_shift,
#   USLEEP_RANGE_UPPER_BOUND: udelay() up to 10 us, usleep_range(us, us + (us >> 2)) below four
#   ticks, msleep() above), and it includes <linux/jiffies.h> for TICK_NSEC as upstream's
#   does; its comment names the new document;
# - Documentation/timers/delay_sleep_functions.rst replaces timers-howto.rst (index.rst names it);
# - scripts/checkpatch.pl's MSLEEP warning says "see function description of msleep()";
# - msleep() stays as 6.12 has it (no extra jiffy, kernel/time/timer.c): REFERENCE says no more.
# The Makefile still says 6.12: the tree is 6.12 with 6.13's sleep API, not a 6.13.
#
# Every edited file is written anew and renamed over its link (a new inode), so nothing is ever
# written through a hard link into the 6.12 tree; the script checks that at the end.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
env_file=$HOME/.cache/ksweep/env
src=${1:-${KSWEEP_TREE_6_12:-}}
if [ -z "$src" ] && [ -f "$env_file" ]; then
    src=$(sed -n 's/^KSWEEP_TREE_6_12=//p' "$env_file")
fi
cache=${2:-${KSWEEP_CACHE:-$HOME/.cache/ksweep}}
if [ -z "$src" ] || [ ! -f "$src/include/linux/delay.h" ]; then
    echo "make_v613_tree: no 6.12 tree (give one, or run scripts/setup.sh)" >&2
    exit 2
fi
src=$(cd "$src" && pwd)

edited=(include/linux/delay.h Documentation/timers/index.rst scripts/checkpatch.pl)
derived_from=("${edited[@]}" Documentation/timers/timers-howto.rst Makefile kernel/time/timer.c)
key=$( {
    cat "$here/make_v613_tree.sh"
    echo "$src"
    for f in "${derived_from[@]}"; do
        echo "$f"
        sha256sum <"$src/$f" 2>/dev/null || echo missing
    done
} | sha256sum | cut -c1-16)
dest=$cache/trees/v6.13-shaped-$key
if [ -f "$dest/.ksweep-complete" ]; then
    echo "$dest"
    exit 0
fi

mkdir -p "$cache/trees"
exec 9>"$dest.lock"
flock 9
if [ -f "$dest/.ksweep-complete" ]; then # made while we waited
    echo "$dest"
    exit 0
fi
# An incomplete copy of an earlier run (interrupted) goes. Other keys' copies stay: another
# checkout's tests may be reading one right now (the cache is shared).
rm -rf "$dest" "$dest.tmp"

declare -A before
for f in "${edited[@]}"; do before[$f]=$(sha256sum <"$src/$f"); done

echo "make_v613_tree: linking $src into $dest" >&2
if ! cp -al "$src" "$dest.tmp" 2>/dev/null; then
    rm -rf "$dest.tmp"
    echo "make_v613_tree: hard links failed (another file system?): copying" >&2
    cp -a "$src" "$dest.tmp"
fi

python3 - "$dest.tmp" <<'PY'
import os, re, sys

root = sys.argv[1]

def rewrite(rel, change):
    """Writes the new text to a new file and renames it over the old name: the hard link to
    the 6.12 tree is replaced, never written through."""
    path = os.path.join(root, rel)
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        old = f.read()
    new = change(old)
    if new == old:
        sys.exit("make_v613_tree: nothing changed in " + rel)
    tmp = path + ".ksweep-new"
    with open(tmp, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write(new)
    os.chmod(tmp, os.stat(path).st_mode & 0o777)
    os.replace(tmp, path)

def new_fsleep(text):
    m = re.search(r"static\s+inline\s+void\s+fsleep\s*\([^)]*\)\s*\{", text)
    if not m:
        sys.exit("make_v613_tree: no fsleep() definition in include/linux/delay.h")
    depth, end = 0, m.end() - 1
    for i in range(end, len(text)):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            end = i + 1
            break
    # fsleep() as upstream has it from v6.13 on (its few lines; the kernel-doc is not copied):
    # the slack shift a `static const` and the bound a macro of it, which a reader matching
    # spellings does not recognise and ksweep evaluates.
    body = (
        "static const unsigned int max_slack_shift = 2;\n"
        "#define USLEEP_RANGE_UPPER_BOUND\t((TICK_NSEC << max_slack_shift) / NSEC_PER_USEC)\n"
        "\n"
        "static inline void fsleep(unsigned long usecs)\n"
        "{\n"
        "\tif (usecs <= 10)\n"
        "\t\tudelay(usecs);\n"
        "\telse if (usecs < USLEEP_RANGE_UPPER_BOUND)\n"
        "\t\tusleep_range(usecs, usecs + (usecs >> max_slack_shift));\n"
        "\telse\n"
        "\t\tmsleep(DIV_ROUND_UP(usecs, USEC_PER_MSEC));\n"
        "}"
    )
    text = text[: m.start()] + body + text[end:]
    # TICK_NSEC comes from jiffies.h, which v6.13's delay.h includes after sched.h.
    if "#include <linux/jiffies.h>" not in text:
        if "#include <linux/sched.h>\n" not in text:
            sys.exit("make_v613_tree: include/linux/delay.h does not include <linux/sched.h>")
        text = text.replace("#include <linux/sched.h>\n",
                            "#include <linux/sched.h>\n#include <linux/jiffies.h>\n", 1)
    return text.replace("Documentation/timers/timers-howto.rst",
                        "Documentation/timers/delay_sleep_functions.rst")

rewrite("include/linux/delay.h", new_fsleep)
rewrite("Documentation/timers/index.rst",
        lambda t: t.replace("timers-howto", "delay_sleep_functions"))
rewrite("scripts/checkpatch.pl",
        lambda t: t.replace("msleep < 20ms can sleep for up to 20ms; "
                            "see Documentation/timers/timers-howto.rst",
                            "msleep < 20ms can sleep for up to 20ms; "
                            "see function description of msleep()."))

os.unlink(os.path.join(root, "Documentation/timers/timers-howto.rst"))
with open(os.path.join(root, "Documentation/timers/delay_sleep_functions.rst"), "w") as f:
    f.write(""".. SPDX-License-Identifier: GPL-2.0

Delay and sleep mechanisms
==========================

(A stand-in written by ksweep's tests/trees/make_v613_tree.sh: it says what the v6.13
document advises, in other words.)

- When unsure, use fsleep().
- Use one of the *sleep() functions whenever that is possible.
- Use usleep_range*() when the *sleep() functions are not accurate enough.

msleep() counts in jiffies: the first level of the timer wheel gives it a slack of
MSECS_PER_TICK / msecs, so at HZ=250 only sleeps of 16 ms or more stay within 25 %.

fsleep(usecs) waits with udelay() up to 10 us, sleeps in usleep_range(usecs, usecs +
usecs / 4) below USLEEP_RANGE_UPPER_BOUND (four ticks) and in msleep() above it.
""")
PY

# Nothing written through a link: the 6.12 files are as they were, and the edited ones are
# other inodes now.
for f in "${edited[@]}"; do
    if [ "$(sha256sum <"$src/$f")" != "${before[$f]}" ]; then
        echo "make_v613_tree: $src/$f changed: the copy wrote through a hard link" >&2
        exit 1
    fi
    if [ "$(stat -c %i "$src/$f")" = "$(stat -c %i "$dest.tmp/$f")" ]; then
        echo "make_v613_tree: $f is still a link into $src" >&2
        exit 1
    fi
done
[ -f "$src/Documentation/timers/timers-howto.rst" ] || {
    echo "make_v613_tree: $src lost timers-howto.rst" >&2
    exit 1
}

mv "$dest.tmp" "$dest"
touch "$dest/.ksweep-complete"
echo "$dest"
