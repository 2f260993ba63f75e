#!/usr/bin/env bash
# No test or script pins the version of a package setup installs: Debian moves linux-source-6.1,
# linux-source-6.12 and the headers on to new point releases, and a test that expects last
# month's release fails on a fresh machine while passing on the one that installed it.
# Tests read the tree's version (`make kernelversion`, ~/.cache/ksweep/env) instead; made-up
# versions in unit tests use forms no Debian package has (6.12.7, 6.1.0-0-test).
# Flags a kernel point release of 6.1/6.12 with two or three digits (6.1.NNN, 6.12.NNN) and a
# Debian ABI name (6.1.0-NN-amd64) anywhere in tests/, scripts/, lava/ and the Makefile, except
# the C fixtures, which are inputs, not expectations.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
# (a regex's escaped dots too: 6\.12\.NNN)
pattern='6\\?\.(1|12)\\?\.[0-9]{2,3}([^0-9]|$)|6\.1\.0-[0-9]{2,}-amd64'
hits=$(grep -rnE "$pattern" tests scripts lava Makefile .ci 2>/dev/null | grep -v '^tests/fixtures/' || true)
if [ -n "$hits" ]; then
    echo "$hits"
    echo "version_pins: $(echo "$hits" | wc -l) line(s) pin a Debian kernel package version;" \
        "read the tree's version instead (tests/integration/check_tree_6_1.h: tree_kernel_version)" >&2
    exit 1
fi
echo "version_pins: no pinned kernel package versions in tests/, scripts/, lava/, Makefile"
