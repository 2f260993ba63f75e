#!/usr/bin/env bash
# Turns Linux 6.1's drivers/char/tpm/tpm_i2c_nuvoton.c back into its pre-v4.12 form: the
# msleep() version that upstream commit a233a0289cf9 ("tpm: msleep() delays - replace with
# usleep_range() in i2c nuvoton driver") fixed. The historical case for `ksweep fix`.
#
# usage: nuvoton_pre_v4_12.sh IN OUT   (IN is the 6.1 file; OUT may equal IN)
#
# Every substitution must match exactly as often as expected, so a different input fails
# loudly instead of giving a half-reverted file.
set -euo pipefail

if [ $# -ne 2 ]; then
    echo "usage: $0 IN OUT" >&2
    exit 2
fi
in=$1 out=$2
[ -r "$in" ] || { echo "$0: cannot read $in" >&2; exit 2; }

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

perl -0777 -e '
    my $src = do { local $/; <STDIN> };
    my $t = "\t";
    sub once {
        my ($what, $count, $re, $by) = @_;
        my $n = ($src =~ s/$re/$by->()/ge);
        die "nuvoton_pre_v4_12: $what: $n matches, expected $count\n" if $n != $count;
    }
    # The delay macros were in milliseconds, and there was no named slack constant.
    once("delay macros", 1,
        qr/^#define TPM_I2C_BUS_DELAY .*\n#define TPM_I2C_RETRY_DELAY_SHORT .*\n#define TPM_I2C_RETRY_DELAY_LONG .*\n#define TPM_I2C_DELAY_RANGE .*\n/m,
        sub { "#define TPM_I2C_BUS_DELAY              1       /* msec */\n"
            . "#define TPM_I2C_RETRY_DELAY_SHORT      2       /* msec */\n"
            . "#define TPM_I2C_RETRY_DELAY_LONG       10      /* msec */\n" });
    # i2c_nuvoton_write_status() slept after every write, with no "if (status < 0)" guard.
    once("write_status sleep", 1,
        qr/^(\t+)if \(status < 0\)\n\t+usleep_range\(TPM_I2C_BUS_DELAY, TPM_I2C_BUS_DELAY\n\t+ +\+ TPM_I2C_DELAY_RANGE\);\n/m,
        sub { "$1msleep(TPM_I2C_BUS_DELAY);\n" });
    # i2c_nuvoton_get_burstcount().
    once("get_burstcount sleep", 1,
        qr/^(\t+)usleep_range\(TPM_I2C_BUS_DELAY, TPM_I2C_BUS_DELAY\n\t+ +\+ TPM_I2C_DELAY_RANGE\);\n/m,
        sub { "$1msleep(TPM_I2C_BUS_DELAY);\n" });
    # i2c_nuvoton_wait_for_stat(): the polling window and both sleeps.
    once("wait_for_stat window", 1,
        qr/usecs_to_jiffies\(TPM_I2C_RETRY_DELAY_LONG\)/,
        sub { "msecs_to_jiffies(TPM_I2C_RETRY_DELAY_LONG)" });
    once("wait_for_stat sleeps", 2,
        qr/^(\t+)usleep_range\((TPM_I2C_RETRY_DELAY_(?:SHORT|LONG)),\n\t+ +\2\n\t+ +\+ TPM_I2C_DELAY_RANGE\);\n/m,
        sub { "$1msleep($2);\n" });
    die "nuvoton_pre_v4_12: usleep_range left over\n" if $src =~ /usleep_range|DELAY_RANGE/;
    print $src;
' < "$in" > "$tmp"
cat "$tmp" > "$out"
