#!/usr/bin/env bash
# Writes the naive patch of ak8974: msleep(AK8974_MEASTIME) in ak8974_await_drdy() rewritten
# into usleep_range() alone, the loop's two polls kept. That cuts the time the driver waits
# for DRDY at HZ=250 on 6.1 (two 3-3.25 ms sleeps instead of 12-16 ms in all), which a chip
# with a 9.7-10.3 ms conversion (qemu/profiles/ak8974_slow_conversion.yaml) does not survive:
# the case L4 must catch. Derived from the tree at run time (no kernel code in this
# repository), as one `git format-patch` mail that applies to the tree's file.
#
# usage: ak8974_naive_patch.sh TREE OUT_DIR
#
# The substitution must match exactly once, so another version of the driver fails loudly.
set -euo pipefail

if [ $# -ne 2 ]; then
    echo "usage: $0 TREE OUT_DIR" >&2
    exit 2
fi
tree=$1 out=$2
file=drivers/iio/magnetometer/ak8974.c
[ -r "$tree/$file" ] || { echo "$0: no $file in $tree" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/$(dirname "$file")"
cp "$tree/$file" "$work/$file"
git -C "$work" init -q
git -C "$work" add "$file"
git -C "$work" -c user.name=ksweep -c user.email=ksweep@localhost commit -q -m base

perl -0777 -e '
    my $src = do { local $/; <STDIN> };
    my $n = ($src =~ s/^(\t\t)msleep\(AK8974_MEASTIME\);\n(\t\tret = regmap_read\(ak8974->map, AK8974_STATUS, &val\);)/$1usleep_range(AK8974_MEASTIME * 1000, AK8974_MEASTIME * 1000 + 250);\n$2/m);
    die "ak8974_naive_patch: the DRDY poll sleep: $n matches, expected 1\n" if $n != 1;
    print $src;
' < "$work/$file" > "$work/$file.new"
mv "$work/$file.new" "$work/$file"

git -C "$work" -c user.name=ksweep -c user.email=ksweep@localhost commit -q -a \
    -m "iio: magnetometer: ak8974: Use usleep_range() for the DRDY poll" \
    -m "The naive rewrite: the sleep alone, the loop's two polls kept (a test case of ksweep's
L4, tests/negative/ak8974_naive_patch.sh; never to be sent)."
mkdir -p "$out"
git -C "$work" format-patch -q -1 -o "$(cd "$out" && pwd)"
