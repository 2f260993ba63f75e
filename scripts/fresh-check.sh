#!/usr/bin/env bash
# The README's two commands on a brand-new Debian 12 machine, for real: debootstrap a bookworm
# root from Debian's archive into a folder, clone this repository's HEAD into it (committed work
# only: what CI and a new user get), and run, as root inside it,
#     make test        as CI runs it (.ci/run: CI=true, warnings as errors), cold
#     make demo        the main job on the embedded default
#     make test-lava   L4 through lava-run against local L4 (a README command too)
# Nothing of the host's caches reaches the root: no ~/.cache/ksweep, no ccache, no build dir,
# no installed package but what debootstrap and the project's own setup install. The one step
# a new user takes before the README's commands is installing git and make to clone and run
# them; the script does the same and nothing more.
#
# Usage: scripts/fresh-check.sh [--root DIR] [--keep] [--no-lava] [--only demo|test|lava]...
#   --root DIR   where the root goes (default /var/tmp/ksweep-fresh-<time>; needs about 25 GB)
#   --keep       keep the root afterwards (its logs are kept in any case: DIR.logs/)
#   --no-lava    skip make test-lava (it installs lava-dispatcher: 128 packages, about 3 min)
#   --only STEP  run only the steps named (repeatable); the root is made as always
# Prints each step's wall time and result; exits non-zero if any step failed.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
root=/var/tmp/ksweep-fresh-$(date +%Y%m%d-%H%M%S)
keep="" lava=1 only=()
while [ $# -gt 0 ]; do
    case $1 in
    --root) root=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    --no-lava) lava=""; shift ;;
    --only) only+=("$2"); shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "fresh-check: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
[ "$(id -u)" -eq 0 ] || { echo "fresh-check: needs root (debootstrap, chroot, mounts)" >&2; exit 2; }
command -v debootstrap >/dev/null || { echo "fresh-check: needs debootstrap (apt-get install debootstrap)" >&2; exit 2; }
[ ! -e "$root" ] || { echo "fresh-check: $root exists; give a new --root" >&2; exit 2; }
logs=$root.logs
mkdir -p "$logs"

wanted() { # step
    [ ${#only[@]} -eq 0 ] && return 0
    local s
    for s in "${only[@]}"; do [ "$s" = "$1" ] && return 0; done
    return 1
}
elapsed() { # seconds -> "12m03s"
    printf '%dm%02ds' $(($1 / 60)) $(($1 % 60))
}
failed=0
# step NAME COMMAND...: runs it with its output in $logs/NAME.log, prints one line.
step() {
    local name=$1 start status
    shift
    start=$(date +%s)
    echo "fresh-check: $name ... (log: $logs/$name.log)"
    set +e
    "$@" >"$logs/$name.log" 2>&1
    status=$?
    set -e
    local took=$(($(date +%s) - start))
    if [ $status -eq 0 ]; then
        echo "fresh-check: $name: PASSED in $(elapsed $took)"
    else
        echo "fresh-check: $name: FAILED (exit $status) in $(elapsed $took); last lines of its log:"
        tail -n 25 "$logs/$name.log" | sed 's/^/    /'
        failed=1
    fi
    return $status
}

commit=$(git -C "$here" rev-parse HEAD)
if [ -n "$(git -C "$here" status --porcelain)" ]; then
    echo "fresh-check: note: uncommitted changes in $here are not part of the check (HEAD ${commit:0:12} is)"
fi
echo "fresh-check: $(date -u '+%Y-%m-%d %H:%M UTC'), HEAD ${commit:0:12}, root $root, load $(cut -d' ' -f1-3 /proc/loadavg)"

mirror=http://deb.debian.org/debian
step debootstrap debootstrap --variant=minbase bookworm "$root" "$mirror" || exit 1
cat >"$root/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main
EOF
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
git clone -q --no-local "$here" "$root/root/ksweep"
git -C "$root/root/ksweep" checkout -q "$commit"

# in_root SCRIPT: runs a shell script as root inside the new root, in a mount namespace of its
# own (proc, sys, dev, a tmpfs /dev/shm), so nothing stays mounted when it ends.
in_root() {
    unshare --mount --propagation private bash -c '
        set -e
        r=$1
        mount -t proc proc "$r/proc"
        mount -t sysfs sys "$r/sys"
        mount --rbind /dev "$r/dev"
        mount -t tmpfs -o mode=1777 tmpfs "$r/dev/shm"
        exec chroot "$r" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
            PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin bash -c "$2"' \
        in_root "$root" "$1"
}

# A new user's own first step: git and make, to clone and to run the README's commands.
step user-tools in_root 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends git make ca-certificates' || exit 1

# make test first: CI runs it in a fresh clone with nothing built, within 90 minutes, so its
# time here is the cold one; the demo then reuses what the tests built, as the README says.
if wanted test; then
    step make-test in_root 'cd /root/ksweep && CI=true bash .ci/run' || true
fi
if wanted demo; then
    step make-demo in_root 'cd /root/ksweep && make demo' || true
fi
if [ -n "$lava" ] && wanted lava; then
    step make-test-lava in_root 'cd /root/ksweep && make test-lava' || true
fi

if [ -z "$keep" ]; then
    rm -rf --one-file-system "$root"
    echo "fresh-check: removed $root (logs kept in $logs)"
fi
if [ $failed -ne 0 ]; then
    echo "fresh-check: FAILED"
    exit 1
fi
echo "fresh-check: PASSED"
