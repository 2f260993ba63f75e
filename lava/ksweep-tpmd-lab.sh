#!/bin/sh
# ksweep-tpmd-lab.sh start|stop DEVICE: the dispatcher side of a ksweep LAVA job on device type
# qemu. The device dictionary (qemu-ksweep.jinja2) names it as the user command
# ksweep_tpmd_DEVICE; the job's `command` action runs "start" before the boot and LAVA runs
# "stop" at cleanup. ksweep-tpmd serves the emulated I2C TPM on /run/ksweep/DEVICE.sock, the
# socket the job's extra_options hand QEMU (src/validate/lava_export.cpp), with the device's
# default profile from the registry of this ksweep checkout; it exits when QEMU disconnects.
#
# KSWEEP_HOME: the ksweep checkout with its build (default: the one this script is in).
set -eu
action=${1:?start or stop}
device=${2:?device registry entry, e.g. tpm_i2c_nuvoton}
home=${KSWEEP_HOME:-$(cd "$(dirname "$0")/.." && pwd)}
run=${KSWEEP_LAVA_RUN:-/run/ksweep}
base=$run/$device

case $action in
start)
    mkdir -p "$run"
    [ -f "$base.pid" ] && kill "$(cat "$base.pid")" 2>/dev/null || true
    rm -rf "$base.sock" "$base.state" "$base.out"
    mkdir -p "$base.state"
    # At nice -10 like a local boot's back end (needs root or CAP_SYS_NICE; else as is).
    setsid nice -n -10 "$home/build/src/device/ksweep-tpmd" --registry "$home/qemu/devices.yaml" \
        --device "$device" --socket "$base.sock" --state-dir "$base.state" \
        --stats "$base.stats.json" --log "$base.log" >"$base.out" 2>&1 </dev/null &
    echo $! >"$base.pid"
    # "ready" once it listens (as the local runner waits for it).
    for _ in $(seq 100); do
        grep -q '^ready' "$base.out" 2>/dev/null && exit 0
        kill -0 "$(cat "$base.pid")" 2>/dev/null || break
        sleep 0.1
    done
    echo "ksweep-tpmd for $device did not become ready:" >&2
    cat "$base.out" >&2
    exit 1
    ;;
stop)
    [ -f "$base.pid" ] && kill "$(cat "$base.pid")" 2>/dev/null || true
    rm -f "$base.pid" "$base.sock"
    ;;
*)
    echo "usage: $0 start|stop DEVICE" >&2
    exit 2
    ;;
esac
