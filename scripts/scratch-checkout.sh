#!/usr/bin/env bash
# A sparse git checkout of the base of a scratch repository: the one `ksweep series` makes for a
# tree outside git (Debian's linux-source), for hand work on the tree or for `git am` of its
# mails. The scratch base records every file of the tree but holds the content of few
# (docs/series.md). The clone shares the scratch repository's objects, takes the files its
# cone needs from TREE (the tree the repository was made from: a file changed since has
# another id, and the checkout then fails on it), and is a partial clone, so git lets the
# files outside its cone be missing.
#
# usage: scripts/scratch-checkout.sh SCRATCH_REPO TREE COMMIT INTO DIR...
#        DIRs in cone mode: each with everything below it, the files of its parent directories
#        and the top-level ones. COMMIT is checked out detached.
set -euo pipefail

if [ $# -lt 5 ]; then
    echo "usage: $0 SCRATCH_REPO TREE COMMIT INTO DIR..." >&2
    exit 2
fi
scratch=$1 tree=$2 commit=$3 into=$4
shift 4

git clone -q --shared --no-checkout "$scratch" "$into"
git -C "$into" config core.repositoryformatversion 1
git -C "$into" config extensions.partialClone origin
git -C "$into" config remote.origin.promisor true

# The cone's files (-type f) or symbolic links (-type l) of TREE, written into the clone (the
# scratch repository, in ksweep's cache, is left as it is).
cone() {
    local d p
    for d in "$@"; do
        find "$tree/$d" -type "$kind"
        p=$d
        while [ "$p" != . ]; do
            p=$(dirname "$p")
            find "$tree/$p" -maxdepth 1 -type "$kind"
        done
    done | sort -u
}
kind=f cone "$@" | git -C "$into" hash-object -w --no-filters --stdin-paths > /dev/null
kind=l cone "$@" | while read -r link; do
    printf %s "$(readlink "$link")" | git -C "$into" hash-object -w --stdin > /dev/null
done

git -C "$into" sparse-checkout set --cone "$@"
git -C "$into" checkout -q --detach "$commit"
