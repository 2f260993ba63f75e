#!/bin/sh
# /init of the ksweep validation guest (busybox sh). Loads the modules listed in
# /lib/modules/load.order (the drivers under test and the guest kernel's modules they need; what
# the guest kernel has built in, such as i2c-virtio, needs no insmod), creates the I2C device
# through sysfs (or, a TPM with its interrupt line, through the bind module), then for a TPM waits
# for /dev/tpm0 and runs the extend benchmark, for a device file's chip waits for its sysfs target
# and runs its operation (ksweep_op), and powers off. Every line for the host starts with
# "ksweep-guest:" or
# "ksweep-extend:" (see src/guest/guest_output.cpp); the host also enforces a timeout, so
# this script never needs to wait forever.
#
# Kernel command line parameters (set by the runner):
#   ksweep.n=N            extends to run (default 10)
#   ksweep.device=NAME    I2C device id to instantiate (default tpm2_i2c_nuvoton)
#   ksweep.addr=0xNN      its 7-bit address (default 0x2e)
#   ksweep.tpm=2.0|1.2    the TPM family the extend benchmark speaks (default 2.0)
#   ksweep.irq=ivshmem    the chip's interrupt is the ivshmem doorbell's MSI-X vector: the
#                         client is created by /lib/modules/bind/ksweep_i2c_bind.ko with it
#                         (new_device cannot pass an IRQ)
#   ksweep.wait=S         seconds to wait for /dev/tpm0 or the target (default 20)
#   ksweep.op=OP          a device file's operation instead of the TPM benchmark: read or
#                         rtc-set-time (ksweep_op), N times
#   ksweep.target=PATH    its sysfs target below the client (a glob: iio:device*/in_magn_x_raw)
#   ksweep.arg=VALUE      its argument (rtc-set-time: the time)
#   ksweep.lava=1         a LAVA job's boot: stop at a shell once /dev/tpm0 is there; the job's
#                         test definition (lava/ksweep-extend.yaml) runs the benchmark

/bin/busybox mkdir -p /proc /sys /dev /usr/bin /usr/sbin /sbin
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sysfs /sys
/bin/busybox mount -t devtmpfs devtmpfs /dev
/bin/busybox --install -s
# Only errors reach the console from here on: kernel messages would split our lines.
echo 3 > /proc/sys/kernel/printk

say() { echo "ksweep-guest: $*"; }

finish() {
    say "dmesg-begin"
    dmesg | grep -Ei "tpm|i2c|virtio|ivshmem|taint|$device" | sed 's/^/ksweep-guest: dmesg /'
    say "dmesg-end"
    say "phase poweroff"
    sync
    poweroff -f
}

fail() {
    say "error $*"
    finish
}

n=10 device=tpm2_i2c_nuvoton addr=0x2e tpm=2.0 wait=20 lava= irq= op= target= oparg=
for arg in $(cat /proc/cmdline); do
    case "$arg" in
        ksweep.n=*) n=${arg#*=} ;;
        ksweep.device=*) device=${arg#*=} ;;
        ksweep.addr=*) addr=${arg#*=} ;;
        ksweep.tpm=*) tpm=${arg#*=} ;;
        ksweep.wait=*) wait=${arg#*=} ;;
        ksweep.lava=*) lava=${arg#*=} ;;
        ksweep.irq=*) irq=${arg#*=} ;;
        ksweep.op=*) op=${arg#*=} ;;
        ksweep.target=*) target=${arg#*=} ;;
        ksweep.arg=*) oparg=${arg#*=} ;;
    esac
done
say "phase init kernel=$(uname -r) uptime=$(cut -d' ' -f1 /proc/uptime)"

# The HZ the kernel really runs at: jiffies counted against its own clock over half a second
# (/proc/timer_list: "now at N nsecs", then "jiffies: N"). The host compares it with CONFIG_HZ.
timer_now() { sed -n 's/^now at \([0-9]*\) nsecs$/\1/p; s/^jiffies: //p' /proc/timer_list | head -2; }
if [ -r /proc/timer_list ]; then
    set -- $(timer_now)
    ns=$1 jiffies=$2
    usleep 500000
    set -- $(timer_now)
    say "hz measured=$(( (($2 - jiffies) * 1000000000 + ($1 - ns) / 2) / ($1 - ns) ))"
else
    say "hz measured=unknown (no /proc/timer_list)"
fi

say "phase modules"
while read -r module; do
    [ -n "$module" ] || continue
    out=$(insmod "/lib/modules/$module" 2>&1) || fail "insmod $module: $out"
    say "module $module"
done < /lib/modules/load.order

# The virtio I2C adapter: the only adapter this guest has drivers for, but look it up by name.
adapter=
for bus in /sys/bus/i2c/devices/i2c-*; do
    grep -qi virtio "$bus/name" 2>/dev/null && adapter=$bus && break
done
[ -n "$adapter" ] || fail "no virtio I2C adapter (is the vhost-user-i2c device there?)"
say "phase probe adapter=${adapter##*/} device=$device addr=$addr irq=${irq:-none}"
if [ "$irq" = ivshmem ]; then
    out=$(insmod /lib/modules/bind/ksweep_i2c_bind.ko adapter="${adapter##*/i2c-}" \
        type="$device" addr="$addr" 2>&1) || fail "bind module: $out"
else
    echo "$device $addr" > "$adapter/new_device" || fail "new_device $device $addr refused"
fi
say "client ${adapter##*/i2c-}-$(printf %04x "$addr")"

if [ -n "$op" ]; then
    # The operation as one command: run here, or by a LAVA job's test definition, which knows
    # nothing of the device (lava_job.cpp runs /bin/ksweep-operation).
    if [ "$op" = rtc-set-time ]; then
        opcmd="/bin/ksweep_op rtc-set-time $addr '$target' $oparg $n"
    else
        opcmd="/bin/ksweep_op $op $addr '$target' $n"
    fi
    printf '#!/bin/sh\nexec %s\n' "$opcmd" > /bin/ksweep-operation
    chmod +x /bin/ksweep-operation
    say "phase wait-target $target"
    out=$(/bin/ksweep_op wait "$addr" "$target" "$wait") || fail "$out"
    if [ -n "$lava" ]; then
        say "phase lava-shell"
        exec setsid cttyhack sh
    fi
    say "phase operation $op n=$n"
    before=$(dmesg | wc -l)
    /bin/ksweep-operation
    status=$?
    # What the kernel said while the operations ran: the driver's own error, if any.
    dmesg | tail -n +$((before + 1)) | head -20 | sed 's/^/ksweep-guest: opmsg /'
    [ $status = 0 ] || say "error ksweep_op exit status $status"
    finish
fi

say "phase wait-tpm0"
tries=$((wait * 10))
while [ ! -c /dev/tpm0 ] && [ $tries -gt 0 ]; do
    usleep 100000
    tries=$((tries - 1))
done
[ -c /dev/tpm0 ] || fail "/dev/tpm0 did not appear within ${wait}s (probe failed?)"
say "tpm0 $(cat /sys/class/tpm/tpm0/tpm_version_major 2>/dev/null)"

if [ -n "$lava" ]; then
    say "phase lava-shell"
    exec setsid cttyhack sh
fi

say "phase extend n=$n"
/bin/tpm_extend --tpm "$tpm" "$n" /dev/tpm0 || say "error tpm_extend exit status $?"
finish
