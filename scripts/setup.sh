#!/usr/bin/env bash
# Idempotent setup for ksweep: installs the Debian packages the build, the tests and the demo
# need, and unpacks Debian's Linux 6.1 and 6.12 sources once into a cache outside the repository.
# Safe to run again: it installs only what is missing and never re-unpacks a complete tree.
# Arguments: further packages a make target needs (make test-lava: lava-dispatcher).
# Debian moves its kernel packages on to new point releases: the 6.1 source, headers and image
# are kept at one version (brought up together when they differ), and a source of a new
# version replaces the unpacked tree of the old one whole (setup's marker names the version).
set -euo pipefail

cache=${KSWEEP_CACHE:-$HOME/.cache/ksweep}

packages=(
    build-essential cmake ninja-build pkg-config git
    time                                         # /usr/bin/time: the benches' CPU and RSS
    clang-14 libclang-14-dev llvm-14-dev        # the C++ tooling API (LibTooling)
    libclang-rt-14-dev                           # libFuzzer and the sanitizers: the fuzz targets
    libgit2-dev libyaml-cpp-dev googletest libgtest-dev libgmock-dev
    libgmime-3.0-dev                             # mails decoded as git mailinfo reads them
    git-email libmailtools-perl                  # git send-email: the tests' encoded mails
    coccinelle                                   # spatch, the Coccinelle twin
    libpython3-dev                               # spatch dlopens libpython3.X.so at start
    linux-source-6.1 linux-headers-amd64 linux-image-amd64
    linux-source-6.12                            # a tree with no matching headers: "any tree"
    flex bison bc libelf-dev libssl-dev kmod cpio zstd xz-utils perl python3
    qemu-system-x86 libtpms-dev busybox-static   # the emulated I2C TPM and its guest
    librsvg2-bin                                 # rsvg-convert: validate's SVG to PNG
    libpcre2-dev                                 # Perl regexes of MAINTAINERS (N:, K:)
    nlohmann-json3-dev                           # every JSON ksweep writes and reads
    clang-format-14 clang-tidy-14                # the lint tests (and run-clang-tidy-14)
    lava-common                                  # LAVA job schema: the --lava jobs are checked
    "$@"
)

sudo_cmd=""
[ "$(id -u)" -eq 0 ] || sudo_cmd=sudo
updated=""
apt_install() { # packages...
    if [ -z "$updated" ]; then
        $sudo_cmd apt-get update -qq
        updated=1
    fi
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "$@"
}

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing ${missing[*]}"
    apt_install "${missing[@]}"
fi

# Image, headers and source must be one version, or modules built against the headers will not
# match the source they were built from.
depends_on() { # metapackage, prefix: the versioned package it installs
    dpkg-query -W -f='${Depends}' "$1" | grep -o "$2-[^ ,]*" | head -1
}
kernel_versions() { # "source image headers"
    echo "$(dpkg-query -W -f='${Version}' linux-source-6.1)" \
        "$(dpkg-query -W -f='${Version}' "$(depends_on linux-image-amd64 linux-image)")" \
        "$(dpkg-query -W -f='${Version}' "$(depends_on linux-headers-amd64 linux-headers)")"
}
read -r src_ver img_ver hdr_ver < <(kernel_versions)
if [ "$src_ver" != "$img_ver" ] || [ "$src_ver" != "$hdr_ver" ]; then
    # One of them was installed earlier and Debian has moved on since: bring all three to the
    # archive's current version together.
    echo "setup: linux-source-6.1 $src_ver, image $img_ver, headers $hdr_ver differ: upgrading them together"
    apt_install linux-source-6.1 linux-image-amd64 linux-headers-amd64
    read -r src_ver img_ver hdr_ver < <(kernel_versions)
    if [ "$src_ver" != "$img_ver" ] || [ "$src_ver" != "$hdr_ver" ]; then
        echo "setup: version mismatch after upgrading: linux-source-6.1 $src_ver, image $img_ver," \
            "headers $hdr_ver (the archive itself differs; try again after its next update)" >&2
        exit 1
    fi
fi
img_pkg=$(depends_on linux-image-amd64 linux-image)
hdr_pkg=$(depends_on linux-headers-amd64 linux-headers)

# Each source package unpacked once; the marker is written last, so an interrupted unpack is
# redone, never trusted, and a new version replaces the old tree whole (never unpacked over it).
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
