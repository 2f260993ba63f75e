#include "git/pack_writer.h"

#include "core/sha256.h"
#include "git/git_handle.h"

#include <filesystem>
#include <functional>
#include <git2/sys/mempack.h>
#include <git2/sys/odb_backend.h>
#include <set>
#include <vector>
#include <zlib.h>

namespace fs = std::filesystem;

namespace ksweep::git {

namespace {

// The pack's type codes (gitformat-pack(5)).
int pack_type(git_object_t type) {
    switch (type) {
    case GIT_OBJECT_COMMIT:
        return 1;
    case GIT_OBJECT_TREE:
        return 2;
    case GIT_OBJECT_BLOB:
        return 3;
    case GIT_OBJECT_TAG:
        return 4;
    default:
        throw GitError("no pack type for object type " + std::to_string(type));
    }
}

// The pack files of the repository (objects/pack/*.pack).
std::set<fs::path> packs_in(git_repository* repo) {
    std::set<fs::path> packs;
    std::error_code ec;
    for (const auto& e :
         fs::directory_iterator(fs::path(git_repository_path(repo)) / "objects/pack", ec))
        if (e.path().extension() == ".pack")
            packs.insert(e.path());
    return packs;
}

std::string be32(uint32_t v) {
    return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
            static_cast<char>(v)};
}

} // namespace

PackEntry pack_entry(git_object_t type, std::string_view content) {
    PackEntry e;
    // The header: type and size, 4 bits of the size in the first byte, 7 in each next one.
    size_t size = content.size();
    unsigned char byte = static_cast<unsigned char>(pack_type(type) << 4 | (size & 0x0f));
    size >>= 4;
    while (size) {
        e.bytes += static_cast<char>(byte | 0x80);
        byte = size & 0x7f;
        size >>= 7;
    }
    e.bytes += static_cast<char>(byte);
    uLongf bound = compressBound(static_cast<uLong>(content.size()));
    const size_t header = e.bytes.size();
    e.bytes.resize(header + bound);
    if (compress2(reinterpret_cast<Bytef*>(e.bytes.data() + header), &bound,
                  reinterpret_cast<const Bytef*>(content.data()),
                  static_cast<uLong>(content.size()), Z_DEFAULT_COMPRESSION) != Z_OK)
        throw GitError("zlib cannot compress an object of " + std::to_string(content.size()) +
                       " bytes");
    e.bytes.resize(header + bound);
    return e;
}

struct PackWriter::State {
    git_odb* odb = nullptr;
    git_odb_writepack* pack = nullptr;
    git_indexer_progress progress{};
    Digest trailer{"sha1"};
    std::string name; // once committed: pack-<checksum>, as libgit2 names its files
    size_t announced = 0, added = 0;
    bool committed = false;
};

PackWriter::PackWriter(git_repository* repo, size_t count) : state_(std::make_unique<State>()) {
    state_->announced = count;
    if (count == 0)
        return; // nothing to write: no pack
    check(git_repository_odb(&state_->odb, repo), "git_repository_odb");
    check(git_odb_write_pack(&state_->pack, state_->odb, nullptr, nullptr), "git_odb_write_pack");
    append("PACK" + be32(2) + be32(static_cast<uint32_t>(count)));
}

PackWriter::~PackWriter() {
    if (state_->pack)
        state_->pack->free(state_->pack); // an uncommitted pack is dropped by the indexer
    if (state_->odb)
        git_odb_free(state_->odb);
}

void PackWriter::append(std::string_view bytes, bool hashed) {
    if (hashed)
        state_->trailer.update(bytes);
    check(state_->pack->append(state_->pack, bytes.data(), bytes.size(), &state_->progress),
          "appending to a pack");
}

const std::string& PackWriter::name() const {
    return state_->name;
}

void PackWriter::add(const PackEntry& entry) {
    ++state_->added;
    append(entry.bytes);
}

void PackWriter::commit() {
    if (state_->added != state_->announced)
        throw GitError("a pack announced " + std::to_string(state_->announced) +
                       " objects and was given " + std::to_string(state_->added));
    if (state_->announced == 0)
        return;
    const Bytes sum = state_->trailer.finish();
    append(std::string_view(reinterpret_cast<const char*>(sum.data()), sum.size()), false);
    check(state_->pack->commit(state_->pack, &state_->progress), "indexing a pack");
    state_->name = "pack-" + to_hex(sum);
    state_->committed = true;
}

PackedWrites::PackedWrites(git_repository* repo) : repo_(repo) {
    Odb odb = repository_odb(repo);
    check(git_mempack_new(&memory_), "git_mempack_new");
    // Ahead of the loose and packed backends (priorities 1 and 2): new objects land here.
    if (git_odb_add_backend(odb.get(), memory_, 999) < 0) {
        memory_->free(memory_);
        check(-1, "git_odb_add_backend");
    }
}

PackedWrites::~PackedWrites() {
    git_mempack_reset(memory_); // what was not flushed is dropped, never half written
}

namespace {

// The objects reachable from `tips` that `keep` accepts, each once, tips first; the walk does
// not go on through an object `keep` refuses.
std::vector<git_oid> reachable(git_repository* repo, std::vector<git_oid> todo,
                               const std::function<bool(const git_oid&)>& keep) {
    std::vector<git_oid> order;
    std::set<std::string> seen;
    while (!todo.empty()) {
        const git_oid id = todo.back();
        todo.pop_back();
        if (!seen.insert(oid_hex(id)).second || !keep(id))
            continue;
        order.push_back(id);
        git_object* obj = nullptr;
        check(git_object_lookup(&obj, repo, &id, GIT_OBJECT_ANY), "git_object_lookup");
        Object owned(obj);
        if (git_object_type(obj) == GIT_OBJECT_COMMIT) {
            const auto* c = reinterpret_cast<const git_commit*>(obj);
            todo.push_back(*git_commit_tree_id(c));
            for (unsigned i = 0; i < git_commit_parentcount(c); ++i)
                todo.push_back(*git_commit_parent_id(c, i));
        } else if (git_object_type(obj) == GIT_OBJECT_TREE) {
            const auto* t = reinterpret_cast<const git_tree*>(obj);
            for (size_t i = 0; i < git_tree_entrycount(t); ++i) {
                const git_tree_entry* e = git_tree_entry_byindex(t, i);
                if (git_tree_entry_type(e) != GIT_OBJECT_COMMIT) // a submodule's: not ours
                    todo.push_back(*git_tree_entry_id(e));
            }
        } else if (git_object_type(obj) == GIT_OBJECT_TAG) {
            todo.push_back(*git_tag_target_id(reinterpret_cast<const git_tag*>(obj)));
        }
    }
    return order;
}

// Writes `ids` (read from `odb`) into `repo` as one pack; returns its name (pack-<checksum>).
std::string write_pack_of(git_repository* repo, git_odb* odb, const std::vector<git_oid>& ids) {
    PackWriter pack(repo, ids.size());
    for (const git_oid& id : ids) {
        git_odb_object* raw_object = nullptr;
        check(git_odb_read(&raw_object, odb, &id), "git_odb_read");
        GitPtr<git_odb_object, git_odb_object_free> object(raw_object);
        pack.add(
            pack_entry(git_odb_object_type(object.get()),
                       std::string_view(static_cast<const char*>(git_odb_object_data(object.get())),
                                        git_odb_object_size(object.get()))));
    }
    pack.commit();
    return pack.name();
}

void remove_pack(const fs::path& pack) {
    std::error_code ec;
    for (const char* ext : {".idx", ".rev", ".pack"})
        fs::remove(fs::path(pack).replace_extension(ext), ec);
}

} // namespace

size_t PackedWrites::flush(const std::vector<git_oid>& tips) {
    // What this run made is what the memory holds (libgit2 writes no object the repository has
    // already), so the walk keeps to it: everything else is on disk, or is a file a scratch base
    // leaves out (base_blobs.h).
    const std::vector<git_oid> order = reachable(
        repo_, tips, [&](const git_oid& id) { return memory_->exists(memory_, &id) != 0; });
    Odb all = repository_odb(repo_);
    if (!order.empty()) {
        const std::set<fs::path> before = packs_in(repo_);
        write_pack_of(repo_, all.get(), order);
        for (const fs::path& made : packs_in(repo_))
            if (!before.count(made))
                packs_.push_back(made);
        written_.insert(written_.end(), order.begin(), order.end());
    }
    check(git_mempack_reset(memory_), "git_mempack_reset");
    return order.size();
}

size_t PackedWrites::consolidate() {
    if (packs_.size() < 2)
        return 0;
    Odb odb = repository_odb(repo_);
    write_pack_of(repo_, odb.get(), written_);
    // The objects are in the new pack before the small ones go: a reader never misses one.
    for (const fs::path& pack : packs_)
        remove_pack(pack);
    const size_t merged = packs_.size();
    packs_.clear();
    return merged;
}

size_t repack(git_repository* repo) {
    // Only the packs there now go. A run that flushes a pack meanwhile and names its objects
    // from a branch made after the walk below could still lose them, as with git's repack:
    // prune takes the repository's lock, which a series holds only while opening it.
    const std::set<fs::path> before = packs_in(repo);
    std::vector<git_oid> tips;
    git_reference_iterator* raw_it = nullptr;
    check(git_reference_iterator_new(&raw_it, repo), "git_reference_iterator_new");
    GitPtr<git_reference_iterator, git_reference_iterator_free> it(raw_it);
    int rc = 0;
    for (git_reference* raw_ref = nullptr; (rc = git_reference_next(&raw_ref, it.get())) == 0;) {
        Reference ref(raw_ref);
        git_reference* raw_resolved = nullptr;
        const int resolved_rc = git_reference_resolve(&raw_resolved, ref.get());
        if (resolved_rc == GIT_ENOTFOUND)
            continue; // a symbolic reference to no branch yet (a bare HEAD)
        check(resolved_rc, "git_reference_resolve");
        Reference resolved(raw_resolved);
        if (const git_oid* id = git_reference_target(resolved.get()))
            tips.push_back(*id);
    }
    if (rc != GIT_ITEROVER)
        check(rc, "git_reference_next"); // a reference not read: its objects would go
    // What the repository holds: not a scratch base's files no run needed (base_blobs.h).
    Odb odb = repository_odb(repo);
    // The packs as they are now, read once: an object a lookup misses is then not sought again.
    check(git_odb_refresh(odb.get()), "git_odb_refresh");
    const std::vector<git_oid> kept = reachable(repo, tips, [&](const git_oid& id) {
        return git_odb_exists_ext(odb.get(), &id, GIT_ODB_LOOKUP_NO_REFRESH) != 0;
    });
    const std::string made = write_pack_of(repo, odb.get(), kept);
    // The new pack is in place before the old ones go; the same objects written again make
    // the same pack, which stays.
    for (const fs::path& pack : before)
        if (pack.stem().string() != made)
            remove_pack(pack);
    // Loose objects now in the pack go too (git's prune-packed); others are left.
    const fs::path objects = fs::path(git_repository_path(repo)) / "objects";
    std::error_code ec;
    for (const git_oid& id : kept) {
        const std::string hex = oid_hex(id);
        fs::remove(objects / hex.substr(0, 2) / hex.substr(2), ec);
    }
    return kept.size();
}

} // namespace ksweep::git
