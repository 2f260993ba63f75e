// Objects written into a repository as one pack file instead of one loose file each: a tree
// snapshot of 70,000 files lands as one file of about a quarter of its size, and a sweep's
// commits as another. Each object is stored whole (no deltas) and zlib-compressed; libgit2's
// indexer (git_odb_write_pack) checks the pack and writes its index, so the pack is only in the
// repository once it is complete.
#pragma once

#include <cstddef>
#include <filesystem>
#include <git2.h>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ksweep::git {

// An object ready to go into a pack: its header and compressed content. Made on any thread.
struct PackEntry {
    std::string bytes;
};
PackEntry pack_entry(git_object_t type, std::string_view content);

class PackWriter {
  public:
    // `count`: exactly how many entries add() will be given (the pack's header says it first);
    // 0 writes no pack.
    PackWriter(git_repository* repo, size_t count);
    ~PackWriter();
    PackWriter(const PackWriter&) = delete;
    PackWriter& operator=(const PackWriter&) = delete;

    void add(const PackEntry& entry);
    // Finishes the pack and lets the indexer install it. Throws GitError when fewer or more
    // entries came than announced, or the indexer refuses the pack.
    void commit();
    // Once committed: the pack's name, pack-<checksum> (its files are objects/pack/NAME.*).
    const std::string& name() const;

  private:
    void append(std::string_view bytes, bool hashed = true);
    struct State;
    std::unique_ptr<State> state_;
};

// Every object `repo` writes while this lives is kept in memory (libgit2's mempack backend, in
// front of the repository's own) until flush() writes the ones new commits need as a pack; a run
// that flushed several times (once per branch it makes) then consolidate()s them into one.
// Destroy it before the repository.
class PackedWrites {
  public:
    explicit PackedWrites(git_repository* repo);
    ~PackedWrites();
    PackedWrites(const PackedWrites&) = delete;
    PackedWrites& operator=(const PackedWrites&) = delete;

    // Writes the objects in memory that `tips` (commits, or blobs to keep) reach as one pack
    // (nothing when there is none), then empties the memory. The walk keeps to the memory: an
    // object in it that only a tree on disk names (a file as it was, which the base may lack) is
    // kept only when it is a tip itself. Call it before a reference names one of them: a
    // reference must never name an object only in memory. Returns how many were written.
    size_t flush(const std::vector<git_oid>& tips);

    // The packs the flushes wrote, as one: the new pack is written before the small ones are
    // removed. Returns how many were merged (0 for fewer than two).
    size_t consolidate();

  private:
    git_repository* repo_;
    git_odb_backend* memory_; // owned by the repository's object database once added
    std::vector<git_oid> written_;
    std::vector<std::filesystem::path> packs_;
};

// Every object the repository's references reach (and it holds), written as one pack; the packs
// there before are removed once it is in place, and the loose objects it holds, so what no
// reference reaches any more goes from the packs. What `git repack -a -d` does, but for a
// repository whose base leaves out content (base_blobs.h), which git would refuse as corrupt.
// Returns how many objects it kept.
size_t repack(git_repository* repo);

} // namespace ksweep::git
