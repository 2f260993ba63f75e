#!/usr/bin/env bash
# Writes the naive patch of a poll loop: the loop's msleep() rewritten into usleep_range() alone,
# its number of tries kept. That cuts the time the driver waits for its device, which a slow
# part does not survive: the cases L4 must catch (devices/README.md). Derived from the tree at
# run time (no kernel code in this repository), as one `git format-patch` mail that applies to
# the tree's file. The cases:
#   ak8974  ak8974_await_drdy(): two polls of msleep(AK8974_MEASTIME) (3 ms), 12-16 ms at HZ=250
#           on 6.1, become two usleep_range(3000, 3250): about 6.5 ms
#           (qemu/profiles/ak8974_slow_conversion.yaml: a 9.7-10.3 ms conversion)
#   srf08   srf08_read_ranging(): after msleep(36), four reads with msleep(5) between, the last
#           about 75 ms after the ranging command at HZ=250 on 6.1, become usleep_range(5000,
#           6000): the last read by 61-65 ms (qemu/profiles/srf08_slow_ranging.yaml: 69-71 ms)
#
# usage: naive_patch.sh CASE TREE OUT_DIR
#
# The substitution must match exactly once, so another version of the driver fails loudly.
set -euo pipefail

if [ $# -ne 3 ]; then
    echo "usage: $0 ak8974|srf08 TREE OUT_DIR" >&2
    exit 2
fi
case=$1 tree=$2 out=$3
case $case in
ak8974)
    file=drivers/iio/magnetometer/ak8974.c
    # shellcheck disable=SC2016 # perl's variables
    substitution='s/^(\t\t)msleep\(AK8974_MEASTIME\);\n(\t\tret = regmap_read\(ak8974->map, AK8974_STATUS, &val\);)/$1usleep_range(AK8974_MEASTIME * 1000, AK8974_MEASTIME * 1000 + 250);\n$2/m'
    subject="iio: magnetometer: ak8974: Use usleep_range() for the DRDY poll"
    ;;
srf08)
    file=drivers/iio/proximity/srf08.c
    # shellcheck disable=SC2016
    substitution='s/^(\t\tif \(ret < 255 && ret > 0\)\n\t\t\tbreak;\n\t\t)msleep\(5\);/$1usleep_range(5000, 6000);/m'
    subject="iio: proximity: srf08: Use usleep_range() for the ranging poll"
    ;;
*)
    echo "$0: no case $case (ak8974, srf08)" >&2
    exit 2
    ;;
esac
[ -r "$tree/$file" ] || { echo "$0: no $file in $tree" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/$(dirname "$file")"
cp "$tree/$file" "$work/$file"
git -C "$work" init -q
git -C "$work" add "$file"
git -C "$work" -c user.name=ksweep -c user.email=ksweep@localhost commit -q -m base

SUBSTITUTION=$substitution CASE=$case perl -0777 -e '
    my $src = do { local $/; <STDIN> };
    my $n = eval "\$src =~ $ENV{SUBSTITUTION}";
    die "naive_patch: $ENV{CASE}: the poll sleep: $n matches, expected 1\n" if $n != 1;
    print $src;
' < "$work/$file" > "$work/$file.new"
mv "$work/$file.new" "$work/$file"

git -C "$work" -c user.name=ksweep -c user.email=ksweep@localhost commit -q -a \
    -m "$subject" \
    -m "The naive rewrite: the sleep alone, the loop's tries kept (a test case of ksweep's
L4, tests/negative/naive_patch.sh; never to be sent)."
mkdir -p "$out"
git -C "$work" format-patch -q -1 -o "$(cd "$out" && pwd)"
