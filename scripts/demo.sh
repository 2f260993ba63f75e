#!/usr/bin/env bash
# make demo: the whole pipeline on the embedded default (ksweep demo --help tells what it does).
set -euo pipefail
cd "$(dirname "$0")/.."
exec "${BUILD:-build}/src/cli/ksweep" demo "$@"
