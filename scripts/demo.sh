#!/usr/bin/env bash
# make demo: the main job on the embedded default (Debian's Linux 6.1 source, drivers/char/tpm).
set -euo pipefail
cd "$(dirname "$0")/.."
. "${KSWEEP_CACHE:-$HOME/.cache/ksweep}/env"
exec build/ksweep scan "$KSWEEP_TREE_6_1" drivers/char/tpm
