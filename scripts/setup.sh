#!/usr/bin/env bash
# Idempotent setup for ksweep: installs the Debian packages the build, the tests and the demo
# need, and unpacks Debian's Linux 6.1 source once into a cache outside the repository.
# Safe to run again: it installs only what is missing and never re-unpacks a complete tree.
set -euo pipefail

cache=${KSWEEP_CACHE:-$HOME/.cache/ksweep}

packages=(
    build-essential cmake ninja-build pkg-config git
    clang-14 libclang-14-dev llvm-14-dev        # the C++ tooling API (LibTooling)
    libgit2-dev libyaml-cpp-dev googletest libgtest-dev libgmock-dev
    libgmime-3.0-dev                             # mails decoded as git mailinfo reads them
    git-email libmailtools-perl                  # git send-email: the tests' encoded mails
    coccinelle                                   # spatch, the Coccinelle twin
    linux-source-6.1 linux-headers-amd64 linux-image-amd64
    linux-source-6.12                            # a tree with no matching headers: "any tree"
    flex bison bc libelf-dev libssl-dev kmod cpio zstd xz-utils perl python3
    qemu-system-x86 libtpms-dev busybox-static   # the emulated I2C TPM and its guest
    librsvg2-bin                                 # rsvg-convert: validate's SVG to PNG
    libpcre2-dev                                 # Perl regexes of MAINTAINERS (N:, K:)
    nlohmann-json3-dev                           # every JSON ksweep writes and reads
    clang-format-14 clang-tidy-14                # the lint tests (and run-clang-tidy-14)
    lava-common                                  # LAVA job schema: the --lava jobs are checked
)

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing ${missing[*]}"
    sudo_cmd=""
    [ "$(id -u)" -eq 0 ] || sudo_cmd=sudo
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Image, headers and source must be one version, or modules built here will not match the
# kernel the guest boots.
src_ver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
img_pkg=$(dpkg-query -W -f='${Depends}' linux-image-amd64 | grep -o 'linux-image-[^ ,]*' | head -1)
hdr_pkg=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 | grep -o 'linux-headers-[^ ,]*' | head -1)
img_ver=$(dpkg-query -W -f='${Version}' "$img_pkg")
hdr_ver=$(dpkg-query -W -f='${Version}' "$hdr_pkg")
if [ "$src_ver" != "$img_ver" ] || [ "$src_ver" != "$hdr_ver" ]; then
    echo "setup: version mismatch: linux-source-6.1 $src_ver, $img_pkg $img_ver, $hdr_pkg $hdr_ver" >&2
    exit 1
fi

# Each source package unpacked once; the marker is written last, so an interrupted unpack is
# redone, never trusted.
unpack() { # package, directory
    local ver
    ver=$(dpkg-query -W -f='${Version}' "$1")
    if [ ! -f "$2/.ksweep-unpacked-$ver" ]; then
        echo "setup: unpacking $1 $ver into $2"
        rm -rf "$2" "$2.tmp"
        mkdir -p "$2.tmp"
        tar -xaf "/usr/src/$1.tar.xz" -C "$2.tmp" --strip-components=1
        mv "$2.tmp" "$2"
        touch "$2/.ksweep-unpacked-$ver"
    fi
}
tree=$cache/linux-source-6.1
unpack linux-source-6.1 "$tree"
tree_6_12=$cache/linux-source-6.12
unpack linux-source-6.12 "$tree_6_12"

# Facts later steps read instead of guessing them again.
{
    echo "KSWEEP_TREE_6_1=$tree"
    echo "KSWEEP_TREE_6_12=$tree_6_12"
    echo "KSWEEP_HEADERS=/usr/src/${hdr_pkg}"
    echo "KSWEEP_KERNEL_RELEASE=${img_pkg#linux-image-}"
    echo "KSWEEP_KERNEL_VERSION=$src_ver"
} > "$cache/env"
echo "setup: ready ($cache/env)"
